"""Errors and diagnostics shared by every stage.

One exception tree: KnapperError -> SyntaxProblem, CheckProblem, RulesetRuntimeError,
IllegalMove, SaveFileError. Each carries diagnostics with a stable code and a span, rendered
one way: `path:line:col: error[K123]: message`, the source line with a caret, notes, a hint.
The text is made when an error is shown (`str(err)`, `err.render()`), not when it is raised.
"""

from __future__ import annotations

from pathlib import Path

import attrs


@attrs.frozen
class Span:
    file: str
    line: int
    col: int
    end_line: int
    end_col: int

    def __str__(self) -> str:
        if self.line <= 0:
            return self.file
        return f"{self.file}:{self.line}:{self.col}"


NO_SPAN = Span("<unknown>", 0, 0, 0, 0)


@attrs.frozen
class Note:
    span: Span
    message: str


@attrs.frozen
class Diagnostic:
    code: str
    message: str
    span: Span
    severity: str = "error"
    hint: str | None = None
    notes: tuple[Note, ...] = ()
    cite: str | None = None

    def sort_key(self) -> tuple:
        return (self.span.file, self.span.line, self.span.col, self.code, self.message)

    def render(self, sources: dict[str, str] | None = None) -> str:
        """The diagnostic as text, quoting its lines from `sources` (file -> text) or else
        from the files on disk."""
        return self._render(_SourceLines(sources))

    def _render(self, source: _SourceLines) -> str:
        lines = [f"{self.span}: {self.severity}[{self.code}]: {self.message}"]
        lines += _excerpt(self.span, source)
        for note in self.notes:
            lines.append(f"  note: {note.span}: {note.message}")
            lines += _excerpt(note.span, source)
        if self.cite:
            lines.append(f"  = rule: {self.cite}")
        if self.hint:
            lines.append(f"  = hint: {self.hint}")
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "file": self.span.file,
            "line": self.span.line,
            "col": self.span.col,
            "end_line": self.span.end_line,
            "end_col": self.span.end_col,
            "hint": self.hint,
            "cite": self.cite,
            "notes": [
                {"message": n.message, "file": n.span.file, "line": n.span.line} for n in self.notes
            ],
        }


class _SourceLines:
    """The lines of the files one rendering quotes: from the texts given, else from disk, each
    file read and split at most once (a check with many errors in one file reads it once)."""

    def __init__(self, sources: dict[str, str] | None):
        self.sources = sources or {}
        self.files: dict[str, list[str]] = {}

    def line(self, span: Span) -> str | None:
        lines = self.files.get(span.file)
        if lines is None:
            lines = self.files[span.file] = self._read(span.file).splitlines()
        return lines[span.line - 1] if 1 <= span.line <= len(lines) else None

    def _read(self, file: str) -> str:
        text = self.sources.get(file)
        if text is not None:
            return text
        path = Path(file)
        try:
            return path.read_text(encoding="utf-8") if path.is_file() else ""
        except (OSError, UnicodeDecodeError):
            return ""  # shown without its source line: showing an error must not raise


def _excerpt(span: Span, source: _SourceLines) -> list[str]:
    if span.line <= 0:
        return []
    src = source.line(span)
    if src is None:
        return []
    width = max(
        1, (span.end_col - span.col) if span.end_line == span.line else len(src) - span.col + 1
    )
    gutter = f"{span.line:>4} | "
    return [gutter + src, " " * (len(gutter) + span.col - 1) + "^" * width]


class KnapperError(Exception):
    """Base of every error Knapper reports; carries one or more diagnostics.

    Raising one reads no file and renders nothing (an agent may try thousands of refused
    moves); the text is made when the error is shown, by `str(err)` (made once, then kept) or
    `err.render()`, quoting `sources` (file -> text) or else the files on disk."""

    kind = "error"

    def __init__(
        self, diagnostics: list[Diagnostic] | Diagnostic, sources: dict[str, str] | None = None
    ):
        if isinstance(diagnostics, Diagnostic):
            diagnostics = [diagnostics]
        self.diagnostics = sorted(diagnostics, key=Diagnostic.sort_key)
        self.sources = dict(sources) if sources else {}
        self._text: str | None = None
        super().__init__(self.diagnostics, self.sources)  # what pickling passes back to us

    def __str__(self) -> str:
        if self._text is None:
            self._text = self.render()
        return self._text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"

    @property
    def code(self) -> str:
        return self.diagnostics[0].code

    def render(self) -> str:
        source = _SourceLines(self.sources)
        return "\n".join(d._render(source) for d in self.diagnostics)


class SyntaxProblem(KnapperError):
    kind = "syntax"


class CheckProblem(KnapperError):
    kind = "check"


class RulesetRuntimeError(KnapperError):
    kind = "runtime"


class IllegalMove(KnapperError):
    kind = "illegal-move"


class SaveFileError(KnapperError):
    kind = "save-file"


def read_source(path: Path | str, span: Span | None = None) -> str:
    """A ruleset or scenario file's text, or a K101 error saying why it cannot be read."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        problem = "it is not UTF-8 text"
    except IsADirectoryError:
        problem = "it is a folder"
    except OSError as err:
        problem = err.strerror or str(err)
    raise KnapperError(
        diag("K101", f"cannot read {path}: {problem}", span or Span(str(path), 0, 0, 0, 0))
    )


def did_you_mean(name: str, candidates) -> str | None:
    """A hint naming the closest candidate, if any is close enough. Hidden helper names
    (`$...`) are never suggested; note keys (`interpretation:x`) are shown as written."""
    import difflib

    shown = [c for c in candidates if not str(c).startswith("$")]
    close = difflib.get_close_matches(name, shown, n=1, cutoff=0.6)
    return f"did you mean {close[0].replace(':', ' ')!r}?" if close else None


def diag(code: str, message: str, span: Span, **kw) -> Diagnostic:
    return Diagnostic(code=code, message=message, span=span, **kw)

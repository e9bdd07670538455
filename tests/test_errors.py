"""Errors are rendered when shown, not when raised: raising reads no file, the text is the
same as it always was, and an error survives pickling (a worker process's error reaches the
parent whole)."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from dsl.errors import (
    CheckProblem,
    Diagnostic,
    IllegalMove,
    KnapperError,
    Note,
    Span,
    diag,
)
from interpreter.api import load, new_game


@pytest.fixture
def file_reads(monkeypatch) -> list[str]:
    """The files looked at or read from now on (existence checks included)."""
    seen: list[str] = []
    read_text, is_file = Path.read_text, Path.is_file

    def counted_read(self, *args, **kwargs):
        seen.append(str(self))
        return read_text(self, *args, **kwargs)

    def counted_is_file(self):
        seen.append(str(self))
        return is_file(self)

    monkeypatch.setattr(Path, "read_text", counted_read)
    monkeypatch.setattr(Path, "is_file", counted_is_file)
    return seen


def _refused() -> IllegalMove:
    state = new_game(load("tic-tac-toe"), players=2, seed=0)
    with pytest.raises(IllegalMove) as err:
        state.apply("x")
    return err.value


def test_a_refused_move_reads_no_file_not_even_when_it_is_shown(file_reads):
    state = new_game(load("tic-tac-toe"), players=2, seed=0)
    file_reads.clear()
    for _ in range(20):
        with pytest.raises(IllegalMove) as err:
            state.apply("x")
    assert file_reads == []
    assert " 33 |     let i = choose p from free" in str(err.value)
    assert file_reads == []  # quoted from the text the game was compiled from


def test_a_refused_move_renders_as_it_always_did():
    err = _refused()
    file = err.diagnostics[0].span.file
    expected = (
        f"{file}:33:5: error[K502]: 'x' is not one of the options\n"
        '  33 |     let i = choose p from free as "place your mark" §rules\n'
        "           " + "^" * 54 + "\n"
        "  = rule: rules\n"
        "  = hint: the options are: 0, 1, 2, 3, 4, 5, 6, 7, 8"
    )
    assert str(err) == expected
    assert err.render() == expected
    assert repr(err) == f"IllegalMove({expected!r})"


def test_str_is_made_once(monkeypatch):
    err = _refused()
    renders = []
    render = Diagnostic._render

    def counted(self, *args):
        renders.append(self.code)
        return render(self, *args)

    monkeypatch.setattr(Diagnostic, "_render", counted)
    assert str(err) == str(err) == str(err)
    assert renders == ["K502"]


def test_one_rendering_reads_each_file_once(tmp_path, file_reads):
    path = tmp_path / "rules.knap"
    path.write_text("line one\nline two\nline three\n", encoding="utf-8")
    at = [Span(str(path), n, 1, n, 5) for n in (1, 2, 3)]
    err = CheckProblem(
        [
            diag("K300", "first", at[0], notes=(Note(at[2], "see here"),)),
            diag("K301", "second", at[1]),
        ]
    )
    file_reads.clear()
    text = err.render()
    assert file_reads == [str(path)] * 2
    assert "   1 | line one" in text
    assert "   2 | line two" in text
    assert "   3 | line three" in text


def test_sources_given_are_quoted_and_kept_as_they_were(file_reads):
    sources = {"a.knap": "first\nsecond\n"}
    err = KnapperError(diag("K1", "boom", Span("a.knap", 2, 1, 2, 4)), sources)
    sources["a.knap"] = "changed\nchanged\n"
    assert str(err) == "a.knap:2:1: error[K1]: boom\n   2 | second\n       ^^^"
    assert file_reads == []


def test_the_text_matches_each_diagnostic_rendered_alone(tmp_path):
    path = tmp_path / "r.knap"
    path.write_text("alpha\nbeta\n", encoding="utf-8")
    found = [
        diag("K2", "later", Span(str(path), 2, 1, 2, 3), hint="try again"),
        diag("K1", "earlier", Span(str(path), 1, 2, 1, 4), cite="§1"),
        diag("K3", "nowhere", Span("<unknown>", 0, 0, 0, 0)),
    ]
    err = CheckProblem(found)
    by_position = sorted(found, key=Diagnostic.sort_key)
    assert str(err) == "\n".join(d.render() for d in by_position)


def test_an_unreadable_file_is_shown_without_its_line(tmp_path):
    path = tmp_path / "latin1.knap"
    path.write_bytes("caf\xe9\n".encode("latin-1"))
    err = KnapperError(diag("K1", "odd", Span(str(path), 1, 1, 1, 2)))
    assert str(err) == f"{path}:1:1: error[K1]: odd"
    missing = KnapperError(diag("K1", "gone", Span(str(tmp_path / "none.knap"), 1, 1, 1, 2)))
    assert str(missing).endswith("error[K1]: gone")


def test_an_error_survives_pickling():
    err = _refused()
    err.trace = b"steps"  # type: ignore[attr-defined] - as `simulate` attaches one
    again = pickle.loads(pickle.dumps(err))
    assert type(again) is IllegalMove
    assert again.diagnostics == err.diagnostics
    assert again.code == "K502"
    assert str(again) == str(err)
    assert again.trace == b"steps"
    check = CheckProblem(diag("K1", "boom", Span("a.knap", 1, 1, 1, 2)), {"a.knap": "x = 1\n"})
    assert str(pickle.loads(pickle.dumps(check))) == str(check)

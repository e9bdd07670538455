"""Parsed files kept on disk between runs, so a ruleset unchanged since the last run is not
parsed again (parsing is most of the time `knapper check` takes).

An entry is named by a digest of the file's text, the path it was read at (the tree's spans
name it) and the parser itself (the grammar and the modules that build the tree), so changing
any of them misses the old entries. An entry is written to a temporary file and renamed into
place, so writers running at once never leave a torn one; an entry that cannot be read is
ignored and the file parsed again.

The folder is `$KNAPPER_CACHE_DIR`, else `$XDG_CACHE_HOME/knapper`, else `~/.cache/knapper`;
`KNAPPER_CACHE_DIR=off` turns the cache off. Entries are pickles: the folder must be one only
its user can write, as a user's cache folder is.
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import tempfile
from pathlib import Path

from dsl.resources import grammar_text
from dsl.syntax import ast

_OFF = ("off", "0", "no", "false")
# the modules that build a tree and define its nodes, below dsl/
_PARSER_CODE = (
    "syntax/parse.py",
    "syntax/ast.py",
    "syntax/limits.py",
    "syntax/examples.py",
    "errors.py",
)


def folder() -> Path | None:
    """Where entries are kept, or None when the cache is off."""
    chosen = os.environ.get("KNAPPER_CACHE_DIR")
    if chosen is not None:
        return None if chosen.strip().lower() in _OFF or not chosen.strip() else Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "knapper"


@functools.cache
def _parser_digest() -> bytes:
    """What the trees depend on besides the text: the grammar and the code that builds them."""
    h = hashlib.sha256(grammar_text().encode())
    here = Path(__file__).parent.parent
    for name in _PARSER_CODE:
        h.update((here / name).read_bytes())
    return h.digest()


def _entry(text: str, path: str) -> Path | None:
    where = folder()
    if where is None:
        return None
    h = hashlib.sha256(_parser_digest())
    h.update(path.encode("utf-8", "surrogatepass") + b"\0" + text.encode("utf-8", "surrogatepass"))
    name = h.hexdigest()
    return where / "parsed" / name[:2] / f"{name[2:]}.pickle"


def load(text: str, path: str) -> ast.File | None:
    """The tree stored for `text` read at `path`, or None (not stored, unreadable, or off)."""
    entry = _entry(text, path)
    if entry is None:
        return None
    try:
        found = pickle.loads(entry.read_bytes())
    except Exception:  # noqa: BLE001 - a missing or damaged entry is a miss, never an error
        return None
    return found if isinstance(found, ast.File) else None


def store(text: str, path: str, file: ast.File) -> None:
    """Keep the tree of `text`; a cache that cannot be written is skipped silently."""
    entry = _entry(text, path)
    if entry is None:
        return
    try:
        data = pickle.dumps(file, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, RecursionError):
        return
    write_atomically(entry, data)


def write_atomically(entry: Path, data: bytes) -> None:
    """`data` as the file `entry`, written to a temporary file beside it and renamed into
    place, so that a reader sees the old entry or the new one whole; an entry that cannot be
    written is skipped silently (a cache is only ever a shortcut)."""
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=entry.parent, suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(temporary, entry)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
        return

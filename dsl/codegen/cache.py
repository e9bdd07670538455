"""Part of stage 4: compiled games as bytes, kept on disk between runs and sent to workers.

`pack(game)` is a compiled Game as bytes and `unpack(data)` the Game again: a process that
unpacks a game plays it without compiling, as a worker of a simulation does
(interpreter/simulate.py). Functions go by value, through cloudpickle; the generated ones
(those of the namespace `<rules>`, dsl/codegen/exprs.py) as their code object and that one
namespace, which saves cloudpickle reading each one's bytecode for the names it uses (two
thirds of the time of packing a ruleset of a thousand functions). The bytes are read back by
the same Python version only, as code objects are.

`load(path, text)` and `store(path, text, game)` keep compiled rulesets on disk (and
`packed(path, text, fingerprint)` reads an entry's bytes as they are, for sending), beside the
parsed files of dsl/syntax/cache.py and in the same folder (`KNAPPER_CACHE_DIR=off` turns
both off). An entry is named by the ruleset's path, its text and the compiler (every module
of `dsl/` and of `interpreter/core/`, the grammar, Python's bytecode and cloudpickle's
version), so a change to any of them misses the old entries. It lists every file the
ruleset imports or extends with a digest of its text; an entry whose files have changed
since is a miss, and the ruleset is compiled again. Entries are written whole and renamed
into place, as parsed files are, so writers running at once never leave a torn one; an entry
that cannot be read is a miss.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import io
import marshal
import pickle
import types
from pathlib import Path

import cloudpickle

from dsl.codegen.exprs import intern_texts
from dsl.errors import KnapperError, Span, diag, read_source
from dsl.resources import grammar_text
from dsl.syntax.cache import folder, write_atomically
from interpreter.core.game import Game

# what a compiled game depends on besides its files: the compiler and the engine it targets
_COMPILER_CODE = ("dsl", "interpreter/core")


class _Packer(cloudpickle.Pickler):
    def reducer_override(self, obj):
        kind = type(obj)
        if (
            kind is types.FunctionType
            and obj.__globals__.get("__name__") == "<rules>"
            and obj.__closure__ is None
            and obj.__kwdefaults__ is None
            and not obj.__dict__
        ):
            return types.FunctionType, (
                obj.__code__,
                obj.__globals__,
                obj.__name__,
                obj.__defaults__,
            )
        if kind is types.CodeType:
            return marshal.loads, (marshal.dumps(obj),)
        return super().reducer_override(obj)


_MARK = b"knapper game\0"


def _header() -> bytes:
    """What begins a packed game: a mark, and the digest of the compiler and of the Python
    that packed it (`compiler_digest`), which must be those of the process unpacking it."""
    return _MARK + compiler_digest()[:16]


def pack(game: Game) -> bytes:
    """`game` as bytes, its generated functions included."""
    out = io.BytesIO()
    out.write(_header())
    _Packer(out, protocol=pickle.HIGHEST_PROTOCOL).dump(game)
    return out.getvalue()


def unpack(data: bytes, where: str = "<packed game>") -> Game:
    """The Game `pack` made `data` of; K472 when `data` is not one, or was packed by
    another Knapper or Python version. Unpack only what your own processes packed: the
    bytes are a pickle."""
    header = _header()
    if not isinstance(data, bytes) or not data.startswith(_MARK):
        raise _refused("the data is not a packed game", where)
    if not data.startswith(header):
        raise _refused("the game was packed by another version of Knapper or of Python", where)
    try:
        game = pickle.loads(memoryview(data)[len(header) :])
    except Exception as err:  # noqa: BLE001 - whatever broke, the bytes are no game
        raise _refused(f"the packed game cannot be read ({type(err).__name__})", where) from None
    if not isinstance(game, Game):
        raise _refused("the data is not a packed game", where)
    if game.code and game.code[0]:  # every generated function shares one namespace
        intern_texts(game.code[0][0].__globals__)
    return game


def _refused(message: str, where: str) -> KnapperError:
    hint = "pack the game again with this Knapper (dsl.codegen.cache.pack)"
    return KnapperError(diag("K472", message, Span(where, 0, 0, 0, 0), hint=hint))


@functools.cache
def compiler_digest() -> bytes:
    """A digest of the grammar, of every module the compiled code comes from or calls, and
    of what reads the bytes back: Python's bytecode (code objects are kept in its marshal
    format, which changes between Python versions) and cloudpickle."""
    root = Path(__file__).resolve().parent.parent.parent
    h = hashlib.sha256(grammar_text().encode())
    h.update(importlib.util.MAGIC_NUMBER + cloudpickle.__version__.encode())
    for part in _COMPILER_CODE:
        for module in sorted((root / part).rglob("*.py")):
            h.update(str(module.relative_to(root)).encode() + b"\0" + module.read_bytes())
    return h.digest()


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _entry(path: str, text: str) -> Path | None:
    where = folder()
    if where is None:
        return None
    h = hashlib.sha256(compiler_digest())
    h.update(path.encode("utf-8", "surrogatepass") + b"\0" + _digest(text))
    name = h.hexdigest()
    return where / "compiled" / name[:2] / f"{name[2:]}.pickle"


def load(path: str, text: str) -> Game | None:
    """The game stored for the ruleset `text` read at `path`, if each file it imports or
    extends still has the text it was compiled from; else None."""
    found = _stored(path, text)
    if found is None:
        return None
    try:
        return unpack(found[1])
    except Exception:  # noqa: BLE001 - a damaged entry is a miss
        return None


def packed(path: str, text: str, fingerprint: str) -> bytes | None:
    """What `pack` makes of the game stored for `text` at `path`, read as it was stored
    (without unpacking or packing it again), if that game is the one of `fingerprint`
    (`Game.fingerprint`: of the same sources); else None."""
    found = _stored(path, text)
    return found[1] if found is not None and found[0] == fingerprint else None


def _stored(path: str, text: str) -> tuple[str, bytes] | None:
    """The fingerprint and the packed bytes of the entry for `text` at `path`, if every file
    it lists still has the text it was compiled from."""
    entry = _entry(path, text)
    if entry is None:
        return None
    try:
        files, fingerprint, data = pickle.loads(entry.read_bytes())
        for name, digest in files:
            if _digest(read_source(name)) != digest:
                return None
    except Exception:  # noqa: BLE001 - a damaged or unreadable entry, or a file gone, is a miss
        return None
    if not isinstance(fingerprint, str) or not isinstance(data, bytes):
        return None
    return fingerprint, data


def store(path: str, text: str, game: Game) -> None:
    """Keep the compiled `game` of `text` read at `path`; a cache that cannot be written is
    skipped silently."""
    entry = _entry(path, text)
    if entry is None:
        return
    sources = getattr(game.program, "sources", None) or {}
    files = tuple((name, _digest(body)) for name, body in sorted(sources.items()) if name != path)
    try:
        data = pickle.dumps((files, game.fingerprint, pack(game)), protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, RecursionError):
        return
    write_atomically(entry, data)

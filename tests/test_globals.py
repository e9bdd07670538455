"""No module-level mutable state in `dsl/` and `interpreter/`: two formatters in threads keep
their own comments, and a static guard finds module-level containers that are changed after
import and `global` statements."""

from __future__ import annotations

import ast
import threading
import time
from pathlib import Path

from dsl.resources import rulesets_root
from dsl.syntax import fmt
from dsl.syntax.fmt import format_text

ROOT = Path(__file__).resolve().parent.parent

# Module-level containers that are changed on purpose, each with its reason.
KEPT = {
    # `load` reuses a compiled Game (immutable) until one of its files changes; a lock per
    # file (kept in `_locks`, under `_locks_guard`) lets threads that miss at once compile once
    ("interpreter/api.py", "_cache"),
    ("interpreter/api.py", "_locks"),
    # the RL adapters' measured action space per ruleset and player count: two threads that
    # miss at once measure the same seeded games and store the same number
    ("interpreter/frontends/adapters/actions.py", "_measured"),
    # what this process registered with pyspiel, whose own game registry is process-wide
    ("interpreter/frontends/adapters/openspiel_game.py", "_registered"),
}

_MUTATORS = {
    "append", "extend", "insert", "add", "update", "setdefault", "pop", "popitem",
    "clear", "remove", "discard", "sort", "reverse", "__setitem__", "__delitem__",
}  # fmt: skip
_CONTAINER_CALLS = {"dict", "list", "set", "defaultdict", "OrderedDict", "Counter", "deque"}


def _commented_texts() -> list[tuple[str, str]]:
    """Two bundled files with many comments, so a comment handed to the wrong file shows."""
    files = [
        rulesets_root() / "aurignac" / "board.knap",
        rulesets_root() / "cro-magnon" / "europe.knap",
    ]
    return [(str(p), p.read_text(encoding="utf-8")) for p in files]


def _yield_in_fmt(frame, event, arg):
    """A thread trace function: give the other threads a turn at every call in `dsl.syntax.fmt`, so
    two formatters interleave as finely as they can."""
    if frame.f_code.co_filename == fmt.__file__:
        time.sleep(0)


def test_two_formatters_in_threads_keep_their_own_comments():
    texts = _commented_texts()
    expected = {path: format_text(text, path) for path, text in texts}
    got: list[tuple[str, str]] = []
    failures: list[BaseException] = []
    start = threading.Barrier(len(texts))

    def work(path: str, text: str) -> None:
        start.wait()
        try:
            for _ in range(2):
                got.append((path, format_text(text, path)))
        except BaseException as err:  # noqa: BLE001 - reported below
            failures.append(err)

    threading.settrace(_yield_in_fmt)
    try:
        threads = [threading.Thread(target=work, args=pair) for pair in texts]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        threading.settrace(None)  # type: ignore[arg-type]
    assert not failures
    assert sorted(path for path, _ in got) == sorted(path for path, _ in texts * 2)
    for path, out in got:
        assert out == expected[path], path


def _module_state(path: Path, root: Path = ROOT) -> list[str]:
    """`global` statements, and module-level containers changed anywhere in their module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = [
        f"line {node.lineno}: global {', '.join(node.names)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Global)
    ]
    containers = set()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        literal = (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)
        call = isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1]
        if isinstance(value, literal) or call in _CONTAINER_CALLS:
            containers |= {t.id for t in targets if isinstance(t, ast.Name)}

    def named(node) -> str | None:
        return node.id if isinstance(node, ast.Name) and node.id in containers else None

    for node in ast.walk(tree):
        changed = None
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Delete)):
            targets = node.targets if isinstance(node, (ast.Assign, ast.Delete)) else [node.target]
            for t in targets:
                if isinstance(t, ast.Subscript | ast.Attribute):
                    changed = changed or named(t.value)
                elif isinstance(node, ast.AugAssign):
                    changed = changed or named(t)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr in _MUTATORS:
                changed = named(node.func.value)
        if changed and (path.relative_to(root).as_posix(), changed) not in KEPT:
            found.append(f"line {node.lineno}: module-level {changed} changed")
    return found


def test_no_module_level_mutable_state():
    found = {
        str(path.relative_to(ROOT)): problems
        for package in ("dsl", "interpreter")
        for path in sorted((ROOT / package).rglob("*.py"))
        if (problems := _module_state(path))
    }
    assert found == {}


def test_the_guard_sees_changed_globals(tmp_path):
    source = tmp_path / "m.py"
    source.write_text(
        "_seen = {}\n_order = []\nTABLE = {'a': 1}\nflag = None\n\n"
        "def f(x):\n    global flag\n    flag = x\n    _seen[x] = 1\n    _order.append(x)\n"
        "    return TABLE[x]\n"
    )
    problems = _module_state(source, tmp_path)
    assert problems == [
        "line 7: global flag",
        "line 9: module-level _seen changed",
        "line 10: module-level _order changed",
    ]

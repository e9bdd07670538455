"""The layers import one way: syntax -> semantics -> code generation, and the engine core on its
own, so a server, an adapter or an agent can run games without the compiler.

Every import in dsl/ and interpreter/ (at module level or inside a function) is read from the
source and checked against the table below; `import interpreter.core` is run in a fresh
interpreter to show that it loads neither Lark nor the checker nor the code generator.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

# layer -> the layers its modules may import
ALLOWED = {
    "base": {"base"},
    "syntax": {"base", "syntax"},
    "semantics": {"base", "syntax", "semantics"},
    "core": {"base", "syntax", "core"},
    "codegen": {"base", "syntax", "semantics", "core", "codegen"},
    "tools": {"base", "syntax", "semantics", "core", "codegen", "tools"},
    "engine": {"base", "syntax", "semantics", "core", "codegen", "tools", "engine"},
    "frontends": {"base", "syntax", "semantics", "core", "codegen", "tools", "engine", "frontends"},
}


def layer(module: str) -> str:
    """The layer of a module of dsl or interpreter, by its package."""
    for prefix, name in (
        ("dsl.syntax", "syntax"),
        ("dsl.semantics", "semantics"),
        ("dsl.codegen", "codegen"),
        ("dsl.tools", "tools"),
        ("dsl.pipeline", "tools"),
        ("dsl", "base"),  # dsl itself, dsl.errors, dsl.resources
        ("interpreter.core", "core"),
        ("interpreter.frontends", "frontends"),
        ("interpreter", "engine"),  # api, save, agents, simulate, scenario, trace, ...
    ):
        if module == prefix or module.startswith(prefix + "."):
            return name
    raise AssertionError(f"{module} belongs to no layer: add its package to test_layers.py")


def modules() -> dict[str, Path]:
    found = {}
    for folder in ("dsl", "interpreter"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imports(path: Path, known: set[str]) -> set[str]:
    """The project's modules that `path` imports (`from pkg import module` counts as the
    module when it is one)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
            out |= {f"{node.module}.{alias.name}" for alias in node.names} & known
    return {m for m in out if m.split(".")[0] in ("dsl", "interpreter")}


MODULES = modules()


def test_every_module_has_a_layer():
    for name in MODULES:
        assert layer(name) in ALLOWED


def violations(name: str, path: Path) -> list[str]:
    here = layer(name)
    return sorted(m for m in imports(path, set(MODULES)) if layer(m) not in ALLOWED[here])


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_follow_the_layers(name):
    wrong = violations(name, MODULES[name])
    assert not wrong, f"{name} ({layer(name)}) may not import {wrong}"


def test_the_check_can_fail(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "from dsl.syntax import ast\n"
        "def f():\n    from dsl.semantics import check  # even inside a function\n"
        "    from dsl.codegen.compile import Compiler\n"
    )
    assert violations("interpreter.core.m", module) == [
        "dsl.codegen.compile",
        "dsl.semantics",
        "dsl.semantics.check",
    ]
    assert violations("interpreter.scenario", module) == []


def test_the_engine_core_imports_no_lark_and_no_compiler():
    code = (
        "import sys\n"
        "import interpreter.core.state, interpreter.core.runtime, interpreter.core.chance\n"
        "import interpreter.core.game, interpreter.core.rng, interpreter.core.failure\n"
        "bad = [m for m in sys.modules if m == 'lark' or m.startswith(('lark.', "
        "'dsl.semantics', 'dsl.codegen', 'dsl.tools', 'dsl.syntax.parse'))]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""

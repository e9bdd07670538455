"""Every ```knap block in docs/*.md is a complete file that parses, and most of them work.

Documentation examples are the language reference's evidence, so each one is used exactly as
written:

- every block parses (with `dsl.syntax.parse`, the parser the tools use);
- every `ruleset` and `variant` block passes `knapper check` (through `dsl.pipeline`), as if
  it were saved in `docs/examples/`, so it may import the libraries kept there, and a few
  seeded random games of it end without a runtime error and keep its invariants;
- every `scenarios for` block runs, beside copies of `docs/examples/`, and all its
  scenarios pass.

Every ```python block runs; when the page follows it with "It prints:" and a ```text block,
the block's output must be exactly that text.

A knap block whose opening fence is preceded by the line `<!-- knap: parse-only -->` is only
parsed: a library (it is checked with the rulesets that import it) or a fragment that shows
one mechanism without being a playable game. The files in `docs/examples/` (the tutorial's
variant and scenario, the guide's library) are held to the same rules, and each of them is
shown in full on some page, exactly as it is.

Numbers about the rulesets' data are written `{{ ruleset: expression }}` and computed when
the site is built (docs/hooks.py); every one of them evaluates.
"""

import contextlib
import io
import re
from pathlib import Path

import pytest

from dsl.pipeline import compile_text, load_program
from dsl.syntax.parse import parse
from interpreter.agents import RandomAgent, play_out
from interpreter.api import new_game
from interpreter.scenario import run_file

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
EXAMPLES_DIR = DOCS / "examples"
PARSE_ONLY = "<!-- knap: parse-only -->"
HEADERS = ("ruleset ", "variant ", "library ", "scenarios ")

# A fence opens with ```knap alone on its line and closes with ``` alone on its line.
_BLOCK = re.compile(r"^```knap[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_PYTHON = re.compile(
    r"^```python[ \t]*\n(.*?)^```[ \t]*\n(?:\s*It prints:\s*\n```text[ \t]*\n(.*?)^```)?",
    re.MULTILINE | re.DOTALL,
)


def _examples() -> list[tuple[str, int, str, bool]]:
    """(file name, line of the opening fence, block text, parse only?) for every knap block."""
    found = []
    for path in sorted(DOCS.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        for match in _BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1].strip()
            found.append((path.name, line, match.group(1), before == PARSE_ONLY))
    return found


def _python_examples() -> list[tuple[str, int, str, str | None]]:
    """(file name, line, code, expected output or None) for every python block."""
    found = []
    for path in sorted(DOCS.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        for match in _PYTHON.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((path.name, line, match.group(1), match.group(2)))
    return found


def _kind(text: str) -> str:
    return text.lstrip().split(None, 1)[0]


def _errors(text: str, path: Path) -> list[str]:
    _program, diagnostics, sources = load_program(text, str(path))
    return [d.render(sources) for d in diagnostics if d.severity == "error"]


def _scenario_failures(path: Path) -> list[str]:
    return [f"{r.name}: {'; '.join(r.problems)}" for r in run_file(path) if not r.passed]


def _ids(examples) -> list[str]:
    return [f"{name}:{line}" for name, line, *_ in examples]


EXAMPLES = _examples()
RUNNABLE = [e for e in EXAMPLES if not e[3] and _kind(e[2]) in ("ruleset", "variant")]
SCENARIOS = [e for e in EXAMPLES if not e[3] and _kind(e[2]) == "scenarios"]
EXAMPLE_FILES = sorted(EXAMPLES_DIR.glob("*.knap"))
SCENARIO_FILES = sorted(EXAMPLES_DIR.glob("*.scenario"))
PYTHON = _python_examples()


def test_docs_have_examples() -> None:
    assert EXAMPLES, f"no ```knap blocks found under {DOCS}"


@pytest.mark.parametrize(("name", "line", "text", "parse_only"), EXAMPLES, ids=_ids(EXAMPLES))
def test_example_parses(name: str, line: int, text: str, parse_only: bool) -> None:
    assert text.lstrip().startswith(HEADERS), (
        f"{name}:{line}: an example must be a whole file starting with its header "
        '(`ruleset "..."`, `variant "..." extends "..."`, `library "..."` or `scenarios for "..."`)'
    )
    parse(text, f"{name}:{line}")


@pytest.mark.parametrize(("name", "line", "text", "parse_only"), RUNNABLE, ids=_ids(RUNNABLE))
def test_example_checks(name: str, line: int, text: str, parse_only: bool) -> None:
    errors = _errors(text, EXAMPLES_DIR / f"{Path(name).stem}-{line}.knap")
    assert not errors, f"{name}:{line}: `knapper check` reports:\n" + "\n".join(errors)


@pytest.mark.parametrize(("name", "line", "text", "parse_only"), RUNNABLE, ids=_ids(RUNNABLE))
def test_example_plays(name: str, line: int, text: str, parse_only: bool) -> None:
    game = compile_text(text, str(EXAMPLES_DIR / f"{Path(name).stem}-{line}.knap"))
    for players in sorted(set(game.players)):
        for seed in range(3):
            state = new_game(game, players=players, seed=seed)
            play_out(state, RandomAgent(seed), check_invariants=True)
            assert state.is_over()


@pytest.mark.parametrize(("name", "line", "text", "parse_only"), SCENARIOS, ids=_ids(SCENARIOS))
def test_example_scenarios_pass(name, line, text, parse_only, tmp_path) -> None:
    # beside copies of docs/examples/, so a scenario may name a ruleset kept there by path
    for source in EXAMPLE_FILES:
        (tmp_path / source.name).write_text(source.read_text(encoding="utf-8"), encoding="utf-8")
    path = tmp_path / f"{Path(name).stem}-{line}.scenario"
    path.write_text(text, encoding="utf-8")
    failures = _scenario_failures(path)
    assert not failures, f"{name}:{line}: scenarios fail:\n" + "\n".join(failures)


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=[p.name for p in EXAMPLE_FILES])
def test_example_file_checks(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    if _kind(text) == "library":
        parse(text, str(path))
        return
    errors = _errors(text, path)
    assert not errors, f"{path.name}: `knapper check` reports:\n" + "\n".join(errors)


@pytest.mark.parametrize("path", SCENARIO_FILES, ids=[p.name for p in SCENARIO_FILES])
def test_example_scenario_file_passes(path: Path) -> None:
    failures = _scenario_failures(path)
    assert not failures, f"{path.name}: scenarios fail:\n" + "\n".join(failures)


@pytest.mark.parametrize(("name", "line", "code", "expected"), PYTHON, ids=_ids(PYTHON))
def test_python_example_runs(name: str, line: int, code: str, expected: str | None) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, f"{name}:{line}", "exec"), {"__name__": "__docs__"})  # noqa: S102
    if expected is not None:
        assert out.getvalue() == expected, f"{name}:{line}: the example prints something else"


@pytest.mark.parametrize("path", EXAMPLE_FILES + SCENARIO_FILES, ids=lambda p: p.name)
def test_example_file_is_shown_as_it_is(path: Path) -> None:
    """The pages print the files of docs/examples/ in full; the printed copy is the real one."""
    shown = {text for _, _, text, _ in EXAMPLES}
    assert path.read_text(encoding="utf-8") in shown, (
        f"no page shows docs/examples/{path.name} exactly as it is"
    )


def test_every_builtin_is_documented() -> None:
    """The language guide's table of built-in functions lists every one of them."""
    from dsl.semantics.builtins import BUILTINS

    guide = (DOCS / "language.md").read_text(encoding="utf-8")
    missing = [name for name in BUILTINS if f"| `{name}` |" not in guide]
    assert not missing, f"docs/language.md does not list the built-ins {missing}"


def test_every_error_code_is_documented() -> None:
    """docs/errors.md has a line for every code that dsl/ and interpreter/ can report."""
    codes = set()
    for package in ("dsl", "interpreter"):
        for source in (ROOT / package).rglob("*.py"):
            codes |= set(re.findall(r"""["'](K\d{3})["']""", source.read_text(encoding="utf-8")))
    listed = (DOCS / "errors.md").read_text(encoding="utf-8")
    missing = sorted(code for code in codes if f"| {code} |" not in listed and code != "K999")
    assert not missing, f"docs/errors.md does not explain {missing}"


# ------------------------------------------------------------------ numbers from the data
def _hooks():
    """docs/hooks.py, the mkdocs hook that computes `{{ ruleset: expression }}`."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("docs_hooks", DOCS / "hooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PAGES_WITH_DATA = sorted(p for p in DOCS.glob("*.md") if _hooks().placeholders(p.read_text()))


def test_pages_about_the_games_take_their_numbers_from_the_rulesets() -> None:
    names = {p.name for p in PAGES_WITH_DATA}
    assert {"aurignac.md", "neanderthal.md", "tutorial.md", "index.md"} <= names


@pytest.mark.parametrize("path", PAGES_WITH_DATA, ids=lambda p: p.name)
def test_every_number_from_the_data_evaluates(path: Path) -> None:
    hooks = _hooks()
    rendered = hooks.render(path.read_text(encoding="utf-8"))
    assert not hooks.placeholders(rendered)


def test_a_placeholder_is_the_value_of_its_expression() -> None:
    hooks = _hooks()
    from dsl.errors import read_source
    from dsl.semantics.resolve import find_ruleset
    from dsl.syntax import ast

    path = find_ruleset("aurignac")
    assert path is not None
    program, _, _ = load_program(read_source(path), str(path))
    assert program is not None
    tracks = next(t for t in program.get(ast.Table) if t.name == "s_tracks")
    costs = [sum(i.value for i in row.args[1].items) for row in tracks.rows]
    text = (
        "{{ aurignac: min([sum(t.steps) for t in rows(s_tracks)]) }} to "
        "{{aurignac:max([sum(t.steps) for t in rows(s_tracks)])}} Food, "
        "{{ aurignac: [1, 2] }}; {{ aurignac: notes(deviation) }} deviations; "
        "`{{ aurignac: shown as written }}`"
    )
    deviations = sum(n.kind == "deviation" for n in program.get(ast.Note))
    assert hooks.render(text) == (
        f"{min(costs)} to {max(costs)} Food, 1, 2; {deviations} deviations; "
        "`{{ aurignac: shown as written }}`"
    )

"""Diagnostics are expect-tests: every broken ruleset in tests/diagnostics/ beside its output.

Each `NN-short-name.knap` directly in tests/diagnostics/ is checked with `knapper check`
(in process, through click's CliRunner, from the repository root so paths print relative)
and the rendered stderr plus an `exit: N` line must equal `NN-short-name.expected`.
Helper rulesets that variants extend live in tests/diagnostics/bases/ and are not cases.

Regenerate every .expected with `python tests/diagnostics/regen.py`, then review the diff.
"""

from __future__ import annotations

import contextlib
import difflib
import re
import sys
import traceback
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CASES_DIR = ROOT / "tests" / "diagnostics"
REGEN = "python tests/diagnostics/regen.py"

if str(ROOT) not in sys.path:  # so `pytest` works without installing the package
    sys.path.insert(0, str(ROOT))


def cases() -> list[Path]:
    """Every case: the .knap files directly in tests/diagnostics/ (not in bases/)."""
    return sorted(CASES_DIR.glob("*.knap"))


def expected_path(case: Path) -> Path:
    return case.with_suffix(".expected")


def render_case(case: Path) -> str:
    """What `knapper check CASE` prints on stderr, paths relative to the root, then `exit: N`."""
    from click.testing import CliRunner

    from interpreter.frontends.cli import main

    relative = case.resolve().relative_to(ROOT).as_posix()
    with contextlib.chdir(ROOT):
        result = CliRunner().invoke(main, ["check", relative])
    text = result.stderr + result.stdout
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        text += "".join(traceback.format_exception(*result.exc_info))
    # Bundled rulesets (a variant's base) are found by absolute path.
    text = text.replace(ROOT.as_posix() + "/", "")
    if text and not text.endswith("\n"):
        text += "\n"
    return f"{text}exit: {result.exit_code}\n"


CASES = cases()
IDS = [case.stem for case in CASES]


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    return {case.stem: render_case(case) for case in CASES}


def test_corpus_is_complete() -> None:
    assert len(CASES) >= 30
    missing = [c.name for c in CASES if not expected_path(c).is_file()]
    stale = [
        e.name for e in sorted(CASES_DIR.glob("*.expected")) if not e.with_suffix(".knap").is_file()
    ]
    assert not missing, f"cases without .expected (run `{REGEN}`): {missing}"
    assert not stale, f".expected files without a case: {stale}"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_diagnostics_match_expected(case: Path, rendered: dict[str, str]) -> None:
    actual = rendered[case.stem]
    wanted = expected_path(case)
    expected = wanted.read_text(encoding="utf-8") if wanted.is_file() else ""
    if actual != expected:
        diff = "".join(
            difflib.unified_diff(
                expected.splitlines(keepends=True),
                actual.splitlines(keepends=True),
                fromfile=f"{wanted.name} (expected)",
                tofile=f"{case.name} (actual)",
            )
        )
        pytest.fail(
            f"diagnostics of {case.name} changed; if intended, run `{REGEN}` and "
            f"review the diff\n{diff}",
            pytrace=False,
        )


_HEAD = re.compile(
    r"^(?P<file>[^\s:][^:]*):\d+:\d+: (?P<severity>error|warning)\[(?P<code>K\d{3})\]: ",
    re.MULTILINE,
)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_case_reports_an_error_without_crashing(case: Path, rendered: dict[str, str]) -> None:
    output = rendered[case.stem]
    assert "Traceback" not in output
    assert "internal error" not in output
    heads = list(_HEAD.finditer(output))
    # a case with only warnings still checks (exit 0); any error fails the check (exit 1)
    errors = any(h["severity"] == "error" for h in heads)
    assert output.endswith("exit: 1\n" if errors else "exit: 0\n"), output
    assert heads, f"{case.name} reports no error:\n{output}"
    # The problem is reported in the case itself, where its author would look.
    assert heads[0]["file"] == case.relative_to(ROOT).as_posix(), output
    # One kind of problem per case keeps each expected output small and meaningful.
    assert len({h["code"] for h in heads}) == 1, output

"""A mutation run over the engine's core and the code generator (not part of CI).

mutmut (the optional dependency group `mutation`) changes one point of the code at a time
and runs a small, fast kill suite against each change; a change that no test notices is a
survivor, listed with its diff for a person to judge (docs/reliability.md records the last
run and the judgements).

mutmut edits copies of the files it mutates, and the team edits the real ones, so this
script never runs in the working checkout: it clones the committed revision into a work
folder of its own, makes a virtual environment there, and runs mutmut inside it.

    python bench/mutation.py                      # HEAD, the core and the code generator, 2 workers
    python bench/mutation.py --files interpreter/core/rng.py --jobs 1
    python bench/mutation.py --sample 300 --seed 1   # a random subset of the mutants
    python bench/mutation.py --report-only        # the report of the last run again

The report (markdown) goes to stdout and to WORK/report.md.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import time
from collections import Counter
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FILES = [
    "interpreter/core/state.py",
    "interpreter/core/runtime.py",
    "interpreter/core/rng.py",
    "interpreter/save.py",
    "dsl/codegen/compile.py",
    "dsl/codegen/lower.py",
    "dsl/codegen/exprs.py",
    "dsl/codegen/link.py",
    "dsl/codegen/emit.py",
]
# fast tests that speak for the core directly (a few seconds in all); golden playthroughs
# and whole-ruleset playouts are left out on purpose: they catch changes by accident
KILL_SUITE = [
    "tests/test_core_semantics.py",
    "tests/test_core_state.py",
    "tests/test_save.py",
    "tests/test_api.py",
    "tests/test_zones.py",
    "tests/test_builtins.py",
    "tests/test_core_contract.py",
]
# Each mutant runs in a process forked from mutmut's own, which ran the kill suite once to
# learn which tests reach which function. Games compiled then would stay in
# `interpreter.api.load`'s cache and hide mutants of the code generator, so a small pytest
# plugin empties that cache when each mutant's test session starts. The clone property test
# over every bundled ruleset is left out for time (tests/test_core_semantics.py checks clones),
# and so is the test that tells a helper's error from an engine bug by the frames of its
# traceback, which mutmut's wrappers change.
_PLUGIN = """
def pytest_sessionstart(session):
    from interpreter import api

    api._cache.clear()
"""
_SETUP_CFG = """[mutmut]
source_paths =
    dsl
    interpreter
only_mutate =
{files}
also_copy =
    grammar
    rulesets
    docs
    bench
    mutation_fresh_games.py
pytest_add_cli_args =
    -p
    mutation_fresh_games
    --deselect=tests/test_core_state.py::test_a_clone_is_independent_of_the_original
    --deselect=tests/test_core_state.py::test_an_error_in_a_helper_the_rules_call_is_the_rulesets
pytest_add_cli_args_test_selection =
{tests}
"""
_RESULT = re.compile(r"^\s+(\S+): (.+)$")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/knapper-mutation"))
    parser.add_argument("--rev", default="HEAD", help="the committed revision to mutate")
    parser.add_argument("--files", nargs="+", default=FILES)
    parser.add_argument("--tests", nargs="+", default=KILL_SUITE)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--sample", type=int, help="run only this many mutants, at random")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed")
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)
    work: Path = args.work.resolve()
    if work == ROOT or ROOT in work.parents:
        parser.error("the work folder must be outside the checkout")
    if not args.report_only:
        commit = _prepare(work, args.rev, args.files, args.tests)
        started = time.monotonic()
        names = _sample(work, args.sample, args.seed) if args.sample else []
        _mutmut(work, "run", "--max-children", str(args.jobs), *names)
        minutes = (time.monotonic() - started) / 60
        (work / "run.txt").write_text(
            f"{commit}\n{date.today().isoformat()}\n{minutes:.1f}\n{args.sample or ''}\n"
        )
    report = _report(work)
    (work / "report.md").write_text(report)
    print(report)
    return 0


def _prepare(work: Path, rev: str, files: list[str], tests: list[str]) -> str:
    commit = _git(ROOT, "rev-parse", rev)
    if (work / ".git").is_dir():
        _git(work, "fetch", "-q", str(ROOT), commit)
        _git(work, "checkout", "-q", "--detach", commit)
    else:
        work.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", str(ROOT), str(work)], check=True)
        _git(work, "checkout", "-q", "--detach", commit)
    shutil.rmtree(work / "mutants", ignore_errors=True)  # results of another revision
    venv = work / ".venv"
    if not (venv / "bin" / "mutmut").exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
        subprocess.run([*pip, "-e", f"{work}[test,mutation]"], check=True)
    (work / "mutation_fresh_games.py").write_text(_PLUGIN)
    (work / "setup.cfg").write_text(
        _SETUP_CFG.format(
            files="\n".join(f"    {f}" for f in files),
            tests="\n".join(f"    {t}" for t in tests),
        )
    )
    return commit


def _sample(work: Path, size: int, seed: int) -> list[str]:
    """Generate the mutants (a run of a name that matches none), then draw `size` of them."""
    _mutmut(work, "run", "--max-children", "1", "no.such.mutant")
    names = sorted(name for name, _status in _results(work))
    return sorted(random.Random(seed).sample(names, min(size, len(names))))


def _mutmut(work: Path, *args: str) -> str:
    done = subprocess.run(
        [str(work / ".venv" / "bin" / "mutmut"), *args],
        cwd=work,
        capture_output=True,
        text=True,
    )
    with (work / "mutmut.log").open("a") as log:
        log.write(done.stdout + done.stderr)
    return done.stdout


def _results(work: Path) -> list[tuple[str, str]]:
    out = _mutmut(work, "results", "--all", "true")
    return [(m[1], m[2]) for line in out.splitlines() if (m := _RESULT.match(line))]


def _report(work: Path) -> str:
    commit, day, minutes, sample, *_ = (work / "run.txt").read_text().split("\n")
    results = [(name, status) for name, status in _results(work) if status != "not checked"]
    counts = Counter(status for _name, status in results)
    checked = len(results)
    killed = counts["killed"]
    lines = [
        f"mutation run of {commit[:12]} on {day} ({minutes} minutes"
        + (f", a sample of {sample} mutants)" if sample else ")"),
        "",
        f"score: {killed}/{checked} killed ({100 * killed / max(checked, 1):.1f}%)",
        "statuses: " + ", ".join(f"{status} {n}" for status, n in sorted(counts.items())),
        "",
        "per file (killed/checked):",
    ]
    per_file: dict[str, Counter] = {}
    for name, status in results:
        module = name.rsplit(".", 1)[0]  # interpreter.core.state.xǁStateǁapply__mutmut_3
        per_file.setdefault(module, Counter())[status] += 1
    for module, c in sorted(per_file.items()):
        lines.append(f"- {module}: {c['killed']}/{sum(c.values())}")
    lines += ["", "not killed:"]
    survivors = [name for name, status in results if status != "killed"]
    diffs = _diffs(work, survivors)
    for name, status in results:
        if status == "killed":
            continue
        changed = [
            line
            for line in diffs[name].splitlines()
            if line[:1] in ("-", "+") and line[:3] not in ("---", "+++")
        ]
        lines.append(f"- `{name}` ({status})")
        lines += [f"      {line}" for line in changed]
    return "\n".join(lines) + "\n"


_DIFFS = """
import json, sys
from mutmut.__main__ import find_mutant, get_diff_for_mutant
names = sys.stdin.read().split()
json.dump({n: get_diff_for_mutant(n, path=find_mutant(n).path) for n in names}, sys.stdout)
"""


def _diffs(work: Path, names: list[str]) -> dict[str, str]:
    """Each mutant's diff, from one process (`mutmut show` would start one per mutant)."""
    done = subprocess.run(
        [str(work / ".venv" / "bin" / "python"), "-c", _DIFFS],
        cwd=work,
        input="\n".join(names),
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def _git(where: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=where, check=True, capture_output=True, text=True
    ).stdout.strip()


if __name__ == "__main__":
    sys.exit(main())

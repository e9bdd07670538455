"""The long fuzz run: random typed rulesets and randomly edited saves (tests/security/fuzzing.py)
must each be refused with a KnapperError or play on. Counts how many were refused, played
and escaped (any other exception, with its type and a first example), and the CPU time.

    python bench/fuzz.py -n 10000
    python bench/fuzz.py -n 2000 --only saves

Exits 1 if anything escaped. The suite's tests/security/test_fuzz.py runs a bounded share of
the same cases.
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for path in (ROOT, ROOT / "tests"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from security.fuzzing import FORMS, RULESETS, edited_save, run_ruleset, run_save  # noqa: E402

HIGH_CARD = str(ROOT / "tests/fixtures/high-card.knap")
SAVED = ["tic-tac-toe", "pig", HIGH_CARD, "aurignac", "neanderthal"]


def run(kind: str, cases: int) -> tuple[collections.Counter, dict[str, str], float]:
    """Run `cases` fuzz cases of `kind` (rulesets or saves): outcome counts, one example per
    escaped exception type, CPU seconds."""
    counts: collections.Counter = collections.Counter()
    examples: dict[str, str] = {}

    def record(case: str, attempt) -> None:
        try:
            counts[attempt()] += 1
        except Exception as err:  # noqa: BLE001 - what the fuzz looks for
            name = f"escaped {type(err).__name__}"
            counts[name] += 1
            examples.setdefault(name, f"{case[:300]}\n  -> {err!r}"[:600])

    options = settings(
        max_examples=cases,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    if kind == "rulesets":

        @options
        @given(RULESETS)
        def one(text):
            record(text, lambda: run_ruleset(text))

    else:

        @options
        @given(
            st.sampled_from(SAVED),
            st.integers(0, 10_000),
            st.integers(0, 30),
            st.sampled_from(FORMS),
        )
        def one(name, seed, moves, form):
            def attempt() -> str:
                result = run_save(name, edited_save(name, seed, moves, form), seed, form)
                # a signed save edited without the key must never load
                if form == "tampered" and result == "played":
                    return "escaped: a tampered save loaded"
                return f"{form} {result}"

            record(f"{form} save of {name} seed {seed} after {moves}", attempt)

    start = time.process_time()
    one()
    return counts, examples, time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=2000, help="cases of each kind")
    parser.add_argument("--only", choices=["rulesets", "saves"], help="one kind only")
    args = parser.parse_args()
    escaped = 0
    for kind in [args.only] if args.only else ["rulesets", "saves"]:
        counts, examples, cpu = run(kind, args.n)
        shown = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        print(f"{kind}: {sum(counts.values())} cases in {cpu:.1f} s CPU: {shown}")
        for name, example in examples.items():
            print(f"  {name}: {example}")
        escaped += sum(v for k, v in counts.items() if k.startswith("escaped"))
    sys.exit(1 if escaped else 0)


if __name__ == "__main__":
    main()

"""The balance report: a `Balance` (interpreter/balance.py) as pictures, Markdown and HTML.

`write_report(study, folder, command)` writes into `folder`: `report.md` and `report.html`
(the same text; the HTML is made from the Markdown), `balance.json` (`Balance.to_json()`),
and each picture as PNG and SVG: `wins` (win rate by seat and by agent, with 95% intervals),
`scores` (each seat's scores), `length` (decisions and rounds per game), `reached` (the
rules and decisions the fewest games reached) and, when the ruleset declares roles, `roles`.
The pictures are drawn with matplotlib's object API (no pyplot, no display), and the SVGs
carry no date, so the same study writes the same files. Needs the `report` extra
(matplotlib, markdown).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import orjson

from interpreter.balance import Balance, Rate, Reached

RAREST = 25  # rules and decisions drawn in `reached`
PICTURES = ("wins", "scores", "length", "reached", "roles")


def write_report(study: Balance, folder: Path, command: str) -> list[Path]:
    """Write the report of `study` (made by `command`, quoted so that a reader can run it
    again) into `folder`, made if missing; return the files written."""
    folder.mkdir(parents=True, exist_ok=True)
    written = [folder / "balance.json"]
    written[0].write_bytes(orjson.dumps(study.to_json(), option=orjson.OPT_INDENT_2) + b"\n")
    pictures = _draw(study, folder)
    for name in pictures:
        written += [folder / f"{name}.png", folder / f"{name}.svg"]
    text = markdown_text(study, command, pictures)
    (folder / "report.md").write_text(text, encoding="utf-8")
    (folder / "report.html").write_text(_html(study, text), encoding="utf-8")
    return written + [folder / "report.md", folder / "report.html"]


# ---------------------------------------------------------------- the pictures


def _draw(study: Balance, folder: Path) -> list[str]:
    """Draw each picture the study has data for; return their names."""
    import matplotlib

    drawn = []
    with matplotlib.rc_context({"svg.hashsalt": "knapper", "font.size": 9}):
        for name in PICTURES:
            figure = _DRAWERS[name](study)
            if figure is None:
                continue
            figure.savefig(folder / f"{name}.png", dpi=110, metadata={"Software": None})
            figure.savefig(folder / f"{name}.svg", metadata={"Date": None})
            drawn.append(name)
    return drawn


def _figure(width: float, height: float, panels: int = 1):
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), layout="constrained")
    return figure, figure.subplots(1, panels, squeeze=False)[0]


def _rates(axes, rates: Sequence[Rate], title: str, even: float | None) -> None:
    """Bars of win rates with their 95% intervals; a dashed line at an even share."""
    labels = [r.label for r in rates]
    values = [r.rate for r in rates]
    below = [r.rate - r.interval[0] for r in rates]
    above = [r.interval[1] - r.rate for r in rates]
    axes.bar(labels, values, yerr=[below, above], capsize=4, color="#4c72b0")
    if even is not None:
        axes.axhline(even, linestyle="--", color="#888888", linewidth=1, label="even share")
        axes.legend(loc="upper right")
    axes.set_ylim(0, 1)
    axes.set_ylabel("games won")
    axes.set_title(title)
    axes.tick_params(axis="x", labelrotation=20 if len(labels) > 4 else 0)


def _wins(study: Balance):
    figure, (seats, agents) = _figure(9, 3.4, 2)
    even = study.even_share if study.finished else None
    _rates(seats, study.by_seat, "by seat (95% intervals)", even)
    _rates(agents, study.by_agent, "by agent, over every seat it took", even)
    return figure


def _scores(study: Balance):
    if study.scores is None:
        return None
    figure, (axes,) = _figure(5.5, 3.4)
    axes.boxplot(
        [list(s.values) for s in study.scores], tick_labels=[r.label for r in study.by_seat]
    )
    axes.set_ylabel("score at the end")
    axes.set_title("scores by seat")
    return figure


def _length(study: Balance):
    if not study.decisions.values:
        return None
    figure, (decisions, rounds) = _figure(9, 3.2, 2)
    decisions.hist(study.decisions.values, bins=20, color="#55a868")
    decisions.set_xlabel("decisions per game")
    decisions.set_ylabel("games")
    rounds.hist(
        study.rounds.values, bins=max(1, min(20, len(set(study.rounds.values)))), color="#c44e52"
    )
    rounds.set_xlabel("rounds per game")
    return figure


def rarest(study: Balance, k: int = RAREST) -> list[Reached]:
    """The `k` rules and decisions the fewest games reached, of those any game reached (the
    report lists the others)."""
    return sorted((r for r in study.reached if r.games), key=lambda r: (r.games, r.kind, r.name))[
        :k
    ]


def _reached(study: Balance):
    few = rarest(study)
    if not few:
        return None
    never = sum(1 for r in study.reached if not r.games)
    figure, (axes,) = _figure(8, 0.25 * len(few) + 1.2)
    labels = [f"{r.kind} {r.name[:40]}" + (f" (§{r.cite})" if r.cite else "") for r in few]
    shares = [r.games / study.finished for r in few]
    axes.barh(labels, shares, color="#8172b2")
    axes.invert_yaxis()
    axes.set_xlim(0, 1)
    axes.set_xlabel(
        "share of games that reached it" + (f"; {never} more reached by none" if never else "")
    )
    axes.set_title(f"the {len(few)} rules and decisions the fewest games reached")
    return figure


def _roles(study: Balance):
    if not study.roles:
        return None
    figure, (axes,) = _figure(5.5, 3.2)
    _rates(axes, study.roles, "games won by role (95% intervals)", None)
    return figure


_DRAWERS = {
    "wins": _wins,
    "scores": _scores,
    "length": _length,
    "reached": _reached,
    "roles": _roles,
}


# ---------------------------------------------------------------- the text


def _percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def _rate_rows(rates: Sequence[Rate]) -> list[str]:
    rows = ["| | won | of | rate | 95% interval |", "|---|---:|---:|---:|---|"]
    for r in rates:
        low, high = r.interval
        rows.append(
            f"| {r.label} | {r.wins} | {r.games} | {_percent(r.rate)} | "
            f"{_percent(low)} – {_percent(high)} |"
        )
    return rows


def _spread_row(label: str, spread) -> str:
    d = spread.to_json()
    if not d["n"]:
        return f"| {label} | – | – | – | – | – |"
    return f"| {label} | {d['mean']} | {d['sd']} | {d['min']} | {d['median']} | {d['max']} |"


def markdown_text(study: Balance, command: str, pictures: Sequence[str] = PICTURES) -> str:
    """The report as Markdown; `pictures` are the ones drawn (shown as their SVG)."""
    first = study.first_player
    never = [r for r in study.reached if r.games == 0]
    out = [
        f"# Balance of {study.title} ({study.players} players)",
        "",
        f"{study.finished} of {study.games} games finished (seeds {study.seed} to "
        f"{study.seed + study.games - 1}), seats: {', '.join(study.agents)}"
        + (
            "; each game seats the agents one place on from the one before."
            if study.rotate
            else "."
        ),
        f"{study.no_winner} games ended with no winner. "
        f"The games took {study.cpu_seconds:.1f} s of CPU time, {study.wall_seconds:.1f} s "
        "on the clock.",
        "",
        "Made by:",
        "",
        f"    {command}",
        "",
        "## Wins",
        "",
    ]
    if "wins" in pictures:
        out += ["![win rates by seat and by agent](wins.svg)", ""]
    out += [
        "By seat:",
        "",
        *_rate_rows(study.by_seat),
        "",
        "By agent:",
        "",
        *_rate_rows(study.by_agent),
    ]
    out += [
        "",
        f"First player's advantage: {100 * first['advantage']:+.1f} points over an even "
        f"share of {_percent(first['even_share'])} (95% interval "
        f"{100 * first['ci95'][0]:+.1f} to {100 * first['ci95'][1]:+.1f}).",
        "",
    ]
    if study.roles:
        out += ["## Roles", ""]
        if "roles" in pictures:
            out += ["![games won by role](roles.svg)", ""]
        out += [*_rate_rows(study.roles), ""]
    out += ["## Scores and length", ""]
    if "scores" in pictures:
        out += ["![scores by seat](scores.svg)", ""]
    if "length" in pictures:
        out += ["![decisions and rounds per game](length.svg)", ""]
    out += ["| | mean | sd | min | median | max |", "|---|---:|---:|---:|---:|---:|"]
    if study.scores is not None:
        out += [_spread_row(f"score {r.label}", s) for r, s in zip(study.by_seat, study.scores)]
    out += [_spread_row("decisions", study.decisions), _spread_row("rounds", study.rounds), ""]
    out += [
        "## What the games reached",
        "",
        f"{len(study.reached) - len(never)} of the {len(study.reached)} phases, steps, "
        f"effects, procedures and decisions were reached in at least one game.",
        "",
    ]
    if "reached" in pictures:
        out += ["![the rules the fewest games reached](reached.svg)", ""]
    if never:
        out += ["Never reached:", "", "| kind | name | § | where |", "|---|---|---|---|"]
        out += [f"| {r.kind} | {r.name} | {r.cite or ''} | `{r.where}` |" for r in never]
        out.append("")
    codes = Counter(f["code"] for f in study.findings)
    if codes:
        listed = ", ".join(f"{k} × {code}" for code, k in sorted(codes.items()))
        out += [
            f"Dynamic findings: {listed} (`knapper lint --simulate` lists them; "
            "docs/errors.md says what each code means).",
            "",
        ]
    if study.failures:
        out += ["## Games that failed", "", "| seed | code | § | message |", "|---:|---|---|---|"]
        out += [
            f"| {f['seed']} | {f['code']} | {f['cite'] or ''} | {f['message']} |"
            for f in study.failures
        ]
        out.append("")
    return "\n".join(out)


def _html(study: Balance, text: str) -> str:
    import markdown

    body = markdown.markdown(text, extensions=["tables"])
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Balance of {study.title}</title><style>"
        "body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 8px}"
        "img{max-width:100%}</style></head><body>\n"
        f"{body}\n</body></html>\n"
    )

"""The terminal summary of a report: the most important numbers and tables, within 80 columns (the
parts every kind's summary uses; a kind's own summary is in its package, e.g. ``reports/sprt/text.py``)."""

from __future__ import annotations

import shlex
import textwrap
from typing import Any

from coordinator.escape import terminal
from coordinator.reports.engines import FAULT_KINDS, FAULT_LABELS
from coordinator.sprt.report import duration
from coordinator.tuning.outcomes import tally_text

#: The width every line of the summary fits in.
WIDTH = 80


def fit(line: str) -> str:
    """``line`` within :data:`WIDTH` columns: a longer line (a headline, a list of names) goes on
    over indented lines, cut nowhere (the tables are laid out to fit)."""
    if len(line) <= WIDTH:
        return line
    return "\n".join(textwrap.wrap(line, WIDTH, subsequent_indent="    ", break_on_hyphens=False))


def wrap_command(command: str) -> list[str]:
    """A shell command over several lines of at most :data:`WIDTH` columns (``\\`` continued)."""
    lines: list[str] = []
    current = " "
    for word in (shlex.quote(terminal(part)) for part in shlex.split(command)):
        if len(current) + len(word) + 3 > WIDTH and current.strip():
            lines.append(current + " \\")
            current = "    "
        current += " " + word
    lines.append(current)
    return lines


def num(value: float | None, spec: str = ".1f") -> str:
    """A number, or ``-`` when there is none."""
    return "-" if value is None else format(value, spec)


def engines_lines(engines: dict[str, Any]) -> list[str]:
    """The engines of a run in the status text: each side's name, version and options, the
    limits, the faults (with the last one's reason and stderr) and each worker's time factor."""
    lines = []
    for side, e in engines["sides"].items():
        what = e["kind"] if e["commit"] is None else f"commit {e['commit']['sha']} ({e['commit']['repo']})"
        options = " ".join(f"{k}={v}" for k, v in e["options"].items())
        lines.append(
            f"{side}: {e['name']} [{what}]; version: {e['version'] or 'not reported'}"
            + (f"; options: {options}" if options else "")
        )
    lines.append(f"limits: {engines['limits']}")
    for side, e in engines["sides"].items():
        f = e["faults"]
        if not f["total"]:
            continue
        kinds = ", ".join(f"{FAULT_LABELS[k]} {f[k]}" for k in FAULT_KINDS if f[k])
        last = f["last"]
        lines.append(
            f"faults of the {side}: {f['total']} ({kinds}); last: {last['reason']} "
            f"(worker {last['worker']}, batch {last['batch']})"
        )
        lines += [f"  stderr: {line}" for line in last["stderr"]]
    for w in engines["workers"]:
        if engines["timed"] or w["faults"]["total"]:
            lines.append(
                f"worker {w['worker']}: time factor {w['time_factor']:.2f} "
                f"({w['time_factor_min']:.2f} to {w['time_factor_max']:.2f}), faults {w['faults']['total']}"
            )
    return [terminal(line) for line in lines]


def move_times_line(times: dict[str, Any]) -> str | None:
    """The mean time per move of each engine, where the records have times."""
    shown = [
        f"{side} {t['mean_ms']:.0f} ms over {t['moves']} moves" for side, t in times.items() if t["moves"]
    ]
    return "time per move: " + ", ".join(shown) if shown else None


def tune_text(data: dict[str, Any]) -> str:
    """The summary of a tuning report."""
    r, t = data["run"], data["totals"]
    spsa = data.get("spsa")
    if spsa is not None:
        work = f"SPSA, {spsa['applied']} of {spsa['iterations']} iterations applied"
    else:
        work = tally_text(t["outcomes"])
    lines = [
        f"tuning run {r['id']} ({r['game']}): {r['state']}, {work}",
        f"{t['games']} games in {duration(t['seconds'])}, {num(t['games_per_second'])} games/s; champion "
        f"#{t['champion']} {t['champion_elo']:+.1f} +- {t['champion_elo95']:.1f} Elo vs start",
        "",
        f"{'champion':>8} {'trial':>5} {'Elo vs start (95%)':>19} {'SPRT Elo vs parent':>24} "
        f"{'games':>7} {'games/s':>8}",
    ]
    reigns = {row["champion"]: row for row in data["reigns"]}
    for c in data["champions"]:
        reign = reigns.get(c["number"], {})
        if c["number"] == 0:
            vs_parent, trial = "-", "start"
        else:
            lo, hi = c["elo_vs_parent_ci"]
            vs_parent, trial = f"{c['elo_vs_parent']:+.1f} [{lo:+.1f}, {hi:+.1f}]", str(c["trial"])
        elo = f"{c['elo_vs_start']:+.1f} +- {c['elo_vs_start95']:.1f}"
        lines.append(
            f"{'#' + str(c['number']):>8} {trial:>5} {elo:>19} {vs_parent:>24} "
            f"{reign.get('games', 0):>7} {num(reign.get('games_per_second')):>8}"
        )
    if data["acceptances"]:
        what = "trial" if spsa is None else "iter."
        lines += ["", f"{'acceptance':>10} {what:>5} {'limits':>12} {'games':>6} {'LLR':>6}  ending"]
        for a in data["acceptances"]:
            llr = a["series"]["llr"][-1] if a["series"]["llr"] else 0.0
            run = f"run {a['run_id']}"
            setting = a["setting"]
            lines.append(
                f"{run:>10} {a['trial']:>5} {setting:>12} {a['games']:>6} {llr:>6.2f}  {a['ending']}"
            )
    if spsa is not None:
        start = spsa["path"][0]["theta"]
        lines += ["", f"{'weight':<20} {'start':>8} {'theta':>9} {'change':>8}"]
        for name, value in spsa["theta"].items():
            lines.append(f"{name[:20]:<20} {start[name]:>8.0f} {value:>9.2f} {value - start[name]:>+8.2f}")
    changed = [w for w in data["weights"] if w["change"]]
    if changed:
        lines += ["", f"{'weight':<20} {'range':>12} {'default':>8} {'start':>7} {'final':>7} {'change':>7}"]
        for w in changed:
            span = f"{w['min']}..{w['max']}"
            lines.append(
                f"{w['name'][:20]:<20} {span:>12} {w['default']:>8} {w['start']:>7} {w['final']:>7} "
                f"{w['change']:>+7}"
            )
    importance = (data.get("optuna", {}).get("importance") or {}).get("values") or {}
    if importance:
        top = ", ".join(f"{k} {v:.2f}" for k, v in list(importance.items())[:4])
        lines += ["", f"most important (Optuna): {top}"]
    return "\n".join([*(fit(line) for line in lines), "", "reproduce:", *wrap_command(data["command"])])


#: The head-to-head table's columns: engine, opponent, W, D, L, game pairs (the engine's view).
_H2H_ROW = "{:<20} {:<20} {:>4} {:>4} {:>4}  {}"
#: The rating list's columns: rank, name, Elo, +/-, games, score %, draws %.
_RATING_ROW = "{:>4}  {:<32} {:>7} {:>6} {:>6} {:>7} {:>7}"


def tournament_text(data: dict[str, Any]) -> str:
    """A tournament's summary: where it stands and its rating list (and the champion chain)."""
    run = data["run"]
    lines = [
        fit(
            f"tournament {run['id']} ({data['format']}, {run['game']}): {run['state']}, "
            f"{data['games']}/{data['planned_games']} games counted, {len(data['engines'])} engines"
        )
    ]
    if run.get("error"):
        lines.append(fit(f"error: {terminal(run['error'])}"))
    if not data["ratings"]:
        lines.append(
            fit(f"no ratings: {terminal(data['ratings_error'])}")
            if "ratings_error" in data
            else "no games counted yet"
        )
        return "\n".join(lines)
    confidence = 100 * data["confidence"]
    anchor = terminal(data["anchor"]) if data["anchor"] else "the mean"
    lines.append(fit(f"ratings: {data['model']}, Elo relative to {anchor}, +/- at {confidence:g}%"))
    lines.append(_RATING_ROW.format("rank", "name", "Elo", "+/-", "games", "score%", "draws%"))
    for r in data["ratings"]:
        lines.append(
            _RATING_ROW.format(
                r["rank"],
                terminal(r["name"])[:32],
                f"{r['elo']:+.1f}",
                num(r["error"]),
                r["games"],
                num(None if r["score"] is None else 100 * r["score"]),
                num(None if r["draw_rate"] is None else 100 * r["draw_rate"]),
            )
        )
    if data["head_to_head"]:
        lines += ["", _H2H_ROW.format("engine", "opponent", "W", "D", "L", "pairs LL LD DD/WL WD WW")]
        for h in data["head_to_head"]:
            pairs = "-" if h["pentanomial"] is None else " ".join(map(str, h["pentanomial"]))
            lines.append(
                _H2H_ROW.format(
                    terminal(h["engine"])[:20],
                    terminal(h["opponent"])[:20],
                    h["wins"],
                    h["draws"],
                    h["losses"],
                    pairs,
                )
            )
    if data["chain"] is not None:
        lines.append(f"champions of tuning run {data['champions_of']}:")
        lines += [f"  {line}" for line in data["chain"]["lines"]]
    return "\n".join(lines)


def noted(text: str, unverifiable: str | None) -> str:
    """The terminal summary ``text`` of a report (its kind's), with the "unverifiable" line of an
    unverifiable run under its first line."""
    if unverifiable:
        first, _, rest = text.partition("\n")
        return f"{first}\n{terminal(unverifiable)}\n{rest}"
    return text

"""The terminal summary of a report: the most important numbers and tables, within 80 columns."""

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


def _fit(line: str) -> str:
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


def _num(value: float | None, spec: str = ".1f") -> str:
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
        lines += fault_lines(f"the {side}", e["faults"])
    for w in engines["workers"]:
        if engines["timed"] or w["faults"]["total"]:
            lines.append(
                f"worker {w['worker']}: time factor {w['time_factor']:.2f} "
                f"({w['time_factor_min']:.2f} to {w['time_factor_max']:.2f}), faults {w['faults']['total']}"
            )
    return [terminal(line) for line in lines]


def fault_lines(who: str, f: dict[str, Any]) -> list[str]:
    """The faults of ``who`` (a side, an engine) by kind, the last one's reason and its stderr
    lines (none without a fault; not escaped)."""
    if not f["total"]:
        return []
    kinds = ", ".join(f"{FAULT_LABELS[k]} {f[k]}" for k in FAULT_KINDS if f[k])
    last = f["last"]
    return [
        f"faults of {who}: {f['total']} ({kinds}); last: {last['reason']} "
        f"(worker {last['worker']}, batch {last['batch']})",
        *(f"  stderr: {line}" for line in last["stderr"]),
    ]


def move_times_line(times: dict[str, Any]) -> str | None:
    """The mean time per move of each engine, where the records have times."""
    shown = [
        f"{side} {t['mean_ms']:.0f} ms over {t['moves']} moves" for side, t in times.items() if t["moves"]
    ]
    return "time per move: " + ", ".join(shown) if shown else None


def match_text(data: dict[str, Any]) -> str:
    """The summary of a match report."""
    r, h, t, s = data["run"], data["hypothesis"], data["totals"], data["stats"]
    parent = f", part of tuning run {r['parent']}" if r["parent"] else ""
    lines = [
        f"run {r['id']} ({r['kind']} {r['game']}{parent}): {r['state']}, {terminal(data['headline'])}",
        *([data["ending"]] if data["ending"] else []),
        f"SPRT: H0 {h['elo0']:g}, H1 {h['elo1']:g} ({h['elo_model']} Elo), alpha {h['alpha']:g}, "
        f"beta {h['beta']:g}",
    ]
    w, d, l = t["wdl"]  # noqa: E741
    lines.append(
        f"games: {t['games']}  W {w}  D {d}  L {l}  pairs {t['pairs']}  pentanomial {t['pentanomial']}"
    )
    if s is not None:
        lo, hi = s["sprt_elo_ci"]
        nlo, nhi = s["nelo_ci"]
        lines += [
            f"Elo: {s['elo']:.2f} +- {s['elo95']:.2f} (95%)  LOS: {100 * s['los']:.2f}%",
            f"SPRT Elo: {s['sprt_elo']:.2f} [{lo:.2f}, {hi:.2f}]  "
            f"nElo: {s['nelo']:.2f} [{nlo:.2f}, {nhi:.2f}]",
        ]
    else:
        lines.append("Elo: - (no game pair counted yet)")
    lines.append(
        f"batches: {t['counted_batches']} counted, {t['stored_batches']} stored; "
        f"{t['cpu_seconds']:.1f} s cpu in workers"
    )
    lines += ["", *engines_lines(data["engines"])]
    if (times := move_times_line(data["engines"]["move_times"])) is not None:
        lines.append(times)
    if data["endings"]:
        lines += ["", f"{'ended by':<26} {'games':>6}  {'cand. white W/D/L':>18}  {'cand. black W/D/L':>18}"]
        for e in data["endings"]:
            white = "/".join(str(e["candidate_white"][k]) for k in "WDL")
            black = "/".join(str(e["candidate_black"][k]) for k in "WDL")
            lines.append(
                f"{e['reason'] + ' (' + e['kind'] + ')':<26} {e['games']:>6}  {white:>18}  {black:>18}"
            )
    g = data["length"]
    if g["games"]:
        lines.append(
            f"length: mean {g['mean']:.1f} plies, median {g['median']}, min {g['min']}, max {g['max']}"
        )
    o = data["openings"]
    if o["helped"] or o["hurt"]:
        lines += ["", f"openings: {o['played']} played; pair points above even, best and worst:"]
        for row in o["helped"][:3] + o["hurt"][:3]:
            lines.append(f"  {row['net']:+5.1f} in {row['pairs']:>3} pairs  {row['opening']}")
        share = o["most_decisive_share"]
        if share is not None:
            lines.append(f"  the most decisive opening holds {100 * share:.0f}% of the total swing")
    workers = data["workers"]["workers"]
    if workers:
        lines += [
            "",
            f"{'worker':<24} {'games':>7} {'games/cpu-s':>11} {'knodes/cpu-s':>12} "
            f"{'refused':>7} {'resid.':>6}",
        ]
        for wk in workers:
            nps = wk["nodes_per_second"] / 1000 if wk["nodes_per_second"] is not None else None
            flag = " QUARANTINED" if wk["quarantined"] else " FLAG" if wk["flagged"] else ""
            lines.append(
                f"{terminal(wk['worker'])[:24]:<24} {wk['games']:>7} {_num(wk['games_per_second']):>11} "
                f"{_num(nps):>12} {wk['refused']:>7} {_num(wk['residual'], '.2f'):>6}{flag}"
            )
        for wk in workers:
            if wk["quarantined"]:
                lines.append(f"quarantined {terminal(wk['worker'])}: {terminal(wk['quarantined'])}")
    resent = data["workers"]["resent"]
    if resent:
        lines.append(f"re-sends: {resent} (batches sent again after no worker answered in time)")
    return "\n".join([*(_fit(line) for line in lines), "", "reproduce:", *wrap_command(data["command"])])


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
        f"{t['games']} games in {duration(t['seconds'])}, {_num(t['games_per_second'])} games/s; champion "
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
            f"{reign.get('games', 0):>7} {_num(reign.get('games_per_second')):>8}"
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
    return "\n".join([*(_fit(line) for line in lines), "", "reproduce:", *wrap_command(data["command"])])


#: The head-to-head table's columns: engine, opponent, W, D, L, game pairs (the engine's view).
_H2H_ROW = "{:<20} {:<20} {:>4} {:>4} {:>4}  {}"
#: The rating list's columns: rank, name, Elo, +/-, games, score %, draws %.
_RATING_ROW = "{:>4}  {:<32} {:>7} {:>6} {:>6} {:>7} {:>7}"


def tournament_text(data: dict[str, Any]) -> str:
    """A tournament's summary: where it stands and its rating list (and the champion chain)."""
    run = data["run"]
    lines = [
        _fit(
            f"tournament {run['id']} ({data['format']}, {run['game']}): {run['state']}, "
            f"{data['games']}/{data['planned_games']} games counted"
            + (f" (+{run['playing']} playing)" if run.get("playing") else "")
            + f", {len(data['engines'])} engines"
        )
    ]
    if run.get("error"):
        lines.append(_fit(f"error: {terminal(run['error'])}"))
    if not data["ratings"]:
        lines.append(
            _fit(f"no ratings: {terminal(data['ratings_error'])}")
            if "ratings_error" in data
            else "no games counted yet"
        )
        return "\n".join([*lines, *engines_facts(data["engines"])])
    confidence = 100 * data["confidence"]
    anchor = terminal(data["anchor"]) if data["anchor"] else "the mean"
    lines.append(_fit(f"ratings: {data['model']}, Elo relative to {anchor}, +/- at {confidence:g}%"))
    lines.append(_RATING_ROW.format("rank", "name", "Elo", "+/-", "games", "score%", "draws%"))
    for r in data["ratings"]:
        lines.append(
            _RATING_ROW.format(
                r["rank"],
                terminal(r["name"])[:32],
                f"{r['elo']:+.1f}",
                _num(r["error"]),
                r["games"],
                _num(None if r["score"] is None else 100 * r["score"]),
                _num(None if r["draw_rate"] is None else 100 * r["draw_rate"]),
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
    return "\n".join([*lines, *engines_facts(data["engines"])])


def engines_facts(engines: list[dict[str, Any]]) -> list[str]:
    """A tournament's time per move and faults of each engine, as a match's are said (after a
    blank line; nothing where no move was timed and no engine faulted)."""
    lines = []
    if (times := move_times_line({e["name"]: e["move_times"] for e in engines})) is not None:
        lines.append(times)
    for e in engines:
        lines += fault_lines(e["name"], e["faults"])
    return ["", *(_fit(terminal(line)) for line in lines)] if lines else []


def noted(text: str, data: dict[str, Any]) -> str:
    """The terminal summary ``text`` of a report (its kind's), with the "unverifiable" line of an
    unverifiable run under its first line."""
    if data.get("unverifiable"):
        first, _, rest = text.partition("\n")
        return f"{first}\n{terminal(data['unverifiable'])}\n{rest}"
    return text

"""The terminal summary of a tuning run's report, within 80 columns."""

from __future__ import annotations

from coordinator.reports.text import fit, num, wrap_command
from coordinator.reports.tuning.data import TuneReport
from coordinator.sprt.report import duration
from coordinator.tuning.outcomes import tally_text


def tune_text(data: TuneReport) -> str:
    """The summary of a tuning report."""
    r, t, spsa = data.run, data.totals, data.spsa
    if spsa is not None:
        work = f"SPSA, {spsa.applied} of {spsa.iterations} iterations applied"
    else:
        work = tally_text(t.outcomes)
    lines = [
        f"tuning run {r.id} ({r.game}): {r.state}, {work}",
        f"{t.games} games in {duration(t.seconds)}, {num(t.games_per_second)} games/s; champion "
        f"#{t.champion} {t.champion_elo:+.1f} +- {t.champion_elo95:.1f} Elo vs start",
        "",
        f"{'champion':>8} {'trial':>5} {'Elo vs start (95%)':>19} {'SPRT Elo vs parent':>24} "
        f"{'games':>7} {'games/s':>8}",
    ]
    reigns = {row.champion: row for row in data.reigns}
    for c in data.champions:
        reign = reigns.get(c.number)
        if c.number == 0:
            vs_parent, trial = "-", "start"
        else:
            lo, hi = c.elo_vs_parent_ci
            vs_parent, trial = f"{c.elo_vs_parent:+.1f} [{lo:+.1f}, {hi:+.1f}]", str(c.trial)
        elo = f"{c.elo_vs_start:+.1f} +- {c.elo_vs_start95:.1f}"
        games, rate = (reign.games, reign.games_per_second) if reign is not None else (0, None)
        lines.append(
            f"{'#' + str(c.number):>8} {trial:>5} {elo:>19} {vs_parent:>24} {games:>7} {num(rate):>8}"
        )
    if data.acceptances:
        what = "trial" if spsa is None else "iter."
        lines += ["", f"{'acceptance':>10} {what:>5} {'limits':>12} {'games':>6} {'LLR':>6}  ending"]
        for a in data.acceptances:
            llr = a.series.llr[-1] if a.series.llr else 0.0
            run = f"run {a.run_id}"
            lines.append(f"{run:>10} {a.trial:>5} {a.setting:>12} {a.games:>6} {llr:>6.2f}  {a.ending}")
    if spsa is not None:
        start = spsa.path[0].theta
        lines += ["", f"{'weight':<20} {'start':>8} {'theta':>9} {'change':>8}"]
        for name, value in spsa.theta.items():
            lines.append(f"{name[:20]:<20} {start[name]:>8.0f} {value:>9.2f} {value - start[name]:>+8.2f}")
    changed = [w for w in data.weights if w.change]
    if changed:
        lines += ["", f"{'weight':<20} {'range':>12} {'default':>8} {'start':>7} {'final':>7} {'change':>7}"]
        for w in changed:
            span = f"{w.min}..{w.max}"
            lines.append(
                f"{w.name[:20]:<20} {span:>12} {w.default:>8} {w.start:>7} {w.final:>7} {w.change:>+7}"
            )
    view = data.optuna
    importance = view.importance.values if view is not None and view.importance is not None else {}
    if importance:
        top = ", ".join(f"{k} {v:.2f}" for k, v in list(importance.items())[:4])
        lines += ["", f"most important (Optuna): {top}"]
    return "\n".join([*(fit(line) for line in lines), "", "reproduce:", *wrap_command(data.command)])

"""The terminal summary of a match run's report, within 80 columns."""

from __future__ import annotations

from coordinator.escape import terminal
from coordinator.reports.sprt.data import MatchReport
from coordinator.reports.text import engines_lines, fit, move_times_line, num, wrap_command


def match_text(data: MatchReport) -> str:
    """The summary of a match report."""
    r, h, t, s = data.run, data.hypothesis, data.totals, data.stats
    parent = f", part of tuning run {r.parent}" if r.parent else ""
    lines = [
        f"run {r.id} ({r.kind} {r.game}{parent}): {r.state}, {terminal(data.headline)}",
        *([data.ending] if data.ending else []),
        f"SPRT: H0 {h.elo0:g}, H1 {h.elo1:g} ({h.elo_model} Elo), alpha {h.alpha:g}, beta {h.beta:g}",
    ]
    w, d, l = t.wdl  # noqa: E741
    lines.append(f"games: {t.games}  W {w}  D {d}  L {l}  pairs {t.pairs}  pentanomial {t.pentanomial}")
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
        f"batches: {t.counted_batches} counted, {t.stored_batches} stored; "
        f"{t.cpu_seconds:.1f} s cpu in workers"
    )
    lines += ["", *engines_lines(data.engines)]
    if (
        data.engines.move_times is not None
        and (times := move_times_line(data.engines.move_times)) is not None
    ):
        lines.append(times)
    if data.endings:
        lines += ["", f"{'ended by':<26} {'games':>6}  {'cand. white W/D/L':>18}  {'cand. black W/D/L':>18}"]
        for e in data.endings:
            white = "/".join(map(str, e.candidate_white.counts()))
            black = "/".join(map(str, e.candidate_black.counts()))
            lines.append(f"{e.reason + ' (' + e.kind + ')':<26} {e.games:>6}  {white:>18}  {black:>18}")
    g = data.length
    if g.games:
        lines.append(f"length: mean {g.mean:.1f} plies, median {g.median}, min {g.min}, max {g.max}")
    o = data.openings
    if o.helped or o.hurt:
        lines += ["", f"openings: {o.played} played; pair points above even, best and worst:"]
        for row in o.helped[:3] + o.hurt[:3]:
            lines.append(f"  {row.net:+5.1f} in {row.pairs:>3} pairs  {row.opening}")
        if o.most_decisive_share is not None:
            lines.append(
                f"  the most decisive opening holds {100 * o.most_decisive_share:.0f}% of the total swing"
            )
    workers = data.workers.workers
    if workers:
        lines += [
            "",
            f"{'worker':<24} {'games':>7} {'games/cpu-s':>11} {'knodes/cpu-s':>12} "
            f"{'refused':>7} {'resid.':>6}",
        ]
        for wk in workers:
            nps = wk.nodes_per_second / 1000 if wk.nodes_per_second is not None else None
            flag = " QUARANTINED" if wk.quarantined else " FLAG" if wk.flagged else ""
            lines.append(
                f"{terminal(wk.worker)[:24]:<24} {wk.games:>7} {num(wk.games_per_second):>11} "
                f"{num(nps):>12} {wk.refused:>7} {num(wk.residual, '.2f'):>6}{flag}"
            )
        for wk in workers:
            if wk.quarantined:
                lines.append(f"quarantined {terminal(wk.worker)}: {terminal(wk.quarantined)}")
    if data.workers.resent:
        lines.append(f"re-sends: {data.workers.resent} (batches sent again after no worker answered in time)")
    return "\n".join([*(fit(line) for line in lines), "", "reproduce:", *wrap_command(data.command)])

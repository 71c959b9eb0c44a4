"""The terminal summary of a match's report."""

from __future__ import annotations

from coordinator.escape import terminal
from coordinator.reports.match.data import FixedGamesReport
from coordinator.reports.text import engines_lines


def match_text(data: FixedGamesReport) -> str:
    """The terminal summary of a match."""
    r, t, s = data.run, data.totals, data.stats
    sides = data.engines.sides
    w, d, l = t.wdl  # noqa: E741
    lines = [
        f"match {r.id} ({r.game}): {r.state}, {t.games} of {t.planned_games} games",
        terminal(f"{sides['candidate'].name} vs {sides['baseline'].name}"),
        f"games: {t.games}  W {w}  D {d}  L {l}  pentanomial {t.pentanomial}",
    ]
    if s is None:
        lines.append("no game pair counted yet")
    else:
        lines.append(f"Elo: {s.elo:+.2f} +- {s.elo95:.2f} (95%)  LOS: {100 * s.los:.2f}%")
        lines.append(f"nElo: {s.nelo:+.2f} +- {s.nelo95:.2f} (95%)")
    if r.error:
        lines.append(terminal(f"error: {r.error}"))
    return "\n".join(lines + engines_lines(data.engines))

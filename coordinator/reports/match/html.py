"""The HTML page of a match's report (made by ``reports.html.page``)."""

from __future__ import annotations

from typing import Any

from coordinator.reports.html import ReportPage, page, pairs_table, section
from coordinator.reports.match.data import FixedGamesReport


def match_html(data: FixedGamesReport) -> ReportPage:
    """The report page of a match: the result, the engines and the configuration."""
    r, t, s = data.run, data.totals, data.stats
    sides = data.engines.sides
    result: list[tuple[str, Any]] = [
        ("candidate", sides["candidate"].name),
        ("baseline", sides["baseline"].name),
        ("state", r.state),
        ("games", f"{t.games} of {t.planned_games}"),
        ("W / D / L", " / ".join(str(n) for n in t.wdl)),
        ("pentanomial", t.pentanomial),
    ]
    if s is not None:
        result += [
            ("Elo (95%)", f"{s.elo:+.1f} ± {s.elo95:.1f}"),
            ("LOS", f"{100 * s.los:.1f}%"),
            ("nElo (95%)", f"{s.nelo:+.1f} ± {s.nelo95:.1f}"),
        ]
    engines = [(side, f"{e.name} ({e.version or 'version not reported'})") for side, e in sides.items()]
    engines.append(("limits", data.engines.limits))
    config = [(key, value) for key, value in sorted(data.config.items()) if not isinstance(value, dict)]
    return page(
        f"Match {r.id}: {r.game}",
        section("result", "Result", pairs_table(result)),
        section("engines", "Engines", pairs_table(engines)),
        section("config", "Configuration", pairs_table(config)),
    )

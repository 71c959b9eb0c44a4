"""The data of a match's report, from the store: a
:class:`~coordinator.reports.match.data.FixedGamesReport`."""

from __future__ import annotations

from coordinator.match.config import MatchConfig
from coordinator.registry import kind_of
from coordinator.reports.data import RunInfo
from coordinator.reports.engines import masked_config
from coordinator.reports.match.data import FixedGamesReport, FixedTotals, MatchStats
from coordinator.stats import fixed_elo, nelo_pentanomial
from coordinator.store import Run, Store
from coordinator.trust.verifiable import unverifiable_note


def statistics(pentanomial: list[int]) -> MatchStats | None:
    """Elo with its 95% interval and LOS, and normalized Elo, of the counted game pairs (None
    before the first pair)."""
    if not sum(pentanomial):
        return None
    elo, nelo = fixed_elo(pentanomial), nelo_pentanomial(pentanomial)
    return MatchStats(elo=elo.elo, elo95=elo.elo95, los=elo.los, nelo=nelo.nelo, nelo95=nelo.nelo95)


def match_summary(store: Store, run: Run) -> FixedGamesReport:
    """What status, report and dashboard show of match ``run``."""
    config = run.settings_as(MatchConfig)
    totals = store.totals(run.id, run.counted_batches)
    return FixedGamesReport(
        run=RunInfo.of(run),
        totals=FixedTotals(
            games=totals.games,
            planned_games=config.max_games,
            pairs=sum(totals.pentanomial),
            pentanomial=totals.pentanomial,
            wdl=totals.wdl,
            counted_batches=run.counted_batches,
            planned_batches=config.max_batches,
            cpu_seconds=totals.cpu_seconds,
        ),
        stats=statistics(totals.pentanomial),
        engines=kind_of(run.kind).engines(store, run),
        config={**masked_config(run.config), "openings": len(config.openings)},
        unverifiable=unverifiable_note(run.config),
    )

"""Playing a tournament to its end with live progress, then its rating list on stdout."""

from __future__ import annotations

from typing import TYPE_CHECKING

from coordinator.console import show

if TYPE_CHECKING:
    from coordinator.executors.base import Executor
    from coordinator.sprt.runner import Progress
    from coordinator.store import Run, Store
    from coordinator.tournament.config import TournamentConfig


def progress_line(p: Progress, total: int) -> str:
    """One line of at most 80 columns: batches ended of the plan (in any order: the games
    counted are those of the batches ended in a row from the first), batches in flight, games
    counted (and still playing), games per second here."""
    from coordinator.sprt.report import fit_line

    playing = f" +{p.playing} playing" if p.playing else ""
    return fit_line(
        [
            (0, f"tournament {p.run_id}: {p.stored_batches}/{total} batches ended"),
            (0, p.refused or ""),
            (1, f"{p.in_flight} in flight"),
            (1, f"{p.games} games counted{playing}"),
            (2, f"{p.games_per_second:.1f}/s"),
        ]
    )


def play(store: Store, run: Run, config: TournamentConfig, executor: Executor) -> None:
    """Play every batch of ``run`` with live progress, then print its rating list on stdout.

    Ctrl-C or SIGTERM stop it between two steps; ``arbiter resume`` continues it."""
    from coordinator.reports import gather, terminal_summary
    from coordinator.sprt.drive import run_with_progress

    store.record_pairings(run.id, config.batch_names())
    total = config.max_batches
    run_with_progress(store, run, config, executor, lambda p: progress_line(p, total), "tournament")
    finished = store.get_run(run.id) or run
    show(terminal_summary(gather(store, finished)))

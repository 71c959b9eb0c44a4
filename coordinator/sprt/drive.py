"""Playing a run of games to its end with live progress (an SPRT's, and every kind that plays its
batches through :class:`~coordinator.sprt.runner.SprtRunner`), then its summary on stdout."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from coordinator.console import say, show
from coordinator.console.hints import resume_command
from coordinator.console.progress import ProgressPrinter
from coordinator.console.signals import graceful_stop

if TYPE_CHECKING:
    from coordinator.executors.base import Executor
    from coordinator.sprt.config import SprtConfig
    from coordinator.sprt.runner import MatchPlan, Progress
    from coordinator.store import Run, Store

INTERRUPTED_EXIT = 130
FAILED_EXIT = 1


def run_with_progress(
    store: Store,
    run: Run,
    config: MatchPlan,
    executor: Executor,
    line: Callable[[Progress], str],
    noun: str = "run",
) -> Progress:
    """Run ``run`` to its end with live progress lines (``line`` of each progress); its final
    progress. Ctrl-C or SIGTERM stop it between two steps (never inside a transaction) and exit
    saying how ``arbiter resume`` continues it; a failed run exits with its reason."""
    from coordinator.sprt.runner import RunFailed, SprtRunner

    printer = ProgressPrinter()
    try:
        with executor, graceful_stop() as stop:
            runner = SprtRunner(store, run.id, config, executor, on_progress=lambda p: printer.show(line(p)))
            progress = runner.run(stop_requested=stop)
    except KeyboardInterrupt:
        printer.finish()
        say(
            f"arbiter: {noun} {run.id} interrupted after {store.totals(run.id).games} counted games; "
            f"continue with: {resume_command(run.id, store.url, executor.broker_url())}"
        )
        sys.exit(INTERRUPTED_EXIT)
    except RunFailed as e:
        printer.finish()
        say(f"arbiter: {noun} {run.id} failed: {e}")
        sys.exit(FAILED_EXIT)
    printer.finish(line(progress))
    return progress


def play(store: Store, run: Run, config: SprtConfig, executor: Executor) -> None:
    """Run ``run`` to its decision with live progress, then print the summary on stdout."""
    from coordinator.sprt.report import progress_line, stored_progress, summary_text

    started = time.monotonic()
    progress = run_with_progress(store, run, config, executor, progress_line)
    finished = store.get_run(run.id) or run
    cpu = store.totals(run.id).cpu_seconds
    stored = replace(stored_progress(store, finished), games_played_here=progress.games_played_here)
    show(summary_text(finished, config, stored, time.monotonic() - started, cpu))

"""Driving a tuning run to its end with live progress, for ``arbiter tune`` and ``arbiter resume``:
the method's driver (SPSA or Optuna), then the champion's weights file, the HTML report and the
champions table."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coordinator.console import say, show
from coordinator.console.hints import resume_command
from coordinator.console.progress import ProgressPrinter
from coordinator.console.signals import graceful_stop
from coordinator.files import write_atomically
from coordinator.runs import RunState

if TYPE_CHECKING:
    from coordinator.executors.base import Executor
    from coordinator.store import Run, Store
    from coordinator.tuning.config import TuneConfig
    from coordinator.tuning.driver import TuningDriver


def make_driver(
    store: Store, run: Run, config: TuneConfig, executor: Executor, printer: ProgressPrinter, stop: Any
) -> TuningDriver:
    """The method's driver of ``run``, drawing its progress with ``printer``."""
    from coordinator.tuning.report import progress_line, spsa_progress_line

    if config.method == "spsa":
        from coordinator.tuning.spsa_tuner import SpsaTuner

        return SpsaTuner(
            store,
            run.id,
            config,
            executor,
            on_progress=lambda p: printer.show(spsa_progress_line(p, printer.width)),
            stop_requested=stop,
        )
    from coordinator.tuning.tuner import Tuner

    return Tuner(
        store,
        run.id,
        config,
        executor,
        on_progress=lambda p: printer.show(progress_line(p, config.max_trials, printer.width)),
        stop_requested=stop,
    )


def drive(
    store: Store, run: Run, config: TuneConfig, executor: Executor, out: str | None, report: bool = True
) -> None:
    """Tune ``run`` with live progress; then write the champion (and, with ``report``, the HTML
    report) and print the champions table."""
    from coordinator.sprt.report import finished_text
    from coordinator.sprt.runner import RunFailed
    from coordinator.tuning.outcomes import tally, tally_text, trial_outcomes
    from coordinator.tuning.progress import elo_vs_start
    from coordinator.tuning.records import TuningRecords
    from coordinator.tuning.report import champions_table, theta_table

    printer = ProgressPrinter()
    started = time.monotonic()
    shown_only = run.state is RunState.FINISHED  # finished before: this command plays nothing
    try:
        with executor, graceful_stop() as stop:
            tuner = make_driver(store, run, config, executor, printer, stop)
            busy = config.method == "spsa" and run.state is not RunState.FINISHED
            if busy and executor.slots > config.spsa_lag + 1:
                say(
                    f"arbiter: warning: --spsa-lag {config.spsa_lag} keeps at most {config.spsa_lag + 1} "
                    f"iterations in flight, fewer than the {executor.slots} batches the workers take"
                )
            tuner.run()
    except KeyboardInterrupt:
        printer.finish()
        hint = resume_command(run.id, store.url, executor.broker_url())
        say(f"arbiter: tuning run {run.id} interrupted; continue it with: {hint}")
        sys.exit(130)
    except RunFailed as e:
        printer.finish()
        store.update_run(run.id, state=RunState.FAILED, error=str(e), finished=True)
        say(f"arbiter: tuning run {run.id} failed: {e}")
        sys.exit(1)
    printer.finish()
    records = TuningRecords(store)
    champions = records.champions(run.id)
    target = Path(out or f"{run.id}-champion.json")
    write_atomically(target, champion_text(champions[-1].weights, target))
    elo, half = elo_vs_start(champions, champions[-1].number)
    finished = finished_text(run) if shown_only else None
    took = f"({finished})" if finished else f"in {time.monotonic() - started:.0f} s"
    if config.method == "spsa":
        iterations = records.iterations(run.id)
        applied = sum(row.theta is not None for row in iterations)
        show(
            f"tuning run {run.id} ({config.game}, spsa): {applied} of {config.iterations} iterations, "
            f"{records.games(run.id)} games {took}"
        )
        show(theta_table(config.start, iterations))
    else:
        trials = tally_text(tally(trial_outcomes(store, run.id).values()))
        show(f"tuning run {run.id} ({config.game}): {trials}, {records.games(run.id)} games {took}")
    show(champions_table(records, run.id, champions))
    verdict = (
        f"champion #{champions[-1].number} is {elo:+.1f} +- {half:.1f} Elo above the start weights"
        if len(champions) > 1
        else "no candidate passed its SPRT: the start weights remain the champion"
    )
    page = write_report(store, run) if report else None
    show(f"{verdict}; weights written to {target}" + (f"; report: {page}" if page else ""))


def champion_text(values: dict[str, int], target: Path, what: str = "a tuning run's champion") -> str:
    """The champion (``what``) as a weights file (JSON), or, for a ``.toml`` target, as an
    option file an engine file includes (``include = "champion.toml"``)."""
    if target.suffix.lower() != ".toml":
        return json.dumps(values, indent=2, sort_keys=True) + "\n"
    lines = [f"{json.dumps(name)} = {value}" for name, value in sorted(values.items())]
    return f"# {what}: include it from an engine file\n[options]\n" + "\n".join(lines) + "\n"


def write_report(store: Store, run: Run) -> Path | None:
    """Write the run's HTML report (``RUN-report.html``); where it is, or None (with a warning)
    when it cannot be written: a report is never worth failing a finished run for."""
    from coordinator.reports import build, default_report_path, html_page

    target = Path(default_report_path(run.id))
    try:
        finished = store.get_run(run.id) or run
        write_atomically(target, html_page(build(store, finished)))
    except (OSError, ValueError) as e:
        say(f"arbiter: warning: the report could not be written: {e}")
        return None
    return target

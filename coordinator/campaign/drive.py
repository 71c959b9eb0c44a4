"""Playing a campaign to its end with live progress, for ``arbiter tune --rounds`` and ``arbiter
resume``: round after round, the round's tuning run from the current best, then its champion's
verification SPRTs against the round's start, one after the other; a champion that passes them all
starts the next round. Then the final values go to a weights file and an option file.

Resume. Every run of a step is recorded (``campaign_steps``) as soon as it is made, and every step
is a pure function of the configuration and the steps before it; so after a kill the steps done are
read back, not played again, the one under way resumes its own run (a tuning run or an SPRT, each
resumable on its own), and a fixed-node campaign ends as it would have without the kill.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coordinator.campaign.chain import PASSED, PLAYING, chain_table, read_chain
from coordinator.campaign.config import CampaignConfig, limits_text
from coordinator.campaign.records import TUNING_STEP, CampaignRecords
from coordinator.console import say, show
from coordinator.console.hints import resume_command
from coordinator.console.progress import ProgressPrinter
from coordinator.console.signals import graceful_stop
from coordinator.files import write_atomically
from coordinator.registry import orphan_or_new
from coordinator.runs import Decision, RunKind, RunState

if TYPE_CHECKING:
    from coordinator.executors.base import Executor
    from coordinator.sprt.config import SprtConfig
    from coordinator.store import Run, Store
    from coordinator.tuning.config import TuneConfig


class RoundPrinter(ProgressPrinter):
    """Progress lines of one step of a campaign, each after the round it belongs to."""

    def __init__(self, prefix: str) -> None:
        """Lines that start with ``prefix``."""
        super().__init__()
        self.prefix = prefix
        self.width -= len(prefix)

    def show(self, line: str, force: bool = False) -> None:
        """The line after the prefix."""
        super().show(self.prefix + line, force)


class CampaignDriver:
    """Plays the steps of one campaign of the store in order, taking up those a kill left."""

    def __init__(self, store: Store, run: Run, config: CampaignConfig, executor: Executor, stop: Any) -> None:
        """The campaign ``run`` of ``config``, played on ``executor``; ``stop`` asks to stop."""
        self.store = store
        self.run = run
        self.config = config
        self.executor = executor
        self.stop = stop
        self.records = CampaignRecords(store)
        self.tag = f"campaign {run.id}"

    def step_run(self, round_number: int, step: int, kind: RunKind, config: TuneConfig | SprtConfig) -> Run:
        """The run of a step: the one recorded, else one a kill left between making and recording
        it (the same configuration, belonging to no one), else a new one."""
        from coordinator.tuning.records import TuningRecords

        recorded = self.records.steps(self.run.id).get((round_number, step))
        if recorded is None:
            held = TuningRecords(self.store).parents()  # a tuning run's own matches are not orphans
            recorded = orphan_or_new(self.store, kind, self.config.game, config, held)
            self.records.add_step(self.run.id, round_number, step, recorded)
        run = self.store.get_run(recorded)
        assert run is not None
        return run

    def tune(self, round_number: int, start: dict[str, int]) -> dict[str, int] | None:
        """Play round ``round_number``'s tuning run; the champion it crowned, or None."""
        from coordinator.tuning.config import TuneConfig
        from coordinator.tuning.drive import make_driver
        from coordinator.tuning.records import TuningRecords

        run = self.step_run(
            round_number, TUNING_STEP, RunKind.ROUND, self.config.round_config(round_number, start)
        )
        if run.state is not RunState.FINISHED:
            printer = RoundPrinter(f"round {round_number + 1} tuning: ")
            try:
                make_driver(
                    self.store, run, run.settings_as(TuneConfig), self.executor, printer, self.stop
                ).run()
            finally:
                printer.finish()
        champions = TuningRecords(self.store).champions(run.id)
        return dict(champions[-1].weights) if len(champions) > 1 else None

    def verify(self, round_number: int, stage: int, champion: dict[str, int], start: dict[str, int]) -> bool:
        """Play verification SPRT ``stage`` of the round; True when it accepted the champion."""
        from coordinator.sprt.config import SprtConfig
        from coordinator.sprt.report import progress_line
        from coordinator.sprt.runner import SprtRunner

        config = self.config.verify_config(round_number, stage, champion, start, self.tag)
        run = self.step_run(round_number, stage + 1, RunKind.VERIFY, config)
        if run.state is not RunState.FINISHED:
            printer = RoundPrinter(f"round {round_number + 1} verify {limits_text(config.limits)}: ")
            runner = SprtRunner(
                self.store,
                run.id,
                run.settings_as(SprtConfig),
                self.executor,
                on_progress=lambda p: printer.show(progress_line(p, printer.width)),
            )
            try:
                runner.run(stop_requested=self.stop)  # marks the run finished with its decision
            finally:
                printer.finish()
            run = self.store.get_run(run.id) or run
        return run.decision == Decision.ACCEPTED

    def play(self) -> None:
        """Every round until one fails or the rounds are done; the campaign is then finished."""
        best = dict(self.config.tune.start)
        for number in range(self.config.rounds):
            champion = self.tune(number, best)
            if champion is None:
                break
            stages = range(len(self.config.verify_limits))
            if not all(self.verify(number, stage, champion, best) for stage in stages):
                break
            best = champion
        self.store.update_run(self.run.id, state=RunState.FINISHED, finished=True)


def drive(
    store: Store, run: Run, config: CampaignConfig, executor: Executor, out: str | None, report: bool = True
) -> None:
    """Play ``run`` to its end with live progress; then write the final values (a weights file
    and an option file) and (with ``report``) the HTML report, and print the chain."""
    from coordinator.sprt.runner import RunFailed
    from coordinator.tuning.drive import champion_text, write_report

    started = time.monotonic()
    shown_only = run.state is RunState.FINISHED
    if not shown_only:
        store.update_run(run.id, state=RunState.RUNNING)
    try:
        with executor, graceful_stop() as stop:
            if not shown_only:
                CampaignDriver(store, run, config, executor, stop).play()
    except KeyboardInterrupt:
        store.update_run(run.id, state=RunState.INTERRUPTED)
        hint = resume_command(run.id, store.url, executor.broker_url())
        say(f"arbiter: campaign {run.id} interrupted; continue it with: {hint}")
        sys.exit(130)
    except RunFailed as e:
        store.update_run(run.id, state=RunState.FAILED, error=str(e), finished=True)
        say(f"arbiter: campaign {run.id} failed: {e}")
        sys.exit(1)
    chain = read_chain(store, run.id, config)
    weights, options = output_paths(run.id, out)
    what = f"campaign {run.id}'s final values"
    write_atomically(weights, champion_text(chain.best, weights, what))
    write_atomically(options, champion_text(chain.best, options, what))
    took = "" if shown_only else f" in {time.monotonic() - started:.0f} s"
    show(f"campaign {run.id} ({config.game}): {len(chain.rounds)} round(s), {chain.games} games{took}")
    show(chain_table(chain))
    page = write_report(store, store.get_run(run.id) or run) if report else None
    show(
        f"{chain.ending}; final values written to {weights} and {options}"
        + (f"; report: {page}" if page else "")
    )


def output_paths(run_id: int, out: str | None) -> tuple[Path, Path]:
    """The weights file (``-o FILE``, default ``RUN-campaign.json``) and the option file beside it
    (the same name ending ``.toml``)."""
    weights = Path(out or f"{run_id}-campaign.json")
    if weights.suffix.lower() == ".toml":
        return weights.with_suffix(".json"), weights
    return weights, weights.with_suffix(".toml")


__all__ = ["PASSED", "PLAYING", "CampaignDriver", "drive", "output_paths"]

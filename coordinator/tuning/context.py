"""What the parts of one tuning run share: the store and its tuning records, the run and its
configuration, the executor every match of the run plays on, and the champion history (appended
to on each crowning, read by everyone)."""

from __future__ import annotations

from coordinator.executors.base import Executor
from coordinator.registry import orphan_or_new
from coordinator.runs import RunKind
from coordinator.sprt.config import SprtConfig
from coordinator.store import Store
from coordinator.tuning.config import TuneConfig
from coordinator.tuning.records import Champion, TuningRecords


class TuningContext:
    """One tuning run of the store, as its driver and its acceptance SPRTs see it."""

    def __init__(self, store: Store, run_id: int, config: TuneConfig, executor: Executor) -> None:
        """Load the champion history of ``run_id``, or start it with the start weights (#0)."""
        self.store = store
        self.run_id = run_id
        self.config = config
        self.executor = executor
        self.records = TuningRecords(store)
        self.tag = f"tune run {run_id}"
        self.champions = self.records.champions(run_id)
        if not self.champions:
            start = Champion(0, dict(config.start), None, None, None, 0.0, 0.0, 0.0)
            self.records.add_champion(run_id, start)
            self.champions = [start]

    @property
    def champion(self) -> Champion:
        """The current champion."""
        return self.champions[-1]

    def match_run(self, kind: RunKind, config: SprtConfig) -> int:
        """The store run of a new match of this tuning run (a trial, an SPSA iteration, an
        acceptance SPRT): the one a kill left behind between creating it and recording it (the
        same configuration, so the same fingerprint), or a new one."""
        return orphan_or_new(self.store, kind, self.config.game, config)

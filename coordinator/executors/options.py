"""What a command says about where its batches are played (light: the CLI reads it at start)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from coordinator.defaults import VERIFY_FRACTION
from wire.celeryconfig import BROKER_ENV, DEFAULT_PRIORITY


@dataclass(frozen=True)
class ExecutorOptions:
    """Where a command's batches are played, and how its workers are checked and served."""

    #: The Celery broker's URL; None: ``$ARBITER_BROKER``; empty: this machine's process pool.
    broker: str | None = None
    #: Processes: local ones, or across all Celery workers (None: every core / discovered).
    concurrency: int | None = None
    #: Share of a fleet's batches played again to check the worker that played them.
    verify_fraction: float = VERIFY_FRACTION
    #: A fleet's run priority, 0 to 9 (higher first).
    priority: int = DEFAULT_PRIORITY

    @property
    def broker_url(self) -> str:
        """The broker in force ("" for the local pool)."""
        broker = self.broker if self.broker is not None else os.environ.get(BROKER_ENV, "")
        return broker.strip()

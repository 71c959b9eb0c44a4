"""Which executor a command uses: the local process pool, or Celery workers when a broker is given.

A broker URL (``--broker`` or ``$ARBITER_BROKER``) switches a command from this machine's cores to
the Celery workers behind that broker; nothing else about the command changes.
"""

from __future__ import annotations

import os

from coordinator.defaults import VERIFY_FRACTION
from coordinator.executors.base import Executor
from coordinator.executors.local import LocalExecutor
from coordinator.trust.spotcheck import CheckingExecutor
from worker.celeryconfig import BROKER_ENV, DEFAULT_PRIORITY, PRIORITIES

__all__ = ["BROKER_ENV", "make_executor"]


def make_executor(
    broker: str | None,
    concurrency: int | None,
    verify_fraction: float = VERIFY_FRACTION,
    priority: int = DEFAULT_PRIORITY,
) -> Executor:
    """A local pool when ``broker`` is empty (None: ``$ARBITER_BROKER``), else a Celery executor
    whose workers are spot-checked (``verify_fraction`` of their batches, and each one's first,
    played again by another worker, and on one local process where they disagree or no other
    worker is up) and whose batches carry ``priority`` (0 to 9, higher
    first, among the runs that share the fleet).

    ``concurrency`` is the number of processes: local ones, or across all Celery workers (unset:
    discovered from the workers). An unreachable broker raises a ValueError within seconds.
    """
    if broker is None:
        broker = os.environ.get(BROKER_ENV)
    if not broker or not broker.strip():
        return LocalExecutor(concurrency)
    from coordinator.executors.celery.executor import CeleryExecutor  # Celery loads only when used

    workers = CeleryExecutor(broker.strip(), concurrency=concurrency, priority=priority)
    try:
        peers = CeleryExecutor(broker.strip(), priority=max(PRIORITIES))  # checks go first
    except BaseException:
        workers.close()
        raise
    return CheckingExecutor(workers, LocalExecutor(1), verify_fraction, peers=peers)

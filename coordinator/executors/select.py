"""Which executor a command uses: the local process pool, or Celery workers when a broker is given.

A broker URL (``--broker`` or ``$ARBITER_BROKER``) switches a command from this machine's cores to
the Celery workers behind that broker; nothing else about the command changes.
"""

from __future__ import annotations

from coordinator.executors.base import Executor
from coordinator.executors.checking import CheckingExecutor
from coordinator.executors.local import LocalExecutor
from coordinator.executors.options import ExecutorOptions
from wire.celeryconfig import PRIORITIES


def make_executor(options: ExecutorOptions) -> Executor:
    """A local pool without a broker, else a Celery executor whose workers are spot-checked
    (``verify_fraction`` of their batches played again by a worker the run trusts, each worker's
    first in every run and every one a trusted worker does not prove on one local process) and
    whose batches carry the run's ``priority``. An unreachable broker raises a ValueError within
    seconds."""
    broker = options.broker_url
    if not broker:
        return LocalExecutor(options.concurrency)
    from coordinator.executors.celery.executor import CeleryExecutor  # Celery loads only when used

    workers = CeleryExecutor(broker, concurrency=options.concurrency, priority=options.priority)
    try:
        peers = CeleryExecutor(broker, priority=max(PRIORITIES))  # checks go first
    except BaseException:
        workers.close()
        raise
    from worker.games import check_batch

    return CheckingExecutor(workers, LocalExecutor(1, task=check_batch), options.verify_fraction, peers=peers)

"""Executors run batch payloads somewhere (a local process pool, Celery workers) and hand back results.

The scheduler only sees :class:`~coordinator.executors.base.Executor`; see ``base`` for the contract.
"""

from coordinator.executors.base import BatchOutcome, Executor

__all__ = ["BatchOutcome", "Executor"]

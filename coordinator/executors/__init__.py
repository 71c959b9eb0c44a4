"""Executors run batch payloads somewhere (a local process pool, Celery workers) and hand back results.

The scheduler only sees :class:`~coordinator.executors.base.Executor`; see ``base`` for the contract.
Nothing is imported here, so that ``executors.options`` stays light for the CLI's start.
"""

"""Which executor a command uses: the local process pool, or Celery workers when a broker is given.

``--broker URL`` (or ``$ARBITER_BROKER``) switches a command from this machine's cores to the
Celery workers behind that broker; nothing else about the command changes.
"""

from __future__ import annotations

import os

import click

from coordinator.executors.base import Executor
from coordinator.executors.local import LocalExecutor

BROKER_ENV = "ARBITER_BROKER"

broker_option = click.option(
    "--broker",
    metavar="URL",
    envvar=BROKER_ENV,
    help=(
        "Play on the Celery workers behind this broker, e.g. redis://host:6379/0 "
        "(default: $ARBITER_BROKER; unset: a local process pool)."
    ),
)


def make_executor(broker: str | None, concurrency: int | None) -> Executor:
    """A local pool when ``broker`` is empty (None: ``$ARBITER_BROKER``), else a Celery executor.

    ``concurrency`` is the number of processes: local ones, or across all Celery workers (unset:
    discovered from the workers). An unreachable broker raises a ValueError within seconds.
    """
    if broker is None:
        broker = os.environ.get(BROKER_ENV)
    if not broker or not broker.strip():
        return LocalExecutor(concurrency)
    from coordinator.executors.celery_executor import CeleryExecutor  # Celery loads only when used

    return CeleryExecutor(broker.strip(), concurrency=concurrency)

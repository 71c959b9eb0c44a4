"""The Celery task of arbiter's workers: a thin wrapper around :func:`worker.games.run_batch`.

The task takes one JSON batch payload and returns the JSON result; everything else (checking,
playing, counting) is in :mod:`worker.games`, which the local process pool runs too.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from worker.games import run_batch
from worker.protocol import TASK_NAME


@shared_task(name=TASK_NAME)  # type: ignore[untyped-decorator]  # celery ships no type hints
def play_batch(payload: Any) -> dict[str, Any]:
    """Play one batch of game pairs and return its game records and counts."""
    return run_batch(payload)

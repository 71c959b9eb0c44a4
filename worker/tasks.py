"""The Celery task of arbiter's workers: a thin wrapper around :func:`worker.games.answer_batch`.

The task takes one JSON batch payload and returns its answer (the result, or the reason the batch
is refused) sealed with the fleet's secret (:func:`worker.sealing.seal`), so that a coordinator
can tell the answers of its workers from values anyone else wrote into the result backend. The
answer names this worker by its Celery node name, the name the coordinator knows it by.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from worker.games import answer_batch
from worker.protocol import TASK_NAME
from worker.sealing import fleet_secret, seal


@shared_task(name=TASK_NAME, bind=True)  # type: ignore[untyped-decorator]  # celery ships no type hints
def play_batch(task: Any, payload: Any) -> dict[str, Any]:
    """Play one batch of game pairs and return its sealed answer."""
    return seal(answer_batch(payload, task.request.hostname), task.request.id, fleet_secret())

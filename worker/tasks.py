"""The Celery task of arbiter's workers: a thin wrapper around :func:`worker.games.answer_task`.

The task takes one batch message (the payload's JSON text, signed by the coordinator) and returns
its answer (the result, or the reason the batch is refused) sealed under this worker's key
(:mod:`worker.sealing`), so that a coordinator can tell the answers of its workers from values
anyone else wrote into the result backend, and which worker sent each. The answer names this
worker by its Celery node name, the name the coordinator knows it (and its key) by.
"""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

from celery import shared_task

from worker.games import answer_task
from worker.programs import redis_fetch
from worker.protocol import TASK_NAME
from worker.sealing import WorkerKeys, worker_keys


class AnswerNotLogged(logging.Filter):
    """Celery logs every task's return value when it succeeds; an answer is a whole batch's games
    (kilobytes a batch), so the worker's log says only that the answer was stored."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, dict) and "return_value" in record.args:
            record.args = {**record.args, "return_value": "answer stored"}
        return True


logging.getLogger("celery.app.trace").addFilter(AnswerNotLogged())


@cache
def keys() -> WorkerKeys | None:
    """This worker's keys, read once from its environment (``arbiter worker`` checked them)."""
    return worker_keys()


@shared_task(name=TASK_NAME, bind=True)  # type: ignore[untyped-decorator]  # celery ships no type hints
def play_batch(task: Any, message: Any) -> dict[str, Any]:
    """Play one batch of game pairs and return its sealed answer (engine programs it names are
    fetched from the result backend, where the coordinator put them)."""
    fetch = redis_fetch(task.app.backend.client)
    return answer_task(message, task.request.id, task.request.hostname, keys(), fetch=fetch)

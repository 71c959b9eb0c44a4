"""The Celery task of arbiter's workers: a thin wrapper around :func:`worker.games.answer_task`.

The task takes one batch message (the payload's JSON text, signed by the coordinator) and returns
its answer (the result, or the reason the batch is refused) sealed under this worker's key
(:mod:`wire.sealing`), so that a coordinator can tell the answers of its workers from values
anyone else wrote into the result backend, and which worker sent each. The answer names this
worker by its Celery node name, the name the coordinator knows it (and its key) by.
"""

from __future__ import annotations

import logging
import os
import re
from functools import cache
from typing import Any

import redis.exceptions
from celery import shared_task
from celery.signals import worker_init, worker_process_init, worker_ready, worker_shutdown

from wire.progress import PROGRESS_STATE, Report, progress_meta, throttled
from wire.protocol import TASK_NAME
from wire.sealing import WorkerKeys, worker_keys
from wire.secrecy import KEY_VARIABLES, hold_keys, non_dumpable
from worker.games import answer_task
from worker.heartbeat import start_publishing, stop_publishing
from worker.programs import redis_fetch

#: The batch an answer's body is for, read from its first characters (the body is JSON whose
#: first fields are the run id and the batch index).
ANSWER_OF = re.compile(r'"run_id":\s*(\d+),\s*"batch_index":\s*(\d+)')


class AnswerNotLogged(logging.Filter):
    """Celery logs every task's return value when it succeeds; an answer is a whole batch's games
    (kilobytes a batch), so the worker's log says only which batch's answer was stored."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, dict) and "return_value" in record.args:
            record.args = {**record.args, "return_value": answer_line(record.args["return_value"])}
        return True


def answer_line(answer: object) -> str:
    """``answer stored (run R, batch B)``, or without the batch where the answer names none.
    Celery hands the log the answer as its (shortened) repr; its body's first fields are there."""
    text = answer.get("body") if isinstance(answer, dict) else answer
    found = ANSWER_OF.search(text[:1000]) if isinstance(text, str) else None
    return f"answer stored (run {found[1]}, batch {found[2]})" if found else "answer stored"


logging.getLogger("celery.app.trace").addFilter(AnswerNotLogged())


@cache
def keys() -> WorkerKeys | None:
    """This worker's keys, read once from its environment (``arbiter worker`` checked them)."""
    return worker_keys()


@worker_init.connect  # type: ignore[untyped-decorator]  # celery ships no type hints
def _hold_keys(**_: Any) -> None:
    """In the worker's main process, before its pool forks: the keys read, then gone from the
    environment, and the process non-dumpable (``wire.secrecy``); the pool's processes inherit
    the keys in memory only."""
    if any(os.environ.get(name) for name in KEY_VARIABLES):  # not yet held by ``arbiter worker``
        hold_keys()
    non_dumpable()
    keys()


@worker_process_init.connect  # type: ignore[untyped-decorator]
def _non_dumpable(**_: Any) -> None:
    """Each pool process non-dumpable too (it is already, if forked from the main one)."""
    non_dumpable()


@worker_ready.connect  # type: ignore[untyped-decorator]
def _start_heartbeats(sender: Any, **_: Any) -> None:
    """Once the worker takes batches: its heartbeats published (``wire.heartbeat``)."""
    start_publishing(sender, keys())


@worker_shutdown.connect  # type: ignore[untyped-decorator]
def _stop_heartbeats(**_: Any) -> None:
    """At shutdown: its heartbeats stopped and its key deleted."""
    stop_publishing()


@shared_task(name=TASK_NAME, bind=True)  # type: ignore[untyped-decorator]  # celery ships no type hints
def play_batch(task: Any, message: Any) -> dict[str, Any]:
    """Play one batch of game pairs and return its sealed answer (engine programs it names are
    fetched from the result backend, where the coordinator put them)."""
    fetch = redis_fetch(task.app.backend.client)
    progress = throttled(state_reporter(task))
    node = task.request.hostname
    return answer_task(message, task.request.id, node, keys(), fetch=fetch, progress=progress)


def state_reporter(task: Any) -> Report:
    """Tells the games played as ``task``'s state in the result backend (a display for the
    coordinator: a write that fails is skipped, and the batch plays on). The meta is what Celery
    stores with ``STARTED`` (the process and its host) and the games; unlike ``update_state``,
    without the task's arguments: the whole payload, once a second."""
    started = {"pid": os.getpid(), "hostname": task.request.hostname}

    def report(games: int) -> None:
        try:
            task.backend.store_result(task.request.id, started | progress_meta(games), PROGRESS_STATE)
        except (OSError, redis.exceptions.RedisError) as e:
            logging.getLogger(__name__).warning("arbiter: progress not stored (%s)", type(e).__name__)

    return report

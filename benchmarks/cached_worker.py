"""A worker that has already played every batch: the benchmark's stand-in for a large fleet.

Games are deterministic under a node limit, so a batch's result is a pure function of its payload.
``benchmarks/coordinator_capacity.py`` plays every batch of its run once, writes the results to a
cache file (``$ARBITER_CAPACITY_CACHE``: one JSON object per line, ``{"key": ..., "result": ...}``),
and then lets these workers answer from it at once, so that the coordinator, not the playing, is
what limits the run. The answers are the real results of real games, stamped with this worker's
name: an honest worker that happens to be very fast.

    celery -A benchmarks.cached_worker worker      # what the benchmark starts (from the repository)
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import cache
from typing import Any

from celery import Celery

from wire.celeryconfig import settings
from wire.protocol import TASK_NAME, BatchPayload
from wire.sealing import worker_keys
from worker.games import answer_task, worker_name

CACHE_ENV = "ARBITER_CAPACITY_CACHE"

app = Celery("cached", set_as_current=False)
app.conf.update(settings())


def payload_key(payload: BatchPayload) -> str:
    """What decides a batch's games: the payload without its run and batch numbers."""
    data = payload.to_json()
    del data["run_id"], data["batch_index"]
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


@cache
def _results() -> dict[str, dict[str, Any]]:
    """The cache file named by ``$ARBITER_CAPACITY_CACHE``, by payload key."""
    with open(os.environ[CACHE_ENV], encoding="utf-8") as f:
        return {entry["key"]: entry["result"] for entry in map(json.loads, f)}


def answer(data: dict[str, Any], worker: str | None = None) -> dict[str, Any]:
    """The cached result of the batch ``data`` (a JSON payload), as this worker's."""
    payload = BatchPayload.from_json(data)
    result = dict(_results()[payload_key(payload)])
    result.update(run_id=payload.run_id, batch_index=payload.batch_index, worker=worker or worker_name())
    return result


@app.task(name=TASK_NAME, shared=False, bind=True)
def cached_batch(task: Any, message: Any) -> dict[str, Any]:
    """Answer a batch from the cache, sealed like any worker's answer."""
    return answer_task(message, task.request.id, task.request.hostname, worker_keys(), answer)

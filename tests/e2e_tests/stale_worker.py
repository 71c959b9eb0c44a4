"""A test-only Celery app of a machine left on another engine build: it consumes the queue of
engine version ``0.0.0+stale`` (see ``wire.celeryconfig.versioned_queue``), as a worker built
from older sources would, and plays whatever it receives with the real task body."""

from __future__ import annotations

from typing import Any

from celery import Celery

from wire.celeryconfig import settings
from wire.protocol import TASK_NAME
from wire.sealing import worker_keys
from worker.games import answer_task

STALE_VERSION = "0.0.0+stale"

app = Celery("stale", set_as_current=False)
app.conf.update(settings(engine_version=STALE_VERSION))


@app.task(name=TASK_NAME, shared=False, bind=True)
def stale_batch(task: Any, message: Any) -> dict[str, Any]:
    """Answer a batch like a worker (this build would refuse every batch of the current one)."""
    return answer_task(message, task.request.id, task.request.hostname, worker_keys())

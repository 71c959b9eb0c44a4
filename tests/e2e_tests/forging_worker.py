"""A test-only Celery app whose worker forges results: it plays the batch, then adds a pair that
was never played to the pentanomial counts (so they no longer add up).

Run by ``tests/e2e_tests/test_celery_faults.py`` as ``celery -A forging_worker worker``; it serves
the same task name as the real worker (``worker.tasks`` is not imported, so the names do not clash).
"""

from __future__ import annotations

from typing import Any

from celery import Celery

from worker import games
from worker.celeryconfig import settings

#: Must equal ``worker.tasks.TASK_NAME`` (the test checks it).
TASK_NAME = "arbiter.play_batch"

app = Celery("forger", set_as_current=False)
app.conf.update(settings())


@app.task(name=TASK_NAME, shared=False)  # not shared: other apps in a test process keep the real task
def forged_batch(payload: dict[str, Any]) -> dict[str, Any]:
    """The real result with one extra LL pair in the counts."""
    result = games.play_batch(payload)
    result["pentanomial"][0] += 1
    return result

"""The Celery task of arbiter's workers: a thin wrapper around :func:`worker.games.play_batch`.

The task takes one JSON batch payload and returns the JSON result dict; everything else (playing,
counting) is in :mod:`worker.games`, which the local process pool runs too. A malformed payload, or
one asking for another engine version, fails the task with a one-line ``ValueError`` that the
coordinator records as the reason the batch was refused.

Testing only: ``ARBITER_FAKE_ENGINE_VERSION`` makes this worker stamp that engine version on its
results, as a worker built from another engine would. The coordinator must refuse such results
(``tests/e2e_tests/test_celery_faults.py`` checks that it does); never set it in production.
"""

from __future__ import annotations

import os
from typing import Any

from celery import shared_task

from worker import games

#: The name coordinators send batches to.
TASK_NAME = "arbiter.play_batch"
FAKE_ENGINE_VERSION_ENV = "ARBITER_FAKE_ENGINE_VERSION"


def run_batch(payload: Any) -> dict[str, Any]:
    """Check ``payload``, play it and return the result (the body of the task, without Celery)."""
    if not isinstance(payload, dict):
        raise ValueError(f"batch payload: expected a JSON object, got {type(payload).__name__}")
    games.check_payload(payload)
    result = games.play_batch(payload)
    fake_version = os.environ.get(FAKE_ENGINE_VERSION_ENV)
    if fake_version:
        result["engine_version"] = fake_version
    return result


@shared_task(name=TASK_NAME)
def play_batch(payload: dict[str, Any]) -> dict[str, Any]:
    """Play one batch of game pairs and return its counts and game records."""
    return run_batch(payload)

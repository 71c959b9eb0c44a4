"""The Celery application of arbiter's workers.

``celery -A worker.celery_app worker`` and ``arbiter worker`` run :data:`app` (configured from the
environment, see :mod:`worker.celeryconfig`); the task itself is in :mod:`worker.tasks`. A
coordinator builds its own app with :func:`create_app` and sends batches by task name.
"""

from __future__ import annotations

from celery import Celery

from worker.celeryconfig import settings


def create_app(broker: str | None = None, result_backend: str | None = None) -> Celery:
    """A Celery app with arbiter's settings; ``broker`` / ``result_backend`` override the environment."""
    app = Celery("arbiter", include=["worker.tasks"], set_as_current=False)
    app.conf.update(settings(broker=broker, result_backend=result_backend))
    return app


#: The app ``celery -A worker.celery_app`` finds.
app = create_app()

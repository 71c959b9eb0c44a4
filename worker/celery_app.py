"""The Celery application of arbiter's workers.

``celery -A worker.celery_app worker`` and ``arbiter worker`` run :data:`app` (configured from the
environment by :func:`wire.celeryconfig.create_app`); the task itself is in :mod:`worker.tasks`.
"""

from __future__ import annotations

from wire.celeryconfig import create_app

#: The app ``celery -A worker.celery_app`` finds.
app = create_app()

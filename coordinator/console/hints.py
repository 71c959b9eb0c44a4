"""What a stopped run tells its user to type next: the resume command, with the store and broker
the run was started with."""

from __future__ import annotations

import os
import shlex

from wire.celeryconfig import BROKER_ENV
from wire.masking import mask_url


def resume_command(run_id: int, store: str, broker: str | None) -> str:
    """``arbiter resume RUN`` with the ``--store`` and ``--broker`` (masked) that the environment
    would not supply by itself, so that it opens the same store and fleet when typed as shown."""
    from coordinator.store.urls import store_url  # the store package loads SQLAlchemy

    words = ["arbiter", "resume", str(run_id)]
    if store != store_url(None):
        words += ["--store", mask_url(store)]
    broker = (broker or "").strip()
    if broker and broker != os.environ.get(BROKER_ENV, "").strip():
        words += ["--broker", mask_url(broker)]
    return shlex.join(words)

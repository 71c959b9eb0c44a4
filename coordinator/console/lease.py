"""A terminal playing a run holds the run's lease, as a server does, so that a server on the same
store (or another terminal) never plays it at the same time (``store.service``)."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from coordinator.store import Store

#: Seconds a terminal's lease lasts unless renewed (renewed every third of it).
TERMINAL_LEASE_SECONDS = 60.0


def terminal_holder() -> str:
    """The name a terminal's lease is held under."""
    return f"terminal {socket.gethostname()} pid {os.getpid()}"


@contextmanager
def holding_lease(store: Store, run_id: int, seconds: float = TERMINAL_LEASE_SECONDS) -> Iterator[None]:
    """While the block plays ``run_id``, hold its lease (renewed in the background); a ValueError
    naming who plays it when someone else does."""
    holder = terminal_holder()
    if not store.take_lease(run_id, holder, seconds):
        raise ValueError(
            f"run {run_id} is being played by {store.lease_holder(run_id) or 'another process'}; "
            "follow it with arbiter watch (with --server) or arbiter status"
        )
    done = threading.Event()

    def renew() -> None:
        while not done.wait(seconds / 3):
            try:
                store.renew_leases(holder, [run_id], seconds)
            except Exception:  # a store that hiccups is asked again next time
                continue

    renewer = threading.Thread(target=renew, name=f"lease of run {run_id}", daemon=True)
    renewer.start()
    try:
        yield
    finally:
        done.set()
        renewer.join()
        with suppress(Exception):  # it expires on its own
            store.release_lease(run_id, holder)

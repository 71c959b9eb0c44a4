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


def dead_terminal(holder: str) -> bool:
    """True when ``holder`` is a terminal of this machine whose process is gone (killed, even by
    ``kill -9``: its lease need not be waited out)."""
    words = holder.split()
    if len(words) != 4 or words[0] != "terminal" or words[1] != socket.gethostname() or words[2] != "pid":
        return False
    if not words[3].isdigit():
        return False
    try:
        os.kill(int(words[3]), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


@contextmanager
def holding_lease(store: Store, run_id: int, seconds: float = TERMINAL_LEASE_SECONDS) -> Iterator[None]:
    """While the block plays ``run_id``, hold its lease (renewed in the background); a ValueError
    naming who plays it when someone else does."""
    holder = terminal_holder()
    held_by = store.lease_holder(run_id)
    dead = held_by if held_by is not None and dead_terminal(held_by) else None
    if not store.take_lease(run_id, holder, seconds, replacing=dead):
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

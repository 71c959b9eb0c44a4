"""Games played so far in a batch, told while it plays: display only, never counted.

A batch of default size plays for about a minute; without a word from its worker, a run's progress
line would stand still until the whole batch is counted. So a worker tells, at most once every
:data:`PROGRESS_SECONDS`, how many games of the batch it has played: a Celery worker as its task's
state (``PROGRESS``, its meta ``{"games": N}`` beside the process and host ``STARTED`` names) in
the result backend, which the coordinator reads with the results it polls anyway; the local pool
through memory it shares with the coordinator.

The figure is a claim nobody checks, not sealed (anyone who can write to the result backend can
write one): :func:`games_played` accepts a plain count within the batch's size and nothing else,
and the coordinator shows it apart from the games it counted (as games "playing"), never adds it to
any count, statistic or stored figure. A forged figure can only make a progress line say that a
batch is further along than it is.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

#: The task state of a batch whose worker told how far it got (Celery's custom state).
PROGRESS_STATE = "PROGRESS"
#: Seconds between two reports of one batch at least.
PROGRESS_SECONDS = 1.0

#: Told the games played so far in the batch.
Report = Callable[[int], None]


def progress_meta(games: int) -> dict[str, int]:
    """The games of the task meta a worker stores with :data:`PROGRESS_STATE`."""
    return {"games": games}


def games_played(meta: Any, most: int) -> int | None:
    """The games played a progress meta tells: an int from 0 to ``most`` (the batch's games) in
    ``{"games": N}``; None for anything else (another shape, a bool, a float, a number out of
    range), which is then simply not shown."""
    if not isinstance(meta, dict):
        return None
    games = meta.get("games")
    if type(games) is not int or not 0 <= games <= most:
        return None
    return games


def throttled(
    report: Report, seconds: float = PROGRESS_SECONDS, clock: Callable[[], float] = time.monotonic
) -> Report:
    """``report`` called at most once every ``seconds`` (the first call too waits that long after
    the batch starts: a batch shorter than that tells nothing before its result)."""
    last = clock()
    told = -1

    def tell(games: int) -> None:
        nonlocal last, told
        now = clock()
        if now - last >= seconds and games != told:
            last, told = now, games
            report(games)

    return tell

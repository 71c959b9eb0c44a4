"""How long a batch sent to Celery workers may take before it is presumed lost and sent again."""

from __future__ import annotations

import json
import math
import os
from collections import deque
from collections.abc import Mapping

from coordinator.sizing import longest_game_seconds
from wire.celeryconfig import batch_seconds
from wire.programs import BUILD_TIMEOUT
from wire.protocol import BatchPayload

LEASE_ENV = "ARBITER_LEASE_SECONDS"
#: Seconds added to every budget-derived lease (queueing, transport, start-up).
LEASE_GRACE = 30.0
#: No derived lease is shorter.
MIN_LEASE = 30.0
#: Once batches of a shape were seen, the lease is this many times the slowest of them ...
OBSERVED_FACTOR = 4.0
#: ... after this many observations (the last :data:`OBSERVED_WINDOW` are kept).
OBSERVATIONS_NEEDED = 3
OBSERVED_WINDOW = 32


def budget_seconds(payload: BatchPayload) -> float | None:
    """Upper bound of a batch's playing time from its limits (None for a depth limit), with the
    time a worker may take to build a side from its commit first (:data:`BUILD_TIMEOUT`)."""
    each = longest_game_seconds(payload.limits, payload.adjudication.max_plies)
    if each is None:
        return None
    building = BUILD_TIMEOUT if any(p.build is not None for p in payload.programs()) else 0.0
    return 2 * payload.pairs * each + building


class LeasePolicy:
    """How long a batch may take: fixed, or derived from its budget and from batches seen so far.

    Derived: the budget (every game at its ply limit, every move at its full limit on a slow core,
    and a build of each commit that is a side) plus :data:`LEASE_GRACE`, capped by ``ceiling``
    (the task's hard time limit plus the grace). Once :data:`OBSERVATIONS_NEEDED` batches of the
    same shape (limits, pairs, ply limit) completed, the lease shrinks to :data:`OBSERVED_FACTOR`
    times the slowest of them (at least :data:`MIN_LEASE`),
    so that a lost batch is noticed in about four batch-times instead of the worst case.
    """

    def __init__(self, fixed: float | None = None, ceiling: float | None = None) -> None:
        """A fixed lease of ``fixed`` seconds, or derived ones no longer than ``ceiling``."""
        if fixed is not None and fixed <= 0:
            raise ValueError(f"lease: expected a positive number of seconds, got {fixed}")
        self.fixed = fixed
        self.ceiling = ceiling if ceiling is not None else batch_seconds() + LEASE_GRACE
        self._seen: dict[str, deque[float]] = {}

    @staticmethod
    def shape(payload: BatchPayload) -> str:
        """What makes two batches take about as long."""
        return json.dumps(
            [payload.game, payload.limits.to_json(), payload.pairs, payload.adjudication.max_plies],
            sort_keys=True,
        )

    def lease(self, payload: BatchPayload) -> float:
        """Seconds the first attempt of ``payload`` may take."""
        if self.fixed is not None:
            return self.fixed
        budget = budget_seconds(payload)
        derived = self.ceiling if budget is None else min(budget + LEASE_GRACE, self.ceiling)
        seen = self._seen.get(self.shape(payload))
        if seen is not None and len(seen) >= OBSERVATIONS_NEEDED:
            derived = min(derived, OBSERVED_FACTOR * max(seen))
        return max(derived, MIN_LEASE)

    def observe(self, payload: BatchPayload, seconds: float) -> None:
        """Record that a batch of ``payload``'s shape took ``seconds`` from sending to its result."""
        seen = self._seen.setdefault(self.shape(payload), deque(maxlen=OBSERVED_WINDOW))
        seen.append(seconds)


def lease_from_env(environ: Mapping[str, str] | None = None) -> float | None:
    """``$ARBITER_LEASE_SECONDS`` as a positive number, or None when unset."""
    text = (os.environ if environ is None else environ).get(LEASE_ENV, "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value > 0:
        raise ValueError(f"{LEASE_ENV}: expected a positive number of seconds, got {text!r}")
    return value

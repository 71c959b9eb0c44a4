"""How ``arbiter server`` shares the fleet among the runs it plays (pure).

Runs of the highest priority open take the fleet; every other run keeps a single batch in flight,
so it moves on slowly and never stops. Among the runs served, the fleet is split equally among their
owners (the operator's runs, with no owner, count as one owner), so that one person's many runs do
not starve another's one; an owner's part is split among their runs by throughput (percent, 100 by
default). fishtest serves the fleet by priority, then by each user's throughput (its "itp").
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Claim:
    """One open run as the sharing sees it."""

    run_id: int
    owner: str | None
    priority: int
    throughput: int


def fleet_shares(claims: Iterable[Claim]) -> dict[int, float]:
    """Each run's part of the fleet, 0 to 1 (the parts of the runs served sum to 1; runs below
    the top priority get 0, which still leaves them one batch in flight)."""
    claims = list(claims)
    if not claims:
        return {}
    top = max(c.priority for c in claims)
    by_owner: dict[str | None, list[Claim]] = defaultdict(list)
    for claim in claims:
        if claim.priority == top:
            by_owner[claim.owner].append(claim)
    shares = {c.run_id: 0.0 for c in claims}
    for owned in by_owner.values():
        weights = [max(c.throughput, 0) for c in owned]
        total = sum(weights)
        for claim, weight in zip(owned, weights, strict=True):
            part = weight / total if total else 1 / len(owned)
            shares[claim.run_id] = part / len(by_owner)
    return shares

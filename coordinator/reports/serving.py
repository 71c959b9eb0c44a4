"""How a server serves a run, as every view shows it (``arbiter status``, the dashboard, the API):
who submitted it, its priority and throughput, its share of the fleet and its games per second."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import timedelta
from typing import Any

from coordinator.registry import kind_of
from coordinator.runs import RunState
from coordinator.store import Run, ServiceRow, Store, now

#: Seconds over which a run's games/s is measured.
RATE_WINDOW_SECONDS = 60


@dataclass(frozen=True)
class Serving:
    """One run's service: ``share`` None when no server plays it now."""

    owner: str | None
    priority: int
    throughput: int
    share: float | None
    games_per_second: float

    def to_json(self) -> dict[str, Any]:
        """Every field, as JSON."""
        return asdict(self)

    @property
    def text(self) -> str:
        """``share 50%  3.2 games/s`` (empty when no server plays it)."""
        if self.share is None:
            return ""
        return f"share {self.share:.0%}  {self.games_per_second:.1f} games/s"


def games_per_second(store: Store, run: Run) -> float:
    """Games counted per second over the last minute (0 unless it runs)."""
    if run.state is not RunState.RUNNING:
        return 0.0
    ids = [r.id for r in kind_of(run.kind).match_runs(store, run)]
    games = store.games_since(ids, now() - timedelta(seconds=RATE_WINDOW_SECONDS))
    return round(games / RATE_WINDOW_SECONDS, 3)


def serving(store: Store, run: Run, service: ServiceRow | None) -> Serving:
    """How ``run`` is served (``service``: its row, if it has one)."""
    if service is None:
        return Serving(None, 0, 100, None, 0.0)
    share = service.share if run.state.unfinished else None
    rate = games_per_second(store, run) if share is not None else 0.0
    return Serving(service.owner, service.priority, service.throughput, share, rate)

"""What every request of the dashboard reaches: the store it reads, its cache of rendered reports,
the broker its workers send heartbeats to (if it knows one), and the runs named in a request's
path (a 404 answer for one the store does not have)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from starlette.exceptions import HTTPException
from starlette.requests import Request

from coordinator.registry import kind_of
from coordinator.store import Run, Store
from coordinator.web.live import ReportCache
from coordinator.web.throttle import Throttle

if TYPE_CHECKING:
    from coordinator.fleet import Broker
    from wire.sealing import FleetKeys

#: The largest id or index a path may name (the store's numbers are 64-bit).
MAX_NUMBER = 2**63 - 1


@dataclass
class Dashboard:
    """The store the dashboard serves (opened read-only), its rendered reports, the bound on its
    expensive pages, and the broker whose workers' heartbeats it lists (None: it knows none) with
    the fleet's keys that check them (None: not checked)."""

    store: Store
    reports: ReportCache = field(default_factory=ReportCache)
    expensive: Throttle = field(default_factory=Throttle)
    broker: Broker | None = None
    keys: FleetKeys | None = None
    #: HTML a run's page shows under its title (the server's: submitter, approval, buttons).
    run_panel: Callable[[Request, Run], str] | None = None


def dashboard(request: Request) -> Dashboard:
    """The dashboard of the application answering ``request``."""
    found: Dashboard = request.app.state.dashboard
    return found


def path_number(request: Request, name: str) -> int:
    """A number of the request's path (a ``{name:number}``: at most 18 digits, so within what the
    store can hold)."""
    return int(request.path_params[name])


def find_run(request: Request) -> Run:
    """The run the path names, or a 404 answer."""
    store = dashboard(request).store
    run_id = path_number(request, "run_id")
    run = store.get_run(run_id) if run_id > 0 else None
    if run is None:
        raise HTTPException(404, f"no run {run_id} in this store")
    return run


def find_match_run(request: Request) -> Run:
    """The run the path names, which must play games itself (not a tuning run), or a 404 answer."""
    run = find_run(request)
    kind = kind_of(run.kind)
    if kind.children is not None:
        raise HTTPException(404, f"run {run.id} is a {kind.noun}: its games belong to {kind.children}")
    return run

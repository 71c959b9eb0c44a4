"""The dashboard as an ASGI application (Starlette): its routes, its error answers, and the rule
that every request reads the store through connections that cannot write.

Starlette because it is small, well kept and plain ASGI (uvicorn serves it, any ASGI server can),
with no ORM or template engine to adopt: the pages are built by the report's own HTML helpers.
Request handlers are plain functions; Starlette runs them in its thread pool, so a slow store or a
report being drawn never stops the server from answering the other pages.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from sqlalchemy.exc import SQLAlchemyError
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from coordinator.store import Store, read_only_connections
from coordinator.web import api, pages, regressions
from coordinator.web.query import MAX_DIGITS, MAX_TEXT, whole_number
from coordinator.web.responses import error_response
from coordinator.web.state import Dashboard, dashboard
from coordinator.web.throttle import DEFAULT_EXPENSIVE_AT_ONCE, Throttle
from wire.sealing import FleetKeys, fleet_keys

Handler = Callable[[Request], Response]


def reading(handler: Handler, expensive: bool) -> Handler:
    """``handler`` with every database connection it opens read-only (Optuna's too, when a tuning
    report loads its study), and a store that cannot be read answered with a 503. An expensive
    handler runs only in one of the dashboard's few slots for them (a 429 answer when all are
    taken)."""

    @functools.wraps(handler)
    def read(request: Request) -> Response:
        try:
            with read_only_connections():
                if not expensive:
                    return handler(request)
                with dashboard(request).expensive.slot():
                    return handler(request)
        except SQLAlchemyError as e:
            reason = getattr(e, "orig", None) or e
            raise HTTPException(503, f"the store cannot be read: {' '.join(str(reason).split())}") from None

    return read


#: Every page and endpoint, by path, and whether it is expensive (draws a report, replays a game
#: or reads many game records).
ROUTES = (
    ("/", pages.runs_page, False),
    ("/runs/{run_id:number}", pages.run_page, True),
    ("/runs/{run_id:number}/report.html", pages.report_file, True),
    ("/runs/{run_id:number}/games", pages.games_list_page, True),
    ("/runs/{run_id:number}/games/{batch:number}/{game:number}.pgn", pages.game_pgn, True),
    ("/runs/{run_id:number}/games/{batch:number}/{game:number}", pages.game_page, True),
    ("/workers", pages.workers_page, False),
    ("/regressions", regressions.regressions_page, True),
    ("/workers/{name:path}", pages.worker_page, False),
    ("/api/runs", api.runs_api, False),
    ("/api/runs/{run_id:number}", api.run_api, True),
    ("/api/runs/{run_id:number}/games", api.games_api, True),
    ("/api/workers", api.workers_api, False),
    ("/healthz", api.health, False),
)


#: What the router's own 404 says: no route matched the path at all.
ROUTER_NOT_FOUND = "Not Found"


def not_found(path: str) -> str:
    """What a path no route matches names that is not there, and what would be."""
    parts = [p for p in path.split("/") if p]
    api = parts[:1] == ["api"]
    if api:
        parts = parts[1:]
    if parts[:1] == ["runs"] and len(parts) >= 2 and whole_number(parts[1]) is None:
        shown = parts[1] if len(parts[1]) <= MAX_TEXT else parts[1][:MAX_TEXT] + "..."
        if parts[1].isascii() and parts[1].isdigit():
            return f"no run {shown}: run numbers have at most {MAX_DIGITS} digits"
        return f"no run {shown!r}: runs are numbered (/runs/1, /runs/2, ...)"
    if parts[:1] == ["runs"] and len(parts) >= 3 and parts[2] == "games" and len(parts) > 3:
        return (
            f"no game {'/'.join(parts[3:])!r} of run {parts[1]}: a game is named by its batch and "
            f"its number in the batch (/runs/{parts[1]}/games/0/0)"
        )
    if api:
        return f"no endpoint {path}: the API has /api/runs, /api/runs/N, /api/runs/N/games and /api/workers"
    return f"no page {path}: the dashboard has /, /runs/N, /runs/N/games, /workers and /regressions"


async def http_error(request: Request, exc: Exception) -> Response:
    """A 4xx or 5xx answer raised on purpose (a missing run, a bad parameter), or the router's
    404 of a path no route matches, said in words (:func:`not_found`)."""
    assert isinstance(exc, HTTPException)
    detail = str(exc.detail)
    if exc.status_code == 404 and detail == ROUTER_NOT_FOUND:
        detail = not_found(request.url.path)
    response = error_response(request.url.path, exc.status_code, detail)
    response.headers.update(exc.headers or {})
    return response


async def server_error(request: Request, exc: Exception) -> Response:
    """Anything else: one line for the reader (the server's log has the traceback)."""
    return error_response(
        request.url.path,
        500,
        f"the dashboard failed on this page ({type(exc).__name__}); see the server's log",
    )


def create_app(
    store: Store,
    expensive_at_once: int = DEFAULT_EXPENSIVE_AT_ONCE,
    broker_url: str | None = None,
    keys: FleetKeys | None = None,
) -> Starlette:
    """The dashboard of ``store``, which must be opened read-only (``Store(url, read_only=True)``),
    building at most ``expensive_at_once`` expensive pages at a time. With ``broker_url`` (a Redis
    broker) the workers page and ``/api/workers`` list the workers online there, their heartbeats
    checked under ``keys`` (default: the fleet's, from ``$ARBITER_SECRET``, when set); ValueError
    for a broker that is not Redis. Nothing connects to the broker until a page asks."""
    if not store.read_only:
        raise ValueError("the dashboard serves a store opened read-only only")
    broker = None
    if broker_url is not None:
        from coordinator.fleet import Broker

        broker = Broker(broker_url)
        keys = keys if keys is not None else fleet_keys()
    app = Starlette(
        routes=[
            Route(path, reading(handler, expensive), methods=["GET"]) for path, handler, expensive in ROUTES
        ],
        middleware=[Middleware(GZipMiddleware, minimum_size=1024)],
        exception_handlers={HTTPException: http_error, Exception: server_error},
    )
    app.state.dashboard = Dashboard(store, expensive=Throttle(expensive_at_once), broker=broker, keys=keys)
    return app

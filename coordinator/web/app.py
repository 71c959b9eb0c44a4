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
from coordinator.web import api, pages
from coordinator.web.responses import error_response
from coordinator.web.state import Dashboard

Handler = Callable[[Request], Response]


def reading(handler: Handler) -> Handler:
    """``handler`` with every database connection it opens read-only (Optuna's too, when a tuning
    report loads its study), and a store that cannot be read answered with a 503."""

    @functools.wraps(handler)
    def read(request: Request) -> Response:
        try:
            with read_only_connections():
                return handler(request)
        except SQLAlchemyError as e:
            reason = getattr(e, "orig", None) or e
            raise HTTPException(503, f"the store cannot be read: {' '.join(str(reason).split())}") from None

    return read


#: Every page and endpoint, by path.
ROUTES = (
    ("/", pages.runs_page),
    ("/runs/{run_id:int}", pages.run_page),
    ("/runs/{run_id:int}/report.html", pages.report_file),
    ("/runs/{run_id:int}/games", pages.games_list_page),
    ("/runs/{run_id:int}/games/{batch:int}/{game:int}.pgn", pages.game_pgn),
    ("/runs/{run_id:int}/games/{batch:int}/{game:int}", pages.game_page),
    ("/workers", pages.workers_page),
    ("/workers/{name:path}", pages.worker_page),
    ("/api/runs", api.runs_api),
    ("/api/runs/{run_id:int}", api.run_api),
    ("/api/runs/{run_id:int}/games", api.games_api),
    ("/healthz", api.health),
)


async def http_error(request: Request, exc: Exception) -> Response:
    """A 4xx or 5xx answer raised on purpose (a missing run, a bad parameter)."""
    assert isinstance(exc, HTTPException)
    response = error_response(request.url.path, exc.status_code, str(exc.detail))
    response.headers.update(exc.headers or {})
    return response


async def server_error(request: Request, exc: Exception) -> Response:
    """Anything else: one line for the reader (the server's log has the traceback)."""
    return error_response(
        request.url.path,
        500,
        f"the dashboard failed on this page ({type(exc).__name__}); see the server's log",
    )


def create_app(store: Store) -> Starlette:
    """The dashboard of ``store``, which must be opened read-only (``Store(url, read_only=True)``)."""
    if not store.read_only:
        raise ValueError("the dashboard serves a store opened read-only only")
    app = Starlette(
        routes=[Route(path, reading(handler), methods=["GET"]) for path, handler in ROUTES],
        middleware=[Middleware(GZipMiddleware, minimum_size=1024)],
        exception_handlers={HTTPException: http_error, Exception: server_error},
    )
    app.state.dashboard = Dashboard(store)
    return app

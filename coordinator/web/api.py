"""The dashboard's JSON endpoints, for scripts and for the live pages.

``/api/runs``: the runs list (the page's filters). ``/api/workers``: the workers online now.
``/api/runs/N``: the run's row and its report data (what ``arbiter report --json`` prints).
``/api/runs/N/games``: a page of its counted games.
With ``since=VERSION`` a live page learns whether anything changed since the version it shows
(``changed``; the report is left out when nothing did), and with ``html=1`` it also gets the HTML
of the parts to replace; ``final`` says that nothing will change any more.
"""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

from coordinator.web.games import PER_PAGE, game_json, games_page
from coordinator.web.pages import (
    GAME_FILTERS,
    NO_BROKER,
    RUN_FILTERS,
    games_query,
    live_html,
    online_fleet,
    run_filter,
    runs_part,
    runs_rows,
    shown_run,
    state_broker,
)
from coordinator.web.query import Query
from coordinator.web.responses import json_response
from coordinator.web.state import dashboard, find_run

LIVE = ("since", "html")


def runs_api(request: Request) -> Response:
    """``/api/runs``: the runs of the list, running runs first."""
    query = Query(request.query_params, (*RUN_FILTERS, *LIVE))
    wanted = run_filter(query)
    rows = runs_rows(dashboard(request).store, wanted)
    part = runs_part(rows)
    answer: dict[str, Any] = {"runs": rows, "version": part.digest, "final": False}
    answer["changed"] = query.text("since") != part.digest
    if query.flag("html") and answer["changed"]:
        answer["html"] = {"parts": [[part.key, part.digest, part.html]]}
    return json_response(answer)


def run_api(request: Request) -> Response:
    """``/api/runs/N``: where the run stands and its report data."""
    query = Query(request.query_params, LIVE)
    shown = shown_run(request)
    rendered, row = shown.rendered, shown.row
    changed = query.text("since") != rendered.version
    answer: dict[str, Any] = {
        "run": row,
        "version": rendered.version,
        "changed": changed,
        "final": shown.final,
    }
    if changed:
        answer["report"] = rendered.data
    if query.flag("html"):
        answer["html"] = {"live": live_html(row)}
        if changed:
            answer["html"]["parts"] = [[p.key, p.digest, p.html] for p in rendered.parts]
    return json_response(answer)


def games_api(request: Request) -> Response:
    """``/api/runs/N/games``: a page of the run's counted games (filters as ``arbiter games``)."""
    query = Query(request.query_params, GAME_FILTERS)
    wanted, page = games_query(query)
    run = find_run(request)
    games, more = games_page(dashboard(request).store, run, wanted, page)
    return json_response(
        {
            "run": run.id,
            "page": page,
            "per_page": PER_PAGE,
            "next_page": page + 1 if more else None,
            "games": [game_json(g) for g in games],
        }
    )


def workers_api(request: Request) -> Response:
    """``/api/workers``: the workers online on the dashboard's broker (``arbiter workers --json``);
    a 404 answer when the dashboard knows no broker, a 503 when it does not answer."""
    Query(request.query_params, ())
    fleet = online_fleet(request)
    if fleet is None:
        raise HTTPException(404, NO_BROKER)
    return json_response({"broker": state_broker(request), **fleet.to_json()})


def health(request: Request) -> Response:
    """``/healthz``: the store answers (for probes)."""
    Query(request.query_params, ())
    dashboard(request).store.ping()
    return json_response({"ok": True})

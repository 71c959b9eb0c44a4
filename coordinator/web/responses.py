"""The dashboard's answers: HTML and JSON with its headers (the Content-Security-Policy that keeps
every page to the dashboard's own resources, no caching of live data), and its error answers."""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import HTMLResponse, Response

from coordinator.reports import json_safe
from coordinator.reports.html import esc
from coordinator.web.layout import CSP, document

HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


def html_response(title: str, body: str, status: int = 200) -> HTMLResponse:
    """A whole page."""
    return HTMLResponse(document(title, body), status_code=status, headers=HEADERS)


def json_response(data: Any, status: int = 200) -> Response:
    """JSON data (non-finite numbers as null, keys sorted)."""
    text = json.dumps(json_safe(data), sort_keys=True, allow_nan=False)
    return Response(text, status_code=status, media_type="application/json", headers=HEADERS)


def text_response(text: str, media_type: str, filename: str | None = None) -> Response:
    """A text file (a report, a PGN game); with ``filename``, offered for saving under that name."""
    headers = dict(HEADERS)
    if filename is not None:
        headers["Content-Disposition"] = f'inline; filename="{filename}"'
    return Response(text, media_type=media_type, headers=headers)


#: Titles of the error answers.
ERRORS = {
    400: "Bad request",
    401: "Not logged in",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    413: "Too large",
    429: "Too many requests",
    500: "Server error",
    503: "Store unavailable",
}


def error_response(path: str, status: int, message: str) -> Response:
    """An error: JSON ``{"error": message}`` under ``/api/``, an HTML page elsewhere."""
    if path.startswith("/api/"):
        return json_response({"error": message, "status": status}, status)
    title = ERRORS.get(status, "Error")
    body = (
        f'<main><h1>{status} {esc(title)}</h1><p class="big">{esc(message)}</p>'
        '<p><a href="/">All runs</a></p></main>'
    )
    return html_response(f"{status} {title}", body, status)

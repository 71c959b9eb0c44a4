"""``/regressions``: the Elo of each tested commit against its base along the branch history, as
fishtest's regression tests page (``coordinator.reports.regressions`` gathers it)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from coordinator.escape import terminal
from coordinator.reports.html import Markup, esc, figure, fmt, table
from coordinator.reports.plots import regressions_plot
from coordinator.reports.regressions import regressions
from coordinator.web.query import Query
from coordinator.web.responses import html_response
from coordinator.web.state import dashboard


def _elo(row: dict[str, object]) -> str:
    elo, half = row["elo"], row["elo95"]
    return "-" if not isinstance(elo, float) or not isinstance(half, float) else f"{elo:+.1f} ± {half:.1f}"


def regressions_page(request: Request) -> Response:
    """Per repository and game, a plot and a table of the finished SPRTs of its commits, oldest
    commit first."""
    Query(request.query_params, ())
    groups = regressions(dashboard(request).store)
    parts = []
    for n, group in enumerate(groups):
        rows = group["rows"]
        parts.append(
            f"<h2>{esc(group['repo'])} ({esc(group['game'])})</h2>"
            + figure(regressions_plot(group, f"regressions-{n}"), "Elo against the base, 95% error bars.")
            + table(
                ["commit", "ref", "subject", "committed", "base", "limits", "games", "Elo", "decision"],
                [
                    [
                        Markup(f'<a href="/runs/{int(r["run"])}">{esc(r["name"])}</a>'),
                        r["ref"],
                        terminal(r["subject"] or ""),
                        r["committed_at"],
                        r["base"],
                        r["limits"],
                        r["games"],
                        _elo(r),
                        r["decision_label"] or fmt(None),
                    ]
                    for r in rows
                ],
                left=(0, 1, 2, 3, 4, 5, 8),
            )
        )
    if not parts:
        parts.append(
            '<p class="muted">No finished SPRT of a commit '
            "(<code>arbiter sprt --candidate-ref</code>) yet.</p>"
        )
    body = (
        '<main><h1>Regressions</h1><p class="muted">Each finished SPRT of a commit against its base, '
        "in the order of the branch's history (the commits' depth, then their time).</p>"
        + "".join(parts)
        + "</main>"
    )
    return html_response("Regressions", body)

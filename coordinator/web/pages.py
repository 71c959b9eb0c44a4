"""The dashboard's HTML pages: the runs list, a run (its full report, live), a run's games, one game
replayed on a board, the workers and one worker. Tables and sections use the report's own HTML
helpers (``coordinator.reports.html``); a run page's sections are those of the report file."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response

import engine
from coordinator.fleet import Fleet, Unreachable, age_text, online
from coordinator.fleet.online import BAD_SEAL
from coordinator.registry import LiveItem, elo_text, kind_of, llr_text
from coordinator.reports.data import ReportData, iso
from coordinator.reports.games import RESULT_CHOICES, ExportedGame, GameFilter, pgn, sides, termination
from coordinator.reports.html import Markup, contents_nav, esc, fmt, pairs_table, table, unverifiable_html
from coordinator.reports.sprt.data import MatchReport
from coordinator.reports.sprt.gather import REASONS, engines_of, workers_of
from coordinator.sprt.report import duration
from coordinator.store import Run, Store
from coordinator.web.board import game_svg, legend
from coordinator.web.games import PER_PAGE, find_game, game_url, games_page, moves_of, outcome
from coordinator.web.live import Part, Rendered, digest
from coordinator.web.query import Query, bad_request
from coordinator.web.replay import numbered, replay
from coordinator.web.responses import html_response, text_response
from coordinator.web.state import MAX_NUMBER, dashboard, find_match_run, find_run, path_number
from coordinator.web.summaries import (
    APPROVAL_CHOICES,
    KIND_CHOICES,
    STATE_CHOICES,
    RunFilter,
    is_final,
    listed_runs,
    report_row,
    run_row,
    run_version,
)
from wire.connectivity import safe_url

#: Seconds between two polls of a live page.
POLL_SECONDS = {"run": 2, "runs": 3}
#: Runs of a worker page (the newest).
WORKER_RUNS = 20
RUN_FILTERS = ("kind", "game", "state", "parent", "owner", "approval")
GAME_FILTERS = ("page", "batch", "worker", "result", "reason")
RUNS_COLUMNS = ("run", "kind", "game", "state", "candidate vs baseline / start", "games", "Elo ± 95%",
                "LLR [bounds]", "decision", "started", "duration")  # fmt: skip
GAMES_COLUMNS = ("#", "run", "batch", "game", "worker", "white", "black", "result", "candidate", "reason",
                 "plies", "opening")  # fmt: skip
WORKER_RUN_COLUMNS = ("run", "kind", "game", "state", "batches", "games", "games/s (cpu)", "knodes/s (cpu)",
                      "time factor", "faults", "refused answers", "residual", "flag",
                      "quarantine")  # fmt: skip


def link(href: str, text: Any) -> Markup:
    """A link, for a table cell."""
    return Markup(f'<a href="{esc(href)}">{esc(text)}</a>')


def worker_url(name: str) -> str:
    """The page of a worker."""
    return f"/workers/{quote(name, safe='')}"


# --- the runs list --------------------------------------------------------------------------------


def run_filter(query: Query) -> RunFilter:
    """The runs list's filters from the query."""
    return RunFilter(
        kind=query.choice("kind", KIND_CHOICES),
        game=query.choice("game", engine.GAMES),
        state=query.choice("state", STATE_CHOICES),
        parent=query.integer("parent", 1, MAX_NUMBER),
        owner=query.text("owner"),
        approval=query.choice("approval", APPROVAL_CHOICES),
    )


def runs_rows(store: Store, wanted: RunFilter) -> list[dict[str, Any]]:
    """The rows of the runs list."""
    from coordinator.reports.serving import serving

    runs, parents = listed_runs(store, wanted)
    services = store.services()
    return [
        run_row(store, run, parents.get(run.id)) | serving(store, run, services.get(run.id)).to_json()
        for run in runs
        if not (run.id in services and services[run.id].deleted)
        and wanted.keeps_service(services.get(run.id))
    ]


def _versus(row: dict[str, Any]) -> str:
    """Who plays, as the run's kind says it ("?" when its row lacks them: see ``run_row``)."""
    try:
        return kind_of(row["kind"]).versus(row)
    except KeyError:
        return "?"


def _decision(row: dict[str, Any]) -> str:
    """Where the run ended or stands, as the run's kind says it."""
    try:
        return kind_of(row["kind"]).outcome(row)
    except KeyError:
        return "-"


def _live_items(row: dict[str, Any]) -> list[LiveItem]:
    """The live line's items after the state, as the run's kind says them."""
    try:
        return kind_of(row["kind"]).live(row)
    except KeyError:
        return [LiveItem("games", row.get("games"), "games")]


def _kind(row: dict[str, Any]) -> Any:
    """The kind, with the tuning run a child run belongs to."""
    parent = row["parent"]
    if parent is None:
        return row["kind"]
    return Markup(f"{esc(row['kind'])} of {link(f'/runs/{parent}', parent)}")


def runs_table(rows: list[dict[str, Any]]) -> str:
    """The runs list's table (running runs first)."""
    if not rows:
        return '<p class="muted">No run matches.</p>'
    served = any(row.get("share") is not None for row in rows)
    owned = any(row.get("owner") for row in rows)
    extra = (("submitter",) if owned else ()) + (("share, games/s",) if served else ())
    return table(
        RUNS_COLUMNS + extra,
        [
            [
                link(row["url"], row["id"]),
                _kind(row),
                row["game"],
                Markup(f'<span class="{esc(row["state"])}">{esc(row["state"])}</span>'),
                _versus(row),
                _games(row),
                elo_text(row),
                llr_text(row),
                _decision(row),
                row["created_at"],
                duration(row["seconds"]),
                *([row.get("owner") or "-"] if owned else []),
                *([_served(row)] if served else []),
            ]
            for row in rows
        ],
        left=(1, 2, 3, 4, 8),
    )


def _games(row: dict[str, Any]) -> Any:
    """The games counted, and those still playing apart (not yet counted)."""
    return f"{row['games']} +{row['playing']} playing" if row.get("playing") else row["games"]


def _served(row: dict[str, Any]) -> str:
    """A run's share of the fleet and its games/s, while a server plays it."""
    share = row.get("share")
    return "-" if share is None else f"{share:.0%}, {row.get('games_per_second') or 0:.1f}/s"


def _select(name: str, label: str, choices: tuple[tuple[str, str], ...], chosen: str | None) -> str:
    """One filter of the runs list."""
    options = "".join(
        f'<option value="{esc(value)}"{" selected" if value == (chosen or "") else ""}>{esc(text)}</option>'
        for value, text in choices
    )
    return f'<label>{esc(label)} <select name="{name}">{options}</select></label>'


def _filters_form(wanted: RunFilter) -> str:
    """The runs list's filters (a plain form: no script needed)."""
    kinds = (("", "SPRTs, tuning runs and tournaments"), *((k, k) for k in KIND_CHOICES))
    games = (("", "any"), *((g, g) for g in engine.GAMES))
    states = (("", "any"), *((s, s) for s in STATE_CHOICES))
    parent = (
        f'<input type="hidden" name="parent" value="{wanted.parent}">' if wanted.parent is not None else ""
    ) + "".join(
        f'<input type="hidden" name="{name}" value="{esc(value)}">'
        for name, value in (("owner", wanted.owner), ("approval", wanted.approval))
        if value
    )
    return (
        '<form class="filters" method="get" action="/">'
        + _select("kind", "kind", kinds, wanted.kind)
        + _select("game", "game", games, wanted.game)
        + _select("state", "state", states, wanted.state)
        + parent
        + '<button type="submit">show</button></form>'
    )


def runs_part(rows: list[dict[str, Any]]) -> Part:
    """The runs list's table as the one part of its page."""
    html = runs_table(rows)
    return Part("runs", digest(html), html)


def part_html(part: Part) -> str:
    """One replaceable part of a live page."""
    return f'<div class="part" data-key="{esc(part.key)}" data-digest="{part.digest}">{part.html}</div>'


def filter_query(wanted: RunFilter) -> str:
    """The filters as a query string (for the JSON endpoint the list polls)."""
    values = {
        "kind": wanted.kind,
        "game": wanted.game,
        "state": wanted.state,
        "parent": wanted.parent,
        "owner": wanted.owner,
        "approval": wanted.approval,
    }
    return urlencode({k: v for k, v in values.items() if v is not None})


def runs_page(request: Request) -> Response:
    """``/``: every run, running runs first, with filters; the table updates itself."""
    query = Query(request.query_params, RUN_FILTERS)
    wanted = run_filter(query)
    part = runs_part(runs_rows(dashboard(request).store, wanted))
    api = "/api/runs" + (f"?{filter_query(wanted)}" if filter_query(wanted) else "")
    title = f"Runs of tuning run {wanted.parent}" if wanted.parent is not None else "Runs"
    if wanted.owner is not None:
        title += f" of {wanted.owner}"
    if wanted.approval is not None:
        title += f", {wanted.approval} approval"
    body = (
        f'<main data-live="{esc(api)}" data-version="{part.digest}" data-every="{POLL_SECONDS["runs"]}">'
        f"<h1>{esc(title)}</h1>{_filters_form(wanted)}"
        f'<div id="parts">{part_html(part)}</div>'
        '<p class="muted">Running runs first, then the others, newest first. The table updates '
        f'itself every few seconds. <a href="{esc(api)}">JSON</a></p></main>'
    )
    return html_response(title, body)


# --- one run --------------------------------------------------------------------------------------


def _live_item(item: LiveItem) -> str:
    """One item of the live line: its label, its value (in bold, named for the page's script)."""
    named = f' data-field="{esc(item.field)}"' if item.field else ""
    value = f"<b{named}>{esc(item.value)}</b>" if item.bold else esc(item.value)
    return f'<span><span class="k">{esc(item.label)}</span> {value}{esc(item.after)}</span>'


def live_html(row: dict[str, Any]) -> str:
    """The live line of a run page: where the run stands now."""
    state = f'<span class="{esc(row["state"])}" data-field="state">{esc(row["state"])}</span>'
    items = [state]
    items += [_live_item(item) for item in _live_items(row)]
    if row.get("playing"):
        items.append(_live_item(LiveItem("playing", row["playing"], "playing", " games, not yet counted")))
    items.append(
        f'<span class="muted">{esc(duration(row["seconds"]))}, updated {esc(row["updated_at"])}</span>'
    )
    if row.get("error"):
        items.append(f'<span class="failed">{esc(row["error"])}</span>')
    return "".join(items)


def _run_links(run: Run, data: ReportData) -> str:
    """Where to go from a run's page."""
    links = [
        link(f"/runs/{run.id}/games", "games"),
        link(f"/runs/{run.id}/report.html", "report file"),
        link(f"/api/runs/{run.id}", "JSON"),
    ]
    parent = data.run.parent
    if parent is not None:
        links.append(link(f"/runs/{parent}", f"tuning run {parent}"))
    if (children := kind_of(run.kind).children) is not None:
        links.append(link(f"/?parent={run.id}", children))
    workers = [w.worker for w in data.workers.workers] if isinstance(data, MatchReport) else []
    if workers:
        links.append(Markup(f"<span>workers: {', '.join(link(worker_url(w), w) for w in workers)}</span>"))
    return f'<p class="links">{"".join(links)}</p>'


@dataclass(frozen=True)
class ShownRun:
    """A run as its page, its JSON and its report file show it now: its report at the run's
    version (or a recent build of it), and whether nothing will change any more (the run ended
    and the report is of its last version)."""

    run: Run
    rendered: Rendered
    final: bool

    @property
    def row(self) -> dict[str, Any]:
        """The live row read from the report (the page and the JSON show it; the file does not)."""
        return report_row(self.run, self.rendered.report)


def shown_run(request: Request) -> ShownRun:
    """The run the path names (a 404 answer for none), as shown now."""
    state = dashboard(request)
    run = find_run(request)
    version = run_version(state.store, run)
    rendered = state.reports.get(state.store, run, version)
    return ShownRun(run, rendered, is_final(run) and rendered.version == version)


def run_page(request: Request) -> Response:
    """``/runs/N``: the run's full report (the sections of its HTML file), updating itself."""
    Query(request.query_params, ())
    shown = shown_run(request)
    run, rendered, row = shown.run, shown.rendered, shown.row
    state = dashboard(request)
    final = " data-final" if shown.final else ""
    title = f"Run {run.id}: {run.kind} {run.game}"
    body = (
        f'<main data-live="/api/runs/{run.id}" data-version="{rendered.version}" '
        f'data-every="{POLL_SECONDS["run"]}"{final}>'
        f"<h1>{esc(title)}</h1>{_run_links(run, rendered.report)}"
        f"{unverifiable_html(rendered.report.unverifiable)}"
        f"{state.run_panel(request, run) if state.run_panel is not None else ''}"
        f'<div id="live" class="live">{live_html(row)}</div>'
        f"{contents_nav(rendered.page.contents)}"
        f'<div id="parts">{"".join(part_html(p) for p in rendered.parts)}</div>'
        '<p class="muted">The same report as <code>arbiter report</code> writes; see docs/reports.md '
        "for how to read it.</p></main>"
    )
    return html_response(title, body)


def report_file(request: Request) -> Response:
    """``/runs/N/report.html``: the self-contained report file, as ``arbiter report`` writes it."""
    Query(request.query_params, ())
    shown = shown_run(request)
    return text_response(shown.rendered.page, "text/html; charset=utf-8", f"{shown.run.id}-report.html")


# --- a run's games --------------------------------------------------------------------------------


def game_filter(query: Query) -> GameFilter:
    """Which games to list, from the query (the filters of ``arbiter games``)."""
    try:
        return GameFilter(
            batch=query.integer("batch", 0, MAX_NUMBER),
            worker=query.text("worker"),
            result=query.choice("result", RESULT_CHOICES),
            reason=query.choice("reason", REASONS),
        )
    except ValueError as e:
        raise bad_request(str(e)) from None


def games_query(query: Query) -> tuple[GameFilter, int]:
    """The filters and the page of a games list."""
    return game_filter(query), query.integer("page", 1, 10**9) or 1


def _page_link(request: Request, page: int, text: str) -> str:
    """A link to another page of the same list."""
    params = dict(request.query_params) | {"page": str(page)}
    return f'<a href="?{esc(urlencode(params))}">{esc(text)}</a>'


def games_list_page(request: Request) -> Response:
    """``/runs/N/games``: the run's counted games, a page at a time, each linked to its replay."""
    query = Query(request.query_params, GAME_FILTERS)
    wanted, page = games_query(query)
    state = dashboard(request)
    run = find_run(request)
    games, more = games_page(state.store, run, wanted, page)
    first = (page - 1) * PER_PAGE
    rows = [
        [
            link(game_url(g), first + n + 1),
            link(f"/runs/{g.run.id}", g.run.id),
            g.batch_index,
            g.game_number,
            link(worker_url(g.worker), g.worker) if g.worker else "?",
            *white_and_black(g),
            g.record["result"],
            outcome(g.record),
            g.record["reason"],
            len(moves_of(g.record)),
            g.record["opening"],
        ]
        for n, g in enumerate(games)
    ]
    listing = (
        table(GAMES_COLUMNS, rows, left=(4, 5, 6, 8, 9, 11))
        if rows
        else '<p class="muted">No counted game matches on this page.</p>'
    )
    pager = [_page_link(request, page - 1, "previous page")] if page > 1 else []
    if more:
        pager.append(_page_link(request, page + 1, "next page"))
    filters = {
        "batch": wanted.batch,
        "worker": wanted.worker,
        "result": wanted.result,
        "reason": wanted.reason,
    }
    shown = ", ".join(f"{k} {v}" for k, v in filters.items() if v is not None) or "all counted games"
    title = f"Games of run {run.id}"
    api = f"/api/runs/{run.id}/games?" + urlencode(dict(request.query_params))
    body = (
        f"<main><h1>{esc(title)}</h1>"
        f'<p class="links">{link(f"/runs/{run.id}", f"run {run.id}")}{link(api, "JSON")}</p>'
        f"<p>Page {page}, {PER_PAGE} games a page: {esc(shown)}. Filters as for <code>arbiter games</code>: "
        "<code>?batch=N&amp;worker=NAME&amp;result=win|draw|loss|1-0|0-1|1/2-1/2&amp;reason=...</code></p>"
        f'{listing}<p class="pager">{"".join(pager)}</p></main>'
    )
    return html_response(title, body)


# --- one game -------------------------------------------------------------------------------------


def _found_game(request: Request) -> Any:
    """The game the path names, or a 404 answer."""
    state = dashboard(request)
    run = find_match_run(request)
    batch, number = path_number(request, "batch"), path_number(request, "game")
    game = find_game(state.store, run, batch, number)
    if game is None:
        raise HTTPException(404, f"run {run.id} has no counted game {number} in batch {batch}")
    return game


def _moves_table(opening: str, moves: list[str], shown: int) -> str:
    """The moves, numbered, each a link to the position after it."""

    def cell(ply: int | None) -> str:
        if ply is None:
            return "<td></td>"
        current = ' class="cur"' if ply == shown else ""
        return f'<td><a href="?ply={ply}" data-ply="{ply}"{current}>{esc(moves[ply - 1])}</a></td>'

    rows = "".join(f"<tr><td>{n}.</td>{cell(w)}{cell(b)}</tr>" for n, w, b in numbered(opening, len(moves)))
    start = ' class="cur"' if shown == 0 else ""
    head = f'<tr><td></td><td colspan="2"><a href="?ply=0" data-ply="0"{start}>opening position</a></td></tr>'
    return f'<table class="moves"><tbody>{head}{rows}</tbody></table>'


def white_and_black(game: ExportedGame) -> tuple[str, str]:
    """Who had white and who black: a tournament's engines, else candidate and baseline."""
    (candidate, _), (baseline, _) = sides(game.run, game.batch_index)
    return (candidate, baseline) if game.record["candidate_color"] == "white" else (baseline, candidate)


def game_page(request: Request) -> Response:
    """``/runs/N/games/B/G``: one game replayed on a board, move by move."""
    query = Query(request.query_params, ("ply",))
    game = _found_game(request)
    r = game.record
    played = replay(game.run.game, r["opening"], moves_of(r))
    shown = query.integer("ply", 0, played.plies) or 0
    white, black = white_and_black(game)
    (candidate, candidate_source), (baseline, baseline_source) = sides(game.run, game.batch_index)
    facts = pairs_table(
        [
            ("result", f"{r['result']} (candidate: {outcome(r)})"),
            ("end", f"{r['reason'].replace('_', ' ')} ({termination(r['reason'])})"),
            ("white / black", f"{white} / {black}"),
            (
                f"candidate ({candidate})" if candidate != "candidate" else "candidate",
                candidate_source or "?",
            ),
            (
                f"baseline ({baseline})" if baseline != "baseline" else "baseline",
                baseline_source or "default",
            ),
            ("plies", played.plies),
            ("opening position", r["opening"]),
            ("batch / game", f"{game.batch_index} / {game.game_number}"),
            ("worker", game.worker or "?"),
            ("stored", iso(game.stored_at)),
        ]
    )
    problem = f'<p class="failed">The replay stops at {esc(played.error)}.</p>' if played.error else ""
    controls = "".join(
        f'<a href="?ply={ply}" data-step="{step}">{esc(text)}</a>'
        for step, text, ply in (
            ("first", "« start", 0),
            ("prev", "◀ back", max(shown - 1, 0)),
            ("next", "forward ▶", min(shown + 1, played.plies)),
            ("last", "end »", played.plies),
        )
    )
    title = f"Game {game.game_number} of batch {game.batch_index}, run {game.run.id} ({game.run.game})"
    links = (
        link(f"/runs/{game.run.id}/games", f"games of run {game.run.id}")
        + link(f"/runs/{game.run.id}", f"run {game.run.id}")
        + link(f"{game_url(game)}.pgn", "PGN")
    )
    body = (
        f'<main><h1>{esc(title)}</h1><p class="links">{links}</p>{problem}'
        f'<div class="replay" data-plies="{played.plies}" data-ply="{shown}">'
        f"<div>{game_svg(played, shown)}"
        f'<p class="controls">{controls}</p>'
        f'<p>ply <b id="ply">{shown}</b> of {played.plies}; position <code class="fen" id="fen">'
        f"{esc(played.positions[shown])}</code></p>"
        f'<p class="muted">{esc(legend(game.run.game))} Arrow keys step too.</p></div>'
        f"<div>{facts}<h3>Moves</h3>{_moves_table(r['opening'], played.moves, shown)}</div>"
        "</div></main>"
    )
    return html_response(title, body)


def game_pgn(request: Request) -> Response:
    """``/runs/N/games/B/G.pgn``: the game as ``arbiter games`` exports it."""
    Query(request.query_params, ())
    game = _found_game(request)
    name = f"run{game.run.id}-batch{game.batch_index}-game{game.game_number}.pgn"
    engines = engines_of(dashboard(request).store, game.run)
    return text_response(pgn(game, engines), "application/x-chess-pgn; charset=utf-8", name)


# --- workers --------------------------------------------------------------------------------------


#: What the workers page says when the dashboard knows no broker.
NO_BROKER = (
    "This dashboard knows no broker, so it cannot list the workers online now: start it with "
    "arbiter serve --broker URL (or $ARBITER_BROKER), or run arbiter workers --broker URL."
)
ONLINE_COLUMNS = ("worker", "proved", "cores", "speed", "engine", "playing (run/batch)", "last seen",
                  "refused answers", "quarantined (runs)", "programs", "host")  # fmt: skip


def online_fleet(request: Request) -> Fleet | None:
    """The workers online on the dashboard's broker, or None when it knows none; a 503 answer
    when the broker does not answer."""
    state = dashboard(request)
    if state.broker is None:
        return None
    try:
        return online(state.broker, state.store, state.keys)
    except Unreachable as e:
        raise HTTPException(503, str(e)) from None


def _online_part(request: Request, known: set[str]) -> str:
    """The "Online now" section of the workers page (a worker of the ``known`` ones, which have a
    page of their history, links to it)."""
    try:
        fleet = online_fleet(request)
    except HTTPException as e:
        return f'<h2>Online now</h2><p class="flag">{esc(e.detail)}</p>'
    if fleet is None:
        return f'<h2>Online now</h2><p class="muted">{esc(NO_BROKER)}</p>'
    rows, classes = [], []
    for w in fleet.workers:
        b = w.beat
        playing = Markup(
            ", ".join(f'<a href="/runs/{run}">{run}</a>/{batch}' for run, batch in b.batches) or "idle"
        )
        rows.append(
            [
                link(worker_url(b.name), b.name) if b.name in known else b.name,
                "yes" if w.proved else w.proof,
                b.cores,
                "?" if w.speed_factor is None else f"{w.speed_factor:.2f}x",
                b.engine,
                playing,
                f"{age_text(w.last_seen)} ago",
                "" if w.refusals is None else w.refusals,
                Markup(", ".join(str(link(f"/runs/{run}", run)) for run in w.quarantined)),
                "refused" if b.refuses_programs else b.sandbox,
                b.host,
            ]
        )
        classes.append("" if w.proved else "yellow" if w.proof != BAD_SEAL else "flag")
    listing = (
        table(ONLINE_COLUMNS, rows, left=(0, 1, 4, 5, 8, 9, 10), cls=classes)
        if rows
        else f'<p class="muted">No worker online: none sent a heartbeat to {esc(state_broker(request))}</p>'
    )
    notes = "".join(
        f'<p class="flag">A heartbeat under {esc(node)} was ignored: {esc(why)}.</p>'
        for node, why in fleet.unreadable
    )
    if fleet.truncated:
        shown = len(fleet.workers) + len(fleet.unreadable)
        notes += f'<p class="flag">More heartbeats than these {shown}: the rest are not listed.</p>'
    return (
        f"<h2>Online now</h2>{listing}{notes}"
        "<p class=\"muted\">From the workers' heartbeats: each is the worker's own claim, proved when "
        "its seal verifies under the fleet's secret (the dashboard's $ARBITER_SECRET). Speed is the "
        "worker's bench against the reference machine.</p>"
    )


def state_broker(request: Request) -> str:
    """The dashboard's broker, its password masked."""
    broker = dashboard(request).broker
    return "" if broker is None else safe_url(broker.url)


def workers_page(request: Request) -> Response:
    """``/workers``: the workers online now (from their heartbeats, when the dashboard knows the
    broker), then every worker that stored a result or had one refused."""
    Query(request.query_params, ())
    workers = dashboard(request).store.workers()
    rows = [
        [
            link(worker_url(w.worker), w.worker),
            w.runs,
            w.batches,
            w.games,
            f"{w.cpu_seconds:.1f}",
            fmt(w.games / w.cpu_seconds if w.cpu_seconds > 0 else None),
            w.refused,
            iso(w.last_seen),
        ]
        for w in workers
    ]
    listing = (
        table(
            ["worker", "runs", "batches", "games", "cpu s", "games/s (cpu)", "refused", "last result"], rows
        )
        if rows
        else '<p class="muted">No worker has stored a result yet.</p>'
    )
    body = (
        f"<main><h1>Workers</h1>{_online_part(request, {w.worker for w in workers})}<h2>History</h2>{listing}"
        '<p class="muted">Batches are stored results; refused counts '
        "the worker's answers that were refused.</p></main>"
    )
    return html_response("Workers", body)


def _worker_runs(store: Store, name: str) -> str:
    """The worker's row of the workers table of each of its newest runs' reports."""
    rows, classes = [], []
    for run_id in store.worker_runs(name)[:WORKER_RUNS]:
        run = store.get_run(run_id)
        if run is None or not kind_of(run.kind).worker_check:
            continue
        mine = next((w for w in workers_of(store, run).workers if w.worker == name), None)
        if mine is None:  # it only handled batches that another worker's answer settled
            continue
        flag = "OUTLIER" if mine.flagged else mine.level
        rows.append(
            [
                link(f"/runs/{run.id}", run.id),
                run.kind,
                run.game,
                run.state,
                mine.batches,
                mine.games,
                fmt(mine.games_per_second),
                fmt(None if mine.nodes_per_second is None else mine.nodes_per_second / 1000),
                fmt(mine.time_factor, ".2f"),
                mine.faults,
                mine.refused,
                fmt(mine.residual, ".2f"),
                flag,
                mine.quarantined or "",
            ]
        )
        flagged = mine.flagged or mine.quarantined
        classes.append("flag" if flagged else "yellow" if flag == "yellow" else "")
    if not rows:
        return '<p class="muted">No counted batch in any run.</p>'
    return table(WORKER_RUN_COLUMNS, rows, left=(1, 2, 3, 12, 13), cls=classes)


def _worker_refusals(store: Store, name: str) -> str:
    """The worker's newest refused answers, and why."""
    refusals = store.worker_refusals(name, limit=PER_PAGE)
    if not refusals:
        return '<p class="muted">No answer of this worker was refused.</p>'
    return table(
        ["run", "batch", "when", "reason"],
        [[link(f"/runs/{r.run_id}", r.run_id), r.batch_index, iso(r.created_at), r.reason] for r in refusals],
        left=(3,),
    )


def worker_page(request: Request) -> Response:
    """``/workers/NAME``: the worker's runs (its row of their reports) and its batches."""
    query = Query(request.query_params, ("page",))
    page = query.integer("page", 1, 10**9) or 1
    store = dashboard(request).store
    name = request.path_params["name"]
    totals = next((w for w in store.workers() if w.worker == name), None)
    if totals is None:
        raise HTTPException(404, f"no worker {name!r} in this store")
    batches = store.worker_batches(name, limit=PER_PAGE + 1, offset=(page - 1) * PER_PAGE)
    rows = [
        [
            link(f"/runs/{b.run_id}", b.run_id),
            b.batch_index,
            b.state,
            b.attempts,
            b.games,
            fmt(b.cpu_seconds),
            fmt(b.games / b.cpu_seconds if b.games and b.cpu_seconds else None),
            iso(b.stored_at),
            b.refusal or "",
        ]
        for b in batches[:PER_PAGE]
    ]
    summary = pairs_table(
        [
            ("runs", totals.runs),
            ("stored batches", totals.batches),
            ("games", totals.games),
            ("worker CPU", f"{totals.cpu_seconds:.1f} s"),
            ("games/s (cpu)", fmt(totals.games / totals.cpu_seconds if totals.cpu_seconds > 0 else None)),
            ("refused answers", totals.refused),
            ("last result", iso(totals.last_seen)),
        ]
    )
    pager = [_page_link(request, page - 1, "previous page")] if page > 1 else []
    if len(batches) > PER_PAGE:
        pager.append(_page_link(request, page + 1, "next page"))
    listing = (
        table(
            ["run", "batch", "state", "attempts", "games", "cpu s", "games/s", "stored", "last refusal"],
            rows,
            left=(2, 8),
        )
        if rows
        else '<p class="muted">No batch on this page.</p>'
    )
    title = f"Worker {name}"
    body = (
        f"<main><h1>{esc(title)}</h1>{summary}"
        f'<h2>Runs</h2><p class="muted">Its row of the workers table of each of its newest '
        f"{WORKER_RUNS} runs' reports: residual and flag as there.</p>{_worker_runs(store, name)}"
        f"<h2>Refused answers</h2>{_worker_refusals(store, name)}"
        f'<h2>Batches</h2>{listing}<p class="pager">{"".join(pager)}</p></main>'
    )
    return html_response(title, body)

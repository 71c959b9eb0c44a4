"""The HTML page of a tournament report: the rating list, the LOS heat map, ratings over the
games, head-to-head scores, each engine's time per move and faults, the champion chain's check and
the settings."""

from __future__ import annotations

import json

from coordinator.reports.html import (
    ReportPage,
    esc,
    faults_table,
    figure,
    fmt,
    last_fault,
    move_times_table,
    page,
    pairs_table,
    section,
    table,
)
from coordinator.reports.tournament.data import TournamentReport


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _rating_list(data: TournamentReport) -> str:
    """The rating list table, and how it was computed."""
    fit = data.fit
    if not data.ratings or fit is None:
        why = data.ratings_error or "no games counted yet"
        return f'<p class="muted">No ratings: {esc(why)}.</p>'
    rows = [
        [r.rank, r.name, f"{r.elo:+.1f}", fmt(r.error), r.games, _percent(r.score), _percent(r.draw_rate)]
        for r in data.ratings
    ]
    anchor = fit.anchor or "the mean of all engines"
    how = pairs_table(
        [
            ("model", data.model),
            ("Elo relative to", f"{anchor} ({fit.anchor_elo:g})"),
            ("error bars", f"{100 * fit.confidence:g}%"),
            ("first-move advantage", f"{fit.white_advantage:+.1f} ± {fit.white_advantage_error:.1f} Elo"),
            ("prior", f"{fit.prior:g} virtual games per pairing"),
            ("draw Elo", fmt(fit.draw_elo)),
        ]
    )
    return table(["rank", "name", "Elo", "+/-", "games", "score %", "draws %"], rows, left=(1,)) + how


def _head_to_head(data: TournamentReport) -> str:
    """Each pairing's wins, draws and losses (and game pairs, LL to WW) of the first engine."""
    rows = [
        [
            h.engine,
            h.opponent,
            h.wins,
            h.draws,
            h.losses,
            "-" if h.pentanomial is None else " ".join(map(str, h.pentanomial)),
        ]
        for h in data.head_to_head
    ]
    return table(["engine", "opponent", "W", "D", "L", "pairs LL LD DD/WL WD WW"], rows, left=(0, 1, 5))


def _engines(data: TournamentReport) -> str:
    """Each engine's time per move and faults in the counted games (as a match report shows its
    two sides'), the last fault of each with its stderr lines."""
    engines = data.engines
    return "".join(
        [
            "<h3>Time per move</h3>",
            move_times_table(["engine"], [([e.name], e.move_times) for e in engines]),
            "<h3>Faults</h3>",
            faults_table(["engine"], [([e.name], e.faults) for e in engines]),
            *(last_fault(e.name, e.faults) for e in engines),
        ]
    )


def tournament_html(data: TournamentReport, plots: dict[str, str]) -> ReportPage:
    """The page of a tournament report."""
    r = data.run
    headline = (
        f'<p class="big">{data.format} of {len(data.engines)} engines: {data.games} of '
        f"{data.planned_games} games counted ({r.state})</p>"
    )
    chain = ""
    if data.chain is not None:
        lines = "".join(f"<li>{esc(line)}</li>" for line in data.chain.lines)
        klass = "ok" if data.chain.confirmed else "flag"
        chain = f'<p>Champions of tuning run {data.champions_of}:</p><ul class="{klass}">{lines}</ul>'
    settings = pairs_table(
        [
            ("run", f"{r.id} ({r.kind}, {r.game})"),
            ("state", r.state),
            ("started", r.created_at),
            ("finished", r.finished_at),
            ("engine version", r.engine_version),
            ("format", data.format + (f" (vs {data.gauntlet_engine})" if data.gauntlet_engine else "")),
            ("pairs per pairing", data.pairs_per_pairing),
            ("batches", f"{data.counted_batches} of {data.planned_batches} counted"),
            ("limits", json.dumps(data.limits, sort_keys=True)),
            ("book", data.book),
            ("seed", data.seed),
            *[(f"engine {e.name}", e.source) for e in data.engines],
            *([("error", r.error)] if r.error else []),
        ]
    )
    return page(
        f"arbiter tournament {r.id}: {r.game}",
        section("ratings", "Rating list", headline, _rating_list(data), chain),
        section(
            "los",
            "Likelihood of superiority",
            figure(plots["los"], "The probability that the row's engine is stronger than the column's."),
            label="LOS matrix",
        ),
        section(
            "over-games",
            "Ratings over games",
            figure(plots["over_games"], "Each engine's rating and error bar, rated from the games so far."),
        ),
        section("head-to-head", "Head to head", _head_to_head(data)),
        section("engines", "Engines", _engines(data)),
        section("settings", "Settings", settings),
    )

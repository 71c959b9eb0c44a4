"""The HTML page of a match run's report (made by ``reports.html.page``)."""

from __future__ import annotations

from coordinator.escape import terminal
from coordinator.reports.engines import Engines
from coordinator.reports.html import (
    Section,
    by_worker_table,
    esc,
    faults_table,
    figure,
    fmt,
    last_fault,
    move_times_table,
    page,
    pairs_table,
    reproduction,
    run_table,
    section,
    table,
)
from coordinator.reports.sprt.data import MatchReport


def engines_html(e: Engines, plots: dict[str, str]) -> Section:
    """The engines section (``e``: the engines part of a report, with the time per move): each
    side's name, version, options and commit, the limits, the time per move, and the faults (per
    engine and per worker, the last with its stderr lines)."""
    sides = table(
        ["side", "name", "kind", "version (id name)", "options", "commit", "from"],
        [
            [
                side,
                s.name,
                s.kind,
                terminal(s.version or "not reported"),
                " ".join(f"{k}={v}" for k, v in s.options.items()),
                "" if s.commit is None else terminal(f"{s.commit.sha} {s.commit.subject or ''}"),
                s.source,
            ]
            for side, s in e.sides.items()
        ],
        left=(0, 1, 2, 3, 4, 5, 6),
    )
    others = [
        f"{side} also reported: "
        + "; ".join(f"{r.name} by {r.author} ({r.batches} batches)" for r in s.reported[1:])
        for side, s in e.sides.items()
        if len(s.reported) > 1
    ]
    move_times = move_times_table(
        ["side", "name"], [([side, e.sides[side].name], t) for side, t in (e.move_times or {}).items()]
    )
    faults = faults_table(["side", "name"], [([side, s.name], s.faults) for side, s in e.sides.items()])
    by_worker = by_worker_table(e.workers)
    last = [last_fault(f"the {side}", s.faults) for side, s in e.sides.items()]
    plot = (
        [figure(plots["move_times"], "Mean time per move at each move number.")]
        if "move_times" in plots
        else []
    )
    return section(
        "engines",
        "Engines",
        sides,
        "".join(f'<p class="muted">{esc(line)}</p>' for line in others),
        f"<p>Limits: {esc(e.limits)} (PGN TimeControl {esc(e.time_control)}).</p>",
        "<h3>Time per move</h3>",
        *plot,
        move_times,
        "<h3>Faults</h3>",
        faults,
        *last,
        "<h3>Per worker</h3>",
        '<p class="muted">The factor each worker scaled time limits by (its speed against the reference '
        "machine; 1 for node and depth limits), and the faults in the games it played.</p>",
        by_worker,
    )


def match_html(data: MatchReport, plots: dict[str, str]) -> str:
    """The page of a match report."""
    r, h, t, s = data.run, data.hypothesis, data.totals, data.stats
    headline = f'<p class="big">{esc(data.headline)}</p>' + (
        f"<p>{esc(data.ending)}</p>" if data.ending else ""
    )
    hypothesis = pairs_table(
        [
            ("H0 / H1", f"{h.elo0:g} / {h.elo1:g} Elo"),
            ("Elo model", h.elo_model),
            ("alpha / beta", f"{h.alpha:g} / {h.beta:g}"),
            ("bounds", f"{h.lower_bound:.3f} / {h.upper_bound:.3f}"),
            ("batch", f"{h.batch_pairs} pairs"),
            ("game budget", h.max_games if h.max_games is not None else "none"),
        ]
    )
    if s is not None:
        lo, hi = s["sprt_elo_ci"]
        nlo, nhi = s["nelo_ci"]
        numbers = pairs_table(
            [
                ("LLR", f"{s['llr']:.3f}"),
                ("Elo (fixed sample)", f"{s['elo']:.2f} ± {s['elo95']:.2f} (95%)"),
                ("LOS", f"{100 * s['los']:.2f}%"),
                ("SPRT-aware Elo", f"{s['sprt_elo']:.2f} [{lo:.2f}, {hi:.2f}] (95%)"),
                ("SPRT-aware LOS", f"{100 * s['sprt_los']:.2f}%"),
                ("nElo", f"{s['nelo']:.2f} [{nlo:.2f}, {nhi:.2f}] (95%)"),
            ]
        )
    else:
        numbers = '<p class="muted">No game pair counted yet: no Elo.</p>'
    counts = table(
        ["", "LL", "LD", "DD/WL", "WD", "WW", "pairs"], [["pentanomial", *t.pentanomial, t.pairs]]
    ) + table(["", "W", "D", "L", "games"], [["candidate", *t.wdl, t.games]])
    endings = table(
        [
            "reason",
            "decided by",
            "games",
            "cand. white W",
            "D",
            "L",
            "cand. black W",
            "D",
            "L",
            "1-0",
            "½-½",
            "0-1",
        ],
        [
            [
                e.reason,
                e.kind,
                e.games,
                *e.candidate_white.counts(),
                *e.candidate_black.counts(),
                e.white_wins,
                e.draws,
                e.black_wins,
            ]
            for e in data.endings
        ],
        left=(0, 1),
    )
    g = data.length
    length = pairs_table(
        [
            ("games", g.games),
            ("mean plies", fmt(g.mean)),
            ("median", g.median),
            ("min", g.min),
            ("max", g.max),
        ]
    )
    o = data.openings
    share = o.most_decisive_share
    opening_rows = [
        [row.opening, row.pairs, fmt(row.points, "g"), f"{row.net:+.1f}"] for row in o.helped + o.hurt
    ]
    openings = (
        f"<p>{o.played} openings played in {o.pairs} pairs; candidate's net "
        f"{o.net:+.1f} points; the most decisive opening holds "
        f"{'-' if share is None else f'{100 * share:.0f}%'} of the total swing.</p>"
        + table(["opening", "pairs", "points", "net"], opening_rows)
    )
    w = data.workers
    check = w.check
    workers = table(
        [
            "worker",
            "batches",
            "games",
            "games/s (cpu)",
            "knodes/s (cpu)",
            "refused answers",
            "time factor",
            "faults",
            "pentanomial",
            "residual",
            "flag",
            "quarantine",
        ],
        [
            [
                wk.worker,
                wk.batches,
                wk.games,
                fmt(wk.games_per_second),
                fmt(None if wk.nodes_per_second is None else wk.nodes_per_second / 1000),
                wk.refused,
                fmt(wk.time_factor, ".2f"),
                wk.faults,
                " ".join(map(str, wk.pentanomial)),
                fmt(wk.residual, ".2f"),
                "OUTLIER" if wk.flagged else wk.level,
                wk.quarantined or "",
            ]
            for wk in w.workers
        ],
        left=(0, 11),
        cls=[
            "flag" if wk.flagged or wk.quarantined else "yellow" if wk.level == "yellow" else ""
            for wk in w.workers
        ],
    ) + (
        f'<p class="muted">chi² {fmt(check.chi2, ".2f")} with {check.dof} degrees of freedom, '
        f"p {fmt(check.p, '.3g')}; thresholds z95 {fmt(check.z_95, '.2f')}, "
        f"z99 {fmt(check.z_99, '.2f')}. {w.resent} re-sends (batches sent again after no worker "
        f"answered in time) and {w.refused_batches} batches with a refusal in all.</p>"
    )
    refusals = (
        table(
            ["batch", "attempts", "state", "last reason"],
            [[x.batch, x.attempts, x.state, x.reason] for x in data.refusals],
            left=(3,),
        )
        if data.refusals
        else '<p class="muted">No result was refused.</p>'
    )
    batches = (
        f"<p>{t.counted_batches} batches counted, {t.stored_batches} stored, "
        f"{t.cpu_seconds:.1f} s of worker CPU.</p>"
    )
    return page(
        f"arbiter report: run {r.id} ({r.kind} {r.game})",
        section(
            "summary",
            "Summary",
            headline,
            run_table(r),
            "<h3>Hypothesis</h3>",
            hypothesis,
            "<h3>Statistics</h3>",
            numbers,
        ),
        engines_html(data.engines, plots),
        section(
            "sprt",
            "LLR and Elo over games",
            figure(
                plots["llr"],
                "LLR after each counted batch; the run stops when it leaves the band between the bounds.",
            ),
            figure(
                plots["elo"],
                "Fixed-sample Elo and its 95% band after each batch; the diamond is the SPRT-aware "
                "estimate at the end.",
            ),
            label="LLR & Elo",
        ),
        section(
            "outcomes",
            "Pentanomial and W/D/L",
            figure(plots["outcomes"], "Game pairs and games, from the candidate's view."),
            counts,
            label="Outcomes",
        ),
        section(
            "endings",
            "How games ended",
            figure(plots["endings"], "Per reason (rules or adjudication) and the candidate's colour."),
            endings,
            "<h3>Game length</h3>",
            figure(plots["length"], "Plies per game."),
            length,
            label="Endings",
        ),
        section(
            "openings",
            "Openings",
            figure(plots["openings"], "Net pair points per opening: 0 is an even pair."),
            openings,
        ),
        section(
            "workers",
            "Workers",
            figure(
                plots["workers"], "fishtest's chi² residual per worker; beyond z99 the worker is flagged."
            ),
            workers,
            "<h3>Refusals</h3>",
            refusals,
        ),
        section(
            "throughput",
            "Throughput",
            figure(plots["throughput"], "Counted games per second of wall-clock time."),
            batches,
        ),
        reproduction(data.command, data.command_notes, data.config),
    )

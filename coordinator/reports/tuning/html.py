"""The HTML page of a tuning run's report (made by ``reports.html.page``)."""

from __future__ import annotations

from coordinator.reports.html import (
    ReportPage,
    Section,
    esc,
    figure,
    fmt,
    interval,
    page,
    pairs_table,
    reproduction,
    run_table,
    section,
    table,
)
from coordinator.reports.tuning.data import SpsaView, TuneReport, TuneTotals
from coordinator.sprt.report import duration
from coordinator.tuning.outcomes import tally_text


def _champions(data: TuneReport, plots: dict[str, str]) -> Section:
    """The champion chain section (with each acceptance setting's view when there are several)."""
    reigns = {x.champion: x for x in data.reigns}
    what = "trial" if data.method == "optuna" else "after iteration"
    champions = table(
        [
            "champion",
            what,
            "Elo vs start",
            "± 95%",
            "SPRT Elo vs parent",
            "games before",
            "crowned",
            "games",
            "time",
            "games/s",
        ],
        [
            [
                f"#{c.number}",
                c.trial if c.trial is not None else "start",
                f"{c.elo_vs_start:+.1f}",
                fmt(c.elo_vs_start95),
                "-" if c.number == 0 else interval(c.elo_vs_parent, *c.elo_vs_parent_ci),
                c.games_before,
                c.crowned_at,
                reign.games if (reign := reigns.get(c.number)) is not None else None,
                duration(reign.seconds if reign is not None else None),
                fmt(reign.games_per_second if reign is not None else None),
            ]
            for c in data.champions
        ],
    )
    stages = data.stages
    by_stage = ""
    if len(stages) > 1:
        by_stage = "<h3>At each acceptance setting</h3>" + table(
            ["champion", *(v.setting for v in stages)],
            [
                [f"#{c.number}"]
                + [
                    f"{v.champions[n].elo_vs_start:+.1f} ± {v.champions[n].elo_vs_start95:.1f}"
                    for v in stages
                ]
                for n, c in enumerate(data.champions)
            ],
        )
    return section(
        "champions",
        "Champion chain",
        figure(
            plots["champions"],
            "Each champion's Elo against the start weights (95% bars), at the games played when "
            "it was crowned (the first acceptance setting's SPRTs).",
        ),
        champions,
        by_stage,
        label="Champions",
    )


def _acceptances(data: TuneReport, plots: dict[str, str]) -> Section:
    """The acceptance SPRTs section: one row per SPRT, with its setting."""
    what = "trial" if data.method == "optuna" else "iteration"
    accept = (
        table(
            [
                "run",
                what,
                "setting",
                "vs champion",
                "games",
                "LLR",
                "bounds",
                "ending",
                "SPRT Elo (95%)",
                "crowned",
            ],
            [
                [
                    a.run_id,
                    a.trial,
                    a.setting,
                    f"#{a.champion}",
                    a.games,
                    f"{a.series.llr[-1]:.2f}" if a.series.llr else "0.00",
                    f"{a.lower_bound:.2f} / {a.upper_bound:.2f}",
                    a.ending,
                    "-" if a.sprt_elo is None else interval(a.sprt_elo.elo, *a.sprt_elo.ci),
                    "yes" if a.crowned else "no",
                ]
                for a in data.acceptances
            ],
        )
        if data.acceptances
        else '<p class="muted">No candidate went to an acceptance SPRT.</p>'
    )
    return section(
        "acceptance",
        "Acceptance SPRTs",
        figure(plots["acceptance"], "LLR over games of each acceptance SPRT, with the bounds."),
        accept,
    )


def _weights(data: TuneReport, plots: dict[str, str]) -> Section:
    """The final weights section."""
    weights = table(
        ["weight", "meaning", "range", "default", "start", "final", "change", "tuned"],
        [
            [
                w.name,
                w.description,
                f"{w.min}..{w.max}",
                w.default,
                w.start,
                w.final,
                f"{w.change:+d}",
                "yes" if w.tuned else "no",
            ]
            for w in data.weights
        ],
        left=(0, 1),
    )
    return section(
        "weights",
        "Final weights",
        figure(
            plots["weights"],
            "Each weight's engine default, start value and final champion value within its range.",
        ),
        weights,
        label="Weights",
    )


def _effort(data: TuneReport, plots: dict[str, str]) -> Section:
    """Games and time per champion."""
    effort = table(
        ["champion", "games", "time", "games/s"],
        [[f"#{x.champion}", x.games, duration(x.seconds), fmt(x.games_per_second)] for x in data.reigns],
    )
    return section(
        "effort",
        "Games and time per champion",
        figure(plots["reigns"], "Games played while each champion reigned, and their speed."),
        effort,
        label="Effort",
    )


def _headline(t: TuneTotals, work: str) -> str:
    """The champion's Elo against the start, after ``work``."""
    return (
        f'<p class="big">champion #{t.champion}: {t.champion_elo:+.1f} ± {t.champion_elo95:.1f} Elo '
        f"above the start weights after {work} and {t.games} games</p>"
    )


def spsa_html(data: TuneReport, v: SpsaView, plots: dict[str, str]) -> ReportPage:
    """The page of an SPSA tuning report (``v``: its SPSA view)."""
    r, t = data.run, data.totals
    summary = pairs_table(
        [
            (
                "iterations",
                f"{v.applied} applied of {v.iterations} ({v.pairs_per_iteration} pairs each)",
            ),
            ("theta+ results", f"{v.wins} wins, {v.losses} losses"),
            ("games", t.games),
            ("time", duration(t.seconds)),
            ("games/s", fmt(t.games_per_second)),
        ]
    )
    plan = pairs_table(
        [
            ("A / alpha / gamma", f"{v.A:g} / {v.alpha:g} / {v.gamma:g}"),
            ("lag", f"iteration k plays theta after iterations 0..k-{v.lag + 1}"),
            (
                "acceptance",
                f"every {v.accept_every} games and at the end" if v.accept_every else "at the end",
            ),
        ]
    )
    start = v.path[0].theta
    theta = table(
        ["weight", "range", "c_end", "r_end", "start", "theta", "change"],
        [
            [
                w.name,
                f"{w.min}..{w.max}",
                f"{w.c_end:.3g}",
                f"{w.r_end:g}",
                f"{start[w.name]:.0f}",
                f"{v.theta[w.name]:.2f}",
                f"{v.theta[w.name] - start[w.name]:+.2f}",
            ]
            for w in v.weights
        ],
    )
    return page(
        f"arbiter report: tuning run {r.id} ({r.game}, SPSA)",
        section(
            "summary",
            "Summary",
            _headline(t, f"{v.applied} SPSA iterations"),
            run_table(r),
            summary,
            plan,
        ),
        section(
            "theta",
            "Path of theta",
            figure(
                plots["theta"],
                "Each tuned weight's theta after each applied iteration, as a position within its "
                "range; the band is theta +- c_k, the two engines each iteration played.",
            ),
            theta,
        ),
        _champions(data, plots),
        _acceptances(data, plots),
        _weights(data, plots),
        _effort(data, plots),
        reproduction(data.command, data.command_notes, data.config),
    )


def tune_html(data: TuneReport, plots: dict[str, str]) -> ReportPage:
    """The page of a tuning report."""
    if data.spsa is not None:
        return spsa_html(data, data.spsa, plots)
    assert data.optuna is not None  # a tuning run is SPSA's or Optuna's
    r, t = data.run, data.totals
    summary = pairs_table(
        [
            ("trials", tally_text(t.outcomes)),
            ("games", t.games),
            ("time", duration(t.seconds)),
            ("games/s", fmt(t.games_per_second)),
        ]
    )
    trials = table(
        ["trial", "run", "vs champion", "outcome", "games", "Elo vs start", "± 95%", "acceptance run"],
        [
            [
                x.number,
                x.run_id,
                f"#{x.champion}",
                x.outcome + (f": {x.acceptance}" if x.acceptance else ""),
                x.games,
                fmt(x.elo, "+.1f"),
                fmt(x.elo95),
                x.accept_run,
            ]
            for x in data.trials
        ],
        left=(3,),
    )
    view = data.optuna
    best = view.best
    optimizer = (
        f"<p>Study <code>{esc(view.study)}</code>. "
        + (
            f"Optuna's best trial: {best.trial} (objective {best.value:+.1f}: its Elo against "
            "the start weights).</p>" + table(["weight", "best trial's value"], sorted(best.params.items()))
            if best
            else "No complete trial yet.</p>"
        )
        + (f'<p class="muted">{esc(view.error)}</p>' if view.error else "")
    )
    return page(
        f"arbiter report: tuning run {r.id} ({r.game})",
        section("summary", "Summary", _headline(t, f"{t.trials} trials"), run_table(r), summary),
        _champions(data, plots),
        section(
            "trials",
            "Trials",
            figure(
                plots["trials"],
                "Every trial's Elo against the start weights, the study's objective (95% bars), "
                "coloured by outcome.",
            ),
            trials,
        ),
        _acceptances(data, plots),
        _weights(data, plots),
        section(
            "optimizer",
            "Parameter importance and the optimizer's view",
            figure(
                plots["importance"], "Optuna's parameter importance (PED-ANOVA) over the complete trials."
            ),
            figure(
                plots["slice"],
                "Optuna's slice plot: each complete trial's objective against its value of a weight.",
            ),
            optimizer,
            label="Optimizer",
        ),
        _effort(data, plots),
        reproduction(data.command, data.command_notes, data.config),
    )

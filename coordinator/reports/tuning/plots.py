"""The plots of a tuning run's report (``reports.plots`` draws them as inline SVG; Optuna's own
matplotlib functions draw the optimizer's view)."""

from __future__ import annotations

from typing import Any

import matplotlib
from matplotlib.axes import Axes
from matplotlib.ticker import MaxNLocator

from coordinator.reports.plots import COLORS, WIDTH, drawn_alone, empty, figure, thin, to_svg
from coordinator.reports.tuning.data import OptunaView, SpsaView, TuneReport, WeightEntry


def champions_plot(data: TuneReport) -> str:
    """Each champion's Elo against the start weights, with its 95% error bar, over cumulative games."""
    chain = data.champions
    fig, axes = figure()
    ax = axes[0][0]
    if not chain:
        empty(ax, "no champion yet")
    else:
        xs = [c.games_before for c in chain]
        ys = [c.elo_vs_start for c in chain]
        total = data.totals.games
        ax.step(
            [*xs, max(total, xs[-1])],
            [*ys, ys[-1]],
            where="post",
            color=COLORS["candidate"],
            lw=1,
            alpha=0.6,
        )
        ax.errorbar(
            xs,
            ys,
            yerr=[c.elo_vs_start95 for c in chain],
            fmt="o",
            color=COLORS["candidate"],
            capsize=4,
        )
        for c in chain:
            ax.annotate(
                f"#{c.number}",
                (c.games_before, c.elo_vs_start),
                textcoords="offset points",
                xytext=(5, -12),
                fontsize=8,
            )
        ax.set_xlabel("games played by the tuning run")
        ax.set_ylabel("Elo vs start (95%)")
    ax.set_title("champion chain")
    return to_svg(fig, "champions", "champion Elo against the start over cumulative games")


def trials_plot(data: TuneReport) -> str:
    """Every trial's Elo against the start weights (the study's objective) with its 95% error bar,
    coloured by outcome."""
    trials = [t for t in data.trials if t.elo is not None]
    fig, axes = figure()
    ax = axes[0][0]
    if not trials:
        empty(ax, "no trial has counted games yet")
    else:
        for outcome in COLORS:
            group = [t for t in trials if t.outcome == outcome]
            if group:
                ax.errorbar(
                    [t.number for t in group],
                    [t.elo for t in group],
                    yerr=[t.elo95 or 0 for t in group],
                    fmt="o",
                    ms=4,
                    capsize=2,
                    color=COLORS[outcome],
                    label=f"{outcome} ({len(group)})",
                )
        ax.axhline(0, color=COLORS["bound"], lw=0.6)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel("trial")
        ax.set_ylabel("Elo vs start (95%)")
        ax.legend(fontsize=7, loc="best", ncols=2)
    ax.set_title("trials")
    return to_svg(fig, "trials", "trial Elo against the start by outcome")


def acceptance_plot(data: TuneReport) -> str:
    """The LLR curve of every acceptance SPRT, with the bounds."""
    runs = data.acceptances
    fig, axes = figure()
    ax = axes[0][0]
    if not runs:
        empty(ax, "no candidate went to an acceptance SPRT")
    else:
        ax.axhline(runs[0].upper_bound, color=COLORS["win"], ls="--", lw=1)
        ax.axhline(runs[0].lower_bound, color=COLORS["loss"], ls="--", lw=1)
        for a in runs:
            xs, ys = thin([0, *a.series.games], [0.0, *a.series.llr])
            color = (
                COLORS["accepted"] if a.crowned else COLORS["rejected"] if a.decision else COLORS["running"]
            )
            ax.plot(xs, ys, color=color, lw=1.2)
            stage = f" #{a.stage + 1}" if a.stage else ""
            ax.annotate(
                f"{'trial' if data.method == 'optuna' else 'it.'} {a.trial}{stage}",
                (xs[-1], ys[-1]),
                textcoords="offset points",
                xytext=(3, 0),
                fontsize=7,
            )
        ax.set_xlabel("games")
        ax.set_ylabel("LLR")
    ax.set_title("acceptance SPRTs (green: crowned, red: not, blue: running)")
    return to_svg(fig, "acceptance", "LLR curves of the acceptance SPRTs")


def weights_plot(data: TuneReport) -> str:
    """Engine default, start and final champion of each weight, as a position within its range."""
    rows = data.weights
    fig, axes = figure(height=0.3 * len(rows) + 1.2)
    ax = axes[0][0]
    y = list(range(len(rows)))
    for key, marker, size in (("default", "|", 80), ("start", "o", 70), ("final", "D", 22)):
        xs = [(getattr(r, key) - r.min) / (r.max - r.min) if r.max > r.min else 0.5 for r in rows]
        if key == "start":  # hollow, so that an unchanged final weight shows inside it
            ax.scatter(
                xs,
                y,
                marker=marker,
                s=size,
                facecolors="none",
                edgecolors=COLORS[key],
                label=key,
                zorder=3,
            )
        else:
            ax.scatter(xs, y, marker=marker, s=size, color=COLORS[key], label=key, zorder=4)
    ax.set_yticks(y, [f"{r.name} [{r.min}..{r.max}]" for r in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlim(-0.03, 1.03)
    ax.set_xlabel("position within the weight's range (0 = min, 1 = max)")
    ax.legend(fontsize=8, loc="lower right", ncols=3)
    ax.set_title("final champion against the start weights and the engine defaults")
    return to_svg(fig, "weights", "final weights against start and defaults")


def importance_plot(view: OptunaView) -> str:
    """Optuna's parameter importance, as bars."""
    values = view.importance.values if view.importance is not None else {}
    fig, axes = figure(height=max(2.0, 0.28 * len(values) + 1.0))
    ax = axes[0][0]
    if not values:
        empty(ax, view.error or "no importance")
    else:
        names = list(values)[::-1]
        ax.barh(names, [values[n] for n in names], color=COLORS["candidate"])
        ax.set_xlabel("importance (PED-ANOVA, Optuna)")
    ax.set_title("parameter importance")
    return to_svg(fig, "importance", "parameter importance")


@drawn_alone
def slice_plot(view: OptunaView, weights: list[WeightEntry], study: Any) -> str:
    """Optuna's own slice plot (objective against each parameter) of the most important ones."""
    import warnings

    values = view.importance.values if view.importance is not None else {}
    tuned = [w.name for w in weights if w.tuned]
    params = (list(values) or tuned)[:4]
    if study is None or not view.complete_trials:
        fig, axes = figure(height=2.0)
        empty(axes[0][0], "the optimizer has no complete trial yet")
        return to_svg(fig, "slice", "the optimizer's view of the best parameters")
    import matplotlib.pyplot as plt
    from optuna.visualization.matplotlib import plot_slice

    # pyplot, the warning filters and the settings Optuna's style changes are global: put back after.
    with warnings.catch_warnings(), matplotlib.rc_context():
        warnings.simplefilter("ignore")
        result: Any = plot_slice(study, params=params)
        first = result if isinstance(result, Axes) else next(iter(result.flat))
        optuna_figure: Any = first.figure
        optuna_figure.set_size_inches(WIDTH, 2.8)
        optuna_figure.suptitle(
            "Optuna's slice plot: objective (Elo vs start) against the most important weights"
        )
        svg = to_svg(optuna_figure, "slice", "the optimizer's view of the best parameters")
        plt.close(optuna_figure)
    return svg


def reigns_plot(data: TuneReport) -> str:
    """Games played and time spent while each champion reigned."""
    reigns = data.reigns
    fig, axes = figure(1, 2, height=2.6)
    games_ax, rate_ax = axes[0][0], axes[0][1]
    labels = [f"#{r.champion}" for r in reigns]
    bars = games_ax.bar(labels, [r.games for r in reigns], color=COLORS["candidate"])
    games_ax.bar_label(bars, fontsize=8)
    games_ax.set_title("games against each champion")
    rates = [r.games_per_second or 0 for r in reigns]
    bars = rate_ax.bar(labels, rates, color=COLORS["sprt"])
    rate_ax.bar_label(bars, labels=[f"{r:.1f}" for r in rates], fontsize=8)
    rate_ax.set_title("games/s while each reigned")
    return to_svg(fig, "reigns", "games and speed per champion")


def theta_plot(view: SpsaView) -> str:
    """SPSA: each tuned weight's theta over the iterations as a position within its range, with
    the band theta +- c_k its two engines played."""
    fig, axes = figure(height=3.4)
    ax = axes[0][0]
    path = view.path
    if len(path) < 2:
        empty(ax, "no iteration applied yet")
    else:
        xs = [p.iteration + 1 for p in path]
        colors = matplotlib.colormaps["tab20"]
        for n, w in enumerate(view.weights):
            span = w.max - w.min
            ys = [(p.theta[w.name] - w.min) / span for p in path]
            color = colors(n % 20)
            ax.plot(xs, ys, color=color, lw=1.1, label=w.name)
            band = [(i, p.c) for i, p in enumerate(path) if p.c is not None]
            if band:
                bx = [xs[i] for i, _ in band]
                c = [gaps[w.name] / span for _, gaps in band]
                mid = [ys[i] for i, _ in band]
                low = [max(0.0, m - d) for m, d in zip(mid, c, strict=True)]
                high = [min(1.0, m + d) for m, d in zip(mid, c, strict=True)]
                ax.fill_between(bx, low, high, color=color, alpha=0.08, lw=0)
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlabel("iterations applied")
        ax.set_ylabel("position within range")
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5), ncols=1)
    ax.set_title("path of theta")
    return to_svg(fig, "theta", "the path of theta over the SPSA iterations")


@drawn_alone
def tune_plots(data: TuneReport, study: Any = None) -> dict[str, str]:
    """Every plot of a tuning report, by name, in page order (``study``: the Optuna study)."""
    if data.spsa is not None:
        return {
            "theta": theta_plot(data.spsa),
            "champions": champions_plot(data),
            "acceptance": acceptance_plot(data),
            "weights": weights_plot(data),
            "reigns": reigns_plot(data),
        }
    return {
        "champions": champions_plot(data),
        "trials": trials_plot(data),
        "acceptance": acceptance_plot(data),
        "weights": weights_plot(data),
        **(
            {
                "importance": importance_plot(data.optuna),
                "slice": slice_plot(data.optuna, data.weights, study),
            }
            if data.optuna is not None
            else {}
        ),
        "reigns": reigns_plot(data),
    }

"""A tournament report's plots: the likelihood-of-superiority matrix as a heat map, and each
engine's rating with its error bar over the games (drawn as the other reports' plots are)."""

from __future__ import annotations

import matplotlib

from coordinator.escape import terminal
from coordinator.reports.plots import drawn_alone, empty, figure, to_svg
from coordinator.reports.tournament.data import TournamentReport

#: Engines named on the heat map's axes at most (beyond, the cells are drawn unlabelled).
LABELLED = 24


def los_plot(data: TournamentReport) -> str:
    """LOS of each row's engine over each column's, as a heat map (rows and columns best first)."""
    names = [terminal(n) for n in data.los.names]
    matrix = data.los.matrix
    size = max(3.0, min(9.0, 0.5 * len(names) + 2.0))
    fig, axes = figure(height=size, width=size + 1.0)
    ax = axes[0][0]
    if not names:
        empty(ax, "no games counted yet")
    else:
        values = [[float("nan") if v is None else 100 * v for v in row] for row in matrix]
        image = ax.imshow(values, cmap=matplotlib.colormaps["RdYlGn"], vmin=0, vmax=100)
        fig.colorbar(image, ax=ax, label="LOS of row over column (%)")
        ticks = range(len(names))
        if len(names) <= LABELLED:
            ax.set_xticks(ticks, names, rotation=45, ha="right")
            ax.set_yticks(ticks, names)
            for i, row in enumerate(values):
                for j, v in enumerate(row):
                    if v == v:  # not the diagonal's NaN
                        ax.text(j, i, f"{v:.0f}", ha="center", va="center", fontsize=7)
        ax.grid(False)
    ax.set_title("likelihood of superiority")
    return to_svg(fig, "los", "likelihood of superiority of each engine over each other")


def ratings_over_games_plot(data: TournamentReport) -> str:
    """Each engine's rating with its error bar at each checkpoint of the counted games."""
    fig, axes = figure(height=3.5)
    ax = axes[0][0]
    points = data.over_games
    if not points:
        empty(ax, "no games counted yet")
    else:
        names = data.los.names
        colors = matplotlib.colormaps["tab10" if len(names) <= 10 else "tab20"]
        spread = 0.004 * points[-1].games  # engines side by side at each checkpoint
        for k, name in enumerate(names):
            series = [(p.games, *p.ratings[name]) for p in points if name in p.ratings]
            if not series:
                continue
            xs = [g + (k - len(names) / 2) * spread for g, _, _ in series]
            ax.errorbar(
                xs,
                [elo for _, elo, _ in series],
                yerr=[err for _, _, err in series],
                fmt="o-",
                ms=3,
                lw=1,
                capsize=2,
                color=colors(k % colors.N),
                label=terminal(name),
            )
        ax.set_xlabel("games counted")
        ax.set_ylabel("Elo")
        ax.legend(fontsize=7, ncols=2 if len(names) > 6 else 1, loc="best")
    ax.set_title("ratings over the games")
    return to_svg(fig, "over-games", "each engine's rating with its error bar over the games")


@drawn_alone
def tournament_plots(data: TournamentReport) -> dict[str, str]:
    """Every plot of a tournament report, by name, in page order."""
    return {"los": los_plot(data), "over_games": ratings_over_games_plot(data)}

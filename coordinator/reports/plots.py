"""The report's plots, drawn with matplotlib and kept as inline SVG text.

Why matplotlib, as SVG: it is the most widely kept Python plotting library; a static SVG needs no
script to show, so the report opens in any browser or mail client with nothing to load; and an SVG
plot weighs a few tens of kilobytes, where embedding plotly.js alone would cost 3 to 4 MB. Text
stays text (``svg.fonttype: none``), so the page's own font draws it and it can be searched and
copied. Optuna's matplotlib functions draw the optimizer's view of a tuning run.

This module holds what every kind's plots share (the style, the lock, the SVG output); each kind's
plots are in its report package (``reports/sprt/plots.py``, ``reports/tuning/plots.py``). Every
plot is one ``<svg>`` element whose ids are prefixed with the plot's name, so that several plots
can share one HTML page.
"""

from __future__ import annotations

import functools
import io
import re
import threading
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec, TypeVar

import matplotlib

matplotlib.use("Agg")  # no display: figures are only ever written to SVG

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from coordinator.escape import terminal

#: Points a line plot keeps at most (a long run's series is thinned evenly, its last point kept).
MAX_POINTS = 600
WIDTH, HEIGHT = 7.0, 3.0

COLORS = {
    "candidate": "#1f77b4",
    "bound": "#7f7f7f",
    "win": "#2ca02c",
    "draw": "#bcbd22",
    "loss": "#d62728",
    "band": "#aec7e8",
    "sprt": "#ff7f0e",
    "pruned": "#9e9e9e",
    "complete": "#1f77b4",
    "in acceptance": "#ff7f0e",
    "accepted": "#2ca02c",
    "rejected": "#d62728",
    "running": "#17becf",
    "failed": "#8c564b",
    "default": "#7f7f7f",
    "start": "#1f77b4",
    "final": "#d62728",
}

_STYLE: dict[str, Any] = {
    # Text is text: a stored name such as "$x^{$" is never read as mathtext.
    "text.parse_math": False,
    "svg.fonttype": "none",
    "svg.hashsalt": "arbiter-report",
    "font.size": 9,
    "font.family": "sans-serif",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "figure.dpi": 72,
}


# The report's settings, set once for the process.
matplotlib.rcParams.update(_STYLE)  # type: ignore[arg-type]  # keys are checked at run time
#: matplotlib's settings are global and Optuna's plots change them (``plt.style.use("ggplot")``),
#: so one report draws at a time; drawing is bound by the GIL, so this costs the dashboard little.
_DRAWING = threading.RLock()

_P = ParamSpec("_P")
_R = TypeVar("_R")


def drawn_alone(draw: Callable[_P, _R]) -> Callable[_P, _R]:
    """``draw`` holding the drawing lock, so no other thread's plot sees settings it changes."""

    @functools.wraps(draw)
    def alone(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with _DRAWING:
            return draw(*args, **kwargs)

    return alone


def to_svg(fig: Figure, name: str, label: str) -> str:
    """``fig`` as one ``<svg>`` element whose ids are prefixed with ``name`` (unique in a page)."""
    buffer = io.StringIO()
    fig.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": None})
    text = buffer.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, flags=re.DOTALL)  # RDF boilerplate
    ids = set(re.findall(r'\bid="([^"]+)"', text))

    def prefixed(match: re.Match[str]) -> str:
        key = match.group(2)
        return f"{match.group(1)}{name}-{key}" if key in ids else match.group(0)

    text = re.sub(r'\bid="([^"]+)"', lambda m: f'id="{name}-{m.group(1)}"', text)
    text = re.sub(r"(url\(#)([^)]+)(?=\))", prefixed, text)
    text = re.sub(r'(href="#)([^"]+)(?=")', prefixed, text)
    safe_label = label.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    return text.replace(
        "<svg ", f'<svg role="img" aria-label="{safe_label}" class="plot" data-plot="{name}" ', 1
    )


def thin(xs: Sequence[Any], *ys: Sequence[Any]) -> tuple[list[Any], ...]:
    """At most :data:`MAX_POINTS` evenly spaced points of ``xs`` and ``ys`` (the last one kept)."""
    n = len(xs)
    if n <= MAX_POINTS:
        return (list(xs), *(list(y) for y in ys))
    keep = sorted({round(i * (n - 1) / (MAX_POINTS - 1)) for i in range(MAX_POINTS)})
    return ([xs[i] for i in keep], *([y[i] for i in keep] for y in ys))


def figure(rows: int = 1, cols: int = 1, height: float = HEIGHT, width: float = WIDTH) -> tuple[Figure, Any]:
    """A new figure (no pyplot: nothing global is kept) with its axes."""
    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(rows, cols, squeeze=False)
    return fig, axes


def empty(ax: Axes, message: str) -> None:
    """Say there is nothing to draw yet, in the middle of ``ax``."""
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color="#555555")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.grid(False)


# the dashboard's regressions page --------------------------------------------------------------


@drawn_alone
def regressions_plot(group: dict[str, Any], name: str) -> str:
    """The Elo of each tested commit against its base, with its 95% error bar, in history order."""
    rows = [r for r in group["rows"] if r["elo"] is not None]
    fig, axes = figure()
    ax = axes[0][0]
    if not rows:
        empty(ax, "no counted games yet")
    else:
        xs = list(range(len(rows)))
        ax.axhline(0, color=COLORS["bound"], lw=1)
        ax.errorbar(
            xs, [r["elo"] for r in rows], yerr=[r["elo95"] for r in rows], fmt="o", color=COLORS["candidate"]
        )
        ax.set_xticks(xs, [terminal(r["name"]).rsplit("@", 1)[-1] for r in rows], rotation=45, ha="right")
        ax.set_ylabel("Elo vs base (95%)")
    ax.set_title(f"{terminal(group['repo'])[:60]} ({group['game']})")
    return to_svg(fig, name, "Elo of each tested commit against its base, in history order")

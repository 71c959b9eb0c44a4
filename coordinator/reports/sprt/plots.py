"""The plots of a match run's report (``reports.plots`` draws them as inline SVG)."""

from __future__ import annotations

from collections.abc import Sequence

from coordinator.escape import terminal
from coordinator.reports.engines import Engines, SideTimes
from coordinator.reports.plots import COLORS, drawn_alone, empty, figure, thin, to_svg
from coordinator.reports.sprt.data import MatchReport, Throughput


def llr_plot(data: MatchReport) -> str:
    """LLR after each counted batch against games, with the two bounds."""
    fig, axes = figure()
    ax = axes[0][0]
    h, s = data.hypothesis, data.series
    ax.axhline(h.upper_bound, color=COLORS["win"], ls="--", lw=1, label=f"accept H1 ({h.upper_bound:.2f})")
    ax.axhline(h.lower_bound, color=COLORS["loss"], ls="--", lw=1, label=f"accept H0 ({h.lower_bound:.2f})")
    ax.axhline(0, color=COLORS["bound"], lw=0.6)
    if s.games:
        xs, ys = thin([0, *s.games], [0.0, *s.llr])
        ax.plot(xs, ys, color=COLORS["candidate"], lw=1.5, label="LLR")
        ax.plot(xs[-1:], ys[-1:], "o", color=COLORS["candidate"])
    else:
        ax.text(0.5, 0.5, "no games counted yet", ha="center", transform=ax.transAxes, color="#555555")
    ax.set_xlabel("games")
    ax.set_ylabel("log-likelihood ratio")
    ax.set_title(f"LLR: H0 {h.elo0:g} vs H1 {h.elo1:g} ({h.elo_model} Elo)")
    ax.legend(loc="upper left", fontsize=8)
    return to_svg(fig, "llr", "LLR over games with both bounds")


def elo_plot(data: MatchReport) -> str:
    """Fixed-sample Elo with its 95% band over games; the SPRT-aware estimate at the end."""
    fig, axes = figure()
    ax = axes[0][0]
    s = data.series
    points = [(g, e, w) for g, e, w in zip(s.games, s.elo, s.elo95, strict=True) if e is not None]
    if not points:
        empty(ax, "no game pairs counted yet")
    else:
        games, elo, half = thin(*zip(*points, strict=True))
        low = [e - w for e, w in zip(elo, half, strict=True)]
        high = [e + w for e, w in zip(elo, half, strict=True)]
        ax.fill_between(games, low, high, color=COLORS["band"], alpha=0.6, lw=0, label="95% (fixed sample)")
        ax.plot(games, elo, color=COLORS["candidate"], lw=1.5, label="Elo (fixed sample)")
        ax.axhline(0, color=COLORS["bound"], lw=0.6)
        stats = data.stats
        if stats is not None and data.run.finished_at is not None:
            lo, hi = stats["sprt_elo_ci"]
            x = games[-1]
            ax.errorbar(
                [x],
                [stats["sprt_elo"]],
                yerr=[[stats["sprt_elo"] - lo], [hi - stats["sprt_elo"]]],
                fmt="D",
                color=COLORS["sprt"],
                capsize=4,
                label="SPRT-aware Elo at the end (95%)",
            )
        ax.set_ylim(*_clip_limits(low, high))
        ax.set_xlabel("games")
        ax.set_ylabel("Elo (logistic)")
        ax.legend(loc="best", fontsize=8)
    ax.set_title("Elo over games")
    return to_svg(fig, "elo", "Elo with its 95% band over games")


def _clip_limits(low: Sequence[float], high: Sequence[float]) -> tuple[float, float]:
    """y limits that show the band after its first wild batches (the last 90% of the points)."""
    start = len(low) // 10
    lo, hi = min(low[start:]), max(high[start:])
    pad = max((hi - lo) * 0.1, 5.0)
    return lo - pad, hi + pad


def outcomes_plot(data: MatchReport) -> str:
    """The pentanomial histogram of game pairs and the W/D/L of games, with their numbers."""
    fig, axes = figure(1, 2)
    t = data.totals
    penta, wdl = axes[0][0], axes[0][1]
    labels = ["LL", "LD", "DD/WL", "WD", "WW"]
    colors = [COLORS["loss"], "#ff9896", COLORS["draw"], "#98df8a", COLORS["win"]]
    bars = penta.bar(labels, t.pentanomial, color=colors)
    penta.bar_label(bars, fontsize=8)
    penta.set_title(f"game pairs ({t.pairs})")
    bars = wdl.bar(["W", "D", "L"], t.wdl, color=[COLORS["win"], COLORS["draw"], COLORS["loss"]])
    wdl.bar_label(bars, fontsize=8)
    wdl.set_title(f"games, candidate's view ({t.games})")
    return to_svg(fig, "outcomes", "pentanomial and W/D/L histograms")


def endings_plot(data: MatchReport) -> str:
    """How games ended: per reason, the candidate's W/D/L as white and as black."""
    rows = data.endings
    fig, axes = figure(height=max(2.2, 0.45 * 2 * len(rows) + 1.0))
    ax = axes[0][0]
    if not rows:
        empty(ax, "no games counted yet")
    else:
        labels, w, d, l = [], [], [], []  # noqa: E741
        for row in reversed(rows):
            for color, cell in (("black", row.candidate_black), ("white", row.candidate_white)):
                labels.append(f"{row.reason} ({row.kind}), cand. {color}")
                w.append(cell.W)
                d.append(cell.D)
                l.append(cell.L)
        y = range(len(labels))
        ax.barh(y, w, color=COLORS["win"], label="candidate won")
        ax.barh(y, d, left=w, color=COLORS["draw"], label="draw")
        ax.barh(
            y,
            l,
            left=[a + b for a, b in zip(w, d, strict=True)],
            color=COLORS["loss"],
            label="candidate lost",
        )
        ax.set_yticks(list(y), labels)
        ax.set_xlabel("games")
        ax.legend(loc="lower right", fontsize=8)
    ax.set_title("how games ended, per reason and candidate colour")
    return to_svg(fig, "endings", "game endings per reason and colour")


def length_plot(data: MatchReport) -> str:
    """Histogram of game lengths in plies."""
    fig, axes = figure()
    ax = axes[0][0]
    g = data.length
    hist = {int(k): v for k, v in g.histogram.items()}
    if not hist:
        empty(ax, "no games counted yet")
    else:
        lo, hi = min(hist), max(hist)
        width = max(1, -(-(hi - lo + 1) // 40))
        bins: dict[int, int] = {}
        for plies, count in hist.items():
            start = lo + (plies - lo) // width * width
            bins[start] = bins.get(start, 0) + count
        ax.bar(list(bins), list(bins.values()), width=width, align="edge", color=COLORS["candidate"])
        assert g.mean is not None  # there are games
        ax.axvline(g.mean, color=COLORS["sprt"], ls="--", lw=1, label=f"mean {g.mean:.1f}")
        ax.set_xlabel("plies")
        ax.set_ylabel("games")
        ax.legend(fontsize=8)
    ax.set_title("game length")
    return to_svg(fig, "length", "histogram of game lengths")


def openings_plot(data: MatchReport) -> str:
    """The openings whose pairs helped or hurt the candidate most (net pair points)."""
    o = data.openings
    rows = list(reversed(o.hurt)) + list(o.helped)
    rows.sort(key=lambda r: r.net)
    fig, axes = figure(height=max(2.2, 0.28 * len(rows) + 1.0))
    ax = axes[0][0]
    if not rows:
        empty(ax, "no opening decided a pair yet" if o.played else "no game pairs counted yet")
    else:
        labels = [f"{_short(r.opening)} ({r.pairs} pairs)" for r in rows]
        colors = [COLORS["win"] if r.net > 0 else COLORS["loss"] for r in rows]
        ax.barh(range(len(rows)), [r.net for r in rows], color=colors)
        ax.set_yticks(range(len(rows)), labels, fontsize=7)
        ax.axvline(0, color=COLORS["bound"], lw=0.8)
        ax.set_xlabel("candidate's points above an even score (1 a pair)")
    ax.set_title("openings that helped (green) or hurt (red) the candidate most")
    return to_svg(fig, "openings", "openings by net pair score")


def _short(fen: str, width: int = 34) -> str:
    """A position string cut to ``width`` characters."""
    return fen if len(fen) <= width else fen[: width - 1] + "…"


def workers_plot(data: MatchReport) -> str:
    """Each worker's residual (fishtest's chi-squared check) against the two thresholds."""
    w = data.workers
    rows = w.workers
    fig, axes = figure(height=max(2.0, 0.3 * len(rows) + 1.2))
    ax = axes[0][0]
    check = w.check
    tested = [r for r in rows if r.residual is not None]
    if not tested and rows:
        ax.barh(range(len(rows)), [r.games for r in rows], color=COLORS["bound"])
        ax.set_yticks(range(len(rows)), [terminal(r.worker) for r in rows], fontsize=8)
        ax.set_xlabel("games (no residuals: they need two workers with enough games each)")
    elif not tested:
        empty(ax, "no worker has a counted batch yet")
    else:
        colors = {"ok": COLORS["win"], "yellow": COLORS["draw"], "red": COLORS["loss"]}
        ax.barh(
            range(len(tested)),
            [r.residual for r in tested],
            color=[colors.get(r.level, COLORS["bound"]) for r in tested],
        )
        ax.set_yticks(range(len(tested)), [terminal(r.worker) for r in tested], fontsize=8)
        ax.axvline(check.z_95, color=COLORS["draw"], ls="--", lw=1, label=f"z95 {check.z_95:.2f}")
        ax.axvline(check.z_99, color=COLORS["loss"], ls="--", lw=1, label=f"z99 {check.z_99:.2f} (flag)")
        ax.set_xlabel("residual (standard normal units)")
        ax.legend(fontsize=8, loc="lower right")
    ax.set_title("per-worker residuals")
    return to_svg(fig, "workers", "per-worker residuals")


def throughput_plot(t: Throughput) -> str:
    """Counted games per second over wall-clock time."""
    fig, axes = figure(height=2.6)
    ax = axes[0][0]
    if not t.seconds:
        empty(ax, "no batches counted yet")
    else:
        ax.step(t.seconds, t.games_per_second, where="post", color=COLORS["candidate"])
        ax.set_xlabel(f"seconds since the first counted batch (bins of {t.bin_seconds:.0f} s)")
        ax.set_ylabel("games/s")
        ax.set_ylim(bottom=0)
    ax.set_title("throughput over time")
    return to_svg(fig, "throughput", "games per second over time")


def move_times_plot(engines: Engines, times: dict[str, SideTimes]) -> str:
    """Each engine's mean time per move at each move number (the records' own times)."""
    fig, axes = figure()
    ax = axes[0][0]
    colors = {"candidate": COLORS["candidate"], "baseline": COLORS["sprt"]}
    for side, t in times.items():
        if t.by_move:
            xs = [int(k) for k in t.by_move]
            name = terminal(engines.sides[side].name)[:40]
            ax.plot(xs, list(t.by_move.values()), color=colors[side], lw=1, label=f"{side}: {name}")
    ax.set_xlabel("move number")
    ax.set_ylabel("mean ms per move")
    ax.legend(fontsize=8)
    ax.set_title("time per move")
    return to_svg(fig, "move-times", "mean time per move of each engine by move number")


@drawn_alone
def match_plots(data: MatchReport) -> dict[str, str]:
    """Every plot of a match report, by name, in page order (the time per move only where the
    games recorded their moves' times)."""
    times = data.engines.move_times or {}
    timed = any(t.moves for t in times.values())
    return {
        **({"move_times": move_times_plot(data.engines, times)} if timed else {}),
        "llr": llr_plot(data),
        "elo": elo_plot(data),
        "outcomes": outcomes_plot(data),
        "endings": endings_plot(data),
        "length": length_plot(data),
        "openings": openings_plot(data),
        "workers": workers_plot(data),
        "throughput": throughput_plot(data.throughput),
    }

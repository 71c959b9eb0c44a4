"""Text for SPRT runs: the live progress line, the final summary and the status table/JSON.

Pure formatting over :class:`coordinator.sprt.runner.Progress` and the statistics of
``coordinator.stats``; printing and throttling live in :class:`ProgressPrinter`.
"""

from __future__ import annotations

import math
import textwrap
from typing import Any

from coordinator.console.progress import PROGRESS_WIDTH
from coordinator.runs import Decision, decision_label
from coordinator.sprt.config import SprtConfig, side_name
from coordinator.sprt.runner import Progress
from coordinator.stats import StatsSummary, fixed_elo, sprt_summary
from coordinator.store import Quarantine, Refusal, Run, Store, Totals
from coordinator.trust.verifiable import unverifiable_engines
from wire.masking import mask_url
from wire.programs import EngineProgram


def duration(seconds: float | None) -> str:
    """``1h02m``, ``3m20s`` or ``12s``; ``?`` when unknown."""
    if seconds is None or not math.isfinite(seconds) or seconds < 0:
        return "?"
    seconds = round(seconds)
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    if seconds >= 60:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds}s"


def eta_seconds(p: Progress) -> float | None:
    """Time to the decision, extrapolating the LLR's drift per game (capped by the budget) at this
    command's speed (games still playing included: see :attr:`Progress.playing`)."""
    rate = p.games_per_second
    if rate <= 0:
        return None
    remaining: float | None = None
    if p.games > 0 and p.llr > 0:
        remaining = p.games * (p.upper_bound - p.llr) / p.llr
    elif p.games > 0 and p.llr < 0:
        remaining = p.games * (p.lower_bound - p.llr) / p.llr
    if p.max_games is not None:
        budget_left = max(p.max_games - p.games - p.playing, 0)
        remaining = budget_left if remaining is None else min(remaining, budget_left)
    return None if remaining is None else max(remaining, 0.0) / rate


def games_text(p: Progress) -> str:
    """``120 games``, and the games still playing apart (``120 games +38 playing``): only
    the first are counted."""
    return f"{p.games} games" + (f" +{p.playing} playing" if p.playing else "")


def fit_line(parts: list[tuple[int, str]], width: int = PROGRESS_WIDTH) -> str:
    """The ``parts`` (rank, text) of a progress line joined by two spaces, in their order, the
    least important (highest rank) left out first until the line fits ``width`` columns; the
    rank-0 parts always stay (and a line of them alone is cut at ``width``)."""
    kept = [(rank, text) for rank, text in parts if text]
    while len("  ".join(text for _, text in kept)) > width and any(rank for rank, _ in kept):
        worst = max(rank for rank, _ in kept)
        drop = max(i for i, (rank, _) in enumerate(kept) if rank == worst)
        del kept[drop]
    return "  ".join(text for _, text in kept)[:width]


def progress_line(p: Progress, width: int = PROGRESS_WIDTH) -> str:
    """One line of at most ``width`` columns: games (counted, and still playing), the refusals when every
    answer is refused, LLR [bounds], Elo +- 95%, ETA, games/s, batches in flight (before any game
    is counted or told: right after the LLR), the pentanomial counts (the last ones left out first
    when they do not fit)."""
    elo = fixed_elo(p.pentanomial) if p.games else None
    elo_text = f"{elo.elo:+.1f}+-{elo.elo95:.1f}" if elo is not None else "-"
    return fit_line(
        [
            (0, f"run {p.run_id}: {games_text(p)}"),
            (0, p.refused or ""),
            (1, f"LLR {p.llr:+.2f} [{p.lower_bound:.2f},{p.upper_bound:.2f}]"),
            (2, f"Elo {elo_text}"),
            (2, f"ETA {duration(eta_seconds(p))}"),
            (3, f"{p.games_per_second:.1f}/s"),
            # what moves before any game counts, until the games playing do
            (1 if p.games == p.playing == 0 else 4, f"{p.in_flight} in flight"),
            (5, f"penta {p.pentanomial}"),
        ],
        width,
    )


def headline(
    decision: str | None,
    candidate: str,
    baseline: str,
    games: int,
    elo: tuple[float, float] | None,
    llr: tuple[float, float, float],
    plus_minus: str = "+-",
) -> str:
    """A match run in one sentence, the way fishtest readers look for it: the decision, both
    sides, the Elo (fixed sample, 95%) and the games, then the LLR and its bounds (``llr``: value,
    lower, upper). Every view of the run (end summary, status, report, dashboard) says it so."""
    elo_text = f"Elo {elo[0]:+.1f} {plus_minus} {elo[1]:.1f}" if elo is not None else "no Elo yet"
    value, lower, upper = llr
    return (
        f"{decision_label(decision)}: {candidate} vs {baseline}, {elo_text} after {games} games "
        f"(LLR {value:.2f} [{lower:.2f}, {upper:.2f}])"
    )


def ending_text(decision: str | None, llr: tuple[float, float, float], max_games: int | None) -> str | None:
    """Why the run ended where it did, in words, when the numbers alone could puzzle: a decision
    with the LLR inside its printed bounds (Siegmund's correction), or a stop at the game cap
    before either bound. None when there is nothing to explain."""
    value, lower, upper = llr
    if decision == Decision.BUDGET:
        cap = f" of {max_games} games" if max_games is not None else ""
        return (
            f"The test stopped at its game cap{cap} with the LLR between its bounds: neither "
            "hypothesis was accepted. More games (a larger --max-games) would be needed to decide."
        )
    accepted_inside = decision == Decision.ACCEPTED and value < upper
    if accepted_inside or (decision == Decision.REJECTED and value > lower):
        return (
            f"The LLR ({value:.2f}) ended inside its printed bounds [{lower:.2f}, {upper:.2f}]: it is "
            "looked at only after each batch, so, as in fishtest, the bounds are moved inward by the "
            "overshoot expected from the LLR's past jumps (Siegmund's correction), and the test "
            "crossed the moved bound."
        )
    return None


def summary_of(config: SprtConfig, pentanomial: list[int], wdl: list[int]) -> StatsSummary:
    """Every statistic of the counted games (``sprt_summary`` with this run's settings)."""
    return sprt_summary(
        pentanomial=pentanomial,
        wdl=wdl,
        elo0=config.elo0,
        elo1=config.elo1,
        elo_model=config.elo_model,
        alpha=config.alpha,
        beta=config.beta,
    )


def summary_text(run: Run, config: SprtConfig, p: Progress, wall_seconds: float, cpu: float) -> str:
    """The end-of-run report: the headline (decision, sides, Elo, games, LLR), why it ended
    there when that needs words, counts, Elo estimates, time."""
    s = summary_of(config, p.pentanomial, p.wdl)
    w, d, l = p.wdl  # noqa: E741
    lo, hi = s["sprt_elo_ci"]
    nlo, nhi = s["nelo_ci"]
    llr = (s["llr"], s["lower_bound"], s["upper_bound"])
    line = headline(
        p.decision,
        side_name(config.candidate_source, config.candidate_program),
        side_name(config.baseline_source, config.baseline_program),
        p.games,
        (s["elo"], s["elo95"]) if sum(p.pentanomial) else None,
        llr,
    )
    ending = ending_text(p.decision, llr, config.max_games)
    said = [f"run {run.id} ({run.kind} {run.game}): {line}", *([ending] if ending else [])]
    return "\n".join(
        [
            *(
                "\n".join(textwrap.wrap(text, 80, subsequent_indent="    ", break_on_hyphens=False))
                for text in said
            ),
            f"LLR: {s['llr']:.2f} [{s['lower_bound']:.2f}, {s['upper_bound']:.2f}]  "
            f"(elo0 {config.elo0:g}, elo1 {config.elo1:g}, {config.elo_model}, "
            f"alpha {config.alpha:g}, beta {config.beta:g})",
            f"games: {p.games}  W {w}  D {d}  L {l}  pentanomial {p.pentanomial}",
            f"Elo: {s['elo']:.2f} +- {s['elo95']:.2f} (95%)  LOS: {100 * s['los']:.2f}%",
            f"SPRT Elo: {s['sprt_elo']:.2f} [{lo:.2f}, {hi:.2f}] (95%)  LOS: {100 * s['sprt_los']:.2f}%",
            f"nElo: {s['nelo']:.2f} [{nlo:.2f}, {nhi:.2f}] (95%)",
            time_line(run, p, wall_seconds, cpu),
        ]
    )


def time_line(run: Run, p: Progress, wall_seconds: float, cpu: float) -> str:
    """The summary's time: this command's wall time and rate where it played games; for a run
    it only showed (finished before), the workers' CPU and when it finished, not a 0.0 games/s."""
    if p.games_played_here > 0:
        rate = p.games_played_here / wall_seconds if wall_seconds > 0 else 0.0
        return f"time: {duration(wall_seconds)} wall, {cpu:.1f} s cpu in workers, {rate:.1f} games/s"
    parts = [f"time: {cpu:.1f} s cpu in workers", finished_text(run)]
    return ", ".join(part for part in parts if part) + "; no games played by this command"


def finished_text(run: Run) -> str | None:
    """When ``run`` finished, as summaries say it ("finished 2026-12-03 19:31 UTC"); None if it
    has not."""
    return None if run.finished_at is None else f"finished {run.finished_at:%Y-%m-%d %H:%M} UTC"


def match_headline(run: Run, config: SprtConfig, totals: Totals, plus_minus: str = "+-") -> str:
    """:func:`headline` of a stored match run at ``totals`` (its counted prefix)."""
    s = summary_of(config, totals.pentanomial, totals.wdl)
    return headline(
        run.decision,
        side_name(config.candidate_source, config.candidate_program),
        side_name(config.baseline_source, config.baseline_program),
        totals.games,
        (s["elo"], s["elo95"]) if sum(totals.pentanomial) else None,
        (s["llr"], s["lower_bound"], s["upper_bound"]),
        plus_minus,
    )


def side_json(source: str, program: EngineProgram | None) -> dict[str, str]:
    """A side as status names it: its source (weights, engine file, or for a commit
    ``repository@short-sha (ref)``), and for a commit the repository (masked) and the full SHA."""
    if program is None or program.build is None:
        return {"name": source}
    return {"name": source, "repo": mask_url(program.build.repo), "sha": program.build.sha}


def masked_config(config: dict[str, Any]) -> dict[str, Any]:
    """A stored configuration as status shows it: without its openings, repositories masked."""
    shown = {k: v for k, v in config.items() if k != "openings"}
    for key in ("candidate_program", "baseline_program"):
        build = (shown.get(key) or {}).get("build")
        if isinstance(build, dict) and "repo" in build:
            shown[key] = shown[key] | {"build": build | {"repo": mask_url(build["repo"])}}
    return shown


def status_json(
    run: Run,
    p: Progress | None,
    refusals: list[Refusal],
    totals: Totals,
    quarantines: list[Quarantine] | None = None,
) -> dict[str, Any]:
    """One run as a JSON-safe dict (``arbiter status RUN --json``); SPRT statistics given ``p``."""
    data: dict[str, Any] = {
        "id": run.id,
        "kind": run.kind,
        "game": run.game,
        "state": run.state,
        "decision": run.decision,
        "error": run.error,
        "created_at": run.created_at.isoformat(),
        "updated_at": run.updated_at.isoformat(),
        "finished_at": run.finished_at.isoformat() if run.finished_at else None,
        "cpu_seconds": totals.cpu_seconds,
        "games": totals.games,
        "playing": run.playing,
        "pentanomial": totals.pentanomial,
        "wdl": totals.wdl,
        "refused": [
            {"batch": r.batch_index, "attempts": r.attempts, "state": r.state, "reason": r.reason}
            for r in refusals
        ],
        "quarantined": [
            {"worker": q.worker, "reason": q.reason, "discarded_batches": q.discarded_batches}
            for q in quarantines or []
        ],
        "config": masked_config(run.config),
        "unverifiable": unverifiable_engines(run.config),
    }
    if p is not None:
        config = run.settings_as(SprtConfig)
        data["candidate"] = side_json(config.candidate_source, config.candidate_program)
        data["baseline"] = side_json(config.baseline_source, config.baseline_program)
        s = summary_of(config, p.pentanomial, p.wdl)
        data |= {
            "games": p.games,
            "counted_batches": p.counted_batches,
            "stored_batches": p.stored_batches,
            "pentanomial": p.pentanomial,
            "wdl": p.wdl,
            **{key: value for key, value in s.items() if key != "state"},
        }
    return data


#: Columns of the runs table: id, kind, game, state, games, Elo, LLR, decision.
_ROW = "{:>4}  {:<10} {:<8} {:<11} {:>7}  {:>15}  {:>6}  {}"
STATUS_HEADER = _ROW.format("id", "kind", "game", "state", "games", "Elo", "LLR", "decision")


def status_row(run: Run, games: int, elo: str, llr: str, decision: str | None = None) -> str:
    """One line of the runs table (``decision`` in place of the stored one's wording), with the
    games still playing apart."""
    if decision is None:
        decision = decision_label(run.decision) if run.decision else "-"
    row = _ROW.format(run.id, str(run.kind), run.game, str(run.state), games, elo, llr, decision)
    playing = f" (+{run.playing} games playing)" if run.playing else ""
    return row + playing + (" (unverifiable)" if unverifiable_engines(run.config) else "")


#: Why a stored run's statistics cannot be shown: a configuration this version refuses (such as a
#: hypothesis older versions accepted) or cannot read, or counts the statistics cannot compute.
STATS_ERRORS = (ValueError, TypeError, ArithmeticError)


def stored_progress(store: Store, run: Run) -> Progress:
    """Counts and LLR of a match run's counted batches, as the store has them (raises one of
    :data:`STATS_ERRORS` when they cannot be computed)."""
    config = run.settings_as(SprtConfig)
    totals = store.totals(run.id, run.counted_batches)
    s = summary_of(config, totals.pentanomial, totals.wdl)
    return Progress(
        run_id=run.id,
        counted_batches=run.counted_batches,
        pentanomial=totals.pentanomial,
        wdl=totals.wdl,
        llr=s["llr"],
        lower_bound=s["lower_bound"],
        upper_bound=s["upper_bound"],
        decision=Decision(run.decision) if run.decision else None,
        stored_batches=len(store.results(run.id)),
        in_flight=0,
        elapsed=0.0,
        games_played_here=0,
        max_games=config.max_games,
    )


def stored_status(store: Store, run: Run) -> dict[str, Any]:
    """:func:`status_json` of a stored match run. Statistics that cannot be computed are left out
    and ``statistics_error`` says why, so that one such run never breaks ``arbiter status``."""
    totals = store.totals(run.id, run.counted_batches)
    refusals, quarantines = store.refusals(run.id), store.quarantines(run.id)
    try:
        progress = stored_progress(store, run)
        config = run.settings_as(SprtConfig)
        llr = (progress.llr, progress.lower_bound, progress.upper_bound)
        return status_json(run, progress, refusals, totals, quarantines) | {
            "headline": match_headline(run, config, totals),
            "ending": ending_text(run.decision, llr, config.max_games),
        }
    except STATS_ERRORS as e:
        data = status_json(run, None, refusals, totals, quarantines)
        return data | {"statistics_error": f"cannot be computed: {e}"}


def stored_row(store: Store, run: Run) -> str:
    """The runs-table line of a stored match run; Elo and LLR are ``?`` when they cannot be
    computed (see :func:`stored_status`)."""
    totals = store.totals(run.id, run.counted_batches)
    try:
        s = summary_of(run.settings_as(SprtConfig), totals.pentanomial, totals.wdl)
    except STATS_ERRORS:
        return status_row(run, totals.games, "?", "?")
    elo = f"{s['elo']:+.1f} +- {s['elo95']:.1f}" if totals.games else "-"
    return status_row(run, totals.games, elo, f"{s['llr']:.2f}")

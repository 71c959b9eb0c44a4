"""The data of a match run's report (an SPRT, a tuning trial, an acceptance SPRT or an SPSA
iteration), from the store: a :class:`~coordinator.reports.sprt.data.MatchReport`.

Only the counted prefix counts (batches ``0 .. counted_batches - 1``), exactly as the runner counts
it: the LLR over games is the runner's own :class:`PrefixCounter` replayed batch by batch, and every
statistic comes from ``coordinator.stats``. The game records are read as a stream, so a long run
costs time, not memory.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import select

from coordinator.registry import kind_of
from coordinator.reports.data import RunInfo, iso
from coordinator.reports.engines import (
    FAULT_KINDS,
    Engines,
    MoveTimes,
    WorkerEngines,
    engines_data,
    from_results,
    masked_config,
    names_of,
    sides_row,
)
from coordinator.reports.sprt.data import (
    ColourWDL,
    Ending,
    Hypothesis,
    Lengths,
    MatchReport,
    MatchTotals,
    Openings,
    OpeningScore,
    Refusal,
    Series,
    Throughput,
    WorkerCheck,
    WorkerRow,
    Workers,
)
from coordinator.sprt.config import SprtConfig
from coordinator.sprt.report import ending_text, match_headline, summary_of
from coordinator.sprt.runner import PrefixCounter
from coordinator.stats import fixed_elo
from coordinator.stats.residuals import worker_chi2
from coordinator.store import Run, Store
from coordinator.store.rows import result_from_row
from coordinator.store.schema import PENTANOMIAL_COLUMNS, batches, results
from coordinator.trust.verifiable import unverifiable_note
from wire.protocol import ply_count
from wire.tally import candidate_score

#: How each reason a game ends is decided: by the rules, or by the match's adjudication.
RULES_REASONS = ("lion_captured", "kings_captured", "no_legal_move")
ADJUDICATION_REASONS = ("ply_limit", "repetition", "bare_lions", "resign")
#: Every reason a game record can end with: the rules', an adjudication's, an engine's fault.
REASONS = RULES_REASONS + ADJUDICATION_REASONS + FAULT_KINDS
#: Openings listed at each end of the table of pair scores.
OPENINGS_SHOWN = 8


def match_columns(store: Store, run: Run, config: SprtConfig) -> dict[str, Any]:
    """Games and statistics of a match run's counted batches, as the store has them."""
    totals = store.totals(run.id, run.counted_batches)
    s = summary_of(config, totals.pentanomial, totals.wdl)
    elo = (s["elo"], s["elo95"]) if totals.games > 0 else None
    return sides_row(names_of(config), totals, elo) | {
        "llr": s["llr"],
        "lower_bound": s["lower_bound"],
        "upper_bound": s["upper_bound"],
    }


def reason_kind(reason: str) -> str:
    """``rules``, ``adjudication``, ``fault`` (an engine program's) or ``other`` for a record's
    end reason."""
    if reason in RULES_REASONS:
        return "rules"
    if reason in ADJUDICATION_REASONS:
        return "adjudication"
    return "fault" if reason in FAULT_KINDS else "other"


def counted_result_rows(store: Store, run_id: int, counted: int) -> list[Any]:
    """The result rows of the counted prefix, in batch order (one small row per batch)."""
    query = (
        select(results)
        .where(results.c.run_id == run_id, results.c.batch_index < counted)
        .order_by(results.c.batch_index)
    )
    with store.engine.connect() as c:
        return list(c.execute(query))


def stream_records(store: Store, run_id: int, counted: int) -> Iterator[dict[str, Any]]:
    """Every game record of the counted prefix, in batch and game order, a batch at a time."""
    for batch in store.iter_batch_games(run_id, below=counted):
        yield from batch.records


def series(config: SprtConfig, rows: list[Any]) -> Series:
    """After each counted batch: games, LLR (the runner's own prefix count), fixed-sample Elo and
    its 95% half-width, and when the result was stored."""
    counter = PrefixCounter(config)
    out = Series(games=[], llr=[], elo=[], elo95=[], time=[])
    for row in rows:
        stored = result_from_row(row)
        before = counter.batches
        counter.advance({row.batch_index: stored})
        if counter.batches == before:
            break  # the prefix ended (decision or budget) before this batch
        out.games.append(sum(counter.wdl))
        out.llr.append(counter.sprt.llr)
        if sum(counter.pentanomial):
            elo = fixed_elo(counter.pentanomial)
            out.elo.append(elo.elo)
            out.elo95.append(elo.elo95)
        else:
            out.elo.append(None)
            out.elo95.append(None)
        out.time.append(iso(row.created_at))
    return out


@dataclass
class _Facts:
    """What one pass over the records found: games, the W/D/L of each end reason per colour and by
    result, the games of each length in plies, and each opening's pairs and candidate points."""

    games: int = 0
    endings: defaultdict[str, dict[str, list[int]]] = field(
        default_factory=lambda: defaultdict(
            lambda: {"white": [0, 0, 0], "black": [0, 0, 0], "by_result": [0, 0, 0]}
        )
    )
    lengths: Counter[int] = field(default_factory=Counter)
    openings: defaultdict[str, list[float]] = field(default_factory=lambda: defaultdict(lambda: [0, 0.0]))
    times: MoveTimes = field(default_factory=MoveTimes)


def _games_facts(records: Iterator[dict[str, Any]]) -> _Facts:
    """How games ended (per reason and colour), how long they were, and the pair score of every
    opening, in one pass over the records."""
    facts = _Facts()
    pending: tuple[str, float] | None = None  # the first game of a pair: its opening and score
    for record in records:
        facts.games += 1
        facts.times.add(record)
        score = candidate_score(record["result"], record["candidate_color"])
        slot = 0 if score == 1.0 else 1 if score == 0.5 else 2
        ending = facts.endings[record["reason"]]
        ending[record["candidate_color"]][slot] += 1
        ending["by_result"][{"1-0": 0, "1/2-1/2": 1, "0-1": 2}[record["result"]]] += 1
        facts.lengths[ply_count(record["moves"])] += 1
        if pending is None:
            pending = (record["opening"], score)
        else:
            cell = facts.openings[pending[0]]
            cell[0] += 1
            cell[1] += pending[1] + score
            pending = None
    return facts


def _endings(endings: dict[str, dict[str, list[int]]]) -> list[Ending]:
    """One row per end reason: candidate W/D/L as white and as black, and white/draw/black wins."""
    order = {reason: i for i, reason in enumerate(REASONS)}
    rows = []
    for reason in sorted(endings, key=lambda r: (order.get(r, len(order)), r)):
        e = endings[reason]
        rows.append(
            Ending(
                reason=reason,
                kind=reason_kind(reason),
                games=sum(e["white"]) + sum(e["black"]),
                candidate_white=ColourWDL(*e["white"]),
                candidate_black=ColourWDL(*e["black"]),
                white_wins=e["by_result"][0],
                draws=e["by_result"][1],
                black_wins=e["by_result"][2],
            )
        )
    return rows


def _lengths(lengths: Counter[int]) -> Lengths:
    """Game length in plies: the histogram and its summary."""
    if not lengths:
        return Lengths(histogram={}, games=0, mean=None, median=None, min=None, max=None)
    total = sum(lengths.values())
    ordered = sorted(lengths)
    cumulative, median = 0, ordered[-1]
    for plies in ordered:
        cumulative += lengths[plies]
        if 2 * cumulative >= total:
            median = plies
            break
    return Lengths(
        histogram={str(k): lengths[k] for k in ordered},
        games=total,
        mean=sum(k * v for k, v in lengths.items()) / total,
        median=median,
        min=ordered[0],
        max=ordered[-1],
    )


def _openings(openings: dict[str, list[float]]) -> Openings:
    """Pair score per opening (the candidate's points from both games, 0 to 2 a pair); the ones
    that helped and hurt it most, and how much of the total edge the most decisive one holds."""
    rows = [
        OpeningScore(opening=fen, pairs=int(pairs), points=points, net=points - pairs)
        for fen, (pairs, points) in openings.items()
    ]
    helped = sorted((r for r in rows if r.net > 0), key=lambda r: (-r.net, r.opening))
    hurt = sorted((r for r in rows if r.net < 0), key=lambda r: (r.net, r.opening))
    swing = sum(abs(r.net) for r in rows)
    top = max(rows, key=lambda r: abs(r.net), default=None)
    return Openings(
        played=len(rows),
        pairs=sum(r.pairs for r in rows),
        net=sum(r.net for r in rows),
        helped=helped[:OPENINGS_SHOWN],
        hurt=hurt[:OPENINGS_SHOWN],
        most_decisive_share=abs(top.net) / swing if top is not None and swing else None,
    )


@dataclass
class _WorkerCount:
    """A worker's counts as the rows are read (a :class:`WorkerRow` once all are)."""

    worker: str
    batches: int = 0
    games: int = 0
    cpu_seconds: float = 0.0
    nodes: int = 0
    pentanomial: list[int] = field(default_factory=lambda: [0] * 5)
    refused: int = 0
    quarantined: str | None = None
    time_factor: float | None = None
    faults: int = 0


def _workers(store: Store, run_id: int, rows: list[Any], engines: list[WorkerEngines]) -> Workers:
    """Per worker: counted batches and games, speed per CPU second, the mean factor it scaled time
    limits by and the faults in its games, refused answers, quarantine and the residual; and the
    run's re-sends and refused batches."""
    per: dict[str, _WorkerCount] = {}
    for row in rows:
        name = row.worker or "?"
        w = per.setdefault(name, _WorkerCount(name))
        w.batches += 1
        w.games += row.wins + row.draws + row.losses
        w.cpu_seconds += row.cpu_seconds
        nodes = json.loads(row.nodes or "{}")
        w.nodes += int(nodes.get("candidate", 0)) + int(nodes.get("baseline", 0))
        w.pentanomial = [a + getattr(row, c) for a, c in zip(w.pentanomial, PENTANOMIAL_COLUMNS, strict=True)]
    # Refusals are counted against the worker whose answer was refused (the refusal log); answers
    # that named nobody (unsealed writes, crashes) against no worker. Re-sends (a lease ran out:
    # nobody answered) belong to the run, not to any worker.
    for found in engines:
        w = per[found.worker]
        w.time_factor = found.time_factor
        w.faults = found.faults.total
    for name, count in store.refusals_by_worker(run_id).items():
        if name is not None:
            per.setdefault(name, _WorkerCount(name)).refused += count
    for q in store.quarantines(run_id):
        per.setdefault(q.worker, _WorkerCount(q.worker)).quarantined = q.reason
    query = select(batches.c.attempts, batches.c.refusal).where(batches.c.run_id == run_id)
    resent = refused = 0
    with store.engine.connect() as c:
        for b in c.execute(query):
            resent += max(int(b.attempts) - 1, 0)
            refused += b.refusal is not None
    check = worker_chi2({name: w.pentanomial for name, w in per.items()})
    levels = {r.worker: (r.residual, r.flagged, check.level(r.residual)) for r in check.residuals}
    table = []
    for name in sorted(per):
        w = per[name]
        residual, flagged, level = levels[name]
        cpu = w.cpu_seconds
        table.append(
            WorkerRow(
                **vars(w),
                games_per_second=w.games / cpu if cpu > 0 else None,
                nodes_per_second=w.nodes / cpu if cpu > 0 else None,
                residual=residual,
                flagged=flagged,
                level=level,
            )
        )
    return Workers(
        workers=table,
        check=WorkerCheck(chi2=check.chi2, dof=check.dof, p=check.p, z_95=check.z_95, z_99=check.z_99),
        resent=resent,
        refused_batches=refused,
    )


def workers_of(store: Store, run: Run) -> Workers:
    """The workers part of a match run's report alone (what the dashboard's worker pages show)."""
    rows = counted_result_rows(store, run.id, run.counted_batches)
    return _workers(store, run.id, rows, from_results(rows).workers)


def engines_of(store: Store, run: Run) -> Engines:
    """The engines part of a run's report without the time per move (what ``arbiter status``
    shows: no game record is read), as its kind has them."""
    return kind_of(run.kind).engines(store, run)


def _throughput(rows: list[Any]) -> Throughput:
    """Games per second over wall-clock time, from when each counted batch was stored."""
    if not rows:
        return Throughput(start=None, bin_seconds=None, seconds=[], games_per_second=[])
    start = min(r.created_at for r in rows)  # rows are in batch order, not always in time order
    stamps = [((r.created_at - start).total_seconds(), r.wins + r.draws + r.losses) for r in rows]
    span = max(stamps[-1][0], 1.0)
    width = max(span / 40, 1.0)
    bins = [0] * (int(span // width) + 1)
    for seconds, games in stamps:
        bins[min(int(seconds // width), len(bins) - 1)] += games
    return Throughput(
        start=iso(start),
        bin_seconds=width,
        seconds=[i * width for i in range(len(bins))],
        games_per_second=[g / width for g in bins],
    )


def match_report(store: Store, run: Run, parent: int | None, reproduce: tuple[str, list[str]]) -> MatchReport:
    """Everything the report of a match run shows (``parent``: the run it belongs to;
    ``reproduce``: the command that plays it again, and notes on it)."""
    config = run.settings_as(SprtConfig)
    rows = counted_result_rows(store, run.id, run.counted_batches)
    totals = store.totals(run.id, run.counted_batches)  # the prefix of ``rows``, however far it went since
    pairs = sum(totals.pentanomial)
    facts = _games_facts(stream_records(store, run.id, run.counted_batches))
    lower, upper = config.sprt_params.bounds
    figures = summary_of(config, totals.pentanomial, totals.wdl)
    command, notes = reproduce
    engines = engines_data(config, rows, run.engine_version)
    return MatchReport(
        run=RunInfo.of(run, parent),
        headline=match_headline(run, config, totals, "±"),
        ending=ending_text(
            run.decision, (figures["llr"], figures["lower_bound"], figures["upper_bound"]), config.max_games
        ),
        hypothesis=Hypothesis(
            elo0=config.elo0,
            elo1=config.elo1,
            elo_model=config.elo_model,
            alpha=config.alpha,
            beta=config.beta,
            lower_bound=lower,
            upper_bound=upper,
            batch_pairs=config.batch_pairs,
            max_games=config.max_games,
        ),
        totals=MatchTotals(
            games=totals.games,
            pairs=pairs,
            pentanomial=totals.pentanomial,
            wdl=totals.wdl,
            counted_batches=run.counted_batches,
            stored_batches=len(store.results(run.id)),
            cpu_seconds=totals.cpu_seconds,
            records=facts.games,
            llr=figures["llr"],
        ),
        stats=figures if pairs else None,
        series=series(config, rows),
        endings=_endings(facts.endings),
        length=_lengths(facts.lengths),
        openings=_openings(facts.openings),
        engines=replace(engines, move_times=facts.times.frozen()),
        workers=_workers(store, run.id, rows, engines.workers),
        refusals=[
            Refusal(batch=r.batch_index, attempts=r.attempts, state=r.state, reason=r.reason)
            for r in store.refusals(run.id)
        ],
        throughput=_throughput(rows),
        config={**masked_config(run.config), "openings": len(config.openings)},
        command=command,
        command_notes=notes,
        unverifiable=unverifiable_note(run.config),
    )

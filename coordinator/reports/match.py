"""The data of a match run's report (an SPRT, a tuning trial or an acceptance SPRT), from the store.

Only the counted prefix counts (batches ``0 .. counted_batches - 1``), exactly as the runner counts
it: the LLR over games is the runner's own :class:`PrefixCounter` replayed batch by batch, and every
statistic comes from ``coordinator.stats``. Everything returned is plain JSON data (``--json``
prints it as is); the game records are read as a stream, so a long run costs time, not memory.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from sqlalchemy import select

from coordinator.registry import kind_of
from coordinator.reports.engines import (
    FAULT_KINDS,
    MoveTimes,
    engines_data,
    from_results,
    masked_config,
)
from coordinator.runs import decision_label
from coordinator.sprt.config import SprtConfig
from coordinator.sprt.report import ending_text, match_headline, summary_of
from coordinator.sprt.runner import PrefixCounter
from coordinator.stats import fixed_elo
from coordinator.stats.residuals import worker_chi2
from coordinator.store import Run, Store, StoredResult
from coordinator.store.schema import PENTANOMIAL_COLUMNS, WDL_COLUMNS, batches, results
from wire.protocol import ply_count

#: How each reason a game ends is decided: by the rules, or by the match's adjudication.
from wire.tally import candidate_score

RULES_REASONS = ("lion_captured", "kings_captured", "no_legal_move")
ADJUDICATION_REASONS = ("ply_limit", "repetition", "bare_lions", "resign")
#: Every reason a game record can end with: the rules', an adjudication's, an engine's fault.
REASONS = RULES_REASONS + ADJUDICATION_REASONS + FAULT_KINDS
#: Openings listed at each end of the table of pair scores.
OPENINGS_SHOWN = 8


def iso(stamp: datetime | None) -> str | None:
    """An ISO time stamp (UTC, no zone, as the store keeps them), or None."""
    return stamp.isoformat(timespec="seconds") if stamp is not None else None


def reason_kind(reason: str) -> str:
    """``rules``, ``adjudication``, ``fault`` (an engine program's) or ``other`` for a record's
    end reason."""
    if reason in RULES_REASONS:
        return "rules"
    if reason in ADJUDICATION_REASONS:
        return "adjudication"
    return "fault" if reason in FAULT_KINDS else "other"


def run_info(run: Run, parent: int | None = None) -> dict[str, Any]:
    """The run's identity and where it stands."""
    return {
        "id": run.id,
        "kind": str(run.kind),
        "game": run.game,
        "state": str(run.state),
        "decision": run.decision,
        "decision_label": decision_label(run.decision) if kind_of(run.kind).decides else None,
        "error": run.error,
        "created_at": iso(run.created_at),
        "updated_at": iso(run.updated_at),
        "finished_at": iso(run.finished_at),
        "engine_version": run.config.get("engine_version"),
        "parent": parent,
        "playing": run.playing,
    }


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


def series(config: SprtConfig, rows: list[Any]) -> dict[str, list[Any]]:
    """After each counted batch: games, LLR (the runner's own prefix count), fixed-sample Elo and
    its 95% half-width, and when the result was stored."""
    counter = PrefixCounter(config)
    out: dict[str, list[Any]] = {"games": [], "llr": [], "elo": [], "elo95": [], "time": []}
    for row in rows:
        stored = StoredResult(
            batch_index=row.batch_index,
            pentanomial=[getattr(row, col) for col in PENTANOMIAL_COLUMNS],
            wdl=[getattr(row, col) for col in WDL_COLUMNS],
            cpu_seconds=row.cpu_seconds,
        )
        before = counter.batches
        counter.advance({row.batch_index: stored})
        if counter.batches == before:
            break  # the prefix ended (decision or budget) before this batch
        out["games"].append(sum(counter.wdl))
        out["llr"].append(counter.sprt.llr)
        if sum(counter.pentanomial):
            elo = fixed_elo(counter.pentanomial)
            out["elo"].append(elo.elo)
            out["elo95"].append(elo.elo95)
        else:
            out["elo"].append(None)
            out["elo95"].append(None)
        out["time"].append(iso(row.created_at))
    return out


def _games_facts(records: Iterator[dict[str, Any]]) -> dict[str, Any]:
    """How games ended (per reason and colour), how long they were, and the pair score of every
    opening, in one pass over the records."""
    endings: dict[str, dict[str, list[int]]] = defaultdict(
        lambda: {"white": [0, 0, 0], "black": [0, 0, 0], "by_result": [0, 0, 0]}
    )
    lengths: Counter[int] = Counter()
    openings: dict[str, list[float]] = defaultdict(lambda: [0, 0.0])  # pairs, candidate points
    pending: dict[str, Any] | None = None
    games = 0
    times = MoveTimes()
    for record in records:
        games += 1
        times.add(record)
        score = candidate_score(record["result"], record["candidate_color"])
        slot = 0 if score == 1.0 else 1 if score == 0.5 else 2
        ending = endings[record["reason"]]
        ending[record["candidate_color"]][slot] += 1
        ending["by_result"][{"1-0": 0, "1/2-1/2": 1, "0-1": 2}[record["result"]]] += 1
        lengths[ply_count(record["moves"])] += 1
        if pending is None:
            pending = {"opening": record["opening"], "score": score}
        else:
            cell = openings[pending["opening"]]
            cell[0] += 1
            cell[1] += pending["score"] + score
            pending = None
    return {"games": games, "endings": endings, "lengths": lengths, "openings": openings, "times": times}


def _endings(endings: dict[str, dict[str, list[int]]]) -> list[dict[str, Any]]:
    """One row per end reason: candidate W/D/L as white and as black, and white/draw/black wins."""
    order = {reason: i for i, reason in enumerate(REASONS)}
    rows = []
    for reason in sorted(endings, key=lambda r: (order.get(r, len(order)), r)):
        e = endings[reason]
        rows.append(
            {
                "reason": reason,
                "kind": reason_kind(reason),
                "games": sum(e["white"]) + sum(e["black"]),
                "candidate_white": dict(zip(("W", "D", "L"), e["white"], strict=True)),
                "candidate_black": dict(zip(("W", "D", "L"), e["black"], strict=True)),
                "white_wins": e["by_result"][0],
                "draws": e["by_result"][1],
                "black_wins": e["by_result"][2],
            }
        )
    return rows


def _lengths(lengths: Counter[int]) -> dict[str, Any]:
    """Game length in plies: the histogram and its summary."""
    if not lengths:
        return {"histogram": {}, "games": 0, "mean": None, "median": None, "min": None, "max": None}
    total = sum(lengths.values())
    ordered = sorted(lengths)
    cumulative, median = 0, ordered[-1]
    for plies in ordered:
        cumulative += lengths[plies]
        if 2 * cumulative >= total:
            median = plies
            break
    return {
        "histogram": {str(k): lengths[k] for k in ordered},
        "games": total,
        "mean": sum(k * v for k, v in lengths.items()) / total,
        "median": median,
        "min": ordered[0],
        "max": ordered[-1],
    }


def _openings(openings: dict[str, list[float]]) -> dict[str, Any]:
    """Pair score per opening (the candidate's points from both games, 0 to 2 a pair); the ones
    that helped and hurt it most, and how much of the total edge the most decisive one holds."""
    rows: list[dict[str, Any]] = [
        {"opening": fen, "pairs": int(pairs), "points": points, "net": points - pairs}
        for fen, (pairs, points) in openings.items()
    ]
    helped = sorted((r for r in rows if r["net"] > 0), key=lambda r: (-r["net"], r["opening"]))
    hurt = sorted((r for r in rows if r["net"] < 0), key=lambda r: (r["net"], r["opening"]))
    total_net = sum(r["net"] for r in rows)
    swing = sum(abs(r["net"]) for r in rows)
    top = max(rows, key=lambda r: abs(r["net"]), default=None)
    return {
        "played": len(rows),
        "pairs": sum(r["pairs"] for r in rows),
        "net": total_net,
        "helped": helped[:OPENINGS_SHOWN],
        "hurt": hurt[:OPENINGS_SHOWN],
        "most_decisive_share": abs(top["net"]) / swing if top is not None and swing else None,
    }


def _new_worker(name: str) -> dict[str, Any]:
    """An empty row of the workers table."""
    return {
        "worker": name,
        "batches": 0,
        "games": 0,
        "cpu_seconds": 0.0,
        "nodes": 0,
        "pentanomial": [0] * 5,
        "refused": 0,
        "quarantined": None,
        "time_factor": None,
        "faults": 0,
    }


def _workers(store: Store, run_id: int, rows: list[Any], engines: dict[str, Any]) -> dict[str, Any]:
    """Per worker: counted batches and games, speed per CPU second, the mean factor it scaled time
    limits by and the faults in its games, refused answers, quarantine and the residual; and the
    run's re-sends and refused batches."""
    per: dict[str, dict[str, Any]] = {}
    for row in rows:
        name = row.worker or "?"
        w = per.setdefault(name, _new_worker(name))
        w["batches"] += 1
        w["games"] += row.wins + row.draws + row.losses
        w["cpu_seconds"] += row.cpu_seconds
        nodes = json.loads(row.nodes or "{}")
        w["nodes"] += int(nodes.get("candidate", 0)) + int(nodes.get("baseline", 0))
        w["pentanomial"] = [
            a + getattr(row, c) for a, c in zip(w["pentanomial"], PENTANOMIAL_COLUMNS, strict=True)
        ]
    # Refusals are counted against the worker whose answer was refused (the refusal log); answers
    # that named nobody (unsealed writes, crashes) against no worker. Re-sends (a lease ran out:
    # nobody answered) belong to the run, not to any worker.
    for found in engines["workers"]:
        w = per[found["worker"]]
        w["time_factor"] = found["time_factor"]
        w["faults"] = found["faults"]["total"]
    for name, count in store.refusals_by_worker(run_id).items():
        if name is not None:
            per.setdefault(name, _new_worker(name))["refused"] += count
    for q in store.quarantines(run_id):
        per.setdefault(q.worker, _new_worker(q.worker))["quarantined"] = q.reason
    query = select(batches.c.attempts, batches.c.refusal).where(batches.c.run_id == run_id)
    resent = refused = 0
    with store.engine.connect() as c:
        for b in c.execute(query):
            resent += max(int(b.attempts) - 1, 0)
            refused += b.refusal is not None
    check = worker_chi2({name: w["pentanomial"] for name, w in per.items()})
    levels = {r.worker: (r.residual, r.flagged, check.level(r.residual)) for r in check.residuals}
    table = []
    for name in sorted(per):
        w = per[name]
        residual, flagged, level = levels[name]
        cpu = w["cpu_seconds"]
        table.append(
            {
                **w,
                "games_per_second": w["games"] / cpu if cpu > 0 else None,
                "nodes_per_second": w["nodes"] / cpu if cpu > 0 else None,
                "residual": residual,
                "flagged": flagged,
                "level": level,
            }
        )
    return {
        "workers": table,
        "check": {"chi2": check.chi2, "dof": check.dof, "p": check.p, "z_95": check.z_95, "z_99": check.z_99},
        "resent": resent,
        "refused_batches": refused,
    }


def workers_of(store: Store, run: Run) -> dict[str, Any]:
    """The workers part of a match run's report alone (what the dashboard's worker pages show)."""
    rows = counted_result_rows(store, run.id, run.counted_batches)
    return _workers(store, run.id, rows, from_results(rows))


def engines_of(store: Store, run: Run) -> dict[str, Any]:
    """The engines part of a run's report without the time per move (what ``arbiter status``
    shows: no game record is read), as its kind has them."""
    return kind_of(run.kind).engines(store, run)


def _throughput(rows: list[Any]) -> dict[str, Any]:
    """Games per second over wall-clock time, from when each counted batch was stored."""
    if not rows:
        return {"start": None, "seconds": [], "games_per_second": [], "bin_seconds": None}
    start = min(r.created_at for r in rows)  # rows are in batch order, not always in time order
    stamps = [((r.created_at - start).total_seconds(), r.wins + r.draws + r.losses) for r in rows]
    span = max(stamps[-1][0], 1.0)
    width = max(span / 40, 1.0)
    bins = [0] * (int(span // width) + 1)
    for seconds, games in stamps:
        bins[min(int(seconds // width), len(bins) - 1)] += games
    return {
        "start": iso(start),
        "bin_seconds": width,
        "seconds": [i * width for i in range(len(bins))],
        "games_per_second": [g / width for g in bins],
    }


def match_report(
    store: Store, run: Run, parent: int | None, reproduce: tuple[str, list[str]]
) -> dict[str, Any]:
    """Everything the report of a match run shows, as JSON data (``parent``: the run it belongs
    to; ``reproduce``: the command that plays it again, and notes on it)."""
    config = run.settings_as(SprtConfig)
    rows = counted_result_rows(store, run.id, run.counted_batches)
    totals = store.totals(run.id, run.counted_batches)  # the prefix of ``rows``, however far it went since
    pairs = sum(totals.pentanomial)
    facts = _games_facts(stream_records(store, run.id, run.counted_batches))
    lower, upper = config.sprt_params.bounds
    figures = summary_of(config, totals.pentanomial, totals.wdl)
    stats = dict(figures) if pairs else None
    command, notes = reproduce
    stored = len(store.results(run.id))
    engines = engines_data(config, rows, run.config.get("engine_version"))
    return {
        "type": "match",
        "run": run_info(run, parent),
        "headline": match_headline(run, config, totals, "±"),
        "ending": ending_text(
            run.decision, (figures["llr"], figures["lower_bound"], figures["upper_bound"]), config.max_games
        ),
        "hypothesis": {
            "elo0": config.elo0,
            "elo1": config.elo1,
            "elo_model": config.elo_model,
            "alpha": config.alpha,
            "beta": config.beta,
            "lower_bound": lower,
            "upper_bound": upper,
            "batch_pairs": config.batch_pairs,
            "max_games": config.max_games,
        },
        "totals": {
            "games": totals.games,
            "pairs": pairs,
            "pentanomial": totals.pentanomial,
            "wdl": totals.wdl,
            "counted_batches": run.counted_batches,
            "stored_batches": stored,
            "cpu_seconds": totals.cpu_seconds,
            "records": facts["games"],
            "llr": figures["llr"],
        },
        "stats": stats,
        "series": series(config, rows),
        "endings": _endings(facts["endings"]),
        "length": _lengths(facts["lengths"]),
        "openings": _openings(facts["openings"]),
        "engines": engines | {"move_times": facts["times"].as_json()},
        "workers": _workers(store, run.id, rows, engines),
        "refusals": [
            {"batch": r.batch_index, "attempts": r.attempts, "state": r.state, "reason": r.reason}
            for r in store.refusals(run.id)
        ],
        "throughput": _throughput(rows),
        "config": {**masked_config(run.config), "openings": len(config.openings)},
        "command": command,
        "command_notes": notes,
    }

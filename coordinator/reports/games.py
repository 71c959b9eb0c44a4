"""Export the games of a run as PGN or JSON lines, streamed: one record in memory at a time.

The games exported are the counted ones (batches ``0 .. counted_batches - 1``: the games the run's
statistics are made of); a tuning run's are those of its trials and acceptance SPRTs, in run order.

PGN: the seven standard tags (Event, Site, Date, Round, White, Black, Result), then ``Variant``,
``SetUp "1"`` and ``FEN`` holding the opening's position string, ``Termination`` (``normal`` for a
game the rules or a resignation ended, ``adjudication`` for the match's ply limit, repetition and
bare-lions rules), ``PlyCount``, and arbiter's own tags (``Reason`` with the exact end reason,
``Run``, ``Batch``, ``Worker``, ``Candidate``, ``Baseline``). A tournament's games name the
engines that played them (White, Black) and where each came from (Candidate, Baseline). The
movetext is the moves in the rules' notation (``d2d3``, ``b1d3f5d7``) with move numbers, a comment
naming the end, and the result.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TextIO

import engine
from coordinator.escape import pgn_comment, pgn_tag
from coordinator.registry import kind_of
from coordinator.reports.engines import emt, pgn_time_control
from coordinator.reports.match import ADJUDICATION_REASONS, REASONS, engines_of
from coordinator.store import Run, Store
from wire.protocol import move_list, number_list, ply_count
from wire.speed import scaled
from wire.tally import candidate_score

FORMATS = ("pgn", "jsonl")
#: ``--result`` values: a result as written, or the candidate's view of it.
RESULT_CHOICES = ("1-0", "0-1", "1/2-1/2", "win", "draw", "loss")
VARIANTS = {"congo": "Congo", "congress": "Congress Chess"}
#: PGN lines are kept within this many characters (the export format's limit is 255; 80 reads well).
LINE = 80


@dataclass(frozen=True)
class GameFilter:
    """Which games to export (None: any)."""

    batch: int | None = None
    worker: str | None = None
    result: str | None = None
    reason: str | None = None
    limit: int | None = None

    def __post_init__(self) -> None:
        """Reject values no game can have."""
        if self.result is not None and self.result not in RESULT_CHOICES:
            raise ValueError(f"--result: expected one of {', '.join(RESULT_CHOICES)}, got {self.result!r}")
        if self.reason is not None and self.reason not in REASONS:
            raise ValueError(f"--reason: expected one of {', '.join(REASONS)}, got {self.reason!r}")
        if self.limit is not None and self.limit < 0:
            raise ValueError(f"--limit: expected a number of games >= 0, got {self.limit}")

    def keeps(self, record: dict[str, Any]) -> bool:
        """True if ``record`` passes the result and reason filters (batch and worker are in SQL)."""
        if self.reason is not None and record["reason"] != self.reason:
            return False
        if self.result is None:
            return True
        if self.result in ("1-0", "0-1", "1/2-1/2"):
            return bool(record["result"] == self.result)
        score = candidate_score(record["result"], record["candidate_color"])
        return {"win": 1.0, "draw": 0.5, "loss": 0.0}[self.result] == score


@dataclass(frozen=True)
class ExportedGame:
    """One stored game and where it comes from."""

    run: Run
    batch_index: int
    game_number: int
    worker: str | None
    stored_at: datetime
    record: dict[str, Any]
    #: The full reason of a game lost by an engine's fault (``crashed: exit status 11``), or None.
    fault: str | None = None
    #: The factor the worker that played it scaled the time limits by.
    time_factor: float = 1.0


def match_runs(store: Store, run: Run) -> list[Run]:
    """The match runs whose games make up ``run``'s: itself, or a tuning run's trials, SPRTs and
    SPSA iterations."""
    return kind_of(run.kind).match_runs(store, run)


def iter_games(
    store: Store, run: Run, wanted: GameFilter | None = None, skip: int = 0
) -> Iterator[ExportedGame]:
    """The counted games of ``run`` that pass ``wanted``, in run, batch and game order, streamed,
    after the first ``skip`` of them. Without a filter on the games themselves, whole batches are
    skipped by their counts, never decoded (a page far into a run costs what its own games do)."""
    wanted = wanted or GameFilter()
    left = wanted.limit
    by_counts = (
        wanted.result is None and wanted.reason is None and wanted.batch is None and wanted.worker is None
    )
    for match in match_runs(store, run):
        start = None
        if by_counts and skip > 0:
            for index, count in store.game_counts(match.id, match.counted_batches):
                if skip < count:
                    start = index
                    break
                skip -= count
            else:
                continue  # every game of this run lies before the wanted ones
        batches = store.iter_batch_games(
            match.id, below=match.counted_batches, batch=wanted.batch, worker=wanted.worker, start=start
        )
        for batch in batches:
            for number, record in enumerate(batch.records):
                if left is not None and left <= 0:
                    return
                if not wanted.keeps(record):
                    continue
                if skip > 0:
                    skip -= 1
                    continue
                yield ExportedGame(
                    match,
                    batch.batch_index,
                    number,
                    batch.worker,
                    batch.stored_at,
                    record,
                    batch.faults.get(number),
                    batch.time_factor,
                )
                if left is not None:
                    left -= 1
        if left is not None and left <= 0:
            return


def sides(run: Run, batch_index: int) -> tuple[tuple[str, str], tuple[str, str]]:
    """The (name, source) of the candidate and the baseline side of batch ``batch_index``: a
    tournament's engines by their names, else ``candidate`` and ``baseline``."""
    return kind_of(run.kind).sides(run, batch_index)


def _tag(name: str, value: Any) -> str:
    """A PGN tag pair, its value one line with backslash and quote escaped."""
    return f'[{name} "{pgn_tag(value)}"]'


#: The PGN Termination of a game an engine program lost by a fault.
FAULT_TERMINATIONS = {
    "time_forfeit": "time forfeit",
    "illegal_move": "rules infraction",
    "protocol": "rules infraction",
    "crash": "abandoned",
    "hang": "abandoned",
    "no_answer": "abandoned",
}


def termination(reason: str) -> str:
    """The PGN Termination class of an end reason."""
    if reason in FAULT_TERMINATIONS:
        return FAULT_TERMINATIONS[reason]
    return "adjudication" if reason in ADJUDICATION_REASONS and reason != "resign" else "normal"


def clocks(control: engine.TimeControl, times: list[int], black_first: bool) -> list[int]:
    """Each side's clock after each of its moves (ms), from the time control played and the time
    each move took: the time used off, the increment on, the base again after every ``moves``
    moves of a repeating control."""
    left = [control.base_ms, control.base_ms]
    made = [0, 0]
    after = []
    for ply, ms in enumerate(times):
        side = (ply + black_first) % 2
        made[side] += 1
        left[side] += control.increment_ms - ms
        if control.moves is not None and made[side] % control.moves == 0:
            left[side] += control.base_ms
        after.append(max(left[side], 0))
    return after


def clk(ms: int) -> str:
    """A clock as a PGN ``[%clk h:mm:ss.fff]`` command."""
    return "[%clk" + emt(ms).removeprefix("[%emt")


def movetext(
    opening: str,
    moves: list[str],
    comment: str,
    result: str,
    times: list[int] | None = None,
    control: engine.TimeControl | None = None,
) -> str:
    """Numbered moves, each followed by its time as cutechess writes it (``{[%emt 0:00:00.012]}``,
    given ``times``) and, under a clock (``control``, as played), the clock after it
    (``[%clk 0:00:04.988]``), the end comment and the result, wrapped at :data:`LINE` characters."""
    black_first = opening.split()[-1:] == ["b"]
    after = clocks(control, times, black_first) if control is not None and times is not None else None
    tokens: list[str] = []
    number = 1
    for ply, move in enumerate(moves):
        white_to_move = (ply % 2 == 0) != black_first
        if white_to_move:
            tokens.append(f"{number}.")
        elif ply == 0:
            tokens.append(f"{number}...")
        tokens.append(move)
        if times is not None and ply < len(times):
            tokens.append(f"{{{emt(times[ply])}{f' {clk(after[ply])}' if after is not None else ''}}}")
        if not white_to_move:
            number += 1
    tokens += [f"{{{comment}}}", result]
    lines: list[str] = []
    current = ""
    for token in tokens:
        if current and len(current) + 1 + len(token) > LINE:
            lines.append(current)
            current = token
        else:
            current = f"{current} {token}" if current else token
    lines.append(current)
    return "\n".join(lines)


def _side_tags(side: str, shown: dict[str, Any]) -> list[str]:
    """A side's own tags: its version as reported, the options it was set to, its commit."""
    label = side.capitalize()
    tags = []
    if shown["version"]:
        tags.append(_tag(f"{label}Version", shown["version"]))
    if shown["options"]:
        tags.append(_tag(f"{label}Options", " ".join(f"{k}={v}" for k, v in shown["options"].items())))
    if shown["commit"] is not None:
        tags.append(_tag(f"{label}Commit", shown["commit"]["sha"]))
        tags.append(_tag(f"{label}Repository", shown["commit"]["repo"]))
    return tags


def _shown_sides(game: ExportedGame, engines: dict[str, Any]) -> dict[str, Any]:
    """The two sides of ``game`` as PGN names them: a tournament's engines of its batch by name and
    source, else ``engines``' candidate and baseline."""
    if not kind_of(game.run.kind).sides_per_batch:
        return dict(engines["sides"])
    pairing = sides(game.run, game.batch_index)
    return {
        side: {"name": name, "source": source, "version": None, "options": {}, "commit": None}
        for side, (name, source) in zip(("candidate", "baseline"), pairing, strict=True)
    }


def pgn(game: ExportedGame, engines: dict[str, Any]) -> str:
    """One game as PGN (tags, a blank line, the movetext, a blank line), its players named by
    ``engines`` (``match.engines_of`` its run), each move with its time where recorded."""
    r, run = game.record, game.run
    played = scaled(engine.Limits.from_json(run.config.get("limits")), game.time_factor)
    shown = _shown_sides(game, engines)
    white, black = ("candidate", "baseline") if r["candidate_color"] == "white" else ("baseline", "candidate")
    reason = r["reason"]
    winner = {"1-0": "white wins", "0-1": "black wins", "1/2-1/2": "draw"}[r["result"]]
    tags = [
        _tag("Event", f"arbiter run {run.id} ({run.kind} {run.game})"),
        _tag("Site", "arbiter"),
        _tag("Date", game.stored_at.strftime("%Y.%m.%d")),
        _tag("Round", f"{game.batch_index + 1}.{game.game_number + 1}"),
        _tag("White", shown[white]["name"]),
        _tag("Black", shown[black]["name"]),
        _tag("Result", r["result"]),
        _tag("TimeControl", pgn_time_control(played)),
        *([_tag("TimeFactor", f"{game.time_factor:g}")] if game.time_factor != 1.0 else []),
        _tag("Variant", VARIANTS.get(run.game, run.game)),
        _tag("SetUp", "1"),
        _tag("FEN", r["opening"]),
        _tag("Termination", termination(reason)),
        _tag("PlyCount", ply_count(r["moves"])),
        _tag("Reason", reason),
        *([_tag("Fault", game.fault)] if game.fault else []),
        _tag("Run", run.id),
        _tag("Batch", game.batch_index),
        _tag("Worker", game.worker or "?"),
        _tag("Candidate", shown["candidate"]["source"]),
        _tag("Baseline", shown["baseline"]["source"]),
        *_side_tags("candidate", shown["candidate"]),
        *_side_tags("baseline", shown["baseline"]),
    ]
    comment = f"{winner}: {pgn_comment(game.fault or reason.replace('_', ' '))}"
    times = number_list(r["times"]) or None
    return (
        "\n".join(tags)
        + "\n\n"
        + movetext(r["opening"], move_list(r["moves"]), comment, r["result"], times, played.time_control)
        + "\n\n"
    )


def jsonl(game: ExportedGame) -> str:
    """One game as a JSON line: where it comes from, and the stored record as it is."""
    return (
        json.dumps(
            {
                "run": game.run.id,
                "batch": game.batch_index,
                "game": game.game_number,
                "worker": game.worker,
                "record": game.record,
                "fault": game.fault,
            },
            sort_keys=True,
        )
        + "\n"
    )


def export(store: Store, run: Run, fmt: str, out: TextIO, wanted: GameFilter | None = None) -> int:
    """Write the games of ``run`` to ``out`` in ``fmt`` (pgn or jsonl), one at a time; how many."""
    if fmt not in FORMATS:
        raise ValueError(f"--format: expected one of {', '.join(FORMATS)}, got {fmt!r}")
    engines: dict[int, dict[str, Any]] = {}
    count = 0
    for game in iter_games(store, run, wanted):
        if fmt == "pgn":
            if game.run.id not in engines:
                engines[game.run.id] = engines_of(store, game.run)
            out.write(pgn(game, engines[game.run.id]))
        else:
            out.write(jsonl(game))
        count += 1
    return count

"""Every fault of the faulty engine ends its game as a loss with the failure table's reason,
within a bounded time, with its process group gone; the next game is played normally."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from referee_testkit import ENGINES, FAULTY, QUICK, START, group_gone, player

import engine
from wire.protocol import FaultKind
from worker.referee import PlayedGame, play_game, play_pairs
from worker.referee.player import EnginePlayer
from worker.referee.process import ResourceLimits

sys.path.insert(0, str(ENGINES))
from faulty_engine import BOAST, illegal_move  # from the test engines' folder, put on the path above

NODES = engine.Limits(nodes=300)
CLOCK = engine.Limits(time_control=engine.TimeControl.parse("1+0.01"), time_margin_ms=100)
#: Timed moves (so ``isready`` comes between ``position`` and ``go``) that end by nodes.
TIMED_NODES = engine.Limits(nodes=300, movetime_ms=1000)
ADJUDICATION = engine.Adjudication(max_plies=200, repetition=True, bare_lions=True)
RULE_ENDS = {"lion_captured", "kings_captured", "no_legal_move", "repetition", "bare_lions", "ply_limit"}


#: The faulty engine with FaultOnce keeps a file across its restarts, outside any sandbox.
ONCE = ResourceLimits(sandboxed=False)


@dataclass(frozen=True)
class Case:
    fault: str
    kind: FaultKind
    reason: str
    limits: engine.Limits = NODES
    side: str = "white"
    game: str = "congo"
    ply: int = 2
    #: How long judging the fault may take (s).
    within_s: float = 4.0
    #: Plies played after the fault's move (no_readyok plays it, and fails at the next isready,
    #: which only a timed move has).
    after: int = 0


CASES = [
    Case("crash", FaultKind.CRASH, "crashed: signal 11"),
    Case("exit", FaultKind.CRASH, "crashed: exit status 1", side="black", game="congress"),
    Case("hang", FaultKind.HANG, "hang"),  # fixed nodes: the move timeout
    Case("hang", FaultKind.HANG, "hang", CLOCK, side="black"),  # ignores stop: killed
    Case("slow_move", FaultKind.TIME_FORFEIT, "time forfeit", CLOCK),
    Case("illegal", FaultKind.ILLEGAL_MOVE, "illegal move {illegal}"),
    Case("illegal", FaultKind.ILLEGAL_MOVE, "illegal move {illegal}", side="black", game="congress"),
    Case("garbage", FaultKind.ILLEGAL_MOVE, "illegal move xyz", game="congress"),
    Case("bestmove_none", FaultKind.PROTOCOL, "protocol violation: bestmove (none)"),
    Case("empty_bestmove", FaultKind.PROTOCOL, "protocol violation: bestmove without a move", side="black"),
    Case("flood", FaultKind.PROTOCOL, "protocol violation: more than 1048576 bytes of output for one answer"),
    Case("long_line", FaultKind.PROTOCOL, "protocol violation: a line longer than 65536 bytes"),
    Case("no_readyok", FaultKind.NO_ANSWER, "no readyok in time", TIMED_NODES, ply=1, after=2),
]


def sides(case: Case, faulty: EnginePlayer, plain: EnginePlayer) -> tuple[EnginePlayer, EnginePlayer]:
    return (faulty, plain) if case.side == "white" else (plain, faulty)


def expected_reason(case: Case, played: PlayedGame) -> str:
    position = engine.Position.from_fen(case.game, START[case.game])
    for move in played.moves:
        position = position.play(move)
    return case.reason.format(illegal=illegal_move(position))


@pytest.mark.parametrize("case", CASES, ids=[f"{c.fault}-{c.side}-{c.game}" for c in CASES])
def test_a_fault_loses_the_game_and_the_next_game_is_normal(case: Case, tmp_path: Path) -> None:
    options: dict[str, Any] = {"Fault": case.fault, "FaultPly": case.ply, "FaultOnce": str(tmp_path / "done")}
    with player(case.game, FAULTY, options, name="faulty", limits=ONCE) as faulty, player(case.game) as plain:
        started = time.monotonic()
        white, black = sides(case, faulty, plain)
        played = play_game(white, black, case.game, START[case.game], case.limits, ADJUDICATION)
        took = time.monotonic() - started
        first = faulty.process
        assert first is not None
        reason = expected_reason(case, played)
        assert (played.result, played.reason, played.detail) == (
            "0-1" if case.side == "white" else "1-0",
            str(case.kind),
            reason,
        )
        assert (played.white_fault, played.black_fault) == (
            (reason, None) if case.side == "white" else (None, reason)
        )
        before = 2 * case.ply - 2 if case.side == "white" else 2 * case.ply - 1
        assert len(played.moves) == before + case.after
        assert took < case.within_s
        assert first.killed and group_gone(first.pid)
        assert plain.starts == 1 and plain.running

        # The next game: the faulty engine is started again and, its fault spent, plays normally.
        white, black = reversed(sides(case, faulty, plain))
        again = play_game(white, black, case.game, START[case.game], case.limits, ADJUDICATION)
        assert again.reason in RULE_ENDS, again.detail
        assert faulty.starts == 2 and faulty.process is not first


def test_a_move_later_than_the_clock_allows_is_a_time_forfeit_even_when_answered(tmp_path: Path) -> None:
    # A movetime limit the faulty engine overruns by waiting for stop: it answers at once then.
    # The move timeout is long, so a referee that waited for it instead of sending stop at the
    # clock's end would take 30 s; the bound leaves room for a loaded machine.
    limits = engine.Limits(movetime_ms=200, time_margin_ms=50)
    options: dict[str, Any] = {"Fault": "slow_move", "FaultPly": 1}
    patient = replace(QUICK, move_s=30.0)
    with player("congo", FAULTY, options, timeouts=patient) as faulty, player("congo") as plain:
        started = time.monotonic()
        played = play_game(plain, faulty, "congo", START["congo"], limits, ADJUDICATION)
        assert (played.result, played.detail, played.moves[1:]) == ("1-0", "time forfeit", ())
        assert time.monotonic() - started < patient.move_s / 3


@pytest.mark.parametrize("args", [["--slow-start", "60"], ["--no-uciok"]], ids=["slow_start", "no_uciok"])
def test_no_uciok_in_time(args: list[str], tmp_path: Path) -> None:
    quick = replace(QUICK, handshake_s=1.0)
    argv = (*FAULTY, *args, "--fault-once", str(tmp_path / "done"))
    with player("congress", argv, timeouts=quick, limits=ONCE) as faulty, player("congress") as plain:
        started = time.monotonic()
        played = play_game(plain, faulty, "congress", START["congress"], NODES, ADJUDICATION)
        assert time.monotonic() - started < quick.handshake_s + 1.5
        assert (played.result, played.reason, played.detail, played.black_fault) == (
            "1-0",
            "no_answer",
            "no uciok in time",
            "no uciok in time",
        )
        assert played.moves == ()
        first = faulty.process
        assert first is not None and first.killed and group_gone(first.pid)
        again = play_game(faulty, plain, "congress", START["congress"], NODES, ADJUDICATION)
        assert again.reason in RULE_ENDS, again.detail
        assert faulty.starts == 1 and faulty.process is not first


def test_a_batch_goes_on_after_a_crash(tmp_path: Path) -> None:
    options: dict[str, Any] = {"Fault": "crash", "FaultPly": 3, "FaultOnce": str(tmp_path / "done")}
    openings = [START["congo"], START["congo"]]
    with player("congo", FAULTY, options, limits=ONCE) as candidate, player("congo") as baseline:
        games = play_pairs(candidate, baseline, "congo", openings, engine.Limits(nodes=400), ADJUDICATION)
        assert candidate.starts == 2 and baseline.starts == 1
    assert (games[0].game.result, games[0].game.reason) == ("0-1", "crash")
    assert all(g.game.reason in RULE_ENDS for g in games[1:])
    assert games[1].game.moves == games[3].game.moves, "after the restart it plays as before"


@pytest.mark.parametrize("limits", [NODES, TIMED_NODES], ids=["untimed", "timed"])
def test_a_score_beyond_any_search_is_read_as_a_mate_score(limits: engine.Limits) -> None:
    """Untimed games are refereed in Rust, timed ones move by move in Python: both bound the
    numbers an engine claims before the resignation rule reads them."""
    adjudication = engine.Adjudication(
        max_plies=200, repetition=True, bare_lions=True, resign_score=400, resign_plies=2
    )
    options: dict[str, Any] = {"Fault": "boast", "FaultPly": 2}
    with player("congo", FAULTY, options, name="boaster") as boaster, player("congo") as plain:
        played = play_game(boaster, plain, "congo", START["congo"], limits, adjudication)
    assert played.reason in RULE_ENDS | {"resign"} and played.detail is None, played.detail
    assert played.stats[2].score_mate == -BOAST  # the boaster's second move, as it said

"""One game between two engine programs, refereed.

Every move is checked by the rules core (``engine.GameJudge``), and the game ends exactly where
``engine.play_game`` and the coordinator's replay end it: the rules, then repetition, bare lions
and the ply limit; then, if the run allows it, resignation from both engines' scores. A side whose
engine faults (docs/protocol.md, the failure table) loses, and its engine is killed, to be started
again for its next game.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import engine
from worker.protocol import MAX_REASON, Color, GameRecord
from worker.referee.clock import DEFAULT_MARGIN_MS, Clock, TimeControl
from worker.referee.faults import EngineFault, illegal_move, time_forfeit
from worker.referee.player import EnginePlayer
from worker.referee.resign import ResignWatch
from worker.referee.uci import AtDeadline, BestMove, GoLimits


@dataclass(frozen=True)
class GameLimits:
    """What limits each move: fixed nodes, depth, a fixed time per move, a clock, or several
    (the engine stops at the first one reached). ``time_margin_ms`` is the grace past a time
    limit before the side loses on time."""

    nodes: int | None = None
    depth: int | None = None
    movetime_ms: int | None = None
    clock: TimeControl | None = None
    time_margin_ms: int = DEFAULT_MARGIN_MS

    def __post_init__(self) -> None:
        numbers = {"nodes": self.nodes, "depth": self.depth, "movetime_ms": self.movetime_ms}
        if all(v is None for v in numbers.values()) and self.clock is None:
            raise ValueError("game limits: set nodes, depth, movetime_ms or a clock")
        for key, value in numbers.items():
            if value is not None and value <= 0:
                raise ValueError(f"game limits: {key} must be positive, got {value}")
        if self.time_margin_ms < 0:
            raise ValueError(f"game limits: the time margin must not be negative, got {self.time_margin_ms}")

    def go(self, clock: Clock | None, side: str) -> GoLimits:
        """What ``go`` sends to ``side``."""
        timed = GoLimits(movetime=self.movetime_ms, nodes=self.nodes, depth=self.depth)
        if clock is None:
            return timed
        fields = clock.go_fields(side)
        return replace(
            timed,
            wtime=fields["wtime"],
            btime=fields["btime"],
            winc=fields["winc"],
            binc=fields["binc"],
            movestogo=fields.get("movestogo"),
        )

    def time_limit_ms(self, clock: Clock | None, side: str) -> float | None:
        """How long ``side`` may take over its move before it loses on time (None: no limit)."""
        limits = []
        if clock is not None:
            limits.append(clock.limit_ms(side))
        if self.movetime_ms is not None:
            limits.append(self.movetime_ms + self.time_margin_ms)
        return min(limits) if limits else None


@dataclass(frozen=True)
class MoveStats:
    """One move as its engine played it: the move, the time it took (ms, from ``go`` to
    ``bestmove``), and the last nodes, depth and score (for the side to move) its info lines
    reported (None where it never said)."""

    move: str
    time_ms: float
    nodes: int | None
    depth: int | None
    score_cp: int | None
    score_mate: int | None

    @classmethod
    def of(cls, move: str, best: BestMove) -> MoveStats:
        info = best.info
        return cls(move, best.elapsed_ms, info.nodes, info.depth, info.score_cp, info.score_mate)


@dataclass(frozen=True)
class PlayedGame:
    """A refereed game: the fields of a GameRecord (``reason`` short: the rules' or the
    adjudication's reason, ``resign``, or the fault kind), the full fault text in ``detail`` and
    in the faulting side's field, that engine's last stderr lines, and each move's stats."""

    opening: str
    moves: tuple[str, ...]
    result: str
    reason: str
    detail: str | None = None
    white_fault: str | None = None
    black_fault: str | None = None
    fault_stderr: tuple[str, ...] = ()
    stats: tuple[MoveStats, ...] = ()

    @property
    def moves_text(self) -> str:
        """The moves as a record holds them: one string, separated by single spaces."""
        return " ".join(self.moves)

    def record(self, candidate_color: Color) -> GameRecord:
        """The game as a batch result's record, the candidate having played ``candidate_color``."""
        return GameRecord(self.opening, self.moves_text, self.result, self.reason, candidate_color)


def _other(side: str) -> str:
    return "black" if side == "white" else "white"


def _win_for(side: str) -> str:
    return "1-0" if side == "white" else "0-1"


class _Game:
    """The state of one game in progress."""

    def __init__(
        self,
        players: dict[str, EnginePlayer],
        game: str,
        opening: str,
        limits: GameLimits,
        adjudication: Mapping[str, Any] | None,
    ) -> None:
        self.players = players
        self.opening = opening
        self.limits = limits
        self.judge = engine.GameJudge(game, opening, dict(adjudication or {}))
        self.clock = Clock(limits.clock, limits.time_margin_ms) if limits.clock is not None else None
        self.resign = ResignWatch(adjudication)
        self.moves: list[str] = []
        self.stats: list[MoveStats] = []

    def ended(self, result: str, reason: str) -> PlayedGame:
        return PlayedGame(self.opening, tuple(self.moves), result, reason, stats=tuple(self.stats))

    def lost(self, side: str, fault: EngineFault) -> PlayedGame:
        """``side`` lost by ``fault``; its engine is killed (and restarts for its next game)."""
        player = self.players[side]
        player.kill()
        assert len(fault.kind) <= MAX_REASON
        return PlayedGame(
            self.opening,
            tuple(self.moves),
            _win_for(_other(side)),
            str(fault.kind),
            detail=fault.reason,
            white_fault=fault.reason if side == "white" else None,
            black_fault=fault.reason if side == "black" else None,
            fault_stderr=tuple(player.stderr_tail()),
            stats=tuple(self.stats),
        )

    def play(self) -> PlayedGame:
        if (end := self.judge.end()) is not None:
            return self.ended(*end)
        for side in ("white", "black"):
            try:
                self.players[side].new_game()
            except EngineFault as fault:
                return self.lost(side, fault)
        while (end := self.judge.end()) is None:
            side = self.judge.turn
            try:
                best = self.search(side)
                move = self.check(side, best)
            except EngineFault as fault:
                return self.lost(side, fault)
            if (result := self.resign.resigns(side, best.info)) is not None:
                return self.ended(result, "resign")
            self.judge.play(move)
            self.moves.append(move)
            self.stats.append(MoveStats.of(move, best))
        return self.ended(*end)

    def search(self, side: str) -> BestMove:
        """``side``'s engine's answer, within the time it has (or the move timeout)."""
        limit_ms = self.limits.time_limit_ms(self.clock, side)
        player = self.players[side]
        if limit_ms is None:
            wait_s, at_deadline = player.timeouts.move_s, AtDeadline.HANG
        else:
            wait_s, at_deadline = max(0.0, limit_ms) / 1000.0, AtDeadline.FORFEIT
        go = self.limits.go(self.clock, side)
        return player.play(self.judge.opening, self.moves, go, wait_s, at_deadline)

    def check(self, side: str, best: BestMove) -> str:
        """The move's compact text once its time is charged and it is found legal."""
        movetime, elapsed = self.limits.movetime_ms, best.elapsed_ms
        over_movetime = movetime is not None and elapsed > movetime + self.limits.time_margin_ms
        flag_fell = self.clock is not None and self.clock.charge(side, elapsed)
        if over_movetime or flag_fell:
            raise time_forfeit()
        try:
            return self.judge.check(best.move)
        except ValueError:
            raise illegal_move(best.move) from None


def play_game(
    white: EnginePlayer,
    black: EnginePlayer,
    game: str,
    opening: str,
    limits: GameLimits,
    adjudication: Mapping[str, Any] | None = None,
) -> PlayedGame:
    """Plays one game of ``game`` from the ``opening`` position string, ``white`` against
    ``black``, under ``limits`` and ``adjudication`` (the dict ``engine.play_game`` takes).

    Every wait is bounded (docs/protocol.md); a fault loses the game for its side and kills its
    engine. A bad opening or adjudication raises ValueError; an engine that cannot be set up as
    configured raises EngineConfigError (a ValueError): those are no side's fault.
    """
    if white is black:
        raise ValueError("one engine process cannot play both sides of a game")
    return _Game({"white": white, "black": black}, game, opening, limits, adjudication).play()

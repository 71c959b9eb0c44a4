"""One game between two engine programs, refereed.

Every move is checked by the rules core (``engine.GameJudge``), and the game ends exactly where
``engine.play_game`` and the coordinator's replay end it: the rules, then repetition, bare lions
and the ply limit; then, if the run allows it, resignation from both engines' scores. A side whose
engine faults (docs/protocol.md, the failure table) loses, and its engine is killed, to be started
again for its next game.
"""

from __future__ import annotations

from dataclasses import dataclass

import engine
from wire.protocol import MAX_REASON, Color, GameRecord
from worker.referee.faults import EngineFault, illegal_move, time_forfeit
from worker.referee.player import EnginePlayer
from worker.referee.uci import AtDeadline, BestMove, GoLimits


def go_limits(limits: engine.Limits, clock: engine.GameClock | None, side: str) -> GoLimits:
    """What ``go`` sends to ``side`` under ``limits`` (several limits: the engine stops at the
    first reached), with both clocks when the game has one."""
    fields = clock.go_fields(side) if clock is not None else {}
    return GoLimits(
        movetime=limits.movetime_ms,
        nodes=limits.nodes,
        depth=limits.depth,
        wtime=fields.get("wtime"),
        btime=fields.get("btime"),
        winc=fields.get("winc"),
        binc=fields.get("binc"),
        movestogo=fields.get("movestogo"),
    )


def time_limit_ms(limits: engine.Limits, clock: engine.GameClock | None, side: str) -> float | None:
    """How long ``side`` may take over its move before it loses on time (None: no time limit)."""
    bounds = []
    if clock is not None:
        bounds.append(clock.limit_ms(side))
    if limits.movetime_ms is not None:
        bounds.append(limits.movetime_ms + limits.time_margin_ms)
    return float(min(bounds)) if bounds else None


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

    def record(self, candidate_color: Color, timed: bool = False) -> GameRecord:
        """The game as a batch result's record, the candidate having played ``candidate_color``,
        with each move's time in whole milliseconds (what reports and PGN show); a timed game
        also states each move's node count (the last its engine reported: the budget under
        which ``go nodes`` repeats the move, where the engine supports it)."""
        times = " ".join(str(round(s.time_ms)) for s in self.stats)
        budgets = " ".join(str(max(1, s.nodes or 1)) for s in self.stats) if timed else ""
        return GameRecord(
            self.opening, self.moves_text, self.result, self.reason, candidate_color, budgets, times
        )


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
        limits: engine.Limits,
        adjudication: engine.Adjudication | None,
    ) -> None:
        self.players = players
        self.opening = opening
        self.limits = limits
        self.judge = engine.GameJudge(game, opening, adjudication)
        #: The opening as ``position`` sends it (the judge's canonical string).
        self.fen = self.judge.opening
        control = limits.time_control
        self.clock = engine.GameClock(control, limits.time_margin_ms) if control is not None else None
        #: Without a clock, every move's ``go`` and time limit are the same: made once (None with one).
        self.unclocked: tuple[GoLimits, float | None] | None = None
        if self.clock is None:
            self.unclocked = (go_limits(limits, None, "white"), time_limit_ms(limits, None, "white"))
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
        if self.unclocked is not None and self.unclocked[1] is None:
            return self.play_untimed(self.unclocked[0])
        while (end := self.judge.end()) is None:
            side = self.judge.turn
            try:
                best = self.search(side)
                move = self.check(side, best)
            except EngineFault as fault:
                return self.lost(side, fault)
            score = engine.resignation_score(best.info.score_cp, best.info.score_mate)
            if (result := self.judge.searched(score)) is not None:
                return self.ended(result, "resign")
            self.judge.play(move)
            self.moves.append(move)
            self.stats.append(MoveStats.of(move, best))
        return self.ended(*end)

    def play_untimed(self, go: GoLimits) -> PlayedGame:
        """The game to its end when no time limit applies (fixed nodes or depth): the rules
        core referees it in one call, each move as :meth:`search` and :meth:`check` would have
        (``position`` and ``go`` in one write, a hang after Timeouts.move_s, the move checked),
        with no Python between the moves."""
        white, black = self.players["white"], self.players["black"]
        stats, fault = self.judge.referee(go.command(), white.referee_side(), black.referee_side())
        self.stats = [MoveStats(*s) for s in stats]
        self.moves = [s.move for s in self.stats]
        if fault is not None:
            side, kind, text = fault
            return self.lost(side, self.players[side].fault(kind, text))
        end = self.judge.end()
        assert end is not None
        return self.ended(*end)

    def search(self, side: str) -> BestMove:
        """``side``'s engine's answer, within the time it has (or the move timeout)."""
        if self.unclocked is not None:
            go, limit_ms = self.unclocked
        else:
            go = go_limits(self.limits, self.clock, side)
            limit_ms = time_limit_ms(self.limits, self.clock, side)
        player = self.players[side]
        if limit_ms is None:
            wait_s, at_deadline = player.timeouts.move_s, AtDeadline.HANG
        else:
            wait_s, at_deadline = max(0.0, limit_ms) / 1000.0, AtDeadline.FORFEIT
        return player.play(self.fen, self.moves, go, wait_s, at_deadline)

    def check(self, side: str, best: BestMove) -> str:
        """The move's compact text once its time is charged and it is found legal."""
        movetime, elapsed = self.limits.movetime_ms, best.elapsed_ms
        over_movetime = movetime is not None and elapsed > movetime + self.limits.time_margin_ms
        flag_fell = self.clock is not None and self.clock.charge(side, round(elapsed))
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
    limits: engine.Limits,
    adjudication: engine.Adjudication | None = None,
) -> PlayedGame:
    """Plays one game of ``game`` from the ``opening`` position string, ``white`` against
    ``black``, under ``limits`` and ``adjudication`` (as ``engine.play_game`` takes them).

    Every wait is bounded (docs/protocol.md); a fault loses the game for its side and kills its
    engine. A bad opening or adjudication raises ValueError; an engine that cannot be set up as
    configured raises EngineConfigError (a ValueError): those are no side's fault.
    """
    if white is black:
        raise ValueError("one engine process cannot play both sides of a game")
    return _Game({"white": white, "black": black}, game, opening, limits, adjudication).play()

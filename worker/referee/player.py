"""One side's engine program across the games of a batch.

It is started on first use (process, handshake, the configured options, UCI_Variant), kept alive
from game to game (``ucinewgame``), killed with its process group on any fault, and started again
the next time it is needed: a crash never loses more than the game it happened in.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import engine
from worker.referee.faults import EngineConfigError, EngineFault, illegal_move
from worker.referee.process import EngineProcess, Log, ResourceLimits
from worker.referee.uci import (
    VARIANT,
    AtDeadline,
    BestMove,
    EngineInfo,
    GoLimits,
    OptionValue,
    Timeouts,
    UciClient,
    position_command,
)

#: One side as ``engine.GameJudge.referee`` takes it: (pipe, move_s, stop_s, write_s, log).
RefereeSide = tuple[engine.EnginePipe, float, float, float, Log | None]


@dataclass(frozen=True)
class EngineSpec:
    """How to run one engine program: its argv (no shell), working directory, environment (None:
    a bare one; never an ``ARBITER_*`` variable, ``worker.referee.sandbox``), option values,
    resource limits, and the handshake command (``uci`` or ``ugi``). UCI_Variant is not among the
    options: the referee sets it from the game."""

    argv: tuple[str, ...]
    name: str | None = None
    cwd: str | None = None
    env: Mapping[str, str] | None = None
    options: Mapping[str, OptionValue] = field(default_factory=dict)
    limits: ResourceLimits = field(default_factory=ResourceLimits)
    command: str = "uci"

    def __post_init__(self) -> None:
        if not self.argv:
            raise EngineConfigError("engine command is empty")
        if any(name.lower() == VARIANT.lower() for name in self.options):
            raise EngineConfigError(
                f"{VARIANT} is set by the referee from the game, not in an engine's options"
            )
        if self.command not in ("uci", "ugi"):
            raise EngineConfigError(f"handshake command must be uci or ugi, got {self.command!r}")

    def process_limits(self) -> ResourceLimits:
        """The resource limits of the engine's process: its memory limit grows by the ``Hash``
        it is given (MiB), as the table is the memory an engine is asked to take."""
        limits = self.limits
        hash_mb = next((v for k, v in self.options.items() if k.lower() == "hash"), None)
        if limits.memory_bytes is None or isinstance(hash_mb, bool):
            return limits
        try:
            extra = int(hash_mb) << 20 if hash_mb is not None else 0
        except ValueError:
            return limits  # not a number: setoption will say so
        return replace(limits, memory_bytes=limits.memory_bytes + max(0, extra))


class EnginePlayer(contextlib.AbstractContextManager["EnginePlayer"]):
    """An engine that plays ``game`` for the referee, restarted after any fault."""

    def __init__(self, spec: EngineSpec, game: str, timeouts: Timeouts | None = None, log: Log | None = None):
        self.spec = spec
        self.game = game
        self.timeouts = timeouts or Timeouts()
        self.log = log
        #: How many times the program was started (and handshaken).
        self.starts = 0
        #: The CPU seconds of the processes before the current one.
        self._ended_cpu = 0.0
        self._uci: UciClient | None = None
        self._process: EngineProcess | None = None
        self._info: EngineInfo | None = None

    @property
    def name(self) -> str:
        """The engine file's name, else the engine's own ``id name``, else its program's."""
        if self.spec.name:
            return self.spec.name
        if self._uci is not None and self._uci.info is not None and self._uci.info.name:
            return self._uci.info.name
        return self.spec.argv[0]

    @property
    def info(self) -> EngineInfo | None:
        """What the last handshake told (None before the first start), kept after a kill."""
        return self._info

    @property
    def process(self) -> EngineProcess | None:
        """The current (or last) engine process."""
        return self._process

    @property
    def running(self) -> bool:
        return self._uci is not None

    def cpu_seconds(self) -> float:
        """The CPU time every process of this player has used so far (0 where the system
        cannot tell, ``EngineProcess.cpu_seconds``): what a batch's engines cost, besides the
        referee."""
        current = self._process.cpu_seconds() if self._process is not None else None
        return self._ended_cpu + (current or 0.0)

    def stderr_tail(self) -> list[str]:
        """The last stderr lines of the current (or last, killed) process."""
        return [] if self._process is None else self._process.stderr_tail()

    def start(self) -> UciClient:
        """The running engine, started and set up first if it is not (EngineFault if it fails
        to, EngineConfigError if it cannot be set up as configured)."""
        if self._uci is not None:
            return self._uci
        spec = self.spec
        process = EngineProcess.start(
            spec.argv, cwd=spec.cwd, env=spec.env, limits=spec.process_limits(), name=spec.name, log=self.log
        )
        if self._process is not None:  # killed: its CPU is all it will use
            self._ended_cpu += self._process.cpu_seconds() or 0.0
        self._process = process
        client = UciClient(process, self.timeouts)
        try:
            client.handshake(spec.command)
            client.set_options(spec.options)
            client.set_variant(self.game)
        except BaseException:
            process.kill()
            raise
        self.starts += 1
        self._uci = client
        self._info = client.info
        return client

    def new_game(self) -> None:
        """``ucinewgame`` and ``isready`` (the engine started first if it is not running)."""
        try:
            self.start().new_game()
        except EngineFault:
            self.kill()
            raise

    def play(
        self, fen: str, moves: Sequence[str], limits: GoLimits, deadline_s: float, at_deadline: AtDeadline
    ) -> BestMove:
        """The engine's move in the position after ``moves`` from ``fen``: ``position``, then
        ``go`` (see :meth:`UciClient.go`). A timed move has ``isready`` between them, so that the
        time to take the position is not on the engine's clock; an untimed one (fixed nodes or
        depth: ``at_deadline`` HANG) sends both in one write, a round trip less a move."""
        try:
            uci = self.start()
            if at_deadline is AtDeadline.HANG:
                return uci.go(limits, deadline_s, at_deadline, position_command(fen, moves))
            uci.position_ready(fen, moves)
            return uci.go(limits, deadline_s, at_deadline)
        except EngineFault:
            self.kill()  # started again for its next use
            raise

    def referee_side(self) -> RefereeSide:
        """The running engine as ``engine.GameJudge.referee`` takes a side: its pipe, the waits
        for a move without a time limit (Timeouts.move_s), for bestmove after stop and for a
        write, and its log."""
        process = self.start().process
        t = self.timeouts
        return (process.pipe, t.move_s, t.stop_s, t.write_s, process.log)

    def fault(self, kind: str, text: str) -> EngineFault:
        """The fault that ``engine.GameJudge.referee`` reports for this side: an illegal move
        (``text`` the move as written), else what its pipe found."""
        if kind == "illegal":
            return illegal_move(text)
        if self._process is None:
            raise ValueError("an engine that never started has no fault")
        return self._process.fault(kind, text)

    def kill(self) -> None:
        """Kills the engine's process group now; the next use starts it again."""
        self._uci = None
        if self._process is not None:
            self._process.kill()

    def close(self) -> None:
        """``quit``, a moment to exit, then the process group killed."""
        uci, self._uci = self._uci, None
        if uci is not None:
            uci.quit()
        elif self._process is not None:
            self._process.kill()

    def __exit__(self, *exc: object) -> None:
        self.close()

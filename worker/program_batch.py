"""A batch whose sides include engine programs, played through the referee.

Each side is an engine process for the whole batch (``ucinewgame`` between games), kept for the
next batch of the same engine where no check plays the batch again (``keepable``,
``worker.referee.kept``): a program the payload names, from this machine's program cache, or the
built-in engine as ``arbiter-engine`` with the side's weights as options, when the other side is
a program. Every move is checked by
the rules core; a fault loses the game for its side, and its reason, with the last lines of the
engine's stderr, goes back with the result.
"""

from __future__ import annotations

import functools
import shutil
import sys
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import engine
from wire.programs import EngineProgram, ProgramError, file_as_program_digest
from wire.progress import Report
from wire.protocol import MAX_ENGINE_ID, BatchPayload, GameRecord
from worker.builds import BuildCache
from worker.programs import ProgramCache
from worker.referee import EngineConfigError, EngineFault, EnginePlayer, EngineSpec, PairedGame, play_pairs
from worker.referee.cpu import one_cpu, wants_one_cpu
from worker.referee.kept import KEPT
from worker.referee.uci import AtDeadline, GoLimits

#: Fetches a program's archive by digest (from the coordinator's store or broker).
Fetch = Callable[[str], bytes]
#: The table size of the built-in engine when it plays as a program (MiB).
BUILTIN_HASH_MB = 16
#: Stderr lines kept per fault.
STDERR_LINES = 20
#: The longest stderr line kept.
STDERR_LINE = 300


def builtin_program() -> str:
    """The ``arbiter-engine`` program beside this Python (a virtual environment's bin folder),
    else on the PATH; ProgramError when neither has it."""
    beside = Path(sys.executable).with_name("arbiter-engine")
    if beside.is_file():
        return str(beside)
    found = shutil.which("arbiter-engine")
    if found is None:
        raise ProgramError("arbiter-engine is not installed on this worker (scripts/setup.sh installs it)")
    return found


@dataclass(frozen=True)
class Fault:
    """Why one game was lost by a program's fault, as a result reports it."""

    game: int
    side: str
    reason: str
    stderr: list[str]

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "side": self.side, "reason": self.reason, "stderr": self.stderr}


@dataclass(frozen=True)
class PlayedBatch:
    """A batch played through the referee: its records, the faults that ended games, what each
    side's engine said of itself (``id name``, ``id author``) in its last handshake, and the CPU
    the engines used."""

    records: list[GameRecord]
    faults: list[Fault]
    engines: dict[str, dict[str, str | None]]
    #: The CPU seconds both engines' processes used for the batch.
    engines_cpu_seconds: float = 0.0


def side_spec(payload: BatchPayload, side: str, cache: ProgramCache, fetch: Fetch | None) -> EngineSpec:
    """How to run ``side`` (candidate or baseline) of ``payload``."""
    program: EngineProgram | None = getattr(payload, f"{side}_program")
    if program is None:
        weights = getattr(payload, side) or {}
        options: dict[str, int | bool | str] = {"Hash": BUILTIN_HASH_MB, **weights}
        argv = (builtin_program(), "--variant", payload.game)
        return EngineSpec(argv, name=f"arbiter ({side})", options=options)
    return program_spec(program, cache, fetch)


def program_spec(program: EngineProgram, cache: ProgramCache, fetch: Fetch | None) -> EngineSpec:
    """How to run ``program``: from its folder in ``cache`` (fetched if missing), or built here
    from its commit, with its options."""
    folder = (
        BuildCache().ready(program.build) if program.build is not None else cache.ready(program.digest, fetch)
    )
    options = dict(program.options)
    return EngineSpec(
        program.argv(folder), name=program.name, cwd=str(folder), options=options, command=program.protocol
    )


def play_program_batch(
    payload: BatchPayload,
    limits_of: Callable[[int], engine.Limits],
    fetch: Fetch | None = None,
    cache: ProgramCache | None = None,
    progress: Report | None = None,
) -> PlayedBatch:
    """Every game of ``payload`` through the referee: the records, the faults that ended games
    and the engines' identities (``progress`` is told the games played after each one).
    ProgramError (a ValueError) when a program cannot be had or set up here: nobody's fault, and
    no game is played."""
    candidate, baseline = KEPT.players(*sides(payload, cache or ProgramCache(), fetch))
    before = candidate.cpu_seconds() + baseline.cpu_seconds()
    untimed = payload.limits.deterministic
    try:
        with on_one_cpu(candidate, baseline, untimed), KEPT.lent(candidate, baseline, keep=keepable(payload)):
            played = play_pairs(
                candidate, baseline, payload.game, payload.openings, limits_of, payload.adjudication, progress
            )
    except EngineConfigError as e:
        raise ProgramError(str(e)) from None
    return PlayedBatch(
        [g.record() for g in played],
        faults_of(played),
        identities(
            candidate, baseline, (payload.candidate_program is None, payload.baseline_program is None)
        ),
        candidate.cpu_seconds() + baseline.cpu_seconds() - before,
    )


def identities(
    candidate: EnginePlayer, baseline: EnginePlayer, built_in: tuple[bool, bool] = (False, False)
) -> dict[str, dict[str, str | None]]:
    """Each side's ``id name`` and ``id author`` from its last handshake, bounded as a result
    carries them (a side that never started says nothing). A ``built_in`` side (the built-in
    engine, played as arbiter-engine) is named by this build's one engine version, which covers
    arbiter-engine's sources too: the program's own ``id name`` carries only its core's hash,
    which would show the built-in engine under two versions."""
    found: dict[str, dict[str, str | None]] = {}
    for (side, player), ours in zip(
        (("candidate", candidate), ("baseline", baseline)), built_in, strict=True
    ):
        info = player.info
        if info is not None and ours:
            found[side] = {"name": f"arbiter-engine {engine.ENGINE_VERSION}", "author": info.author}
        elif info is not None:
            found[side] = {
                "name": None if info.name is None else info.name[:MAX_ENGINE_ID],
                "author": None if info.author is None else info.author[:MAX_ENGINE_ID],
            }
    return found


def sides(
    payload: BatchPayload, cache: ProgramCache, fetch: Fetch | None
) -> tuple[tuple[EngineSpec, str], tuple[EngineSpec, str]]:
    """The candidate's and the baseline's engine, and the game they play: what
    ``KeptEngines.players`` takes."""
    return (
        (side_spec(payload, "candidate", cache, fetch), payload.game),
        (side_spec(payload, "baseline", cache, fetch), payload.game),
    )


def keepable(payload: BatchPayload) -> tuple[bool, bool]:
    """Whether the candidate's and the baseline's engine may be kept for the worker's next batch
    (``worker.referee.kept``): the built-in arbiter-engine, whose ``ucinewgame`` makes it a fresh
    engine again (tested), also when a program ships a copy of it (:func:`is_builtin_copy`), and a
    program no spot check plays again (unverifiable). Another program might carry something from
    batch to batch that ``ucinewgame`` leaves, and then play a batch otherwise than the fresh
    engines of its check."""
    timed = not payload.limits.deterministic
    found = []
    for program in (payload.candidate_program, payload.baseline_program):
        found.append(program is None or is_builtin_copy(program) or not program.verifiable(timed))
    return found[0], found[1]


def is_builtin_copy(program: EngineProgram) -> bool:
    """Whether ``program`` is this worker's arbiter-engine under another name: its files are
    that one executable, byte for byte, and its command runs it (an SPRT between two option
    sets of arbiter-engine ships it as a program). False where no arbiter-engine is installed."""
    if program.build is not None or not program.command:
        return False
    first = program.command[0]
    if "/" not in first or first.startswith("/"):
        return False  # a program of the machine, not a file of the program's
    parts = [p for p in PurePosixPath(first).parts if p != "."]
    if not parts or ".." in parts:
        return False
    try:
        path = Path(builtin_program())
        status = path.stat()
    except (ProgramError, OSError):
        return False
    identity = (str(path), status.st_ino, status.st_size, status.st_mtime_ns, status.st_ctime_ns)
    return program.digest == _builtin_digest("/".join(parts), identity)


@functools.lru_cache(maxsize=16)
def _builtin_digest(name: str, identity: tuple[str, int, int, int, int]) -> str | None:
    """The digest of a program whose one file is the built-in engine (at ``identity``'s path,
    hashed again when its inode, size or times change) named ``name``."""
    try:
        return file_as_program_digest(name, Path(identity[0]))
    except OSError:
        return None


def on_one_cpu(
    candidate: EnginePlayer, baseline: EnginePlayer, take_turns: bool = True
) -> AbstractContextManager[int | None]:
    """The referee, and both engines started inside, on one CPU for the batch where their options
    allow it, taking turns there when ``take_turns`` (``worker.referee.cpu``)."""
    return one_cpu(wants_one_cpu(candidate.spec.options, baseline.spec.options), take_turns)


def moves_for_budgets(
    payload: BatchPayload,
    budgets: list[list[int]],
    fetch: Fetch | None = None,
    cache: ProgramCache | None = None,
) -> list[list[str]]:
    """The check of a timed batch with programs: every game played again, each move searched with
    ``go nodes`` and the nodes the engine reported for it in the worker's game; the moves so
    found, game by game (a game stops where an engine fails or plays an illegal move)."""
    candidate, baseline = KEPT.players(*sides(payload, cache or ProgramCache(), fetch))
    games: list[list[str]] = []
    try:
        with on_one_cpu(candidate, baseline), KEPT.lent(candidate, baseline, keep=keepable(payload)):
            for i, opening in enumerate(o for o in payload.openings for _ in range(2)):
                white, black = (candidate, baseline) if i % 2 == 0 else (baseline, candidate)
                games.append(_repeat(payload.game, opening, white, black, budgets[i]))
    except EngineConfigError as e:
        raise ProgramError(str(e)) from None
    return games


def _repeat(
    game: str, opening: str, white: EnginePlayer, black: EnginePlayer, budgets: list[int]
) -> list[str]:
    """One game's moves, each searched with its budget of nodes."""
    judge = engine.GameJudge(game, opening)
    moves: list[str] = []
    try:
        white.new_game()
        black.new_game()
        for budget in budgets:
            player = white if judge.turn == "white" else black
            best = player.play(
                opening, moves, GoLimits(nodes=max(1, budget)), player.timeouts.move_s, AtDeadline.HANG
            )
            moves.append(judge.play(best.move))
    except (EngineFault, ValueError):
        pass  # the moves so far are what is compared
    return moves


def faults_of(played: list[PairedGame]) -> list[Fault]:
    """The faults of a batch's games: which game, whose, why, and the engine's last stderr."""
    faults = []
    for i, paired in enumerate(played):
        game = paired.game
        for color, text in (("white", game.white_fault), ("black", game.black_fault)):
            if text is None:
                continue
            side = "candidate" if str(paired.candidate_color) == color else "baseline"
            stderr = [line[:STDERR_LINE] for line in game.fault_stderr[-STDERR_LINES:]]
            faults.append(Fault(i, side, text[:STDERR_LINE], stderr))
    return faults

"""A batch whose sides include engine programs, played through the referee.

Each side is an engine process for the whole batch (``ucinewgame`` between games): a program the
payload names, from this machine's program cache, or the built-in engine as ``arbiter-engine``
with the side's weights as options, when the other side is a program. Every move is checked by
the rules core; a fault loses the game for its side, and its reason, with the last lines of the
engine's stderr, goes back with the result.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import engine
from worker.programs import EngineProgram, ProgramCache, ProgramError
from worker.protocol import BatchPayload, GameRecord
from worker.referee import EngineConfigError, EnginePlayer, EngineSpec, PairedGame, play_pairs

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


def side_spec(payload: BatchPayload, side: str, cache: ProgramCache, fetch: Fetch | None) -> EngineSpec:
    """How to run ``side`` (candidate or baseline) of ``payload``."""
    program: EngineProgram | None = getattr(payload, f"{side}_program")
    if program is None:
        weights = getattr(payload, side) or {}
        options: dict[str, int | bool | str] = {"Hash": BUILTIN_HASH_MB, **weights}
        argv = (builtin_program(), "--variant", payload.game)
        return EngineSpec(argv, name=f"arbiter ({side})", options=options)
    folder = cache.ready(program.digest, fetch)
    options = dict(program.options)
    return EngineSpec(
        program.argv(folder), name=program.name, cwd=str(folder), options=options, command=program.protocol
    )


def play_program_batch(
    payload: BatchPayload,
    limits_of: Callable[[int], engine.Limits],
    fetch: Fetch | None = None,
    cache: ProgramCache | None = None,
) -> tuple[list[GameRecord], list[Fault]]:
    """Every game of ``payload`` through the referee: the records, and the faults that ended
    games. ProgramError (a ValueError) when a program cannot be had or set up here: nobody's
    fault, and no game is played."""
    cache = cache or ProgramCache()
    specs = {side: side_spec(payload, side, cache, fetch) for side in ("candidate", "baseline")}
    candidate = EnginePlayer(specs["candidate"], payload.game)
    baseline = EnginePlayer(specs["baseline"], payload.game)
    try:
        with candidate, baseline:
            played = play_pairs(
                candidate, baseline, payload.game, payload.openings, limits_of, payload.adjudication
            )
    except EngineConfigError as e:
        raise ProgramError(str(e)) from None
    return [g.record() for g in played], faults_of(played)


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

"""Does an engine program play alike again? The determinism probe, shared by ``arbiter engine
check`` and the start of every run with a program side.

A spot check plays a batch again and compares the moves, so it can only judge engines that play
the same move twice: at fixed nodes (``deterministic``), and, for timed games, when a move found
under ``go movetime`` comes again under ``go nodes`` with the nodes the engine reported for it
(``replayable``; worker.program_batch repeats timed batches that way). The probe asks each in two
positions of the game (its start and one middlegame), every search from a fresh ``ucinewgame``.
An engine that does not is "unverifiable": its runs rely on replay and statistics, and no worker
is quarantined for its differences.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import engine
from wire.programs import EngineProgram, ProgramError
from worker.builds import BuildError
from worker.program_batch import program_spec
from worker.programs import ProgramCache
from worker.referee import AtDeadline, EngineConfigError, EngineFault, EnginePlayer, GoLimits, Timeouts
from worker.referee.faults import illegal_move

#: One middlegame position of each game: 14 plies of arbiter's own search (depth 3) from the start.
MIDDLEGAMES = {
    "congo": "1mele2/p1ppz1p/p2p1cp/7/PPg1CZP/2PPP1P/1MELE2 w",
    "congress": "h2Hk1bb/2p1p3/1p1p2p1/1P4P1/2PPP3/H2hK1BB w",
}
#: The probe at a run's start: few nodes, a short movetime (it must stay cheap).
PROBE_NODES = 300
PROBE_MOVETIME_MS = 100
#: How long a search under ``go movetime`` may take beyond its movetime (seconds).
MOVETIME_GRACE_S = 1.0
#: How long the probe at a run's start waits for a search at fixed nodes (seconds).
PROBE_MOVE_S = 10.0


@dataclass(frozen=True)
class Probe:
    """What the probe found: ``replayable`` is None when it was not asked (untimed runs), and
    ``differences`` says, one line each, where the engine did not play alike."""

    deterministic: bool
    replayable: bool | None = None
    differences: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "deterministic": self.deterministic,
            "replayable": self.replayable,
            "differences": list(self.differences),
        }


def positions(game: str) -> list[tuple[str, str]]:
    """The probe's positions of ``game``: (label, FEN)."""
    return [("start", engine.Position.start(game).fen()), ("middlegame", MIDDLEGAMES[game])]


def legal(game: str, fen: str, move: str) -> str:
    """``move`` in its compact text if it is legal in ``fen``, else the illegal-move fault."""
    try:
        return str(engine.GameJudge(game, fen).check(move))
    except ValueError:
        raise illegal_move(move) from None


def fixed_nodes_move(player: EnginePlayer, game: str, fen: str, nodes: int) -> str:
    """The engine's move in ``fen`` under ``go nodes``, from a fresh ``ucinewgame``."""
    player.new_game()
    best = player.play(fen, [], GoLimits(nodes=nodes), player.timeouts.move_s, AtDeadline.HANG)
    return legal(game, fen, best.move)


def probe(
    player: EnginePlayer,
    game: str,
    nodes: int = PROBE_NODES,
    timed: bool = False,
    movetime_ms: int = PROBE_MOVETIME_MS,
) -> Probe:
    """Each position searched twice at ``nodes``; with ``timed``, once under ``go movetime``
    and again under ``go nodes`` with the nodes reported. EngineFault when the engine fails."""
    differences: list[str] = []
    for label, fen in positions(game):
        first = fixed_nodes_move(player, game, fen, nodes)
        second = fixed_nodes_move(player, game, fen, nodes)
        if first != second:
            differences.append(f"{label}: go nodes {nodes} gave {first}, then {second}")
    deterministic = not differences
    if not timed:
        return Probe(deterministic, None, tuple(differences))
    replayable = deterministic
    for label, fen in positions(game):
        player.new_game()
        wait_s = movetime_ms / 1000 + MOVETIME_GRACE_S
        found = player.play(fen, [], GoLimits(movetime=movetime_ms), wait_s, AtDeadline.FORFEIT)
        move = legal(game, fen, found.move)
        reported = found.info.nodes
        if reported is None:
            replayable = False
            differences.append(f"{label}: go movetime {movetime_ms} reported no nodes to replay it with")
            continue
        again = fixed_nodes_move(player, game, fen, max(1, reported))
        if again != move:
            replayable = False
            differences.append(
                f"{label}: go movetime {movetime_ms} gave {move} after {reported} nodes, "
                f"go nodes {reported} gave {again}"
            )
    return Probe(deterministic, replayable, tuple(differences))


class StartFailed(ValueError):
    """The engine does not get through its handshake: no game of it could be played."""


def start_failure(name: str, fault: EngineFault, stderr: list[str]) -> StartFailed:
    """One line: the engine ``name`` fails its handshake, why, and the last thing it wrote on
    stderr (a crash's exception)."""
    said = f"; its stderr ends: {stderr[-1]}" if stderr else ""
    return StartFailed(f"{name} fails its handshake ({fault}){said}")


def probe_program(
    program: EngineProgram, archive: bytes | None, game: str, timed: bool
) -> tuple[EngineProgram, str | None]:
    """``program`` with what the probe found in its flags (run from its archive, as a worker runs
    it), and a one-line note when it is unverifiable. A commit of arbiter-engine (no archive) is
    kept as it is: its build's double bench already shows it deterministic. An engine that fails
    the probe is unverifiable too (its faults will lose its games); one that fails its handshake
    raises :class:`StartFailed` (like cutechess, a run does not start with it)."""
    if archive is None:
        return program, None
    cache = ProgramCache()
    try:
        cache.install(program.digest, archive)
        player = EnginePlayer(program_spec(program, cache, None), game, Timeouts(move_s=PROBE_MOVE_S))
        with player:
            try:
                player.start()
            except EngineFault as e:
                raise start_failure(program.name, e, player.stderr_tail()) from None
            found = probe(player, game, timed=timed)
    except (EngineFault, EngineConfigError, ProgramError, BuildError) as e:
        flagged = replace(program, deterministic=False, replayable=False)
        return flagged, f"{program.name} failed the determinism probe ({e}): its runs are unverifiable"
    replayable = found.deterministic if found.replayable is None else found.replayable
    flagged = replace(program, deterministic=found.deterministic, replayable=replayable)
    if flagged.verifiable(timed):
        return flagged, None
    why = found.differences[0] if found.differences else "it does not play alike again"
    return flagged, f"{program.name} is not deterministic ({why}): its runs are unverifiable"

"""What an engine program declares about itself at its handshake: its name and its options, asked
by starting it once on this machine (from the same archive the workers get)."""

from __future__ import annotations

from wire.programs import EngineProgram, ProgramError
from worker.builds import BuildError
from worker.program_batch import program_spec
from worker.programs import ProgramCache
from worker.referee import EngineConfigError, EngineFault, EngineInfo, EnginePlayer

#: Spin options that are settings of the machine or the interface, not of playing strength.
NOT_TUNED = frozenset({"hash", "threads", "multipv", "move overhead", "moveoverhead", "uci_elo"})


def declared(program: EngineProgram, archive: bytes | None, game: str) -> EngineInfo:
    """The program's handshake on this machine (its options as it declares them), from its
    archive or, for a commit, its build here; ValueError in one line when it cannot be started
    or set up."""
    cache = ProgramCache()
    try:
        if archive is not None:
            cache.install(program.digest, archive)
        player = EnginePlayer(program_spec(program, cache, None), game)
        with player:
            player.start()
            info = player.info
    except (EngineFault, EngineConfigError, ProgramError, BuildError) as e:
        raise ValueError(f"{program.name}: {e}") from None
    if info is None:
        raise ValueError(f"{program.name}: it did not complete its handshake")
    return info


def tunable_spins(info: EngineInfo) -> dict[str, tuple[int, int, int]]:
    """The spin options worth tuning, by name: (min, max, default)."""
    spins: dict[str, tuple[int, int, int]] = {}
    for option in info.options.values():
        if (
            option.type != "spin"
            or option.name.lower() in NOT_TUNED
            or option.name.lower().startswith("uci_")
        ):
            continue
        if option.min is None or option.max is None or option.min >= option.max:
            continue
        default = (
            int(option.default) if option.default and option.default.lstrip("-").isdigit() else option.min
        )
        spins[option.name] = (option.min, option.max, min(max(default, option.min), option.max))
    return spins

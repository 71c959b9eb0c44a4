"""Which engines of a run cannot be verified by playing their games again.

An engine program found not to play alike again (coordinator.sides.probe: not deterministic at
fixed nodes, or, in a timed run, not replayable with the nodes it reported) makes its run
"unverifiable": spot checks skip its batches, no worker is quarantined for its differences, and
the run relies on replay through the rules core and on statistics. Status, reports and the
dashboard say so, from the run's stored configuration.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import engine
from wire.programs import EngineProgram

#: Where a run's configuration names engine programs: an SPRT's sides, a tuning run's program
#: (a tournament's are its entrants').
PROGRAM_KEYS = ("candidate_program", "baseline_program", "program")
#: How reports say it.
UNVERIFIABLE_NOTE = "unverifiable: {names} did not play alike again; the run relies on replay and statistics"


def unverifiable_engines(config: Mapping[str, Any]) -> list[str]:
    """The names of the run's programs whose games cannot be played again alike (none: the run
    is verifiable). A configuration it cannot read names none."""
    try:
        timed = not engine.Limits.from_json(config["limits"]).deterministic
        named = [config[k] for k in PROGRAM_KEYS if config.get(k) is not None]
        named += [e["program"] for e in config.get("entrants") or () if e.get("program") is not None]
        programs = [EngineProgram.from_json(p) for p in named]
    except (KeyError, TypeError, ValueError, AttributeError):
        return []
    return sorted({p.name for p in programs if not p.verifiable(timed)})


def unverifiable_note(config: Mapping[str, Any]) -> str | None:
    """One line saying the run is unverifiable, and why; None when it is verifiable."""
    names = unverifiable_engines(config)
    return UNVERIFIABLE_NOTE.format(names=", ".join(names)) if names else None

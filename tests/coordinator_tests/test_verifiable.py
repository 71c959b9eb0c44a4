"""coordinator.trust.verifiable and the fingerprint: which programs make a run unverifiable (fixed
limits: not deterministic; timed: not replayable), and a run is found again whatever its probe
finds."""

from __future__ import annotations

from dataclasses import replace

import engine
from coordinator.sprt.config import SprtConfig
from coordinator.tournament.config import Entrant, TournamentConfig
from coordinator.trust.verifiable import unverifiable_engines, unverifiable_note
from wire.programs import EngineProgram

PROGRAM = EngineProgram(name="flaky", digest="ab" * 32, command=("./flaky",), replayable=False)


def sprt(program: EngineProgram | None, limits: engine.Limits) -> SprtConfig:
    return SprtConfig(
        game="congo",
        candidate={},
        baseline={},
        openings=[engine.Position.start("congo").fen()],
        engine_version=engine.ENGINE_VERSION,
        limits=limits,
        candidate_program=program,
    )


def test_fixed_limits_need_determinism_timed_ones_replay() -> None:
    fixed, timed = engine.Limits(nodes=300), engine.Limits(movetime_ms=50)
    assert unverifiable_engines(sprt(PROGRAM, fixed).to_json()) == []
    assert unverifiable_engines(sprt(PROGRAM, timed).to_json()) == ["flaky"]
    random = replace(PROGRAM, deterministic=False)
    note = unverifiable_note(sprt(random, fixed).to_json())
    assert note is not None and note.startswith("unverifiable: flaky did not play alike again")
    assert unverifiable_note(sprt(None, timed).to_json()) is None


def test_the_probe_findings_leave_the_fingerprint_alone() -> None:
    limits = engine.Limits(nodes=300)
    found = sprt(replace(PROGRAM, deterministic=False), limits)
    assert found.fingerprint() == sprt(replace(PROGRAM, replayable=True), limits).fingerprint()
    assert found.fingerprint() != sprt(replace(PROGRAM, name="other"), limits).fingerprint()
    assert sprt(None, limits).fingerprint() != found.fingerprint()


def test_a_tournament_is_unverifiable_by_any_of_its_entrants() -> None:
    limits = engine.Limits(nodes=300)
    entrants = (
        Entrant("defaults", "default", {}),
        Entrant("steady", "steady.toml", {}, replace(PROGRAM, name="steady")),
        Entrant("random", "random.toml", {}, replace(PROGRAM, name="random", deterministic=False)),
    )
    tournament = TournamentConfig(
        game="congo",
        entrants=entrants,
        openings=[engine.Position.start("congo").fen()],
        engine_version=engine.ENGINE_VERSION,
        limits=limits,
    )
    assert unverifiable_engines(tournament.to_json()) == ["random"]
    verifiable = replace(tournament, entrants=entrants[:2])
    assert unverifiable_note(verifiable.to_json()) is None

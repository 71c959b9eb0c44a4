"""The kinds registry: every stored kind name has its kind, a stored configuration reads as its
version (none: the first) and a newer one is refused in one line, and the match kind's plan plays
exactly its pairs, the games an SPRT of the same sides and seed plays."""

from __future__ import annotations

from typing import Any

import pytest
from sprt_testkit import book_positions

import engine
from coordinator.match.config import MatchConfig
from coordinator.registry import FIRST_VERSION, KINDS, Kind, kind_of
from coordinator.runs import RunKind
from coordinator.sprt.config import SprtConfig
from coordinator.tournament.config import Entrant, TournamentConfig

OPENINGS = [engine.Position.start("congo").fen()]


def sprt_json() -> dict[str, Any]:
    """A stored SPRT configuration (as every store has them: without a version)."""
    return SprtConfig(
        game="congo", candidate={"pawn": 150}, baseline={}, openings=OPENINGS, engine_version="v"
    ).to_json()


def test_every_stored_kind_name_has_its_kind() -> None:
    assert set(KINDS) == set(RunKind)
    for name in RunKind:
        kind = kind_of(name)
        assert isinstance(kind, Kind) and kind.name is name
    assert [k for k in RunKind if kind_of(k).started_by_user] == [
        RunKind.SPRT,
        RunKind.TUNE,
        RunKind.CAMPAIGN,
        RunKind.TOURNAMENT,
        RunKind.MATCH,
    ]


def test_an_unknown_kind_name_is_one_line() -> None:
    with pytest.raises(ValueError, match=r"kind: expected one of sprt, tune, .* got 'bogus'"):
        kind_of("bogus")


def test_an_unversioned_config_reads_as_the_first_version_and_a_newer_one_is_refused() -> None:
    sprt = kind_of(RunKind.SPRT)
    data = sprt_json()
    assert "version" not in data and sprt.config_version == FIRST_VERSION
    config = sprt.decode(data)
    assert isinstance(config, SprtConfig) and config.candidate == {"pawn": 150}
    assert sprt.decode(data | {"version": FIRST_VERSION}) == config
    # The first version is stored as it always was: stores and fingerprints stay the same.
    assert sprt.encode(config) == data
    with pytest.raises(ValueError, match="sprt configuration version 2: this arbiter reads 1"):
        sprt.decode(data | {"version": 2})


def test_each_kind_decodes_its_own_config() -> None:
    tournament = TournamentConfig(
        game="congo",
        entrants=(Entrant("a", "a", {}), Entrant("b", "b", {"pawn": 120})),
        openings=OPENINGS,
        engine_version="v",
    )
    match = MatchConfig(game="congo", candidate={}, baseline={}, openings=OPENINGS, engine_version="v")
    assert kind_of(RunKind.TOURNAMENT).decode(tournament.to_json()) == tournament
    assert kind_of(RunKind.MATCH).decode(match.to_json()) == match
    assert isinstance(kind_of(RunKind.TRIAL).decode(sprt_json()), SprtConfig)
    with pytest.raises(TypeError):  # an SPRT's configuration is no match's
        kind_of(RunKind.MATCH).decode(sprt_json())


def test_a_match_plays_its_pairs_exactly_and_the_games_of_the_same_sprt() -> None:
    openings = book_positions("congo", 7)
    common: dict[str, Any] = {
        "game": "congo",
        "candidate": {"pawn": 150},
        "baseline": {},
        "openings": openings,
        "engine_version": "v",
        "batch_pairs": 4,
        "seed": 11,
    }
    match = MatchConfig(pairs=10, **common)
    sprt = SprtConfig(**common)
    assert (match.max_batches, match.max_games, match.sprt_params) == (3, 20, None)
    plan, sprt_plan = match.batch_plan(), sprt.batch_plan()
    payloads = [plan.payload(1, i) for i in range(match.max_batches)]
    assert [len(p.openings) for p in payloads] == [4, 4, 2]
    for i, payload in enumerate(payloads):
        same = sprt_plan.payload(1, i)
        assert payload.seed == same.seed and payload.openings == same.openings[: len(payload.openings)]
        assert payload.to_json() | {"openings": []} == same.to_json() | {"openings": []}

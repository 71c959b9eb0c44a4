"""A submitted configuration holds what its fields say before the server stores it: a hostile
submission of an SPRT whose book was a number, whose game was "" or whose game cap was NaN was
stored, and every page showing the run was a 500 with a traceback in the server's log."""

from __future__ import annotations

from typing import Any

import pytest

import engine
from coordinator.runs import RunKind
from coordinator.server.config_types import check_fields
from coordinator.server.submissions import BadSubmission, decoded
from coordinator.sprt.config import SprtConfig
from coordinator.tournament.config import Entrant, TournamentConfig
from wire.programs import EngineProgram

OPENINGS = [engine.Position.start("congo").fen()]


def sprt_json() -> dict[str, Any]:
    """An SPRT configuration as the CLI submits it."""
    weights = engine.validate_weights("congo", None)
    return SprtConfig(
        game="congo", candidate=weights, baseline=weights, openings=OPENINGS, engine_version="v", max_games=4
    ).to_json()


def test_a_configuration_the_cli_makes_passes() -> None:
    assert decoded(RunKind.SPRT, sprt_json()).game == "congo"
    program = EngineProgram.from_json(
        {
            "name": "p",
            "digest": "ab" * 32,
            "command": ["./p"],
            "options": {"Hash": 16, "Ponder": False, "Style": "x"},
            "protocol": "uci",
            "deterministic": True,
            "replayable": True,
        }
    )
    entrants = (Entrant("default", "default", {}), Entrant("p", "p.toml", {}, program))
    tournament = TournamentConfig(
        pairs=1, game="congo", entrants=entrants, openings=OPENINGS, engine_version="v"
    )
    check_fields(tournament, "config")


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("book",), 5, r"config\.book: expected a string without NUL, got 5"),
        (("book",), "a\x00b", r"config\.book: expected a string without NUL"),
        (("game",), "", r"config\.game: expected one of congo, congress, got ''"),
        (("max_games",), float("nan"), r"config\.max_games: expected a whole number or null, got nan"),
        (("seed",), 10**30, r"config\.seed: expected a whole number"),
        (("candidate", "pawn"), "1", r"config\.candidate\.pawn: expected a whole number, got '1'"),
        (("openings",), [1, 2], r"config\.openings\[0\]: expected a string without NUL, got 1"),
        (("candidate_source",), [], r"config\.candidate_source: expected a string without NUL, got \[\]"),
    ],
)
def test_a_field_of_the_wrong_type_is_refused_naming_it(
    path: tuple[str, ...], value: Any, message: str
) -> None:
    config = sprt_json()
    holder = config
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = value
    with pytest.raises(BadSubmission, match=message):
        decoded(RunKind.SPRT, config)

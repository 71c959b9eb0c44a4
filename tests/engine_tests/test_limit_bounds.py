"""The bounds of limits have one source, the core: what the command line refuses is what the core
refuses, and a value at a bound is accepted by both."""

from __future__ import annotations

import click
import pytest

import engine
from coordinator.cli.options import limit_range

LIMIT_FIELDS = ("nodes", "depth", "movetime_ms")


def test_every_limit_and_time_control_field_has_a_bound() -> None:
    assert set(engine.LIMIT_BOUNDS) == {*LIMIT_FIELDS, "time_margin_ms", "base_ms", "increment_ms", "moves"}
    for field, (low, high) in engine.LIMIT_BOUNDS.items():
        assert 0 <= low < high, field


@pytest.mark.parametrize("field", LIMIT_FIELDS)
def test_the_core_accepts_its_bounds_and_refuses_past_them(field: str) -> None:
    low, high = engine.LIMIT_BOUNDS[field]
    assert getattr(engine.Limits(**{field: high}), field) == high
    assert getattr(engine.Limits(**{field: low}), field) == low
    for bad in (low - 1, high + 1):
        with pytest.raises(ValueError, match=f"limits.{field}: expected a whole number from {low} to {high}"):
            engine.Limits(**{field: bad})


def test_the_time_margin_and_a_time_controls_fields_are_bounded_by_the_core() -> None:
    control = engine.TimeControl.parse("10+0.1")
    high = engine.LIMIT_BOUNDS["time_margin_ms"][1]
    assert engine.Limits(time_control=control, time_margin_ms=high).time_margin_ms == high
    with pytest.raises(ValueError, match="time_margin_ms"):
        engine.Limits(time_control=control, time_margin_ms=high + 1)
    for field in ("base_ms", "increment_ms", "moves"):
        high = engine.LIMIT_BOUNDS[field][1]
        values = {"base_ms": 1000, field: high}
        assert getattr(engine.TimeControl(**values), field) == high
        with pytest.raises(ValueError, match=field):
            engine.TimeControl(**{**values, field: high + 1})


@pytest.mark.parametrize("field", [*LIMIT_FIELDS, "time_margin_ms"])
def test_the_command_line_takes_the_cores_bounds(field: str) -> None:
    low, high = engine.LIMIT_BOUNDS[field]
    option = limit_range(field)
    assert (option.min, option.max) == (low, high)
    assert option.convert(high, None, None) == high
    with pytest.raises(click.BadParameter):
        option.convert(high + 1, None, None)


def test_results_are_typed_dicts_with_the_keys_their_types_name() -> None:
    position = engine.Position.start("congo")
    found = engine.search(position, nodes=500)
    assert set(found) == set(engine.SearchResult.__annotations__)
    assert set(found["iterations"][0]) == set(engine.Iteration.__annotations__)
    game = engine.play_game(
        "congo", None, None, position.fen(), engine.Limits(nodes=200), engine.Adjudication(max_plies=20)
    )
    assert set(game) == set(engine.GameRecord.__annotations__)
    ended = engine.replay_game("congo", game["opening"], game["moves"], engine.Adjudication(max_plies=20))
    assert set(ended) == set(engine.ReplayedEnd.__annotations__)
    assert (ended["result"], ended["plies"]) == (game["result"], game["plies"])

"""engine.GameClock, the referee's clock of engine programs: fastchess's clock, move by move, with
made-up move times (the core's clock, as play_game keeps it)."""

from __future__ import annotations

import pytest

import engine


def clock(text: str, margin_ms: int = 100) -> engine.GameClock:
    return engine.GameClock(engine.TimeControl.parse(text), margin_ms)


def test_base_and_increment() -> None:
    c = clock("10+0.1", 50)
    assert c.go_fields("white") == {"wtime": 10_000, "btime": 10_000, "winc": 100, "binc": 100}
    assert not c.charge("white", 400)
    assert c.remaining_ms("white") == 9_700
    assert c.go_fields("black") == {"wtime": 9_700, "btime": 10_000, "winc": 100, "binc": 100}
    assert c.remaining_ms("black") == 10_000


def test_overstepping_within_the_margin_is_clamped_to_zero_then_incremented() -> None:
    c = clock("1+0.1", 50)
    assert c.limit_ms("white") == 1_050
    assert not c.charge("white", 1_040)
    assert c.remaining_ms("white") == 100
    assert c.limit_ms("white") == 150


def test_beyond_the_margin_is_a_forfeit() -> None:
    c = clock("1+0.1", 50)
    assert c.charge("black", 1_051)
    assert c.go_fields("white")["wtime"] == 1_000


def test_exactly_the_margin_is_in_time() -> None:
    c = clock("1+0", 0)
    assert not c.charge("white", 1_000)
    assert c.remaining_ms("white") == 0


def test_repeating_control_adds_the_base_after_each_period() -> None:
    c = clock("3/60+0.5")
    assert c.go_fields("white")["movestogo"] == 3
    for left in (2, 1):
        assert not c.charge("white", 1_000)
        assert c.go_fields("white")["movestogo"] == left
    assert not c.charge("white", 1_000)
    # Three moves of 1 s, three increments, and a new base after the third.
    assert c.remaining_ms("white") == 60_000 - 3_000 + 1_500 + 60_000
    assert c.go_fields("white")["movestogo"] == 3
    assert c.go_fields("black")["movestogo"] == 3
    assert "movestogo" not in clock("60+0").go_fields("white")


@pytest.mark.parametrize("text", ["0+1", "10+-1", "0/60+0", "ten", "10+0.1+3"])
def test_bad_time_controls_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="time_control: expected"):
        engine.TimeControl.parse(text)


def test_sides_are_named() -> None:
    with pytest.raises(ValueError, match="side: expected 'white' or 'black', got 'red'"):
        clock("1+0").charge("red", 10)

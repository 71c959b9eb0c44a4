"""worker.referee.clock: fastchess's clock, move by move, with made-up move times."""

from __future__ import annotations

import pytest

from worker.referee.clock import Clock, TimeControl


def test_base_and_increment() -> None:
    clock = Clock(TimeControl(10_000, 100), margin_ms=50)
    assert clock.go_fields("white") == {"wtime": 10_000, "btime": 10_000, "winc": 100, "binc": 100}
    assert not clock.charge("white", 400.4)
    assert clock.remaining_ms("white") == pytest.approx(9_699.6)
    assert clock.go_fields("black") == {"wtime": 9_699, "btime": 10_000, "winc": 100, "binc": 100}
    assert clock.remaining_ms("black") == 10_000


def test_overstepping_within_the_margin_is_clamped_to_zero_then_incremented() -> None:
    clock = Clock(TimeControl(1_000, 100), margin_ms=50)
    assert clock.limit_ms("white") == 1_050
    assert not clock.charge("white", 1_040)
    assert clock.remaining_ms("white") == 100
    assert clock.limit_ms("white") == 150


def test_beyond_the_margin_is_a_forfeit() -> None:
    clock = Clock(TimeControl(1_000, 100), margin_ms=50)
    assert clock.charge("black", 1_050.5)
    assert clock.remaining_ms("black") < -50
    assert clock.go_fields("white")["btime"] == 0


def test_exactly_the_margin_is_in_time() -> None:
    clock = Clock(TimeControl(1_000), margin_ms=0)
    assert not clock.charge("white", 1_000)
    assert clock.remaining_ms("white") == 0


def test_repeating_control_adds_the_base_after_each_period() -> None:
    clock = Clock(TimeControl(60_000, 500, moves=3), margin_ms=100)
    assert clock.go_fields("white")["movestogo"] == 3
    for left in (2, 1):
        assert not clock.charge("white", 1_000)
        assert clock.moves_to_go("white") == left
    assert not clock.charge("white", 1_000)
    # Three moves of 1 s, three increments, and a new base after the third.
    assert clock.remaining_ms("white") == 60_000 - 3_000 + 1_500 + 60_000
    assert clock.moves_to_go("white") == 3
    assert clock.moves_to_go("black") == 3
    assert "movestogo" not in Clock(TimeControl(60_000)).go_fields("white")


@pytest.mark.parametrize(
    "args", [{"base_ms": 0}, {"base_ms": 1000, "increment_ms": -1}, {"base_ms": 1000, "moves": 0}]
)
def test_bad_time_controls_are_refused(args: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="time control"):
        TimeControl(**args)


def test_negative_margin_is_refused() -> None:
    with pytest.raises(ValueError, match="margin"):
        Clock(TimeControl(1000), margin_ms=-1)

"""How batches are sized when the user gives neither --batch-pairs nor --batch-seconds: from the
limits (about a minute of one core's work), capped by the SPRT's expected length, never by the fleet."""

from __future__ import annotations

import inspect
import math

import click
import pytest
from click.testing import CliRunner

import engine
from coordinator import sizing
from coordinator.cli.options import batch_pairs_for, batch_pairs_option, batch_seconds_option
from coordinator.sizing import (
    DEFAULT_BATCH_SECONDS,
    MAX_BATCH_PAIRS,
    OVERSHOOT_SHARE,
    default_batch_pairs,
    expected_sprt_pairs,
    game_seconds,
    pairs_for_seconds,
)
from coordinator.stats import SprtParams

NODES_2000 = engine.Limits(nodes=2000)
NODES_50 = engine.Limits(nodes=50)
DEFAULT_SPRT = SprtParams(0.0, 5.0)  # arbiter sprt's default hypothesis


def test_node_limited_batches_last_about_a_minute_of_one_core() -> None:
    pairs = default_batch_pairs("congo", NODES_2000, DEFAULT_SPRT)
    each = game_seconds("congo", NODES_2000)
    assert each is not None
    assert pairs == pairs_for_seconds("congo", NODES_2000, DEFAULT_BATCH_SECONDS) == 477
    assert 2 * pairs * each == pytest.approx(DEFAULT_BATCH_SECONDS, rel=0.01)
    # Congress games are shorter: more of them make the same minute.
    assert default_batch_pairs("congress", NODES_2000, DEFAULT_SPRT) > pairs


def test_a_time_control_sizes_batches_by_its_clock() -> None:
    stc = engine.Limits(time_control=engine.TimeControl.parse("10+0.1"))
    each = game_seconds("congo", stc)
    assert each is not None and each > 10
    assert default_batch_pairs("congo", stc, DEFAULT_SPRT) == max(
        1, round(DEFAULT_BATCH_SECONDS / (2 * each))
    )
    # A clock longer than the minute still gives a batch of one pair.
    assert (
        default_batch_pairs("congo", engine.Limits(time_control=engine.TimeControl.parse("600")), None) == 1
    )


def test_short_games_are_capped_by_the_sprts_overshoot() -> None:
    expected = expected_sprt_pairs(DEFAULT_SPRT)
    cap = math.floor(OVERSHOOT_SHARE * expected)
    assert default_batch_pairs("congo", NODES_50, DEFAULT_SPRT) == cap == 568
    # A wider hypothesis ends sooner, so its batches are smaller; a narrower one hits the largest batch.
    assert default_batch_pairs("congo", NODES_50, SprtParams(-10.0, 10.0)) < cap
    assert default_batch_pairs("congo", NODES_50, SprtParams(0.0, 2.0)) == MAX_BATCH_PAIRS
    # Without an SPRT (nothing stops the run early) only the time and the largest batch bound it.
    assert default_batch_pairs("congo", NODES_50, None) == MAX_BATCH_PAIRS
    # A depth limit says nothing of time: the SPRT's cap alone.
    assert default_batch_pairs("congo", engine.Limits(depth=3), DEFAULT_SPRT) == cap


def test_a_game_budget_shorter_than_the_sprt_caps_the_batches_too() -> None:
    # 400 games: 200 pairs, so batches of 8 pairs keep a short run many batches (and cores) long.
    assert default_batch_pairs("congo", NODES_2000, DEFAULT_SPRT, max_pairs=200) == 8
    assert default_batch_pairs("congo", NODES_2000, None, max_pairs=200) == 8
    assert default_batch_pairs("congo", NODES_2000, DEFAULT_SPRT, max_pairs=10) == 1
    # A budget longer than the SPRT's expected length changes nothing.
    assert default_batch_pairs("congo", NODES_50, DEFAULT_SPRT, max_pairs=10**6) == 568


def test_expected_sprt_length_follows_walds_approximation() -> None:
    # [0, 5] nElo at alpha = beta = 0.05: ln(19) / ((sqrt(2) * 5 * ln(10) / 800) ** 2 / 2) pairs.
    t_width = math.sqrt(2) * 5 * math.log(10) / 800
    assert expected_sprt_pairs(DEFAULT_SPRT) == pytest.approx(math.log(19) / (t_width**2 / 2))
    # Half the width, four times the games; smaller error rates, longer runs.
    assert expected_sprt_pairs(SprtParams(0.0, 2.5)) == pytest.approx(4 * expected_sprt_pairs(DEFAULT_SPRT))
    assert expected_sprt_pairs(SprtParams(0.0, 5.0, alpha=0.01, beta=0.01)) > expected_sprt_pairs(
        DEFAULT_SPRT
    )
    # Logistic bounds through the assumed spread of a game's score: 5 logistic Elo is less than 5 nElo.
    logistic = expected_sprt_pairs(SprtParams(0.0, 5.0, elo_model="logistic"))
    assert logistic == pytest.approx(expected_sprt_pairs(DEFAULT_SPRT) * (2 * sizing.GAME_SCORE_SIGMA) ** 2)


def test_the_default_is_a_function_of_the_configuration_alone() -> None:
    """The batch size decides a node-limited run's seeds, openings and stopping points, so nothing
    of the machine or the fleet may enter it: its only inputs are the game, limits, SPRT and budget."""
    assert list(inspect.signature(default_batch_pairs).parameters) == ["game", "limits", "sprt", "max_pairs"]
    assert default_batch_pairs("congo", NODES_2000, DEFAULT_SPRT) == default_batch_pairs(
        "congo", engine.Limits(nodes=2000), SprtParams(0.0, 5.0)
    )


@click.command()
@batch_pairs_option(None)
@batch_seconds_option
def sized(batch_pairs: int | None, batch_seconds: float | None) -> None:
    """Print the pairs per batch the options give for a default SPRT at 2,000 nodes."""
    click.echo(
        batch_pairs_for(
            click.get_current_context(), batch_pairs, batch_seconds, "congo", NODES_2000, DEFAULT_SPRT
        )
    )


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ([], default_batch_pairs("congo", NODES_2000, DEFAULT_SPRT)),
        (["--batch-pairs", "8"], 8),
        (["--batch-pairs", "1000"], 1000),  # an explicit size is not capped by the SPRT
        (["--batch-seconds", "30"], pairs_for_seconds("congo", NODES_2000, 30)),
    ],
)
def test_explicit_options_win_over_the_default(args: list[str], expected: int) -> None:
    result = CliRunner().invoke(sized, args)
    assert result.exit_code == 0, result.output
    assert int(result.output) == expected


def test_both_options_are_refused() -> None:
    result = CliRunner().invoke(sized, ["--batch-pairs", "8", "--batch-seconds", "30"])
    assert result.exit_code == 2
    assert "give --batch-pairs or --batch-seconds, not both" in result.output

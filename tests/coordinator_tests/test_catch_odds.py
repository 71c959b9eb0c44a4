"""The odds that spot checks catch a liar, alone or colluding (coordinator/trust/odds.py), and the
table of docs/deploy.md, which must be the one the function prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from coordinator.trust.odds import catch_probability, catch_table, percent

DEPLOY_MD = Path(__file__).resolve().parents[2] / "docs" / "deploy.md"


def test_a_lone_liar_is_caught_as_the_verify_fraction_says() -> None:
    assert catch_probability(0.02, 1.0, 100) == pytest.approx(1 - 0.98**100)
    assert catch_probability(0.02, 1.0, 100, colluders=1, workers=7) == pytest.approx(1 - 0.98**100)
    assert catch_probability(0.5, 1.0, 0) == 0.0  # no batch after the first: nothing to catch


def test_colluders_escape_only_the_checks_their_partners_play() -> None:
    # 2 of 3: half the checked lies go to the partner.
    assert catch_probability(0.1, 1.0, 10, colluders=2, workers=3) == pytest.approx(1 - 0.95**10)
    # The more partners, the fewer caught; all of them colluding, none by the checks.
    odds = [catch_probability(0.02, 1.0, 200, colluders=k, workers=10) for k in range(1, 11)]
    assert odds == sorted(odds, reverse=True) and odds[-1] == 0.0
    assert catch_probability(1.0, 1.0, 50, colluders=3, workers=3) == 0.0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((1.5, 1.0, 10), "fraction: expected a number from 0 to 1, got 1.5"),
        ((0.1, -0.1, 10), "lying_share: expected a number from 0 to 1, got -0.1"),
        ((0.1, 1.0, -1), "batches: expected a count, got -1"),
        ((0.1, 1.0, 10, 4, 3), "colluders: expected 1 to 3 (the workers), got 4"),
    ],
)
def test_numbers_out_of_range_are_named(args: tuple[float, ...], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        catch_probability(*args)  # type: ignore[arg-type]


def test_percentages_are_written_as_the_table_does() -> None:
    assert [percent(p) for p in (0.0, 0.02, 0.18, 0.993, 0.9995)] == ["0%", "2.0%", "18%", "99.3%", ">99.9%"]


def test_the_deploy_guide_shows_the_table_the_odds_give() -> None:
    table = "\n".join("  " + line for line in catch_table().splitlines())
    assert table in DEPLOY_MD.read_text()

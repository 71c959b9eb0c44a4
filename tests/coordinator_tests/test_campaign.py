"""A campaign's pure rules: the book split in two disjoint halves, the verification settings by
default, the budget shared between rounds and counting every game, each round's own seed, and a
round's verdict; and SPSA's plan fitting its acceptance SPRTs in its budget."""

from __future__ import annotations

import pytest
from sprt_testkit import book_positions

import engine
from coordinator.campaign.chain import (
    FAILED,
    NO_CHAMPION,
    PASSED,
    PLAYING,
    Verification,
    no_champion_text,
    round_verdict,
)
from coordinator.campaign.config import CampaignConfig, default_verify_limits, split_book
from coordinator.tuning.config import TuneConfig


def tune(**overrides: object) -> TuneConfig:
    """An SPSA tuning of one Congo weight at 50 nodes, its budget counting every game."""
    settings: dict[str, object] = {
        "game": "congo",
        "params": ["pawn"],
        "start": {"pawn": 100},
        "openings": book_positions("congo", 10),
        "engine_version": "v",
        "method": "spsa",
        "seed": 7,
        "batch_pairs": 2,
        "limits": engine.Limits(nodes=50),
        "max_games": 2000,
        "accept_max_games": 100,
        "acceptance_in_budget": True,
    }
    return TuneConfig(**(settings | overrides))  # type: ignore[arg-type]


def campaign(**overrides: object) -> CampaignConfig:
    settings: dict[str, object] = {
        "tune": tune(),
        "rounds": 3,
        "max_games": 3000,
        "verify_limits": default_verify_limits(engine.Limits(nodes=50)),
        "verify_max_games": 200,
    }
    return CampaignConfig(**(settings | overrides))  # type: ignore[arg-type]


def test_the_book_splits_into_two_disjoint_halves_that_cover_it() -> None:
    book = book_positions("congo", 11)
    tuning, verifying = split_book(book, 7)
    assert not set(tuning) & set(verifying) and sorted(tuning + verifying) == sorted(book)
    assert len(tuning) == 6 and split_book(book, 7) == (tuning, verifying)
    assert split_book(book, 8) != (tuning, verifying)


def test_verification_defaults_to_4_and_40_times_the_nodes_or_the_tc_and_6_times_it() -> None:
    assert [x.nodes for x in default_verify_limits(engine.Limits(nodes=500))] == [2000, 20000]
    tc = engine.TimeControl.parse("10+0.1")
    stc, ltc = default_verify_limits(engine.Limits(time_control=tc))
    assert (str(stc.time_control), str(ltc.time_control)) == ("10+0.1", "60+0.6")
    with pytest.raises(ValueError, match="--verify-nodes or --verify-tc"):
        default_verify_limits(engine.Limits(depth=3))


def test_each_round_counts_every_game_within_its_share_of_the_budget() -> None:
    c = campaign()
    assert (c.round_games, c.tune_games) == (1000, 600)
    r = c.round_config(1, {"pawn": 120})
    assert r.start == {"pawn": 120} and r.max_games == 600 and r.acceptance_in_budget
    assert r.spsa_games(r.iterations) <= 600 < r.spsa_games(r.iterations + 1)
    with pytest.raises(ValueError, match="leave none for the tuning"):
        campaign(max_games=1200)


def test_rounds_and_verifications_have_seeds_and_openings_of_their_own() -> None:
    c = campaign()
    rounds = [c.round_config(n, {"pawn": 100}) for n in range(3)]
    checks = [c.verify_config(n, s, {"pawn": 110}, {"pawn": 100}, "t") for n in range(3) for s in range(2)]
    seeds = [r.seed for r in rounds] + [v.seed for v in checks]
    assert len(set(seeds)) == len(seeds) and c.tune.seed not in seeds
    assert not set(rounds[0].openings) & set(checks[0].openings)
    assert [v.limits.nodes for v in checks[:2]] == [200, 2000]
    assert checks[0].max_games == 200 and checks[0].candidate == {"pawn": 110}
    assert CampaignConfig.from_json(c.to_json()) == c


def test_a_round_passes_only_when_every_verification_accepts() -> None:
    assert round_verdict(False, False, [], 2) == PLAYING
    assert round_verdict(True, False, [], 2) == NO_CHAMPION
    assert round_verdict(True, True, ["accepted"], 2) == PLAYING
    assert round_verdict(True, True, ["accepted", "accepted"], 2) == PASSED
    assert round_verdict(True, True, ["accepted", "budget"], 2) == FAILED
    assert round_verdict(True, True, ["rejected"], 2) == FAILED


def test_a_round_without_a_champion_says_how_sure_its_ending_is() -> None:
    def acceptance(decision: str, elo: float) -> Verification:
        return Verification(9, "2000 nodes", "finished", decision, 4000, elo, 7.6, 2.07)

    capped = no_champion_text(0, acceptance("budget", 10.7))
    assert capped.startswith("round 1's tuning crowned no champion: its last acceptance SPRT (run 9")
    assert "+10.7 +- 7.6 Elo, LLR 2.07" in capped and "--accept-max-games" in capped
    assert "nothing left" not in capped
    assert no_champion_text(1, acceptance("rejected", 1.0)).endswith("nothing left to find at these settings")
    assert no_champion_text(0, acceptance("budget", -4.5)).endswith("nothing left to find at these settings")
    assert no_champion_text(0, None).endswith("no candidate reached an acceptance SPRT")


def test_spsa_keeps_room_for_every_acceptance_sprt_in_its_budget() -> None:
    plain = tune(acceptance_in_budget=False)
    assert plain.iterations == 2000 // 4  # runs stored before: the iterations they had
    counted = tune()
    assert counted.iterations == (2000 - 100) // 4
    every = tune(accept_every=400, max_games=2000)
    n = every.iterations
    assert every.spsa_games(n) <= 2000 < every.spsa_games(n + 1)
    # 1,200 games of iterations pass 400, 800 and 1,200: three SPRTs, the last one the final one.
    assert every.spsa_games(300) == 1200 + 3 * 100
    with pytest.raises(ValueError, match="at least one iteration and its acceptance SPRTs"):
        tune(max_games=100)

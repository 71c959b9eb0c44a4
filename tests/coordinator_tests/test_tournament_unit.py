"""A tournament's pairings and batch plan (pure functions of its configuration), and the report's
check of a champion chain against the rating list."""

from __future__ import annotations

from collections import Counter

import pytest

import engine
from coordinator.ratings import RatedGame, rate
from coordinator.reports.tournament.data import ChainCheck
from coordinator.reports.tournament.gather import chain_check, checkpoints
from coordinator.tournament.config import Entrant, TournamentConfig, pairings_of, stored_sides

OPENINGS = [f"opening {i}" for i in range(7)]


def config(names: list[str], **settings: object) -> TournamentConfig:
    entrants = tuple(Entrant(n, f"{n}.json", {"pawn": 100 + i}) for i, n in enumerate(names))
    return TournamentConfig(
        game="congo",
        entrants=entrants,
        openings=OPENINGS,
        engine_version="v",
        **settings,  # type: ignore[arg-type]
    )


def test_pairings_of_a_round_robin_and_a_gauntlet() -> None:
    robin = pairings_of("round-robin", 4)
    assert len(robin) == 6 and {frozenset(p) for p in robin} == {
        frozenset((a, b)) for a in range(4) for b in range(a + 1, 4)
    }
    assert pairings_of("gauntlet", 4, vs=2) == [(2, 0), (2, 1), (2, 3)]
    with pytest.raises(ValueError, match="format: expected one of round-robin, gauntlet"):
        pairings_of("swiss", 4)


def test_every_pairing_plays_its_pairs_with_the_same_openings_and_seeds_per_round() -> None:
    c = config(["a", "b", "c"], pairs=5, batch_pairs=2, seed=9)
    plan = c.batch_plan()
    assert (c.rounds, c.max_batches, c.max_games) == (3, 9, 30)
    payloads = [plan.payload(1, i) for i in range(c.max_batches)]
    pairs = Counter[tuple[str, str]]()
    for i, p in enumerate(payloads):
        first, second = c.pairing(i)
        assert (p.candidate, p.baseline) == (first.weights, second.weights)
        pairs[(first.name, second.name)] += len(p.openings)
        same_round = payloads[(i // 3) * 3]
        assert (p.openings, p.seed) == (same_round.openings, same_round.seed)
    assert pairs == {("a", "b"): 5, ("a", "c"): 5, ("b", "c"): 5}
    assert [len(p.openings) for p in payloads[6:]] == [1, 1, 1]
    # The same configuration plans the same batches; JSON round-trips; the names come back cheaply.
    again = TournamentConfig.from_json(c.to_json())
    assert again == c and again.fingerprint() == c.fingerprint()
    assert [again.batch_plan().payload(1, i) for i in range(9)] == payloads
    assert [stored_sides(c.to_json(), i)[0][0] for i in range(9)] == [n for n, _ in c.batch_names()]


def test_bad_configurations_are_refused() -> None:
    with pytest.raises(ValueError, match="must be unique: a"):
        config(["a", "a"])
    with pytest.raises(ValueError, match="engine names: expected 1 to 200 characters, got 201"):
        config(["a", "b" * 201])
    with pytest.raises(ValueError, match="at least two engines"):
        config(["a"])
    with pytest.raises(ValueError, match="vs: expected an engine"):
        config(["a", "b"], format="gauntlet", vs=5)
    assert config(["a", "b"], limits=engine.Limits(depth=2)).limits.depth == 2


def test_checkpoints_are_whole_pairs_up_to_every_game() -> None:
    assert checkpoints(0) == []
    assert checkpoints(6) == [2, 4, 6]
    points = checkpoints(100)
    assert points[-1] == 100 and len(points) == 8 and all(p % 2 == 0 for p in points)


def games_between(first: str, second: str, wins: int, losses: int, start: int) -> list[RatedGame]:
    """Game pairs of ``first`` against ``second``: ``wins`` pairs won twice, ``losses`` lost twice."""
    games = []
    for k in range(wins + losses):
        score = 1.0 if k < wins else 0.0
        pair = start + k
        games += [RatedGame(first, second, score, pair), RatedGame(second, first, 1.0 - score, pair)]
    return games


def test_a_chain_is_confirmed_or_its_broken_links_named() -> None:
    ordered = games_between("champion #1", "champion #0", 8, 2, 0) + games_between(
        "champion #2", "champion #1", 7, 3, 100
    )
    assert chain_check(rate(ordered)) == ChainCheck(confirmed=True, lines=["chain order confirmed"])
    broken = games_between("champion #1", "champion #0", 8, 2, 0) + games_between(
        "champion #2", "champion #1", 3, 7, 100
    )
    check = chain_check(rate(broken))
    assert not check.confirmed and len(check.lines) == 1
    line = check.lines[0]
    assert line.startswith("#2 is not above #1 (LOS ") and line.endswith("%)")
    assert 0 <= int(line.removeprefix("#2 is not above #1 (LOS ").removesuffix("%)")) < 50

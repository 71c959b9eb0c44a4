"""coordinator.ratings: the fit against an independent implementation, coverage, and edge cases."""

from __future__ import annotations

import json
import math
import random
from statistics import NormalDist
from typing import Any

import numpy as np
import pytest

from coordinator.ratings import (
    HeadToHead,
    NotRatable,
    RatedGame,
    RatingList,
    rate,
    rate_over,
)

# A fixed result set: (white, black) -> (white wins, draws, black wins), every colour of every pairing.
RESULTS: dict[tuple[str, str], tuple[int, int, int]] = {
    ("a", "b"): (7, 6, 3),
    ("b", "a"): (4, 7, 5),
    ("a", "c"): (9, 5, 2),
    ("c", "a"): (3, 4, 9),
    ("b", "c"): (6, 8, 2),
    ("c", "b"): (5, 6, 5),
    ("a", "d"): (12, 3, 1),
    ("d", "a"): (1, 2, 13),
    ("c", "d"): (8, 4, 4),
    ("d", "c"): (3, 5, 8),
    ("b", "e"): (4, 4, 0),
    ("e", "b"): (2, 3, 3),
    ("d", "e"): (5, 6, 5),
    ("e", "d"): (6, 5, 5),
}


def _games(results: dict[tuple[str, str], tuple[int, int, int]]) -> list[RatedGame]:
    games = []
    for (white, black), (wins, draws, losses) in results.items():
        games += [RatedGame(white, black, 1.0)] * wins
        games += [RatedGame(white, black, 0.5)] * draws
        games += [RatedGame(white, black, 0.0)] * losses
    return games


def _reference_fit(
    results: dict[tuple[str, str], tuple[int, int, int]], prior: float
) -> tuple[dict[str, float], float]:
    """Ordo's model by Hunter's (2004) MM iterations for Bradley-Terry with a home advantage.

    gamma_i = 10^(r_i/400), theta = 10^(w/400); White i beats Black j with probability
    theta gamma_i / (theta gamma_i + gamma_j), a draw counting half. Each pairing that met gets
    ``prior`` virtual games, half each way, scoring 1/2. Ratings are returned with mean 0.
    """
    names = sorted({n for pair in results for n in pair})
    games: dict[tuple[str, str], float] = {}
    points: dict[tuple[str, str], float] = {}
    for (white, black), (wins, draws, losses) in results.items():
        games[white, black] = games.get((white, black), 0.0) + wins + draws + losses
        points[white, black] = points.get((white, black), 0.0) + wins + draws / 2
    for white, black in {tuple(sorted(pair)) for pair in results}:
        for key in ((white, black), (black, white)):
            games[key] = games.get(key, 0.0) + prior / 2
            points[key] = points.get(key, 0.0) + prior / 4
    total = {n: 0.0 for n in names}
    for (white, black), n in games.items():
        total[white] += points[white, black]
        total[black] += n - points[white, black]
    white_points = sum(points.values())
    gamma = {n: 1.0 for n in names}
    theta = 1.0
    for _ in range(100_000):
        new = {}
        for i in names:
            denominator = 0.0
            for (white, black), n in games.items():
                if white == i:
                    denominator += n * theta / (theta * gamma[i] + gamma[black])
                elif black == i:
                    denominator += n / (theta * gamma[white] + gamma[i])
            new[i] = total[i] / denominator
        theta_new = white_points / sum(n * new[w] / (theta * new[w] + new[b]) for (w, b), n in games.items())
        change = max(abs(math.log(new[n] / gamma[n])) for n in names) + abs(math.log(theta_new / theta))
        gamma, theta = new, theta_new
        if change < 1e-13:
            break
    elo = {n: 400 * math.log10(g) for n, g in gamma.items()}
    mean = sum(elo.values()) / len(elo)
    return {n: e - mean for n, e in elo.items()}, 400 * math.log10(theta)


@pytest.mark.parametrize("prior", [2.0, 0.5])
def test_ratings_match_an_independent_mm_fit(prior: float) -> None:
    expected, advantage = _reference_fit(RESULTS, prior)
    ratings = rate(_games(RESULTS), prior=prior)
    assert {r.name: r.elo for r in ratings.ratings} == pytest.approx(expected, abs=0.1)
    assert ratings.white_advantage == pytest.approx(advantage, abs=0.1)
    assert advantage > 10  # the fixture has a real White advantage to find
    assert [r.name for r in ratings.ratings] == sorted(expected, key=lambda n: -expected[n])


def test_counts_anchor_and_los() -> None:
    games = _games(RESULTS)
    by_mean = rate(games)
    anchored = rate(games, anchor="c", anchor_elo=2000.0, confidence=0.9)
    for r in by_mean.ratings:
        a = anchored.rating(r.name)
        assert a.elo - 2000.0 == pytest.approx(r.elo - by_mean.rating("c").elo, abs=1e-6)
    assert anchored.rating("c").error == 0.0 and anchored.rating("c").elo == 2000.0
    assert all(r.error > 0 for r in by_mean.ratings)
    assert sum(r.elo for r in by_mean.ratings) == pytest.approx(0.0, abs=1e-6)
    assert anchored.rating("a").error < rate(games, anchor="c").rating("a").error  # 90% < 95%

    a = by_mean.rating("a")
    assert (a.games, a.points, a.draws) == (96, 68.5, 27)
    assert by_mean.head_to_head["a", "b"] == HeadToHead(wins=12, draws=13, losses=7, pentanomial=None)
    assert by_mean.head_to_head["b", "a"] == HeadToHead(wins=7, draws=13, losses=12, pentanomial=None)
    assert ("a", "e") not in by_mean.head_to_head
    names = [r.name for r in by_mean.ratings]
    assert len(by_mean.los) == len(names) * (len(names) - 1)
    for x in names:
        for y in names:
            if x != y:
                assert by_mean.los[x, y] + by_mean.los[y, x] == pytest.approx(1.0)
    assert by_mean.los["a", "d"] > 0.999 and by_mean.los["d", "e"] < 0.5

    data = json.loads(json.dumps(by_mean.to_json()))
    assert data["model"] == "ordo" and data["anchor"] is None
    assert data["los"]["a"]["d"] == by_mean.los["a", "d"]
    assert data["head_to_head"]["a"]["b"] == {"wins": 12, "draws": 13, "losses": 7, "pentanomial": None}
    assert [r["name"] for r in data["ratings"]] == names


def _pairs(outcomes: list[tuple[float, float]]) -> list[RatedGame]:
    """Game pairs of x against y: x's score with White, then x's score with Black."""
    games = []
    for i, (first, second) in enumerate(outcomes):
        games += [RatedGame("x", "y", first, pair=i), RatedGame("y", "x", 1 - second, pair=i)]
    return games


def _without_pairs(games: list[RatedGame]) -> list[RatedGame]:
    return [RatedGame(g.white, g.black, g.score) for g in games]


def test_pairs_change_the_errors_when_their_games_are_correlated() -> None:
    # x wins or loses both games of a pair: pairs vary more than their games suggest.
    alike = _pairs([(1.0, 1.0)] * 30 + [(0.0, 0.0)] * 20 + [(0.5, 0.5)] * 10)
    # White wins every game: every pair is 1-1, and only the openings' colour decides.
    split = _pairs([(1.0, 0.0)] * 50 + [(0.5, 0.5)] * 10)
    for games, wider in ((alike, True), (split, False)):
        paired = rate(games, anchor="y").rating("x")
        single = rate(_without_pairs(games), anchor="y").rating("x")
        assert paired.elo == pytest.approx(single.elo)
        assert (paired.error > 1.2 * single.error) if wider else (paired.error < 0.5 * single.error)
    h2h = rate(alike).head_to_head
    assert h2h["x", "y"].pentanomial == (20, 0, 10, 0, 30)
    assert h2h["y", "x"].pentanomial == (30, 0, 10, 0, 20)


def _simulate(rng: np.random.Generator, truth: np.ndarray, names: list[str], pairs: int) -> list[RatedGame]:
    """A round robin of ``pairs`` game pairs per pairing between engines of Elo ``truth``.

    White's expected score is the model's (30 Elo of White advantage) plus its opening's own bias
    towards White, the same in both games of a pair; a draw is likelier the closer the game.
    """
    first, second = np.triu_indices(len(truth), k=1)
    a, b = np.repeat(first, pairs), np.repeat(second, pairs)
    bias = rng.normal(0.0, 60.0, size=len(a))
    white, black = np.concatenate([a, b]), np.concatenate([b, a])
    expected = 1 / (1 + 10 ** (-(truth[white] - truth[black] + 30.0 + np.tile(bias, 2)) / 400))
    draw = 0.4 * 4 * expected * (1 - expected)
    u = rng.random(len(white))
    score = np.where(u < expected - draw / 2, 1.0, np.where(u < expected + draw / 2, 0.5, 0.0))
    pair = np.tile(np.arange(len(a)), 2)
    return [
        RatedGame(names[w], names[k], s, pair=p)
        for w, k, s, p in zip(white.tolist(), black.tolist(), score.tolist(), pair.tolist(), strict=True)
    ]


def test_error_bars_cover_the_truth_at_the_stated_rate() -> None:
    rng = np.random.default_rng(22)
    names = ["p", "q", "r", "s", "t"]
    truth = np.array([-90.0, -30.0, 0.0, 40.0, 80.0])
    truth -= truth.mean()
    sims, pairs, covered, covered_80, advantage_covered = 1000, 12, 0, 0, 0
    # The same fits' 80% intervals: the bars scaled by the ratio of normal quantiles.
    to_80 = NormalDist().inv_cdf(0.9) / NormalDist().inv_cdf(0.975)
    for _ in range(sims):
        games = _simulate(rng, truth, names, pairs)
        ratings = rate(games)
        for r in ratings.ratings:
            miss = abs(r.elo - truth[names.index(r.name)])
            covered += miss <= r.error
            covered_80 += miss <= r.error * to_80
        advantage_covered += abs(ratings.white_advantage - 30.0) <= ratings.white_advantage_error
    # Binomial sd at 95% is 0.003 over 5,000 intervals (the five of one tournament are
    # correlated) and 0.007 over 1,000.
    assert 0.935 <= covered / (sims * len(names)) <= 0.965
    assert 0.78 <= covered_80 / (sims * len(names)) <= 0.82, covered_80
    assert 0.925 <= advantage_covered / sims <= 0.975


def test_degenerate_results_stay_finite() -> None:
    # x won everything, White won everything, and a pairing of draws only.
    sweep = rate([RatedGame("x", "y", 1.0), RatedGame("y", "x", 0.0)] * 5)
    white_wins = rate([RatedGame("x", "y", 1.0), RatedGame("y", "x", 1.0)] * 5)
    draws = rate([RatedGame("x", "y", 0.5), RatedGame("y", "x", 0.5)] * 5)
    for ratings in (sweep, white_wins, draws):
        values = [ratings.white_advantage, ratings.white_advantage_error, *ratings.los.values()]
        for r in ratings.ratings:
            values += [r.elo, r.error]
        assert all(math.isfinite(v) for v in values)
        assert all(r.error > 0 for r in ratings.ratings)
    assert sweep.rating("x").elo > 200 and sweep.los["x", "y"] > 0.95
    assert white_wins.white_advantage > 200 and white_wins.rating("x").elo == pytest.approx(0.0, abs=1e-6)
    assert draws.rating("x").elo == pytest.approx(0.0, abs=1e-6)
    assert draws.los["x", "y"] == pytest.approx(0.5)
    one = rate([RatedGame("x", "y", 0.0)], anchor="x", anchor_elo=1500.0)
    assert one.rating("x").elo == 1500.0 and one.rating("y").elo > 1500.0


@pytest.mark.parametrize(
    ("games", "kwargs", "message"),
    [
        ([], {}, "games: expected at least one game to rate, got none"),
        (
            [RatedGame("a", "b", 1.0), RatedGame("c", "d", 0.5)],
            {},
            "games: expected every engine linked to every other by games, got 2 groups",
        ),
        ([RatedGame("a", "b", 1.0)], {"anchor": "z"}, "anchor: expected one of the rated engines (a, b)"),
        ([RatedGame("a", "b", 0.7)], {}, "games[0].score: expected White's score 1, 0.5 or 0, got 0.7"),
        ([("a", "b", 1.0)], {}, "games[0]: expected a RatedGame, got tuple"),
        ([RatedGame("a", "a", 1.0)], {}, "games[0]: expected two different engines, got 'a' twice"),
        ([RatedGame("a", "", 1.0)], {}, "games[0].black: expected an engine name, got ''"),
        (
            [RatedGame("a", "b", 1.0, pair=3), RatedGame("a", "b", 1.0, pair=3)],
            {},
            "games: pair 3 expected one game each way between two engines (colours swapped)",
        ),
        (
            [
                RatedGame("a", "b", 1.0, pair=3),
                RatedGame("b", "a", 1.0, pair=3),
                RatedGame("a", "b", 0.0, pair=3),
            ],
            {},
            "games: pair 3 expected two games, got a third at games[2]",
        ),
        ([RatedGame("a", "b", 1.0)], {"confidence": 1.0}, "confidence: expected a probability strictly"),
        (
            [RatedGame("a", "b", 1.0)],
            {"anchor_elo": math.nan},
            "anchor_elo: expected a finite number, got nan",
        ),
        (
            [RatedGame("a", "b", 1.0)],
            {"prior": 0.01},
            "prior: expected a finite number of virtual games from 0.1, got 0.01",
        ),
    ],
)
def test_bad_or_unratable_games_are_one_line_errors(
    games: list[RatedGame], kwargs: dict[str, Any], message: str
) -> None:
    with pytest.raises(ValueError) as error:
        rate(games, **kwargs)
    assert str(error.value).startswith(message) and "\n" not in str(error.value)
    unratable = message.startswith(("games: expected at least", "games: expected every", "anchor:"))
    assert isinstance(error.value, NotRatable) == unratable


def test_rating_over_games_rates_each_ratable_prefix() -> None:
    games = _games(RESULTS)
    random.Random(5).shuffle(games)
    checkpoints = [1, 2, 50, 200, len(games)]
    over = rate_over(games, checkpoints, anchor="a")
    assert [c.games for c in over][-3:] == [50, 200, len(games)]
    for checkpoint in over:
        expected = rate(games[: checkpoint.games], anchor="a")
        assert isinstance(checkpoint.ratings, RatingList)
        assert checkpoint.ratings == expected
    assert over[-1].ratings.rating("a").games == 96
    # A prefix may end inside a game pair: its first game is a cluster of its own.
    paired = _pairs([(1.0, 0.5), (0.0, 0.5), (1.0, 1.0)])
    (half,) = rate_over(paired, [5])
    assert half.ratings == rate(paired[:5])
    assert half.ratings.head_to_head["x", "y"].pentanomial == (0, 1, 0, 1, 0)
    with pytest.raises(ValueError, match=r"checkpoints: expected game counts from 1 to 208, got 0"):
        rate_over(games, [0])

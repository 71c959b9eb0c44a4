"""A tournament's pairings and batch plan (pure functions of its configuration), and the report's
check of a champion chain against the rating list and its engines' faults and time per move."""

from __future__ import annotations

from collections import Counter

import pytest

import engine
from coordinator.ratings import RatedGame, rate
from coordinator.reports.tournament.data import ChainCheck
from coordinator.reports.tournament.gather import chain_check, checkpoints, tournament_report
from coordinator.reports.tournament.html import tournament_html
from coordinator.reports.tournament.text import tournament_text
from coordinator.runs import RunKind
from coordinator.store import Store
from coordinator.store.results import CheckedResult
from coordinator.tournament.config import Entrant, TournamentConfig, pairings_of, stored_sides
from wire.protocol import BatchResult, Color, GameRecord

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


def test_the_report_gives_each_engine_its_faults_and_time_per_move() -> None:
    """Faults and move times are told per side by each batch, and reported per engine by the
    tournament's pairings, in the JSON data, the text and the page, as a match reports its sides."""
    c = config(["a", "b", "c"], limits=engine.Limits(movetime_ms=50), pairs=1, batch_pairs=1)
    store = Store("sqlite://")
    run_id = store.create_run(RunKind.TOURNAMENT, c.game, c.to_json(), c.fingerprint())
    store.record_pairings(run_id, c.batch_names())
    assert c.batch_names() == [("a", "b"), ("a", "c"), ("b", "c")]
    faults = {  # the baseline b crashes in batch 0, the candidate b forfeits in batch 2
        0: [{"game": 0, "side": "baseline", "reason": "crashed: signal 11", "stderr": ["core \x1b[2J"]}],
        1: [{"game": 1, "side": "nobody", "reason": "a side no batch has", "stderr": []}],
        2: [{"game": 1, "side": "candidate", "reason": "time forfeit", "stderr": []}],
    }
    for index in range(3):
        games = [  # the candidate moves first in game 0 (10 ms, then 20 for the baseline), second in game 1
            GameRecord(OPENINGS[0], "", "0-1", "crash", Color.WHITE, "", "10 20"),
            GameRecord(OPENINGS[0], "", "1-0", "time_forfeit", Color.BLACK, "", "30 70"),
        ]
        result = BatchResult(
            run_id, index, "v", [0, 0, 0, 0, 1], [0, 0, 2], games, worker="w:1", faults=faults[index]
        )
        assert store.record_result(run_id, index, CheckedResult.tallied(result))
    store.update_run(run_id, counted_batches=3)
    run = store.get_run(run_id)
    assert run is not None
    data = tournament_report(store, run)
    engines = {e.name: e for e in data.engines}
    times = {name: (e.move_times.moves, e.move_times.total_ms) for name, e in engines.items()}
    assert times == {"a": (4, 160), "b": (4, 130), "c": (4, 100)}
    assert {name: e.faults.total for name, e in engines.items()} == {"a": 0, "b": 2, "c": 0}
    b = engines["b"].faults
    assert (b.counts["crash"], b.counts["time_forfeit"], b.total) == (1, 1, 2)
    assert b.last is not None and (b.last.reason, b.last.batch) == ("time forfeit", 2)
    assert data.to_json()["engines"][1]["faults"]["crash"] == 1  # the JSON names each kind's count
    text = tournament_text(data)
    assert "time per move: a 40 ms over 4 moves, b 32 ms over 4 moves, c 25 ms over 4 moves" in text
    assert "faults of b: 2 (crashes 1, forfeits 1); last: time forfeit (worker w:1, batch 2)" in text
    assert "faults of a" not in text and "nobody" not in text
    page = str(tournament_html(data, {"los": "", "over_games": ""}))
    assert 'id="engines"' in page and "Last fault of b" in page and "\x1b" not in page
    store.close()

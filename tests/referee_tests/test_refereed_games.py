"""worker.referee.game and batch: whole games and batches between two plain engines."""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator

import pytest
from referee_testkit import START, player

import engine
from coordinator.openings.book import default_book_path, load_book
from wire.protocol import Color
from wire.tally import tally
from worker.program_batch import BUILTIN_HASH_MB, builtin_program
from worker.referee import EnginePlayer, EngineSpec, PlayedGame, play_game, play_pairs
from worker.referee.game import go_limits, time_limit_ms
from worker.referee.uci import SearchInfo

RULE_ENDS = {"lion_captured", "kings_captured", "no_legal_move", "repetition", "bare_lions", "ply_limit"}
ADJUDICATION = engine.Adjudication(max_plies=300, repetition=True, bare_lions=True)


@pytest.fixture
def engines(request: pytest.FixtureRequest) -> Iterator[tuple[EnginePlayer, EnginePlayer]]:
    game = request.param
    with player(game, name="one") as one, player(game, name="two") as two:
        yield one, two


def replayed(
    game: str, played: PlayedGame, adjudication: engine.Adjudication
) -> tuple[str | None, str | None]:
    again = engine.replay_game(game, played.opening, list(played.moves), adjudication)
    return again["result"], again["reason"]


@pytest.mark.parametrize("engines", ["congo", "congress"], indirect=True)
def test_a_whole_game_at_fixed_nodes_is_the_same_twice(engines: tuple[EnginePlayer, EnginePlayer]) -> None:
    one, two = engines
    game = one.game
    first = play_game(one, two, game, START[game], engine.Limits(nodes=1500), ADJUDICATION)
    second = play_game(one, two, game, START[game], engine.Limits(nodes=1500), ADJUDICATION)
    assert first.moves == second.moves
    assert (first.result, first.reason) == (second.result, second.reason)
    assert first.reason in RULE_ENDS
    assert replayed(game, first, ADJUDICATION) == (first.result, first.reason)
    assert len(first.stats) == len(first.moves) > 4
    assert all(s.nodes is not None and s.nodes > 0 for s in first.stats)
    assert [s.nodes for s in first.stats] == [s.nodes for s in second.stats]
    assert first.white_fault is first.black_fault is first.detail is None
    assert one.starts == two.starts == 1, "the engines stay up from game to game"


@pytest.mark.parametrize("engines", ["congo", "congress"], indirect=True)
def test_a_game_under_a_clock_ends_without_forfeit(engines: tuple[EnginePlayer, EnginePlayer]) -> None:
    one, two = engines
    game = one.game
    limits = engine.Limits(time_control=engine.TimeControl(2_000, 50))
    adjudication = engine.Adjudication(max_plies=80, repetition=True, bare_lions=True)
    started = time.monotonic()
    played = play_game(one, two, game, START[game], limits, adjudication)
    assert played.reason in RULE_ENDS, played.detail
    assert replayed(game, played, adjudication) == (played.result, played.reason)
    # Each side's moves, less its increments, fit in its base time.
    for side in (0, 1):
        used = sum(s.time_ms for s in played.stats[side::2])
        assert used <= 2_000 + 50 * len(played.stats[side::2]) + limits.time_margin_ms
    assert time.monotonic() - started < 2 * 2.0 + 0.05 * len(played.moves) + 3


def test_a_batch_of_pairs_gives_records_the_coordinator_accepts() -> None:
    game = "congo"
    openings = [START[game], "gmelecz/ppppppp/7/7/3P3/PPP1PPP/GMELECZ b"]
    with player(game, name="candidate") as candidate, player(game, name="baseline") as baseline:
        limits = {0: engine.Limits(nodes=600), 1: engine.Limits(nodes=700)}
        told: list[int] = []
        games = play_pairs(candidate, baseline, game, openings, limits.__getitem__, ADJUDICATION, told.append)
        assert candidate.starts == baseline.starts == 1
    assert [g.candidate_color for g in games] == [Color.WHITE, Color.BLACK] * 2
    assert told == [1, 2, 3, 4]  # the games played, told after each
    records = [g.record() for g in games]
    assert [r.opening for r in records] == [openings[0]] * 2 + [openings[1]] * 2
    pentanomial, wdl = tally(records)
    games_json = [r.to_json() for r in records]
    engine.check_records(
        game, games_json, openings, pentanomial, wdl, [], ADJUDICATION, engine.Limits(nodes=600), True
    )
    assert records[0].moves == games[0].game.moves_text and records[0].plies == len(games[0].game.moves)


def test_an_opening_that_has_ended_needs_no_engine() -> None:
    with player("congo") as one, player("congo") as two:
        bare = "4l2/7/7/7/7/7/2L4 w"
        played = play_game(
            one, two, "congo", bare, engine.Limits(nodes=100), engine.Adjudication(bare_lions=True)
        )
        assert (played.result, played.reason, played.moves) == ("1/2-1/2", "bare_lions", ())
        assert one.starts == two.starts == 0


def test_one_engine_cannot_play_both_sides() -> None:
    with player("congo") as one, pytest.raises(ValueError, match="both sides"):
        play_game(one, one, "congo", START["congo"], engine.Limits(nodes=10))


def test_go_carries_every_limit_of_a_combination() -> None:
    control = engine.TimeControl(60_000, 500, moves=40)
    limits = engine.Limits(nodes=5000, depth=9, movetime_ms=300, time_control=control)
    clock = engine.GameClock(control, limits.time_margin_ms)
    assert go_limits(limits, clock, "black").command() == (
        "go wtime 60000 btime 60000 winc 500 binc 500 movestogo 40 movetime 300 nodes 5000 depth 9"
    )
    assert time_limit_ms(limits, clock, "white") == 400  # movetime + margin is the nearer limit
    assert time_limit_ms(engine.Limits(nodes=5), None, "white") is None


def info(cp: int | None = None, mate: int | None = None) -> SearchInfo:
    return SearchInfo(score_cp=cp, score_mate=mate)


def score_of(info: SearchInfo) -> int | None:
    """The score a move's info gives resignation (both referee paths read it so)."""
    return engine.resignation_score(info.score_cp, info.score_mate)


def test_mate_scores_count_as_the_searchs_own() -> None:
    assert score_of(info(cp=-35)) == -35
    assert score_of(info()) is None
    assert score_of(info(mate=1)) == engine.MATE_SCORE - 1
    assert score_of(info(mate=-1)) == -(engine.MATE_SCORE - 2)
    # Any number an engine claims stays within the scores the judge takes.
    assert score_of(info(cp=10**12)) == engine.MATE_SCORE
    assert -engine.MATE_SCORE < score_of(info(mate=-(10**12))) < -engine.MATE_BOUND  # type: ignore[operator]
    assert engine.MATE_BOUND < score_of(info(mate=10**12)) < engine.MATE_SCORE  # type: ignore[operator]
    engine.GameJudge("congo", START["congo"]).searched(score_of(info(cp=-(10**12))))


@pytest.mark.parametrize("game", ["congo", "congress"])
def test_arbiter_engine_refereed_plays_the_in_process_games_resignations_included(game: str) -> None:
    """Games at fixed nodes are refereed in one Rust call (``GameJudge.referee``): the same moves,
    results and reasons as in-process play with the same table, resigning where it resigns (the
    score read from the engine's info lines), and every line written and read logged."""
    adjudication = engine.Adjudication(
        max_plies=300, repetition=True, bare_lions=True, resign_score=250, resign_plies=4
    )
    limits = engine.Limits(nodes=700)
    spec = EngineSpec((builtin_program(),), options={"Hash": BUILTIN_HASH_MB})
    lines: list[tuple[str, str]] = []
    reasons = set()
    with (
        EnginePlayer(spec, game, log=lambda way, line: lines.append((way, line))) as one,
        EnginePlayer(spec, game) as two,
    ):
        for opening in load_book(default_book_path(game), game)[:6]:
            del lines[:]
            played = play_game(one, two, game, opening, limits, adjudication)
            again = engine.play_game(game, None, None, opening, limits, adjudication, hash_mb=BUILTIN_HASH_MB)
            assert (list(played.moves), played.result, played.reason) == (
                again["moves"],
                again["result"],
                again["reason"],
            )
            reasons.add(played.reason)
            assert all(s.nodes is not None and s.depth is not None for s in played.stats)
            sent = [line for way, line in lines if way == ">" and line.startswith(("position", "go"))]
            white_moves = played.moves[0::2]
            asked = len(white_moves) + (played.reason == "resign" and len(played.moves) % 2 == 0)
            assert sent[-2:][0].startswith("position") and len(sent) == 2 * asked
            read = [line for way, line in lines if way == "<" and line.startswith("bestmove")]
            assert [line.split()[1] for line in read][: len(white_moves)] == list(white_moves)
    assert "resign" in reasons


class Interrupted(Exception):
    """What the test's alarm raises."""


def test_a_signal_is_taken_between_the_moves_of_a_game_refereed_in_one_call() -> None:
    """Ctrl-C (here an alarm) stops an untimed game at its next move, not at its end."""

    def interrupt(signum: int, frame: object) -> None:
        raise Interrupted

    spec = EngineSpec((builtin_program(),), options={"Hash": BUILTIN_HASH_MB})
    before = signal.signal(signal.SIGALRM, interrupt)
    try:
        with EnginePlayer(spec, "congo") as one, EnginePlayer(spec, "congo") as two:
            one.new_game()
            two.new_game()
            started = time.monotonic()
            signal.setitimer(signal.ITIMER_REAL, 0.2)
            with pytest.raises(Interrupted):
                # About 40 ms a move for 300 plies at most: seconds, were the alarm left to the end.
                play_game(one, two, "congo", START["congo"], engine.Limits(nodes=80_000), ADJUDICATION)
            assert time.monotonic() - started < 1.0
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)

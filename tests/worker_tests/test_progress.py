"""wire.progress: what a worker tells of a batch while it plays, and what the coordinator believes
of it (a count within the batch, nothing else); telling it changes no game."""

from __future__ import annotations

from typing import Any

import pytest
from sprt_testkit import book_positions

import engine
from wire.progress import games_played, progress_meta, throttled
from wire.protocol import BatchPayload
from worker.games import play_batch


@pytest.mark.parametrize(
    "meta",
    [
        None,
        "12",
        12,
        [12],
        {},
        {"games": None},
        {"games": "12"},
        {"games": 12.0},
        {"games": True},  # a bool is an int to Python, not a count
        {"games": -1},
        {"games": 41},  # more than the batch has
        {"games": 10**40},
        {"games": [1, 2]},
        {"games": {"games": 3}},
    ],
)
def test_a_hostile_meta_tells_nothing(meta: Any) -> None:
    assert games_played(meta, most=40) is None


@pytest.mark.parametrize("games", [0, 1, 40])
def test_a_count_within_the_batch_is_told(games: int) -> None:
    assert games_played(progress_meta(games), most=40) == games
    assert games_played(progress_meta(games) | {"other": "ignored"}, most=40) == games


def test_reports_are_throttled_and_never_repeat_a_figure() -> None:
    now = [100.0]
    told: list[int] = []
    tell = throttled(told.append, seconds=1.0, clock=lambda: now[0])
    for games, at in [(1, 100.5), (2, 101.0), (3, 101.5), (4, 102.2), (4, 104.0), (5, 104.1)]:
        now[0] = at
        tell(games)
    assert told == [2, 4, 5]  # none in the first second, then at most one a second, a figure once


def test_progress_is_told_after_each_game_and_changes_no_game() -> None:
    payload = BatchPayload(
        run_id=1,
        batch_index=0,
        game="congo",
        candidate={"pawn": 140},
        baseline=None,
        openings=book_positions("congo", 2, seed=5),
        limits=engine.Limits(nodes=200),
        adjudication=engine.Adjudication(max_plies=120, repetition=True, bare_lions=True),
        seed=3,
        engine_version=engine.ENGINE_VERSION,
    )
    told: list[int] = []
    with_progress = play_batch(payload, worker="w", progress=told.append)
    assert told == [1, 2, 3, 4]
    assert with_progress.games == play_batch(payload, worker="w").games

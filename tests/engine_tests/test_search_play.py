"""Search and whole-game play through the Python API: determinism, every adjudication reason that
`play_game` can report, weight and limit validation, and searches running in parallel threads.

Positions are built from the rules pages (shared/rules/congo.md, congress.md); each one says why it
ends the way the test expects.
"""

from __future__ import annotations

import json
import pickle
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import engine

MATE = 30_000
CONGO_START = "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w"
CONGRESS_START = "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w"


def position(game: str, fen: str) -> engine.Position:
    return engine.Position.from_fen(game, fen)


def stable(result: dict[str, Any]) -> dict[str, Any]:
    """A search result without its timings (everything else must repeat exactly)."""
    out = {k: v for k, v in result.items() if k not in ("time_ms", "iterations")}
    out["iterations"] = [{k: v for k, v in it.items() if k != "time_ms"} for it in result["iterations"]]
    return out


def replay(game: str, record: dict[str, Any]) -> list[engine.Position]:
    """Every position of a game record, the opening included; each move must be legal."""
    pos = position(game, record["opening"])
    out = [pos]
    for move in record["moves"]:
        assert move in pos.legal_moves(), f"{move} is illegal in {pos.fen()}"
        pos = pos.play(move)
        out.append(pos)
    return out


# --- search -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("game", "fen", "limits"),
    [
        ("congo", CONGO_START, engine.Limits(depth=5)),
        ("congo", "1melec1/ppppp1p/2g2zp/5C1/2G2ZP/PPPPP1P/1MELE2 b", engine.Limits(nodes=30_000)),
        ("congress", CONGRESS_START, engine.Limits(depth=6)),
        ("congress", CONGRESS_START, engine.Limits(nodes=30_000)),
    ],
)
def test_search_is_deterministic(game: str, fen: str, limits: engine.Limits) -> None:
    pos = position(game, fen)
    first = engine.search(pos, depth=limits.depth, nodes=limits.nodes)
    second = engine.search(pos, depth=limits.depth, nodes=limits.nodes)
    assert stable(first) == stable(second)
    assert first["best_move"] in pos.legal_moves()
    assert first["pv"][0] == first["best_move"]
    assert first["nodes"] > 0
    assert [it["depth"] for it in first["iterations"]] == list(range(1, first["depth"] + 1))
    if limits.depth is not None:
        assert first["depth"] == limits.depth
    else:
        assert limits.nodes is not None
        assert first["nodes"] >= limits.nodes  # the node limit, not a depth cap, stopped it


def test_search_default_depth_and_result_keys() -> None:
    result = engine.search(engine.Position.start("congo"))
    assert set(result) == {"best_move", "score", "depth", "nodes", "pv", "time_ms", "iterations"}
    assert result["depth"] == 6
    assert result["time_ms"] >= 0


@pytest.mark.parametrize(
    ("game", "fen", "move", "plies"),
    [
        ("congo", "3l3/7/7/7/7/2c4/Z2L3 w", "d1d7", 1),  # facing lions on the open d-file
        ("congo", "3l3/2p2E1/2G4/7/3Z3/7/4L2 w", "d3e5", 3),  # zebra fork, lion has no square
        ("congress", "5k2/8/7B/3h4/2P5/3K4 w", "h4f6", 1),  # bishop takes the last king
        ("congress", "5k2/p6P/8/4B3/8/K7 w", "e3g5", 3),  # Bg5 attacks f6, the pawn h5 covers g6
    ],
)
def test_search_forced_win_score(game: str, fen: str, move: str, plies: int) -> None:
    result = engine.search(position(game, fen), depth=6)
    assert result["best_move"] == move
    assert result["score"] == MATE - plies
    assert len(result["pv"]) == plies


def test_search_weights_change_the_result() -> None:
    pos = engine.Position.start("congress")
    plain = engine.search(pos, depth=5)
    tuned = engine.search(pos, {"pawn": 300, "mobility": 0}, depth=5)
    assert (plain["score"], plain["nodes"]) != (tuned["score"], tuned["nodes"])


def test_searches_in_two_threads_complete() -> None:
    """Searches release the GIL; two at once both finish with the single-threaded answers."""
    jobs = [
        (engine.Position.start("congo"), 6),
        (engine.Position.start("congress"), 7),
    ]
    started = time.monotonic()
    expected = [stable(engine.search(pos, depth=depth)) for pos, depth in jobs]
    # Bound on the two threads: a hang guard, scaled by how long the same searches took one after
    # the other on this machine now (a busy machine is slow at both alike).
    bound = 60 + 10 * (time.monotonic() - started)
    results: list[dict[str, Any] | None] = [None, None]
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            pos, depth = jobs[i]
            results[i] = engine.search(pos, depth=depth)
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=bound)
    assert not any(t.is_alive() for t in threads)
    assert errors == []
    assert [stable(r) for r in results if r is not None] == expected


# --- play_game: determinism ---------------------------------------------------------------------


@pytest.mark.parametrize(("game", "opening"), [("congo", CONGO_START), ("congress", CONGRESS_START)])
def test_play_game_is_deterministic(game: str, opening: str) -> None:
    limits = engine.Limits(nodes=1_000)
    adjudication = engine.Adjudication(max_plies=120, repetition=True, bare_lions=True)
    first = engine.play_game(game, None, None, opening, limits, adjudication)
    second = engine.play_game(game, None, None, opening, limits, adjudication)
    assert len(first.pop("times_ms")) == len(second.pop("times_ms")) == first["plies"]  # only time differs
    assert first == second
    assert first["plies"] == len(first["moves"]) > 0
    assert len(first["budgets"]) == first["plies"]
    assert first["opening"] == opening
    assert first["result"] in ("1-0", "0-1", "1/2-1/2")
    replay(game, first)
    # Different weights for one side play a different game.
    other = engine.play_game(game, {"pawn": 250}, None, opening, limits, adjudication)
    assert other["moves"] != first["moves"]


@pytest.mark.parametrize("game", ["congo", "congress"])
def test_a_timed_game_repeats_under_its_node_budgets(game: str) -> None:
    # What the spot check of a timed game does: every move searched again with the node budget
    # the game recorded for it gives the same game, on any machine.
    limits = engine.Limits(time_control=engine.TimeControl.parse("0.5+0.005"), time_margin_ms=1000)
    adjudication = engine.Adjudication(max_plies=120, repetition=True, bare_lions=True)
    opening = engine.Position.start(game).fen()
    played = engine.play_game(game, {"pawn": 120}, None, opening, limits, adjudication)
    assert played["reason"] != "time_forfeit" and played["plies"] > 0
    again = engine.moves_for_budgets(game, {"pawn": 120}, None, opening, limits, played["budgets"])
    assert again == played["moves"]
    # Other weights for White, and the game is another one: under budgets fixed here, since the
    # game's own are as small as the machine was busy, and at a few hundred nodes a move pawn 60
    # and pawn 120 may well choose alike.
    fixed = [1000] * len(played["budgets"])
    mine = engine.moves_for_budgets(game, {"pawn": 120}, None, opening, limits, fixed)
    other = engine.moves_for_budgets(game, {"pawn": 60}, None, opening, limits, fixed)
    assert other != mine


# --- play_game: every adjudication reason -------------------------------------------------------


def test_reason_lion_captured() -> None:
    # The lions face each other on the open d-file: White takes at once.
    record = engine.play_game("congo", None, None, "3l3/7/7/7/7/2c4/Z2L3 w", engine.Limits(depth=3))
    assert (record["result"], record["reason"], record["moves"]) == ("1-0", "lion_captured", ["d1d7"])
    assert replay("congo", record)[-1].outcome().reason == "lion_captured"


def test_reason_lion_captured_beats_bare_lions() -> None:
    # Only the two lions are left, but the side to move can capture: no bare-lions draw.
    record = engine.play_game(
        "congo",
        None,
        None,
        "3l3/7/7/7/7/7/3L3 b",
        engine.Limits(depth=2),
        engine.Adjudication(bare_lions=True),
    )
    assert (record["result"], record["reason"], record["moves"]) == ("0-1", "lion_captured", ["d7d1"])


def test_reason_kings_captured() -> None:
    # Black's last king on f6 is on the white bishop's forward diagonal h4-g5-f6.
    record = engine.play_game("congress", None, None, "5k2/8/7B/3h4/2P5/3K4 w", engine.Limits(depth=3))
    assert (record["result"], record["reason"], record["moves"]) == ("1-0", "kings_captured", ["h4f6"])


def test_reason_no_legal_move_at_once() -> None:
    # White's only piece is a king on a1 (left wing, already at the edge): no legal move.
    fen = "3k4/8/8/8/8/K7 w"
    assert position("congress", fen).legal_moves() == []
    record = engine.play_game("congress", None, None, fen, engine.Limits(depth=3))
    assert (record["result"], record["reason"], record["plies"]) == ("0-1", "no_legal_move", 0)


def test_reason_no_legal_move_after_play() -> None:
    # White's pawn a2 has four pushes, Black's king d6 three steps toward a6: someone runs out.
    record = engine.play_game("congress", None, None, "3k4/8/8/8/P7/K7 w", engine.Limits(depth=4))
    assert record["reason"] == "no_legal_move"
    assert 0 < record["plies"] <= 7
    final = replay("congress", record)[-1]
    assert final.legal_moves() == []
    loser = final.turn
    assert record["result"] == ("0-1" if loser == "white" else "1-0")


def test_reason_ply_limit() -> None:
    record = engine.play_game(
        "congo", None, None, CONGO_START, engine.Limits(nodes=500), engine.Adjudication(max_plies=3)
    )
    assert (record["result"], record["reason"], record["plies"]) == ("1/2-1/2", "ply_limit", 3)


def test_reason_repetition() -> None:
    # Lions only, not facing: neither side can make progress and both shuffle in their castles.
    fen = "2l4/7/7/7/7/7/4L2 w"
    record = engine.play_game(
        "congo", None, None, fen, engine.Limits(depth=4), engine.Adjudication(repetition=True, max_plies=200)
    )
    assert (record["result"], record["reason"]) == ("1/2-1/2", "repetition")
    seen = Counter(p.fen() for p in replay("congo", record))
    final = replay("congo", record)[-1].fen()
    assert seen[final] == 3
    assert max(seen.values()) == 3
    # Without the repetition rule the same game goes on to the ply limit.
    longer = engine.play_game(
        "congo", None, None, fen, engine.Limits(depth=4), engine.Adjudication(max_plies=record["plies"] + 20)
    )
    assert longer["reason"] == "ply_limit"


def test_reason_bare_lions() -> None:
    fen = "2l4/7/7/7/7/7/4L2 w"  # c7 and e1: no file or diagonal joins the lions
    record = engine.play_game(
        "congo", None, None, fen, engine.Limits(depth=3), engine.Adjudication(bare_lions=True)
    )
    assert (record["result"], record["reason"], record["plies"]) == ("1/2-1/2", "bare_lions", 0)
    # The rule is off unless asked for.
    off = engine.play_game("congo", None, None, fen, engine.Limits(depth=3), engine.Adjudication(max_plies=4))
    assert off["reason"] == "ply_limit"


def test_reason_bare_lions_after_capture() -> None:
    # The black pawn d2 threatens the white lion d1 (straight ahead) and is free to take; after
    # d1xd2 only the lions are left (d2 and e7: no line joins them) and it is Black's turn.
    fen = "4l2/7/7/7/7/3p3/3L3 w"
    record = engine.play_game(
        "congo", None, None, fen, engine.Limits(depth=4), engine.Adjudication(bare_lions=True, max_plies=50)
    )
    assert (record["result"], record["reason"], record["moves"]) == ("1/2-1/2", "bare_lions", ["d1d2"])
    final = replay("congo", record)[-1]
    assert sorted(c for c in final.fen().split()[0] if c.isalpha()) == ["L", "l"]


@pytest.mark.parametrize(
    ("fen", "result"),
    [
        ("3l3/ppppppp/7/7/7/PPPPPPP/GMELECZ w", "1-0"),  # Black has only lion and pawns
        ("gmelecz/ppppppp/7/7/7/PPPPPPP/3L3 b", "0-1"),  # the mirror image
    ],
)
def test_reason_resign(fen: str, result: str) -> None:
    adjudication = engine.Adjudication(resign_score=200, resign_plies=2)
    record = engine.play_game("congo", None, None, fen, engine.Limits(depth=3), adjudication)
    assert (record["result"], record["reason"]) == (result, "resign")
    assert 0 < record["plies"] < 10
    # Without a resign threshold the game simply continues.
    played = engine.play_game(
        "congo", None, None, fen, engine.Limits(depth=3), engine.Adjudication(max_plies=record["plies"] + 2)
    )
    assert played["reason"] == "ply_limit"


def test_adjudication_errors() -> None:
    with pytest.raises(ValueError, match="unknown field") as info:
        engine.Adjudication(max_ply=3)
    assert "max_ply" in str(info.value)
    with pytest.raises(ValueError, match="repetition: expected true or false"):
        engine.Adjudication(repetition="yes")
    with pytest.raises(ValueError, match="resign_score: expected a whole number"):
        engine.Adjudication.from_json({"resign_score": -5})
    with pytest.raises(TypeError):
        engine.play_game("congo", None, None, CONGO_START, engine.Limits(depth=1), {"max_plies": 3})  # type: ignore[arg-type]


# --- weights ------------------------------------------------------------------------------------


def test_weights_table() -> None:
    for game, count in (("congo", 15), ("congress", 12)):
        table = engine.weights(game)
        assert len(table) == count
        assert all(w.min <= w.default <= w.max for w in table)
        assert engine.validate_weights(game, None) == {w.name: w.default for w in table}


def test_weights_omitted_names_take_defaults() -> None:
    defaults = engine.validate_weights("congo", None)
    full = engine.validate_weights("congo", {"pawn": 120, "mobility": 0})
    assert full == {**defaults, "pawn": 120, "mobility": 0}
    assert list(full) == [w.name for w in engine.weights("congo")]


def test_weights_integral_float_accepted() -> None:
    full = engine.validate_weights("congress", {"pawn": 100.0, "king": 750.0})
    assert (full["pawn"], full["king"]) == (100, 750)
    assert isinstance(full["pawn"], int)


@pytest.mark.parametrize(
    ("values", "words"),
    [
        ({"bishop": 300}, ["bishop", "unknown"]),
        ({"pawn": 120, "kingg": 1, "queen": 9}, ["kingg", "queen"]),
        ({"pawn": 19}, ["pawn", "19", "20"]),
        ({"pawn": 301}, ["pawn", "301", "300"]),
        ({"pawn": 100.5}, ["pawn", "not an integer"]),
        ({"pawn": True}, ["pawn", "not an integer"]),
        ({"pawn": "100"}, ["pawn", "not an integer"]),
        ({"pawn": None}, ["pawn", "not an integer"]),
    ],
)
def test_weights_rejected(values: dict[str, Any], words: list[str]) -> None:
    with pytest.raises(ValueError) as info:
        engine.validate_weights("congo", values)
    for word in words:
        assert word in str(info.value)


def test_weights_rejected_by_search_and_play() -> None:
    pos = engine.Position.start("congress")
    with pytest.raises(ValueError, match="crocodile"):
        engine.search(pos, {"crocodile": 300}, depth=1)
    with pytest.raises(ValueError, match="pawn"):
        engine.play_game("congress", None, {"pawn": 5000}, CONGRESS_START, engine.Limits(depth=1))


def test_weights_file(tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"pawn": 110, "elephant": 280.0}))
    full = engine.validate_weights("congo", good)
    zebra = next(w.default for w in engine.weights("congo") if w.name == "zebra")
    assert (full["pawn"], full["elephant"], full["zebra"]) == (110, 280, zebra)
    assert engine.validate_weights("congo", str(good)) == full
    # A file is accepted wherever weights are.
    assert engine.search(engine.Position.start("congo"), good, depth=2)["best_move"]


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("broken.json", '{"pawn": 100', ["not JSON", "line 1"]),
        ("list.json", "[100, 200]", ["JSON object"]),
        ("number.json", "100", ["JSON object"]),
        ("unknown.json", '{"pawn": 100, "lance": 3}', ["lance"]),
        ("range.json", '{"crocodile": 5}', ["crocodile", "out of range"]),
    ],
)
def test_weights_file_rejected(tmp_path: Path, name: str, text: str, words: list[str]) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ValueError) as info:
        engine.validate_weights("congo", path)
    message = str(info.value)
    assert str(path) in message
    for word in words:
        assert word in message


def test_weights_file_missing(tmp_path: Path) -> None:
    path = tmp_path / "absent.json"
    with pytest.raises(ValueError, match="cannot read") as info:
        engine.validate_weights("congress", path)
    assert str(path) in str(info.value)


# --- limits -------------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", ["depth", "nodes", "movetime_ms"])
def test_search_limit_zero_rejected(limit: str) -> None:
    with pytest.raises(ValueError, match=f"limits.{limit}: expected a whole number from 1 to"):
        engine.search(engine.Position.start("congo"), **{limit: 0})


@pytest.mark.parametrize(
    ("limits", "words"),
    [
        ({"plies": 3}, ["unknown field", "plies"]),
        ({"plies": None, "depth": 2}, ["unknown field", "plies"]),  # a misspelt key never passes
        ({"depth": 0}, ["limits.depth", "from 1 to 64, got 0"]),
        ({"nodes": -5}, ["limits.nodes", "got -5"]),
        ({"depth": "deep"}, ["limits.depth", "whole number", "'deep'"]),
        ({"nodes": True}, ["limits.nodes", "whole number"]),
        ({"movetime_ms": 2.5}, ["limits.movetime_ms", "whole number"]),
        ({}, ["limits: expected nodes, depth, movetime_ms or a time_control"]),
        ({"depth": None}, ["limits: expected nodes, depth"]),
        ({"time_control": {"base_ms": 0}}, ["limits.time_control.base_ms", "got 0"]),
        ({"time_control": {"base_ms": 10, "inc": 1}}, ["limits.time_control", "unknown field", "inc"]),
        ({"nodes": 10, "time_margin_ms": -1}, ["limits.time_margin_ms"]),
    ],
)
def test_limits_rejected(limits: dict[str, Any], words: list[str]) -> None:
    for make in (lambda: engine.Limits(**limits), lambda: engine.Limits.from_json(limits)):
        with pytest.raises(ValueError) as info:
            make()
        for word in words:
            assert word in str(info.value)


def test_limits_round_trip_through_json() -> None:
    tc = engine.TimeControl.parse("40/60+0.5")
    for limits in (
        engine.Limits(nodes=2000),
        engine.Limits(depth=8, nodes=100),
        engine.Limits(movetime_ms=50),
        engine.Limits(time_control=tc, time_margin_ms=0),
        engine.Limits(time_control=tc, nodes=5000),
    ):
        data = limits.to_json()
        assert engine.Limits.from_json(json.loads(json.dumps(data))) == limits
        assert pickle.loads(pickle.dumps(limits)) == limits
    assert engine.Limits(nodes=2000).to_json() == {"nodes": 2000}  # stored runs keep their fingerprints
    assert str(engine.Limits(time_control=tc, nodes=5000)) == "5000 nodes, tc 40/60+0.5"
    assert engine.Limits(nodes=2000).replace(nodes=None, depth=3) == engine.Limits(depth=3)
    assert not engine.Limits(time_control=tc).deterministic and engine.Limits(depth=3).deterministic


def test_play_game_needs_limits() -> None:
    with pytest.raises(TypeError):
        engine.play_game("congo", None, None, CONGO_START)  # type: ignore[call-arg]


def test_play_game_bad_game_or_opening() -> None:
    with pytest.raises(ValueError, match="unknown game"):
        engine.play_game("chess", None, None, CONGO_START, engine.Limits(depth=1))
    with pytest.raises(engine.InvalidPositionError):
        engine.play_game("congress", None, None, CONGO_START, engine.Limits(depth=1))


# --- bench --------------------------------------------------------------------------------------


def test_bench_is_deterministic() -> None:
    nodes, seconds = engine.bench("congress", 5)
    assert engine.bench("congress", 5)[0] == nodes > 0
    assert seconds >= 0
    assert engine.bench("congress", 4)[0] < nodes
    assert isinstance(engine.BENCH_DEPTH, int) and engine.BENCH_DEPTH > 5

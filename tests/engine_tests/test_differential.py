"""Differential tests: the Rust engine against the independent pure-Python rules oracle.

Seeded, capture-biased random playouts are recorded by the oracle (tests/rules_oracle) and
replayed through the engine; at every position the legal move sets, the position string
after each move, the outcome and the hash must agree. Mirror symmetry is checked on the
engine for the rules pages' positions and for a sample of playout positions.
"""

from __future__ import annotations

import functools
import random
from types import ModuleType

import pytest
from rules_oracle import congo, congress, playouts
from rules_oracle import reference as ref

import engine

ORACLES: dict[str, ModuleType] = {"congo": congo, "congress": congress}

# Start positions of the playouts: the rules pages' positions, the full-board ones weighted up.
STARTS = {
    "congo": [ref.CONGO_START] * 3
    + [ref.CONGO_SECOND] * 2
    + [fen for fen, _ in ref.CONGO_ISOLATING]
    + [fen for fen in ref.CONGO_RULINGS if fen != ref.CONGO_STUCK],
    "congress": [ref.CONGRESS_START] * 3
    + [ref.CONGRESS_TRAP_POSITION, congress.mirror(ref.CONGRESS_START)]
    + [fen for fen in ref.CONGRESS_RULINGS if congress.legal_moves(congress.parse(fen))],
}
SEEDS = {"congo": 20240601, "congress": 20240602}
MIN_POSITIONS = 4000
EVENTS = {"congo": ref.CONGO_EVENTS, "congress": ref.CONGRESS_EVENTS}
MAX_REPORTED = 10


# Playout styles: (capture bias, ply cap, positions). "captures" reaches the rare rules
# (chains, drowning, promotion, lost kings); "quiet" reaches long, crowded middlegames.
STYLES = {"captures": (0.7, 150, MIN_POSITIONS), "quiet": (0.2, 200, 2000)}


@functools.cache
def recorded_games(game: str, style: str = "captures") -> tuple[playouts.Game, ...]:
    """The oracle's seeded playouts for `game` (computed once per session)."""
    bias, max_plies, positions = STYLES[style]
    seed = SEEDS[game] + (0 if style == "captures" else 1000)
    return tuple(playouts.random_games(ORACLES[game], STARTS[game], seed, positions, bias, max_plies))


def engine_outcome(position: engine.Position) -> tuple[str, str] | None:
    """The engine's outcome as (winner, reason), or None."""
    result = position.outcome()
    if result is None:
        return None
    return (result.winner, result.reason)


def move_set_diff(fen: str, engine_moves: list[str], oracle_moves: frozenset[str]) -> str | None:
    """A readable description of a legal-move disagreement, or None when they agree."""
    problems = []
    if len(engine_moves) != len(set(engine_moves)):
        dupes = sorted({m for m in engine_moves if engine_moves.count(m) > 1})
        problems.append(f"engine lists duplicates {dupes}")
    only_engine = sorted(set(engine_moves) - oracle_moves)
    only_oracle = sorted(oracle_moves - set(engine_moves))
    if only_engine:
        problems.append(f"only engine: {only_engine}")
    if only_oracle:
        problems.append(f"only oracle: {only_oracle}")
    if not problems:
        return None
    return f"{fen}: " + "; ".join(problems)


def assert_no_failures(failures: list[str], what: str) -> None:
    """Fail with the first few disagreements listed."""
    shown = "\n  ".join(failures[:MAX_REPORTED])
    assert not failures, f"{len(failures)} {what} disagreements, first ones:\n  {shown}"


# ---------------------------------------------------------------- basics


def test_games_listed() -> None:
    assert set(engine.GAMES) == {"congo", "congress"}


@pytest.mark.parametrize("game", ["congo", "congress"])
def test_start_position_agrees(game: str) -> None:
    oracle = ORACLES[game]
    position = engine.Position.start(game)
    assert position.game == game
    assert position.turn == "white"
    assert position.fen() == oracle.START
    state = oracle.parse(oracle.START)
    assert sorted(position.legal_moves()) == sorted(oracle.legal_moves(state))


@pytest.mark.parametrize("game", ["congo", "congress"])
def test_reference_positions_agree(game: str) -> None:
    oracle = ORACLES[game]
    positions = ref.CONGO_REFERENCE if game == "congo" else ref.CONGRESS_REFERENCE
    failures = []
    for fen in positions:
        position = engine.Position.from_fen(game, fen)
        state = oracle.parse(fen)
        assert position.fen() == oracle.fen(state) == fen
        for depth in (1, 2, 3):
            if position.perft(depth) != oracle.perft(state, depth):
                failures.append(f"{fen} perft({depth}): engine {position.perft(depth)}")
    assert_no_failures(failures, "perft")


@pytest.mark.parametrize(
    ("game", "text"),
    [("congo", t) for t in ref.CONGO_MALFORMED] + [("congress", t) for t in ref.CONGRESS_MALFORMED],
)
def test_engine_rejects_malformed_positions(game: str, text: str) -> None:
    with pytest.raises(ValueError):
        ORACLES[game].parse(text)
    with pytest.raises(ValueError):
        engine.Position.from_fen(game, text)


@pytest.mark.parametrize(
    ("game", "fen"),
    [("congo", f) for f in ref.CONGO_RULINGS] + [("congress", f) for f in ref.CONGRESS_RULINGS],
)
def test_ruling_positions_agree(game: str, fen: str) -> None:
    """Hand-made one-rule positions: moves, every child position, outcome and perft agree."""
    oracle = ORACLES[game]
    state = oracle.parse(fen)
    position = engine.Position.from_fen(game, fen)
    assert position.fen() == fen
    assert move_set_diff(fen, position.legal_moves(), frozenset(oracle.legal_moves(state))) is None
    for move, child, _ in oracle.children(state):
        assert position.play(move).fen() == oracle.fen(child), (fen, move)
        assert engine_outcome(position.play(move)) == oracle.outcome(child), (fen, move)
    assert engine_outcome(position) == oracle.outcome(state)
    for depth in (1, 2, 3):
        assert position.perft(depth) == oracle.perft(state, depth), (fen, depth)


@pytest.mark.parametrize(
    ("game", "move"),
    [("congo", m) for m in ["d2d5", "d1d2", "a1", "", "zz99", "d2d3d4", "h1h2"]]
    + [("congress", m) for m in ["b2b4", "d1e1", "a1a2", "", "b2", "i1i2", "g1h2h3"]],
)
def test_engine_refuses_what_the_oracle_refuses(game: str, move: str) -> None:
    oracle = ORACLES[game]
    with pytest.raises(ValueError):
        oracle.play(oracle.parse(oracle.START), move)
    with pytest.raises((engine.IllegalMoveError, engine.InvalidMoveError)):
        engine.Position.start(game).play(move)


def test_engine_move_errors_are_value_errors() -> None:
    assert issubclass(engine.IllegalMoveError, ValueError)
    assert issubclass(engine.InvalidMoveError, ValueError)


# ---------------------------------------------------------------- playouts


@pytest.mark.parametrize("game", ["congo", "congress"])
def test_playouts_cover_every_rule(game: str) -> None:
    games = recorded_games(game)
    positions = sum(len(g.plies) + 1 for g in games)
    assert positions >= 2000
    missing = EVENTS[game] - playouts.all_events(list(games))
    assert not missing, f"playouts never produced {sorted(missing)}"
    starts = {g.start for g in games}
    assert set(STARTS[game]) <= starts
    if game == "congress":
        reasons = {g.final_outcome[1] for g in games if g.final_outcome}
        assert reasons == {"kings_captured", "no_legal_move"}
    else:
        assert any(g.final_outcome and g.final_outcome[1] == "lion_captured" for g in games)


@pytest.mark.parametrize("style", sorted(STYLES))
@pytest.mark.parametrize("game", ["congo", "congress"])
def test_playouts_agree_move_by_move(game: str, style: str) -> None:
    """Replay every recorded game through the engine, comparing every position."""
    failures: list[str] = []
    compared = 0
    for recorded in recorded_games(game, style):
        position = engine.Position.from_fen(game, recorded.start)
        previous_legal: frozenset[str] = frozenset()
        for ply in recorded.plies:
            compared += 1
            if position.fen() != ply.fen:
                failures.append(f"position string: engine {position.fen()!r}, oracle {ply.fen!r}")
                break
            expected_turn = "white" if ply.fen.endswith(" w") else "black"
            if position.turn != expected_turn:
                failures.append(f"{ply.fen}: engine turn {position.turn}")
            diff = move_set_diff(ply.fen, position.legal_moves(), ply.legal)
            if diff:
                failures.append(diff)
            if engine_outcome(position) is not None:
                failures.append(f"{ply.fen}: engine outcome {engine_outcome(position)}, oracle None")
            reparsed = engine.Position.from_fen(game, ply.fen)
            if reparsed.hash != position.hash:
                failures.append(f"{ply.fen}: hash after play differs from hash after from_fen")
            # a move that was legal one ply earlier but is not legal here must be refused
            stale = sorted(previous_legal - ply.legal)
            if stale:
                try:
                    position.play(stale[0])
                except ValueError:
                    pass
                else:
                    failures.append(f"{ply.fen}: engine accepted illegal move {stale[0]}")
            previous_legal = ply.legal
            # every legal move, not only the one played, leads to the same position
            for move, fen_after in ply.successors:
                try:
                    child = position.play(move)
                except ValueError as error:
                    failures.append(f"{ply.fen}: engine refused {move} ({error})")
                    continue
                if child.fen() != fen_after:
                    failures.append(f"{ply.fen} + {move}: engine {child.fen()!r}, oracle {fen_after!r}")
            try:
                position = position.play(ply.move)
            except ValueError as error:
                failures.append(f"{ply.fen}: engine refused {ply.move} ({error})")
                break
            if position.fen() != ply.fen_after:
                failures.append(
                    f"{ply.fen} + {ply.move}: engine {position.fen()!r}, oracle {ply.fen_after!r}"
                )
                break
        else:
            compared += 1
            diff = move_set_diff(recorded.final_fen, position.legal_moves(), recorded.final_legal)
            if diff:
                failures.append(diff)
            if engine_outcome(position) != recorded.final_outcome:
                failures.append(
                    f"{recorded.final_fen}: engine outcome {engine_outcome(position)}, "
                    f"oracle {recorded.final_outcome}"
                )
    assert compared >= 2000
    assert_no_failures(failures, f"{game} playout")


def test_congo_engine_accepts_mindsports_move_forms() -> None:
    """'b1-d3-f5-d7x' style moves mean the same as the compact form."""
    checked = 0
    for recorded in recorded_games("congo"):
        for ply in recorded.plies:
            if "monkey_jump" not in ply.events:
                continue
            squares = [ply.move[i : i + 2] for i in range(0, len(ply.move), 2)]
            dashed = "-".join(squares) + "x"
            position = engine.Position.from_fen("congo", ply.fen)
            assert position.play(dashed).fen() == ply.fen_after, (ply.fen, dashed)
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("game", ["congo", "congress"])
def test_engine_perft_matches_oracle_on_sample(game: str) -> None:
    oracle = ORACLES[game]
    rng = random.Random(SEEDS[game] + 1)
    fens = sorted({ply.fen for g in recorded_games(game) for ply in g.plies})
    failures = []
    for fen in rng.sample(fens, 60):
        expected = oracle.perft(oracle.parse(fen), 2)
        got = engine.Position.from_fen(game, fen).perft(2)
        if got != expected:
            failures.append(f"{fen} perft(2): engine {got}, oracle {expected}")
    assert_no_failures(failures, f"{game} perft")


# ---------------------------------------------------------------- mirror symmetry


@pytest.mark.parametrize(
    ("game", "fen"),
    [("congo", f) for f in ref.CONGO_REFERENCE] + [("congress", f) for f in ref.CONGRESS_REFERENCE],
)
def test_engine_mirror_symmetry_reference(game: str, fen: str) -> None:
    mirrored = ORACLES[game].mirror(fen)
    original = engine.Position.from_fen(game, fen)
    reflected = engine.Position.from_fen(game, mirrored)
    assert reflected.fen() == mirrored
    for depth in (1, 2, 3, 4):
        assert reflected.perft(depth) == original.perft(depth), (fen, mirrored, depth)


@pytest.mark.parametrize("game", ["congo", "congress"])
def test_engine_mirror_symmetry_random_positions(game: str) -> None:
    oracle = ORACLES[game]
    rng = random.Random(SEEDS[game] + 2)
    fens = sorted({ply.fen for g in recorded_games(game) for ply in g.plies})
    failures = []
    for fen in rng.sample(fens, 200):
        mirrored = oracle.mirror(fen)
        original = engine.Position.from_fen(game, fen)
        reflected = engine.Position.from_fen(game, mirrored)
        for depth in (1, 2, 3):
            if reflected.perft(depth) != original.perft(depth):
                failures.append(
                    f"{fen} vs {mirrored} perft({depth}): {original.perft(depth)} / {reflected.perft(depth)}"
                )
                break
    assert_no_failures(failures, f"{game} mirror")

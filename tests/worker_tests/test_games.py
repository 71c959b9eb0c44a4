"""worker.games: a batch of pairs with the real engine, the counts, and the result validation."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import orjson
import pytest
from sprt_testkit import book_positions

import engine
from coordinator.store.results import CheckedResult
from coordinator.trust.answers import check_answer
from wire.programs import EngineProgram
from wire.protocol import BatchPayload, BatchResult, ResultReport
from wire.tally import candidate_score, tally
from worker.games import play_batch

GAME = "congo"


def payload(openings: list[str], **overrides: Any) -> BatchPayload:
    """A small valid batch payload: default baseline, a candidate with a different pawn value."""
    base = {
        "run_id": 7,
        "batch_index": 3,
        "game": GAME,
        "candidate": {"pawn": 140},
        "baseline": None,
        "openings": openings,
        "limits": engine.Limits(nodes=300),
        "adjudication": engine.Adjudication(max_plies=200, repetition=True, bare_lions=True),
        "seed": 11,
        "engine_version": engine.ENGINE_VERSION,
    }
    return BatchPayload(**(base | overrides))


def as_read(result: Any) -> list[Any]:
    """``result`` in each form the coordinator reads: as Python objects (a local pool's), and read
    from its JSON text with its records kept in the rules core (a Celery answer's,
    ``engine.read_answer``) when it can be written as JSON."""
    try:
        text = orjson.dumps(result).decode()
    except TypeError:  # a string that is not Unicode: no JSON text holds it
        return [result]
    return [result, engine.read_answer(text)]


def validate_result(result: Any, sent: BatchPayload) -> None:
    """What the coordinator does with a result: parse it, match it to the payload, replay it;
    in each form it reads a result, with the same outcome and message."""
    errors = []
    for answer in as_read(result):
        try:
            check_answer(ResultReport.from_json(answer), sent)
            errors.append("")
        except ValueError as e:
            errors.append(str(e))
    assert len(set(errors)) == 1, errors
    if errors[0]:
        raise ValueError(errors[0])


@pytest.fixture(scope="module")
def batch() -> tuple[BatchPayload, dict[str, Any]]:
    """A played batch of three pairs and its payload."""
    sent = payload(book_positions(GAME, 3))
    return sent, play_batch(sent).to_json()


def test_candidate_score_by_colour() -> None:
    assert candidate_score("1-0", "white") == 1.0
    assert candidate_score("1-0", "black") == 0.0
    assert candidate_score("0-1", "black") == 1.0
    assert candidate_score("1/2-1/2", "white") == 0.5


def test_tally_pentanomial_from_pairs() -> None:
    records = [
        {"result": "1-0", "candidate_color": "white"},  # W
        {"result": "1-0", "candidate_color": "black"},  # L  -> WL
        {"result": "0-1", "candidate_color": "white"},  # L
        {"result": "0-1", "candidate_color": "black"},  # W  -> WL
        {"result": "1-0", "candidate_color": "white"},  # W
        {"result": "1/2-1/2", "candidate_color": "black"},  # D  -> WD
        {"result": "0-1", "candidate_color": "white"},  # L
        {"result": "1-0", "candidate_color": "black"},  # L  -> LL
    ]
    assert tally(records) == ([1, 0, 2, 1, 0], [3, 1, 4])


def test_play_batch_counts_with_the_engine(batch: tuple[BatchPayload, dict[str, Any]]) -> None:
    sent, result = batch
    json.dumps(result)  # JSON-safe
    assert result["run_id"] == 7 and result["batch_index"] == 3
    assert result["engine_version"] == engine.ENGINE_VERSION
    assert sum(result["pentanomial"]) == 3
    assert sum(result["wdl"]) == 6
    games = result["games"]
    assert [g["candidate_color"] for g in games] == ["white", "black"] * 3
    assert [g["opening"] for g in games] == [o for o in sent.openings for _ in range(2)]
    assert (result["pentanomial"], result["wdl"]) == tally(games)
    assert all(g["result"] in ("1-0", "0-1", "1/2-1/2") and g["moves"] for g in games)
    assert result["nodes"]["candidate"] > 0 and result["nodes"]["baseline"] > 0
    assert result["cpu_seconds"] >= 0
    host, pid = result["worker"].rsplit(":", 1)
    assert host and pid.isdigit()
    validate_result(result, sent)


def test_play_batch_is_deterministic_with_node_limits(batch: tuple[BatchPayload, dict[str, Any]]) -> None:
    sent, result = batch
    again = play_batch(sent).to_json()
    assert again["games"] == result["games"]
    assert again["pentanomial"] == result["pentanomial"]


def test_play_batch_refuses_another_engine_version() -> None:
    with pytest.raises(ValueError, match="engine version"):
        play_batch(payload(book_positions(GAME, 1), engine_version="0.0.0-other"))


def test_a_payload_without_openings_is_refused() -> None:
    with pytest.raises(ValueError, match="openings"):
        BatchPayload.from_json(payload([]).to_json())


def forged(result: dict[str, Any], **changes: Any) -> dict[str, Any]:
    """A deep copy of ``result`` with some fields replaced."""
    return copy.deepcopy(result) | changes


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"pentanomial": [0, 0, 0, 0, 4]}, "pentanomial: counts add up to 4, expected 3"),
        ({"wdl": [6, 0, 0]}, "wdl"),
        ({"engine_version": "9.9.9"}, "engine_version"),
        ({"run_id": 8}, "run_id"),
        ({"batch_index": 4}, "batch_index"),
        ({"pentanomial": [-1, 0, 2, 1, 1]}, "non-negative"),
        ({"games": []}, "expected 6 game records"),
    ],
)
def test_validate_result_refuses_forgeries(
    batch: tuple[BatchPayload, dict[str, Any]], change: dict[str, Any], message: str
) -> None:
    _, result = batch
    with pytest.raises(ValueError, match=message.replace("[", r"\[")):
        validate_result(forged(result, **change), batch[0])


def test_validate_result_refuses_counts_that_disagree_with_the_records(
    batch: tuple[BatchPayload, dict[str, Any]],
) -> None:
    _, result = batch
    fake = forged(result)
    # Move one pair from its true cell to another: totals still add up, records disagree.
    cell = next(i for i, n in enumerate(fake["pentanomial"]) if n > 0)
    fake["pentanomial"][cell] -= 1
    fake["pentanomial"][(cell + 1) % 5] += 1
    with pytest.raises(ValueError, match="does not match the game records"):
        validate_result(fake, batch[0])


def test_validate_result_checks_openings_and_moves(batch: tuple[BatchPayload, dict[str, Any]]) -> None:
    sent, result = batch
    other = list(reversed(sent.openings))
    if other != sent.openings:
        with pytest.raises(ValueError, match="opening differs"):
            validate_result(result, dataclasses.replace(sent, openings=other))
    fake = forged(result)
    fake["games"][0]["moves"] = "zz9zz9 " + fake["games"][0]["moves"]
    with pytest.raises(ValueError, match=r"games\[0\]: ply 1"):
        validate_result(fake, sent)


@pytest.mark.parametrize(
    ("moves", "message"),
    [
        (["d2d3", "e6e5"], "moves: expected a string, got list"),
        (" d2d3", "separated by single spaces"),
        ("d2d3  e6e5", "separated by single spaces"),
        ("d2d3 ", "separated by single spaces"),
        ("d2d3\ne6e5", "ply 1: invalid move"),
        ("x" * 1_000_001, "longer than"),
    ],
)
def test_moves_must_be_one_string_of_moves_separated_by_single_spaces(
    batch: tuple[BatchPayload, dict[str, Any]], moves: Any, message: str
) -> None:
    sent, result = batch
    fake = forged(result)
    fake["games"][0]["moves"] = moves
    with pytest.raises(ValueError, match=message):
        validate_result(fake, sent)


def test_validate_result_refuses_a_non_dict() -> None:
    with pytest.raises(ValueError, match="expected a JSON object"):
        validate_result(["not", "a", "result"], payload(book_positions(GAME, 1)))


def with_crash(result: dict[str, Any], side: str | None) -> dict[str, Any]:
    """``result`` with its first game lost at once by the candidate (white) to a crash, the
    counts made to agree, and a fault for it naming ``side`` (None: no fault)."""
    fake = forged(result)
    fake["games"][0] |= {"moves": "", "result": "0-1", "reason": "crash"}
    pentanomial, wdl = tally(BatchResult.from_json(fake).games)
    fake |= {"pentanomial": pentanomial, "wdl": wdl}
    fault = {"game": 0, "side": side, "reason": "crashed: signal 11", "stderr": []}
    return fake | {"faults": [] if side is None else [fault]}


def test_faults_and_engine_ids_must_fit_the_batch(batch: tuple[BatchPayload, dict[str, Any]]) -> None:
    sent, result = batch
    program = EngineProgram(name="p", digest="0" * 64, command=("./p",))
    with_program = dataclasses.replace(sent, candidate_program=program)
    ids = {"candidate": {"name": "plain 1.0", "author": None}}
    validate_result(with_crash(result, "candidate") | {"engines": ids}, with_program)
    two_times = forged(result)
    two_times["games"][1]["times"] = "12 34"  # a move's time for fewer (or more) moves than played
    with pytest.raises(ValueError, match=r"games\[1\]: times: expected one per move"):
        validate_result(two_times, sent)
    with pytest.raises(ValueError, match="reported for a batch that no engine program plays"):
        validate_result(forged(result, engines=ids), sent)
    for fake, message in [
        (with_crash(result, "baseline"), "the baseline did not lose game 0"),
        (with_crash(result, None), r"games\[0\]: lost by a fault that the result does not report"),
        (
            forged(result, faults=[{"game": 1, "side": "candidate", "reason": "x", "stderr": []}]),
            "not by a fault",
        ),
        (
            forged(result, engines={"candidate": {"name": "x" * 129, "author": None}}),
            "engines.candidate.name",
        ),
        (forged(result, engines={"referee": {"name": "x", "author": None}}), "unknown field"),
    ]:
        with pytest.raises(ValueError, match=message):
            validate_result(fake, with_program)


@pytest.mark.parametrize(
    ("game", "change"),
    [
        (2, ["not", "a", "record"]),
        (0, {"budgets": None, "times": None}),
        (0, {"zz": 1, "aa": 2}),
        (0, {"result": 3}),
        (1, {"result": "won"}),
        (0, {"candidate_color": "red"}),
        (0, {"candidate_color": None}),
        (0, {"opening": 5}),
        (0, {"opening": "é" * 257}),
        (0, {"reason": "r" * 33}),
        (0, {"moves": None}),
        (3, {"budgets": "01"}),
        (0, {"times": "1 x"}),
        (0, {"times": "1" + " 1" * 500}),
    ],
)
def test_records_are_refused_as_the_wire_check_refuses_them(
    batch: tuple[BatchPayload, dict[str, Any]], game: int, change: Any
) -> None:
    """The coordinator's check of the records (in the rules core) names a bad record exactly as
    :meth:`GameRecord.from_json` does."""
    sent, result = batch
    fake = forged(result)
    if isinstance(change, dict):
        record = fake["games"][game] | change
        fake["games"][game] = {
            k: v for k, v in record.items() if v is not None or k not in ("budgets", "times")
        }
    else:
        fake["games"][game] = change
    with pytest.raises(ValueError) as wire:
        BatchResult.from_json(fake)
    with pytest.raises(ValueError) as coordinator:
        validate_result(fake, sent)
    assert str(coordinator.value) == str(wire.value)


def test_a_result_of_any_kind_of_value_is_refused_with_a_message(
    batch: tuple[BatchPayload, dict[str, Any]],
) -> None:
    sent, result = batch
    fake = forged(result)
    fake["games"][0]["result"] = []  # unhashable: no TypeError
    with pytest.raises(ValueError, match=r"games\[0\]: result \[\] is not one of 1-0, 0-1, 1/2-1/2"):
        validate_result(fake, sent)


def test_the_checked_records_are_stored_as_the_wire_writes_them(
    batch: tuple[BatchPayload, dict[str, Any]],
) -> None:
    sent, result = batch
    timed = forged(result)
    timed["games"][0] |= {
        "budgets": "10 20",
        "times": " ".join(["7"] * (timed["games"][0]["moves"].count(" ") + 1)),
    }
    for answer, read in [(a, r) for a in (result, timed) for r in as_read(a)]:
        checked = check_answer(ResultReport.from_json(read), sent)
        made = CheckedResult.tallied(BatchResult.from_json(read))
        assert (checked.pentanomial, checked.wdl, checked.records) == (
            made.pentanomial,
            made.wdl,
            made.records,
        )
        assert json.loads(checked.records)[0][:5] == [*list(answer["games"][0].values())[:5]]


@pytest.mark.parametrize("field", ["moves", "reason", "result"])
def test_a_string_that_is_not_unicode_is_refused_with_a_message(
    batch: tuple[BatchPayload, dict[str, Any]], field: str
) -> None:
    sent, result = batch
    fake = forged(result)
    fake["games"][1][field] = "d2d3\ud800"  # a lone surrogate: what json (not orjson) can decode
    with pytest.raises(ValueError, match=r"games\[1\]: "):
        validate_result(fake, sent)

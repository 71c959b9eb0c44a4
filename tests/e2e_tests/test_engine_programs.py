"""Engine programs as sides of a match, as a user runs them on the local pool: an engine file for
arbiter-engine against the built-in engine (the same counts every time), the faulty test engine
losing each game it breaks with its reason (and no batch lost), SPSA over a program's spin
options, and bad engine files refused in one line before the store is touched."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from engine_testkit import arbiter_engine_file, python_engine_file
from sprt_testkit import run_cli, status_json

import engine
from wire.programs import files_digest
from worker.programs import ProgramCache

#: The faulty engine's games: each move stops at 300 nodes, within a second a move (and the
#: referee's margin), so a hang ends in about a second and no move of a busy machine is late.
LIMITS = ("--nodes", "300", "--movetime", "1000")
#: Wide bounds: runs end at their budgets.
SPRT_ARGS = ("--elo0", "-50", "--elo1", "50", "--alpha", "0.001", "--beta", "0.001")


def status(db: Path, run: int = 1) -> dict[str, Any]:
    return status_json(f"sqlite:///{db}", run)


def stored_games(db: Path) -> list[list[Any]]:
    """Every stored game record of a store, in batch order."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        rows = c.execute("SELECT games FROM batch_games ORDER BY run_id, batch_index").fetchall()
    return [game for (games,) in rows for game in json.loads(games)]


def test_a_program_against_the_built_in_engine_plays_the_same_games_every_time(tmp_path: Path) -> None:
    candidate = arbiter_engine_file(tmp_path / "ae", options="congo_pawn = 140\n")
    runs = []
    for name in ("one", "two"):
        db = tmp_path / f"{name}.db"
        done = run_cli(
            "sprt", "congo", "--candidate", str(candidate), "--nodes", "300", "--max-games", "16",
            "--batch-pairs", "4", "--seed", "5", *SPRT_ARGS, "--store", f"sqlite:///{db}",
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        runs.append((status(db), stored_games(db)))
    (first, games), (second, again) = runs
    assert first["games"] == second["games"] == 16 and first["pentanomial"] == second["pentanomial"]
    assert [g[:5] for g in games] == [g[:5] for g in again] and len(games) == 16
    for _opening, moves, *_, budgets, times in games:  # each move's time, and no budget without a clock
        assert budgets == "" and len(times.split()) == len(moves.split())
    assert {game[3] for game in games} <= {
        "lion_captured",
        "no_legal_move",
        "repetition",
        "bare_lions",
        "ply_limit",
    }


@pytest.mark.parametrize(
    ("fault", "reason", "says"),
    [
        ("crash", "crash", "crashed: signal"),
        ("exit", "crash", "crashed: exit status 1"),
        ("illegal", "illegal_move", "illegal move"),
        ("garbage", "illegal_move", "illegal move xyz"),
        ("hang", "hang", "hang"),
        ("flood", "protocol", "protocol violation: more than 1048576 bytes"),
        ("bestmove_none", "protocol", "protocol violation: bestmove (none)"),
    ],
)
def test_every_fault_is_a_loss_with_its_reason(tmp_path: Path, fault: str, reason: str, says: str) -> None:
    faulty = python_engine_file(
        tmp_path / "faulty",
        "faulty_engine.py",
        ["--fault", fault, "--fault-ply", "2"],
        name=f"faulty-{fault}",
    )
    db = tmp_path / "store.db"
    done = run_cli(
        "sprt", "congress", "--candidate", str(faulty), *LIMITS, "--max-games", "4",
        "--batch-pairs", "2", *SPRT_ARGS, "--store", f"sqlite:///{db}",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert status(db)["games"] == 4, "no batch lost"
    games = stored_games(db)
    assert len(games) == 4
    for _opening, moves, result, game_reason, candidate_color, *_ in games:
        assert game_reason == reason, (fault, game_reason, moves)
        candidate_lost = result == ("0-1" if candidate_color == "white" else "1-0")
        assert candidate_lost, (fault, result, candidate_color)
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        details = [json.loads(d) for (d,) in c.execute("SELECT details FROM results") if d]
    faults = [f for d in details for f in d.get("faults", [])]
    assert len(faults) == 4 and all(f["side"] == "candidate" and says in f["reason"] for f in faults), faults


def test_status_report_and_pgn_show_the_engines_times_and_faults(tmp_path: Path) -> None:
    faulty = python_engine_file(
        tmp_path / "faulty", "faulty_engine.py", ["--fault", "crash", "--fault-ply", "2"], name="faulty-crash"
    )
    db = tmp_path / "store.db"
    store = ("--store", f"sqlite:///{db}")
    done = run_cli(
        "sprt", "congress", "--candidate", str(faulty), *LIMITS, "--max-games", "2",
        "--batch-pairs", "1", *SPRT_ARGS, *store,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    engines = status(db)["engines"]
    candidate, baseline = engines["sides"]["candidate"], engines["sides"]["baseline"]
    assert (candidate["name"], candidate["kind"], candidate["version"]) == (
        "faulty-crash",
        "program",
        "plain by arbiter tests",
    )
    assert baseline["kind"] == "built-in" and baseline["version"].startswith("built in")
    # one version of the built-in engine everywhere, also where it played as arbiter-engine
    assert baseline["version"] == f"built in, engine version {engine.ENGINE_VERSION}"
    assert [r["name"] for r in baseline["reported"]] == [f"arbiter-engine {engine.ENGINE_VERSION}"]
    assert (
        candidate["faults"]["crash"] == candidate["faults"]["total"] == 2 and baseline["faults"]["total"] == 0
    )
    assert candidate["faults"]["last"]["reason"].startswith("crashed: signal")
    assert engines["time_control"] == "1/move" and engines["timed"]
    [worker] = engines["workers"]
    assert 0.1 <= worker["time_factor"] <= 10 and worker["faults"]["total"] == 2
    text = run_cli("status", "1", *store)
    assert text.returncode == 0, text.stderr
    assert "candidate: faulty-crash [program]; version: plain by arbiter tests" in text.stdout
    assert "faults of the candidate: 2 (crashes 2); last: crashed: signal" in text.stdout
    assert f"worker {worker['worker']}: time factor {worker['time_factor']:.2f}" in text.stdout
    report = json.loads(run_cli("report", "1", "--json", *store).stdout)
    times = report["engines"]["move_times"]
    assert times["candidate"]["moves"] >= 2 and times["baseline"]["moves"] >= 2  # two moves before its crash
    assert report["workers"]["workers"][0]["time_factor"] == worker["time_factor"]
    pgn = run_cli("games", "1", *store)
    assert pgn.returncode == 0, pgn.stderr
    assert '[White "faulty-crash"]' in pgn.stdout and '[Black "arbiter (default)"]' in pgn.stdout
    # what was played: the second a move scaled by the worker's time factor (and the factor)
    played = f"{round(1000 * worker['time_factor']) / 1000:g}/move"
    assert f'[TimeControl "{played}"]' in pgn.stdout, (played, pgn.stdout[:600])
    assert worker["time_factor"] == 1.0 or f'[TimeFactor "{worker["time_factor"]:g}"]' in pgn.stdout
    assert '[CandidateVersion "plain by arbiter tests"]' in pgn.stdout
    assert pgn.stdout.count("[%emt 0:00:") == times["candidate"]["moves"] + times["baseline"]["moves"]
    # Fault reasons are selectable, and exports carry the full reason beside the record's short one.
    crashes = run_cli("games", "1", "--reason", "crash", "--format", "jsonl", *store)
    assert crashes.returncode == 0, crashes.stderr
    lines = [json.loads(line) for line in crashes.stdout.splitlines()]
    assert len(lines) == 2 and all(g["record"]["reason"] == "crash" for g in lines)
    assert all(g["fault"].startswith("crashed: signal") for g in lines), lines
    assert pgn.stdout.count('[Reason "crash"]') == pgn.stdout.count('[Fault "crashed: signal') == 2
    assert run_cli("games", "1", "--reason", "repetition", *store).stdout == ""


def test_spsa_tunes_a_programs_spin_options(tmp_path: Path) -> None:
    engine_file = arbiter_engine_file(tmp_path / "ae")
    champion = tmp_path / "champion.json"
    done = run_cli(
        "tune", "congress", "--candidate", str(engine_file), "--params", "congress_pawn,congress_mobility",
        "--nodes", "200", "--max-games", "32", "--batch-pairs", "4", "--accept-max-games", "16",
        "--store", f"sqlite:///{tmp_path / 'tune.db'}", "-o", str(champion),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    values = json.loads(champion.read_text())
    assert {"congress_pawn", "congress_mobility", "Hash"} <= set(values) or {"congress_pawn"} <= set(values)
    assert "congress_pawn" in done.stdout and "theta" in done.stdout
    wrong = run_cli(
        "tune", "congress", "--candidate", str(engine_file), "--params", "pawn", "--store", "sqlite://"
    )
    assert wrong.returncode == 2 and "'pawn' is not a spin option of arbiter-engine" in wrong.stderr


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('command = ["./missing"]\n', "command: expected a file of the program's folder"),
        ('name = "x"\n', "command: expected the program and its arguments"),
        (
            'command = "python3 x.py"\nfiles = ["../outside"]\n',
            "files: expected files inside the program's folder",
        ),
        ('command = ["./arbiter-engine"]\ncolour = "red"\n', "unknown key 'colour'"),
        ('command = ["./arbiter-engine"]\nhash = "12"\n', "hash: expected the 64 hex digits"),
        ('command = ["./arbiter-engine"\n', "not TOML"),
        ('command = ["./arbiter-engine"]\nx = ' + "[" * 100_000 + "\n", "not TOML"),  # too deep to parse
        ('command = ["./arbiter-engine"]\n[options]\nUCI_Variant = "congo"\n', "no UCI_Variant"),
    ],
)
def test_bad_engine_files_are_one_line_and_status_2(tmp_path: Path, text: str, says: str) -> None:
    arbiter_engine_file(tmp_path)  # the program itself is there
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    db = tmp_path / "store.db"
    done = run_cli("sprt", "congo", "--candidate", str(bad), "--max-games", "4", "--store", f"sqlite:///{db}")
    assert done.returncode == 2, done
    assert done.stderr.count("\n") == 1 and says in done.stderr and "Traceback" not in done.stderr, (
        done.stderr
    )
    assert not db.exists()


def test_a_changed_program_is_refused_by_its_hash(tmp_path: Path) -> None:
    engine_file = arbiter_engine_file(tmp_path)
    digest = files_digest(tmp_path, [tmp_path / "arbiter-engine"])
    engine_file.write_text(engine_file.read_text().replace("[options]", f'hash = "{digest}"\n[options]'))
    ok = run_cli("sprt", "congo", "--candidate", str(engine_file), "--nodes", "200", "--max-games", "4",
                 *SPRT_ARGS, "--store", f"sqlite:///{tmp_path / 'ok.db'}")  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    with (tmp_path / "arbiter-engine").open("ab") as program:
        program.write(b"\0")
    changed = run_cli(
        "sprt", "congo", "--candidate", str(engine_file), "--max-games", "4", "--store", "sqlite://"
    )
    assert changed.returncode == 2 and "the program's files changed since it was written" in changed.stderr


def test_programs_go_only_to_a_fleet_with_keys(tmp_path: Path) -> None:
    engine_file = arbiter_engine_file(tmp_path)
    done = run_cli(
        "sprt",
        "congo",
        "--candidate",
        str(engine_file),
        "--broker",
        "redis://127.0.0.1:1/0",
        "--store",
        "sqlite://",
    )
    assert done.returncode == 2 and "engine programs are sent only to a fleet with keys" in done.stderr


def test_a_cached_program_whose_files_changed_is_removed(tmp_path: Path) -> None:
    engine_file = arbiter_engine_file(tmp_path / "ae")
    from coordinator.sides.files import read_program
    from wire.programs import ProgramError

    program, archive = read_program(str(engine_file))
    cache = ProgramCache(tmp_path / "cache")
    folder = cache.install(program.digest, archive)
    (folder / "engine.log").write_text("an engine may write beside its files")
    assert cache.ready(program.digest, None) == folder
    (folder / "arbiter-engine").write_bytes(b"#!/bin/sh\necho pwned\n")
    with pytest.raises(ProgramError, match="its files on this machine changed"):
        cache.ready(program.digest, None)
    assert cache.ready(program.digest, lambda digest: archive) == folder  # fetched again


def test_openbench_parameters_and_a_champion_an_engine_file_includes(tmp_path: Path) -> None:
    engine_file = arbiter_engine_file(tmp_path / "ae", options="congress_pawn = 100\n")
    params = tmp_path / "params.txt"
    params.write_text(
        "congress_pawn, int, 90, 50, 150, 8, 0.002\ncongress_mobility, int, 4, 0, 20, 2, 0.002\n"
    )
    champion = tmp_path / "ae" / "champion.toml"
    done = run_cli(
        "tune", "congress", "--candidate", str(engine_file), "--spsa-params", str(params),
        "--nodes", "200", "--max-games", "32", "--batch-pairs", "4", "--accept-max-games", "16",
        "--store", f"sqlite:///{tmp_path / 'tune.db'}", "-o", str(champion),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "congress_pawn" in done.stdout and "90" in done.stdout  # the list's start value
    included = engine_file.read_text().replace("[options]", 'include = "champion.toml"\n[options]')
    engine_file.write_text(included)
    from coordinator.sides.files import load_engine_file

    options = load_engine_file(engine_file).options
    assert options["congress_pawn"] == 90 and options["Hash"] == 16  # the champion's value wins
    bad = tmp_path / "bad.txt"
    bad.write_text("nonsense, int, 1, 0, 4, 0.5, 0.002\n")
    wrong = run_cli(
        "tune", "congress", "--candidate", str(engine_file), "--spsa-params", str(bad), "--store", "sqlite://"
    )
    assert wrong.returncode == 2 and "'nonsense' is not a spin option of arbiter-engine" in wrong.stderr


def test_a_side_that_fails_its_handshake_stops_the_run_before_it_plays(tmp_path: Path) -> None:
    """Like cutechess, a run does not start with an engine that crashes before ``uciok`` (here a
    file missing from ``files``): one line saying why, with the engine's own last stderr line,
    status 2, and nothing stored."""
    broken = python_engine_file(tmp_path / "broken", "faulty_engine.py", [], name="broken")
    broken.write_text(broken.read_text().replace('"plain_engine.py", ', ""))
    db = tmp_path / "store.db"
    done = run_cli(
        "sprt", "congress", "--candidate", str(broken), *LIMITS, "--max-games", "4", *SPRT_ARGS,
        "--store", f"sqlite:///{db}",
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"{broken}: broken fails its handshake (crashed: exit status 1)" in lines[0]
    assert "ModuleNotFoundError: No module named 'plain_engine'" in lines[0]
    assert not db.exists()

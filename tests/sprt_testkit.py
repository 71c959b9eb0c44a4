"""Helpers shared by the match-play tests: small books, weights files and the ``arbiter`` CLI.

Not a test module; importable from every test folder because ``tests`` is on pytest's pythonpath.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import cli_fork

import engine
from wire.protocol import BatchResult, Color, GameRecord
from wire.tally import tally

#: Bound on any CLI call of the tests (seconds).
CLI_TIMEOUT = 240


def book_positions(game: str, count: int, seed: int = 1) -> list[str]:
    """``count`` distinct positions a few random plies from the start (deterministic)."""
    rng = random.Random(seed)
    seen: list[str] = []
    while len(seen) < count:
        position = engine.Position.start(game)
        for _ in range(rng.randint(2, 4)):
            position = position.play(rng.choice(position.legal_moves()))
        if position.outcome() is None and position.fen() not in seen:
            seen.append(position.fen())
    return seen


def write_book(path: Path, game: str, count: int = 12, seed: int = 1) -> Path:
    """A book file of ``count`` positions, with a comment and a blank line."""
    path.write_text("# test book\n\n" + "\n".join(book_positions(game, count, seed)) + "\n")
    return path


def write_weights(path: Path, weights: dict[str, Any]) -> Path:
    """A weights JSON file."""
    path.write_text(json.dumps(weights))
    return path


def cli_command(*args: str) -> list[str]:
    """argv that runs ``arbiter ARGS`` with this interpreter."""
    return [sys.executable, "-c", "from coordinator.cli.main import main; main()", *args]


def status_json(store_url: str, run_id: int) -> dict[str, Any]:
    """What ``arbiter status RUN --json --store URL`` prints, read in this process: tests whose
    subject is not the command save a process start (about 0.6 s of CPU) per look.
    test_sprt_cli.py and test_tune_cli.py check that the command prints the same."""
    from coordinator.reports.status import status_data
    from coordinator.store import Store

    store = Store(store_url, create=False)
    try:
        run = store.get_run(run_id)
        assert run is not None, f"no run {run_id} in {store_url}"
        return dict(json.loads(json.dumps(status_data(store, run), sort_keys=True)))
    finally:
        store.close()


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``arbiter ARGS`` to completion (bounded by :data:`CLI_TIMEOUT`), without
    ``$ARBITER_STORE``, in a process forked from one that has imported arbiter (``cli_fork``:
    0.5 s of CPU less per command than a new interpreter)."""
    return cli_fork.run(list(args), cwd, cli_env(), CLI_TIMEOUT)


def cli_env() -> dict[str, str]:
    """The tests' environment for a command: this one without ``$ARBITER_STORE``."""
    return {k: v for k, v in os.environ.items() if k != "ARBITER_STORE"}


def _run(argv: list[str], cwd: Path | None) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` to completion (bounded by :data:`CLI_TIMEOUT`), without ``$ARBITER_STORE``."""
    return subprocess.run(argv, capture_output=True, text=True, timeout=CLI_TIMEOUT, cwd=cwd, env=cli_env())


#: Runs ``arbiter`` with one function timed: argv[1:4] name its module, its name and the file that
#: gets each call's duration in seconds (a line per call).
TIMED_MAIN = """
import importlib, sys, time
module, name, record = sys.argv[1:4]
del sys.argv[1:4]
target = importlib.import_module(module)
original = getattr(target, name)
def timed(*args, **kwargs):
    started = time.monotonic()
    try:
        return original(*args, **kwargs)
    finally:
        with open(record, "a") as out:
            out.write(f"{time.monotonic() - started!r}\\n")
setattr(target, name, timed)
from coordinator.cli.main import main
main()
"""


def run_cli_timing(target: str, record: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``arbiter ARGS`` like :func:`run_cli`, timing each call of ``target`` (``module:name``,
    as the command's module looks it up) into ``record``: how long the part under test took,
    without the interpreter's start and the imports, which a busy machine slows at will."""
    module, _, name = target.partition(":")
    return _run([sys.executable, "-c", TIMED_MAIN, module, name, str(record), *args], None)


def call_seconds(record: Path) -> list[float]:
    """The durations :func:`run_cli_timing` recorded (none if the target was never called)."""
    return [float(x) for x in record.read_text().split()] if record.exists() else []


def standin_play_game(
    game: str,
    white_weights: dict[str, float] | None,
    black_weights: dict[str, float] | None,
    opening: str,
    limits: engine.Limits,
    adjudication: engine.Adjudication | None = None,
) -> dict[str, Any]:
    """A deterministic stand-in for ``engine.play_game`` (no search): the side whose ``pawn``
    weight is larger wins more often; the outcome is a hash of the inputs."""
    key = json.dumps([game, white_weights, black_weights, opening, limits.to_json()], sort_keys=True)
    u = int.from_bytes(hashlib.sha256(key.encode()).digest()[:4], "big") / 2**32
    edge = ((white_weights or {}).get("pawn", 100) - (black_weights or {}).get("pawn", 100)) / 400
    p_white = 0.35 + edge
    result = "1-0" if u < p_white else "0-1" if u > 0.7 + edge else "1/2-1/2"
    return {
        "opening": opening,
        "moves": [],
        "result": result,
        "reason": "standin",
        "plies": 0,
        "nodes": [1, 1],
    }


#: The two games of a pair (candidate white, then black; results from white's side) for each
#: pentanomial cell LL, LD, DD, WD, WW.
PAIR_RESULTS = (
    ("0-1", "1-0"),
    ("0-1", "1/2-1/2"),
    ("1/2-1/2", "1/2-1/2"),
    ("1-0", "1/2-1/2"),
    ("1-0", "0-1"),
)


def batch_result(
    pentanomial: list[int], *, wdl: list[int] | None = None, engine_version: str = "test", worker: str = "w:1"
) -> BatchResult:
    """A result whose game records (no moves) make up ``pentanomial``, as the store takes it once
    checked; ``wdl`` overrides the worker's claimed W/D/L (the store tallies its own)."""
    records = []
    for cell, count in enumerate(pentanomial):
        for _ in range(count):
            for text, color in zip(PAIR_RESULTS[cell], (Color.WHITE, Color.BLACK), strict=True):
                records.append(GameRecord("x", "", text, "ply_limit", color))
    claimed = tally(records)
    return BatchResult(
        run_id=0,
        batch_index=0,
        engine_version=engine_version,
        pentanomial=claimed[0],
        wdl=wdl if wdl is not None else claimed[1],
        games=records,
        nodes={"candidate": 1, "baseline": 1},
        cpu_seconds=0.5,
        worker=worker,
    )

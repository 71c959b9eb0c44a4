"""Runs for the report tests: real SPRT and tuning runs made with the CLI, a run caught in progress,
a run with no game and a run with one game, and a PGN reader built on python-chess.

Not a test module; importable from every test folder because ``tests`` is on pytest's pythonpath.
"""

from __future__ import annotations

import fcntl
import json
import random
import re
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import chess.pgn
from sprt_testkit import book_positions, run_cli

import engine
from coordinator.executors.base import BatchOutcome, Executor
from coordinator.runs import RunKind, RunState
from coordinator.sprt.config import SprtConfig
from coordinator.sprt.runner import SprtRunner
from coordinator.store import Store, now
from coordinator.store.results import CheckedResult
from coordinator.store.schema import batch_games, batches, results
from coordinator.tuning.config import TuneConfig
from wire.programs import BuildSpec, EngineProgram
from wire.protocol import RECORD_FIELDS, BatchPayload, BatchResult, Color, GameRecord
from wire.tally import tally
from worker.games import play_batch

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
#: The material-only candidate of each game (beats the defaults often enough to decide quickly).
CANDIDATE = {game: EXAMPLES / f"{game}-material.json" for game in ("congo", "congress")}
FLAT = {game: EXAMPLES / f"{game}-flat.json" for game in ("congo", "congress")}


def url(db: Path) -> str:
    """The SQLite URL of ``db``."""
    return f"sqlite:///{db}"


def sprt_run(db: Path, game: str, max_games: int = 40, *extra: str) -> int:
    """A finished SPRT of ``game`` made with ``arbiter sprt`` (300 nodes, 4-pair batches); its id."""
    done = run_cli(
        "sprt", game, "--candidate", str(CANDIDATE[game]), "--baseline", "default", "--nodes", "300",
        "--max-games", str(max_games), "--batch-pairs", "4", "--concurrency", "2", "--store", url(db), *extra,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return int(re.search(r"run (\d+) started", done.stderr).group(1))


def tune_run(db: Path, game: str, cwd: Path, trials: int = 6, report: bool = True) -> tuple[int, str]:
    """A finished tuning run of ``game`` from the flat start (so candidates get accepted); its id
    and the command's stdout. With ``report``, the command writes its report, ``RUN-report.html``
    in ``cwd`` (about 3 s of CPU)."""
    done = run_cli(
        "tune", game, "--method", "optuna", "--start", str(FLAT[game]), "--max-trials", str(trials),
        "--nodes", "300",
        "--trial-pairs", "8", "--batch-pairs", "2", "--accept-max-games", "200", "--accept-elo1", "50",
        "--prune-los", "0.25", "--concurrency", "2", "--seed", "1", "--store", url(db),
        "--report" if report else "--no-report", cwd=cwd,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return int(re.search(r"tuning run (\d+) started", done.stderr).group(1)), done.stdout


GAMES = ("congo", "congress")


@dataclass(frozen=True)
class FinishedRuns:
    """A store with a finished SPRT and a finished tuning run of each game, made by the CLI once
    per pytest run and read by several modules: the store (only to read: :func:`copy_store` gives
    one to write to), the folder the commands ran in (the tuning runs' own reports are there),
    the runs' ids (``sprt-GAME``, ``tune-GAME``) and each tuning command's stdout."""

    db: Path
    folder: Path
    ids: dict[str, int]
    tune_stdout: dict[str, str]


def finished_runs(shared: Path) -> FinishedRuns:
    """The :class:`FinishedRuns` in folder ``shared``: made by the first pytest process to ask
    (under a lock on a file there), then read from there by every other. ``shared`` must be the
    same for the processes of one run and new for each run (the parent of each xdist worker's
    base temporary directory)."""
    folder = shared / "finished-runs"
    index = folder / "runs.json"
    with (shared / "finished-runs.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not index.is_file():
            folder.mkdir(exist_ok=True)
            db = folder / "store.db"
            ids, stdout = {}, {}
            for game in GAMES:
                ids[f"sprt-{game}"] = sprt_run(db, game)
                ids[f"tune-{game}"], stdout[game] = tune_run(db, game, folder)
            index.write_text(json.dumps({"ids": ids, "tune_stdout": stdout}))
    made = json.loads(index.read_text())
    return FinishedRuns(folder / "store.db", folder, made["ids"], made["tune_stdout"])


def copy_store(source: Path, target: Path) -> Path:
    """A consistent copy of the SQLite store ``source`` at ``target`` (SQLite's backup)."""
    reading = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    with closing(reading) as src, closing(sqlite3.connect(target)) as dst:
        src.backup(dst)
    return target


def new_tune_run(folder: Path, name: str, config: TuneConfig) -> tuple[Store, int]:
    """A SQLite store ``folder/name`` holding a new tuning run of ``config``, for a driver to run
    in this process."""
    store = Store(f"sqlite:///{folder / name}")
    return store, store.create_run(RunKind.TUNE, config.game, config.to_json(), config.fingerprint())


class InProcessExecutor(Executor):
    """Plays batches with the real engine in this process when asked for outcomes, naming the
    workers in turn from ``workers`` (so per-worker tables have several rows)."""

    def __init__(self, workers: tuple[str, ...] = ("alpha:1", "beta:2"), slots: int = 4) -> None:
        self.slots = slots
        self.workers = workers
        self.queue: list[BatchPayload] = []

    def submit(self, payload: BatchPayload) -> None:
        self.queue.append(payload)

    def in_flight(self) -> int:
        return len(self.queue)

    def play(self, batch_index: int) -> BatchOutcome:
        """Play the queued batch ``batch_index`` now."""
        return self.play_payload(next(p for p in self.queue if p.batch_index == batch_index))

    def play_payload(self, payload: BatchPayload) -> BatchOutcome:
        """Play the queued ``payload`` now."""
        self.queue.remove(payload)
        result = play_batch(payload).to_json()
        result["worker"] = self.workers[payload.batch_index % len(self.workers)]
        return BatchOutcome(payload.run_id, payload.batch_index, result=result, worker=result["worker"])

    def completed(self, timeout: float | None = None) -> Iterator[BatchOutcome]:
        while self.queue:
            yield self.play(self.queue[0].batch_index)

    def cancel(self) -> None:
        self.queue.clear()

    def close(self) -> None:
        self.cancel()


class ShuffledExecutor(InProcessExecutor):
    """Plays like :class:`InProcessExecutor`, but each poll delivers a random share of the batches
    in flight (of any of the runs sharing it), in random order."""

    def __init__(self, seed: int, slots: int) -> None:
        super().__init__(slots=slots)
        self.rng = random.Random(seed)

    def completed(self, timeout: float | None = None) -> Iterator[BatchOutcome]:
        self.rng.shuffle(self.queue)
        for payload in self.queue[: self.rng.randint(1, max(1, len(self.queue)))]:
            yield self.play_payload(payload)


def small_config(game: str, **overrides: Any) -> SprtConfig:
    """An SPRT of the material weights against the defaults: 12 openings, 300 nodes, 2-pair batches."""
    settings: dict[str, Any] = {
        "game": game,
        "candidate": engine.validate_weights(game, str(CANDIDATE[game])),
        "baseline": engine.validate_weights(game, None),
        "openings": book_positions(game, 12),
        "engine_version": engine.ENGINE_VERSION,
        "limits": engine.Limits(nodes=300),
        "batch_pairs": 2,
        "candidate_source": str(CANDIDATE[game]),
        **overrides,
    }
    return SprtConfig(**settings)


def running_run(store: Store, game: str, counted: int = 3) -> int:
    """A run caught in progress: batches ``0 .. counted-1`` counted, batch ``counted + 1`` stored but
    not counted (batch ``counted`` is still being played), state ``running``; its id."""
    config = small_config(game)
    run_id = store.create_run(RunKind.SPRT, game, config.to_json(), config.fingerprint())
    executor = InProcessExecutor(slots=counted + 2)
    runner = SprtRunner(store, run_id, config, executor)
    runner.fill()
    for index in [*range(counted), counted + 1]:
        runner.receive(executor.play(index))
    runner.count()
    store.update_run(run_id, state=RunState.RUNNING)
    return run_id


def empty_run(store: Store, game: str) -> int:
    """A run that has not counted a game yet; its id."""
    config = small_config(game)
    return store.create_run(RunKind.SPRT, game, config.to_json(), config.fingerprint())


def one_game_run(store: Store, game: str) -> int:
    """A run whose one counted batch holds a single real game (the store's rows written directly:
    a worker always plays pairs, but the report must not depend on that); its id."""
    config = small_config(game)
    run_id = store.create_run(RunKind.SPRT, game, config.to_json(), config.fingerprint())
    opening = config.openings[0]
    played = engine.play_game(
        game, config.candidate, config.baseline, opening, config.limits, config.adjudication
    )
    record = {k: played[k] for k in ("opening", "result", "reason")} | {
        "moves": " ".join(played["moves"]),
        "candidate_color": "white",
        "budgets": "",
        "times": "",
    }
    won, drawn = played["result"] == "1-0", played["result"] == "1/2-1/2"
    stamp = now()
    with store.transaction() as c:
        c.execute(
            batches.insert().values(
                run_id=run_id, batch_index=0, openings=json.dumps([opening]), seed=0, state="done",
                attempts=1, worker="solo:1", updated_at=stamp,
            )
        )  # fmt: skip
        c.execute(
            results.insert().values(
                run_id=run_id, batch_index=0, ll=0, ld=0, dd_wl=0, wd=0, ww=0, wins=int(won),
                draws=int(drawn), losses=int(not won and not drawn), nodes=json.dumps({"candidate": 1}),
                cpu_seconds=0.1, worker="solo:1", engine_version=engine.ENGINE_VERSION, created_at=stamp,
            )
        )  # fmt: skip
        row = [record[field] for field in RECORD_FIELDS]  # the store keeps a record as an array
        c.execute(batch_games.insert().values(run_id=run_id, batch_index=0, games=json.dumps([row])))
    store.update_run(run_id, counted_batches=1)
    return run_id


#: A repository URL with a password, as a ref run may name it (never to be shown unmasked).
SECRET_REPO = "https://user:s3cret@git.example/arbiter.git"
#: What a faulting engine wrote on its stderr: hostile text, a secret among it.
HOSTILE_STDERR = ["\x1b[31mboom <script>alert(1)</script>", f"fetch {SECRET_REPO} failed"]


#: What each side's engine says of itself in the stored commit runs.
ENGINE_ID = {"name": "arbiter-engine 9.9", "author": "arbiter <b>"}


def commit_program(game: str, sha: str) -> EngineProgram:
    """The side a commit of :data:`SECRET_REPO` plays (arbiter-engine built from it)."""
    spec = BuildSpec(SECRET_REPO, sha, 12345)
    return EngineProgram(
        name=f"arbiter@{sha[:8]}",
        digest=spec.digest,
        command=("./arbiter-engine", "--variant", game),
        options={"Hash": 16},
        build=spec,
    )


def commit_run(store: Store, game: str, sha: str, depth: int, worker: str = "alpha:1") -> int:
    """A finished SPRT of commit ``sha`` (``depth`` commits deep) against its base, timed (50 ms a
    move), stored as a worker reports it: one pair, the candidate crashing in the first game and
    one side losing on time in the second, each engine's id name, and a time factor of 1.5; its
    id. The store's rows are written through ``record_result``, without playing a program."""
    base = "b" * 40
    config = small_config(
        game,
        limits=engine.Limits(movetime_ms=50),
        scale_time=True,
        candidate_source=f"arbiter@{sha[:7]} (topic)",
        baseline_source=f"arbiter@{base[:7]} (main)",
        candidate_program=commit_program(game, sha),
        baseline_program=commit_program(game, base),
        candidate_commit={
            "ref": "topic",
            "sha": sha,
            "subject": "Faster \x1b[2J",
            "committed_at": 1_700_000_000 + depth,
            "depth": depth,
        },
        baseline_commit={
            "ref": "main",
            "sha": base,
            "subject": "base",
            "committed_at": 1_600_000_000,
            "depth": 1,
        },
    )
    run_id = store.create_run(RunKind.SPRT, game, config.to_json(), config.fingerprint())
    opening = config.openings[0]
    limits, adjudication = engine.Limits(nodes=50), config.adjudication
    moves = engine.play_game(game, config.baseline, config.baseline, opening, limits, adjudication)["moves"][
        :2
    ]
    # After two plies the first mover is to move again: white's side of game 2 (the baseline)
    # when white began, else the candidate's (black); that side loses on time.
    white_began = opening.endswith(" w")
    forfeit = "baseline" if white_began else "candidate"
    games = [
        GameRecord(opening, "", "0-1", "crash", Color.WHITE),
        GameRecord(
            opening,
            " ".join(moves),
            "0-1" if white_began else "1-0",
            "time_forfeit",
            Color.BLACK,
            "",
            "12 3456",
        ),
    ]
    faults = [
        {"game": 0, "side": "candidate", "reason": "crashed: signal 11", "stderr": HOSTILE_STDERR},
        {"game": 1, "side": forfeit, "reason": "time forfeit", "stderr": []},
    ]
    pentanomial, wdl = tally(games)
    result = BatchResult(
        run_id=run_id, batch_index=0, engine_version=engine.ENGINE_VERSION, pentanomial=pentanomial, wdl=wdl,
        games=games, worker=worker, faults=faults, time_factor=1.5,
        engines={side: dict(ENGINE_ID) for side in ("candidate", "baseline")},
    )  # fmt: skip
    assert store.record_result(run_id, 0, CheckedResult.tallied(result))
    store.update_run(run_id, state=RunState.FINISHED, counted_batches=1, decision="budget", finished=True)
    return run_id


class TokenVisitor(chess.pgn.BaseVisitor[dict[str, Any]]):
    """Reads one PGN game with python-chess's parser without playing its moves as chess moves.

    python-chess parses the tag pairs, the movetext (move numbers, comments, the result) and the
    game boundaries; a move token it would resolve on a chess board is handed back as it is
    instead. Its tokenizer knows chess moves only, so a Congo monkey chain comes back in pieces:
    ``b1d3f5d7`` as ``b1d3`` and ``f5d7``, and ``f6d6b4`` as ``f6d6b`` (a chess promotion to a
    bishop) and a dropped ``4``; see :func:`assert_tokens_cover`.
    """

    def begin_game(self) -> None:
        self.tags: dict[str, str] = {}
        self.tokens: list[str] = []
        self.comments: list[str] = []
        self.result_token: str | None = None
        self.errors: list[str] = []

    def begin_headers(self) -> chess.pgn.Headers:
        # Headers the parser sets up its board from: none, so it takes the standard board (the
        # variant's position string is no chess FEN); the real tags are kept in visit_header.
        return chess.pgn.Headers({})

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        self.tags[tagname] = tagvalue

    def parse_san(self, board: chess.Board, san: str) -> chess.Move:
        self.tokens.append(san)
        return chess.Move.null()

    def visit_comment(self, comment: str) -> None:
        self.comments.append(comment)

    def visit_result(self, result: str) -> None:
        self.result_token = result

    def handle_error(self, error: Exception) -> None:
        self.errors.append(str(error))

    def result(self) -> dict[str, Any]:
        return {
            "tags": self.tags,
            "tokens": self.tokens,
            "comments": self.comments,
            "result": self.result_token,
            "errors": self.errors,
        }


def read_pgn_games(text: str) -> list[dict[str, Any]]:
    """Every game of a PGN text, as python-chess reads it with :class:`TokenVisitor`."""
    import io

    handle = io.StringIO(text)
    games = []
    while True:
        game = chess.pgn.read_game(handle, Visitor=TokenVisitor)
        if game is None:
            return games
        games.append(game)


def movetext_moves(pgn_game: str) -> list[str]:
    """The moves of one PGN game's movetext, by whitespace (no move numbers, comments or result)."""
    body = pgn_game.split("\n\n", 1)[1]
    body = re.sub(r"\{[^}]*\}", " ", body)
    return [t for t in body.split() if not re.fullmatch(r"\d+\.(\.\.)?|1-0|0-1|1/2-1/2|\*", t)]


def assert_tokens_cover(tokens: list[str], moves: list[str]) -> None:
    """python-chess's move tokens are, in order, pieces of the moves, and all that it skipped is at
    most one character (a square's rank read past as part of a chess promotion) per chain hop."""
    joined = "".join(moves)
    position = skipped = 0
    for token in tokens:
        found = joined.find(token, position)
        assert found >= 0, (token, joined[position:])
        skipped += found - position
        position = found + len(token)
    skipped += len(joined) - position
    hops = sum(max(len(re.findall(r"[a-h][1-8]", move)) - 2, 0) for move in moves)
    assert skipped <= hops, (skipped, hops)

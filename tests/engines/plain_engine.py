#!/usr/bin/env python3
"""A plain engine for arbiter's protocol (docs/protocol.md), for tests and transcripts.

It speaks the whole protocol: ``uci``/``ugi``, id lines, an option of every type (UCI_Variant,
Hash, MoveOverhead, Ponder, Weights, Clear Hash), ``isready`` at any time (the search runs in a
thread), ``ucinewgame``, ``position startpos|fen ... moves ...``, ``go`` with wtime/btime/winc/binc/
movestogo, movetime, nodes, depth or infinite, ``stop`` and ``quit``, and info lines with depth,
score, nodes, nps, time and pv. It plays with arbiter's own search (``engine.search``): at fixed
nodes or depth, and no time limit, its move is the same on every run. A bare ``go`` searches to
depth 6. With ``--random`` it is not deterministic: it plays a random legal move, as if all were
equal, never the one it played last in the same position (so a position searched twice differs).

Run it as ``python3 tests/engines/plain_engine.py`` from a checkout where the engine is built.
"""

from __future__ import annotations

import os
import random
import sys
import threading
import time
from dataclasses import dataclass
from typing import Any, TextIO

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import engine  # after the checkout is on the path

NAME = "plain"
AUTHOR = "arbiter tests"
GAMES = ("congo", "congress")
#: Infinite searches run in slices of this many ms, so that ``stop`` is answered quickly.
SLICE_MS = 50
MAX_DEPTH = 64


@dataclass
class Go:
    """The limits of one ``go``."""

    wtime: int | None = None
    btime: int | None = None
    winc: int = 0
    binc: int = 0
    movestogo: int | None = None
    movetime: int | None = None
    nodes: int | None = None
    depth: int | None = None
    infinite: bool = False

    @classmethod
    def parse(cls, tokens: list[str]) -> Go:
        go = cls()
        i = 1
        while i < len(tokens):
            key = tokens[i]
            if key == "infinite":
                go.infinite = True
            elif key in ("wtime", "btime", "winc", "binc", "movestogo", "movetime", "nodes", "depth"):
                value = tokens[i + 1] if i + 1 < len(tokens) else ""
                if value.lstrip("-").isdigit() and (int(value) > 0 or key in ("wtime", "btime")):
                    setattr(go, key, int(value))
                i += 1
            i += 1
        return go

    def timed(self) -> bool:
        return self.movetime is not None or self.wtime is not None or self.btime is not None

    def budget_ms(self, turn: str, overhead: int) -> int | None:
        """The time this move may take (None: no time limit)."""
        budgets = []
        if self.movetime is not None:
            budgets.append(self.movetime - overhead)
        own = self.wtime if turn == "white" else self.btime
        if own is not None:
            inc = self.winc if turn == "white" else self.binc
            share = own / (self.movestogo or 30) + inc * 3 / 4
            budgets.append(int(min(share, own / 2) - overhead))
        return max(1, min(budgets)) if budgets else None


class Engine:
    """The protocol loop; subclasses change what it does on a command (see faulty_engine.py)."""

    def __init__(self, out: TextIO = sys.stdout, random_moves: bool = False) -> None:
        self.out = out
        self.random_moves = random_moves
        self.last_played: dict[str, str] = {}
        self.lock = threading.Lock()
        self.game = GAMES[0]
        self.start = engine.Position.start(self.game)
        self.moves: list[str] = []
        self.hash_mb = 16
        self.overhead_ms = 30
        self.weights: dict[str, int] | None = None
        self.stop_event = threading.Event()
        self.thread: threading.Thread | None = None

    # -- output ---------------------------------------------------------------------------------

    def say(self, line: str) -> None:
        with self.lock:
            self.out.write(line + "\n")
            self.out.flush()

    def options(self) -> list[str]:
        vars_ = " ".join(f"var {g}" for g in GAMES)
        return [
            f"option name UCI_Variant type combo default {GAMES[0]} {vars_}",
            "option name Hash type spin default 16 min 1 max 1024",
            "option name MoveOverhead type spin default 30 min 0 max 5000",
            "option name Ponder type check default false",
            "option name Weights type string default <empty>",
            "option name Clear Hash type button",
        ]

    # -- the command loop -----------------------------------------------------------------------

    def run(self, stdin: TextIO = sys.stdin) -> None:
        while True:
            line = stdin.readline()
            if not line or not self.handle(line.strip()):
                self.stop_search()
                return

    def handle(self, line: str) -> bool:
        """Runs one command; False on ``quit``."""
        tokens = line.split()
        if not tokens:
            return True
        command = tokens[0]
        if command in ("uci", "ugi"):
            self.on_uci(command)
        elif command == "isready":
            self.on_isready()
        elif command == "setoption":
            self.on_setoption(line)
        elif command == "ucinewgame":
            self.on_newgame()
        elif command == "position":
            self.on_position(tokens)
        elif command == "go":
            self.on_go(Go.parse(tokens))
        elif command == "stop":
            self.on_stop()
        elif command == "quit":
            return False
        return True

    def on_uci(self, command: str) -> None:
        self.say(f"id name {NAME}")
        self.say(f"id author {AUTHOR}")
        for option in self.options():
            self.say(option)
        self.say("ugiok" if command == "ugi" else "uciok")

    def on_isready(self) -> None:
        self.say("readyok")

    def on_setoption(self, line: str) -> None:
        body = line.split(None, 1)[1] if " " in line else ""
        if not body.startswith("name "):
            return
        name, _, value = body[5:].partition(" value ")
        name, value = name.strip().lower(), value.strip()
        if name == "uci_variant" and value.lower() in GAMES:
            self.game = value.lower()
            self.start = engine.Position.start(self.game)
            self.moves = []
        elif name == "hash" and value.isdigit():
            self.hash_mb = max(1, min(1024, int(value)))
        elif name == "moveoverhead" and value.isdigit():
            self.overhead_ms = min(5000, int(value))
        elif name == "weights":
            self.load_weights("" if value == "<empty>" else value)

    def load_weights(self, path: str) -> None:
        if not path:
            self.weights = None
            return
        try:
            self.weights = engine.validate_weights(self.game, path)
        except (OSError, ValueError) as e:
            self.say(f"info string cannot use weights {path}: {e}")

    def on_newgame(self) -> None:
        self.stop_search()
        self.start = engine.Position.start(self.game)
        self.moves = []

    def on_position(self, tokens: list[str]) -> None:
        cut = tokens.index("moves") if "moves" in tokens else len(tokens)
        try:
            if len(tokens) > 1 and tokens[1] == "startpos":
                start = engine.Position.start(self.game)
            elif len(tokens) > 1 and tokens[1] == "fen":
                start = engine.Position.from_fen(self.game, " ".join(tokens[2:cut]))
            else:
                raise ValueError("expected startpos or fen")
            position = start
            for move in tokens[cut + 1 :]:
                position = position.play(move)
        except ValueError as e:
            self.say(f"info string bad position: {e}")
            return
        self.start, self.moves = start, tokens[cut + 1 :]

    def position(self) -> Any:
        position = self.start
        for move in self.moves:
            position = position.play(move)
        return position

    def on_go(self, go: Go) -> None:
        self.stop_search()
        self.stop_event.clear()
        self.thread = threading.Thread(target=self.search, args=(self.position(), go), daemon=True)
        self.thread.start()

    def on_stop(self) -> None:
        self.stop_event.set()

    def stop_search(self) -> None:
        self.stop_event.set()
        if self.thread is not None:
            self.thread.join()
            self.thread = None

    # -- searching -----------------------------------------------------------------------------

    def search(self, position: Any, go: Go) -> None:
        """Searches and answers ``bestmove`` (in the search thread)."""
        if not position.legal_moves():
            self.say("bestmove (none)")
            return
        if not go.timed() and not go.infinite:
            depth = go.depth if go.depth is not None or go.nodes is not None else 6
            found = engine.search(position, self.weights, depth=depth, nodes=go.nodes, hash_mb=self.hash_mb)
            rows = found["iterations"]
            for row in rows:
                self.info(row["depth"], row["score"], row["nodes"], row["time_ms"], row["pv"])
            if not rows or rows[-1]["nodes"] != found["nodes"]:
                # The whole search's nodes (an unfinished last iteration included).
                self.info(found["depth"], found["score"], found["nodes"], found["time_ms"], found["pv"])
            self.answer(self.choose(position, found["best_move"]))
            return
        self.answer(self.choose(position, self.deepen(position, go)))

    def choose(self, position: Any, best: str) -> str:
        """The move to play: ``best``, or with ``--random`` another legal move than last time."""
        if not self.random_moves:
            return best
        fen = position.fen()
        moves = [str(m) for m in position.legal_moves()]
        others = [m for m in moves if m != self.last_played.get(fen)] or moves
        self.last_played[fen] = random.choice(others)
        return self.last_played[fen]

    def deepen(self, position: Any, go: Go) -> str:
        """Iterative deepening, one search call per depth, until a limit or ``stop``."""
        started = time.monotonic()
        budget = go.budget_ms(position.turn, self.overhead_ms)
        best = position.legal_moves()[0]
        nodes = 0
        for depth in range(1, (go.depth or MAX_DEPTH) + 1):
            if self.stop_event.is_set():
                break
            elapsed = (time.monotonic() - started) * 1000
            left = SLICE_MS if budget is None else int(budget - elapsed)
            if left <= 0:
                break
            found = engine.search(position, self.weights, depth=depth, movetime_ms=left, hash_mb=self.hash_mb)
            if found["best_move"] is None or found["depth"] < depth:
                break
            nodes += found["nodes"]
            best = found["best_move"]
            self.info(depth, found["score"], nodes, (time.monotonic() - started) * 1000, found["pv"])
            if go.nodes is not None and nodes >= go.nodes:
                break
        if go.infinite:
            self.stop_event.wait()
        return str(best)

    def info(self, depth: int, score: int, nodes: int, time_ms: float, pv: list[str]) -> None:
        if abs(score) > engine.MATE_BOUND:
            plies = engine.MATE_SCORE - abs(score)
            moves = (plies + 1) // 2
            value = f"mate {moves if score > 0 else -moves}"
        else:
            value = f"cp {score}"
        ms = max(1, round(time_ms))
        nps = nodes * 1000 // ms
        self.say(f"info depth {depth} score {value} nodes {nodes} nps {nps} time {ms} pv {' '.join(pv)}")

    def answer(self, move: str) -> None:
        self.say(f"bestmove {move}")


def main() -> None:
    Engine(random_moves="--random" in sys.argv[1:]).run()


if __name__ == "__main__":
    main()

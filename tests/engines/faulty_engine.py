#!/usr/bin/env python3
"""The plain engine, faulty on command: the referee's failure table, one fault at a time.

Faults of play, chosen by option (``setoption name Fault value <fault>``) or by the command line
(``--fault <fault>``), happen on the engine's ``FaultPly``-th move of a game (``--fault-ply N``;
default 1), counted from ``ucinewgame``:

- ``crash``: kills itself with SIGSEGV.
- ``exit``: exits with status 1.
- ``hang``: never answers ``go``, ignores ``stop`` (answers ``isready`` still).
- ``slow_move``: searches past any clock, answering only after ``stop``.
- ``illegal``: answers a well-formed move that is not legal (``bestmove d2d5``-like).
- ``garbage``: answers ``bestmove xyz``.
- ``bestmove_none``: answers ``bestmove (none)``.
- ``empty_bestmove``: answers ``bestmove`` alone.
- ``flood``: prints info lines without end, never answering.
- ``long_line``: prints one line of 100 KiB.
- ``no_readyok``: plays that move, then leaves every ``isready`` unanswered.
- ``boast``: claims scores beyond any search's (``score cp 99999999999``, then ``score mate
  -99999999999``) and plays its first legal move: no fault, but numbers the referee must bound.

With ``FaultOnce <path>`` (``--fault-once``) the fault happens only if ``path`` does not exist,
and the engine creates it then: a restarted engine plays on normally (for the faults of the
handshake too).

Faults of the handshake, by the command line only: ``--slow-start SECONDS`` (sleeps before
reading anything), ``--no-uciok`` (id and options, never ``uciok``).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from typing import Any

from plain_engine import Engine, Go

FAULTS = (
    "none",
    "crash",
    "exit",
    "hang",
    "slow_move",
    "illegal",
    "garbage",
    "bestmove_none",
    "empty_bestmove",
    "flood",
    "long_line",
    "no_readyok",
    "boast",
)
#: The mate distance ``boast`` claims.
BOAST = 99999999999
#: How long a ``slow_move`` or ``hang`` waits at most (the referee kills it long before).
FOREVER_S = 120.0


class FaultyEngine(Engine):
    def __init__(self, fault: str, ply: int, once: str, no_uciok: bool) -> None:
        super().__init__()
        self.fault = fault
        self.fault_ply = ply
        self.once = once
        self.no_uciok = no_uciok
        self.moves_this_game = 0
        self.deaf = False

    def options(self) -> list[str]:
        return [
            *super().options(),
            f"option name Fault type combo default none {' '.join(f'var {f}' for f in FAULTS)}",
            "option name FaultPly type spin default 1 min 1 max 1000",
            "option name FaultOnce type string default <empty>",
        ]

    def on_uci(self, command: str) -> None:
        if not self.no_uciok:
            super().on_uci(command)
            return
        self.say("id name faulty")
        for option in self.options():
            self.say(option)

    def on_setoption(self, line: str) -> None:
        super().on_setoption(line)
        name, _, value = line.split(None, 2)[2].partition(" value ") if line.count(" ") >= 2 else ("", "", "")
        name, value = name.strip().lower(), value.strip()
        if name == "fault" and value in FAULTS:
            self.fault = value
        elif name == "faultply" and value.isdigit():
            self.fault_ply = max(1, int(value))
        elif name == "faultonce":
            self.once = "" if value == "<empty>" else value

    def on_newgame(self) -> None:
        super().on_newgame()
        self.moves_this_game = 0

    def on_isready(self) -> None:
        if not self.deaf:
            super().on_isready()

    def armed(self) -> bool:
        """True when this move is the one to misbehave on (and, once, marks it done)."""
        if self.fault == "none" or self.moves_this_game != self.fault_ply:
            return False
        return first_time(self.once)

    def on_go(self, go: Go) -> None:
        self.moves_this_game += 1
        if not self.armed():
            super().on_go(go)
        elif self.fault == "no_readyok":
            self.deaf = True
            super().on_go(go)
        else:
            self.misbehave(self.position())

    def misbehave(self, position: Any) -> None:
        fault = self.fault
        if fault == "crash":
            sys.stdout.flush()
            os.kill(os.getpid(), signal.SIGSEGV)
        elif fault == "exit":
            sys.stdout.flush()
            os._exit(1)
        elif fault == "hang":
            pass  # no search, no answer; stop finds nothing to stop
        elif fault == "slow_move":
            self.stop_event.clear()
            self.thread = threading.Thread(target=self.answer_after_stop, args=(position,), daemon=True)
            self.thread.start()
        elif fault == "illegal":
            self.answer(illegal_move(position))
        elif fault == "garbage":
            self.answer("xyz")
        elif fault == "bestmove_none":
            self.say("bestmove (none)")
        elif fault == "empty_bestmove":
            self.say("bestmove")
        elif fault == "flood":
            while True:
                self.say("info string " + "flood " * 100)
        elif fault == "long_line":
            self.say("info string " + "x" * (100 * 1024))
        elif fault == "boast":
            self.say("info depth 1 score cp 99999999999 nodes 1")
            self.say(f"info depth 2 score mate -{BOAST} nodes 2")
            self.answer(position.legal_moves()[0])

    def answer_after_stop(self, position: Any) -> None:
        self.stop_event.wait(FOREVER_S)
        self.answer(position.legal_moves()[0])

    def on_stop(self) -> None:
        if not (self.fault == "hang" and self.moves_this_game >= self.fault_ply):
            super().on_stop()


def first_time(marker: str) -> bool:
    """True unless the file ``marker`` exists, which it does from now on (no marker: always)."""
    if not marker:
        return True
    try:
        with open(marker, "x"):
            return True
    except OSError:
        return False


def illegal_move(position: Any) -> str:
    """A move in the notation, from a square of the side to move's, that is not legal."""
    legal = set(position.legal_moves())
    origin = sorted(legal)[0][:2]
    width = 7 if position.game == "congo" else 8
    height = 7 if position.game == "congo" else 6
    for rank in range(height, 0, -1):
        for file in "abcdefgh"[:width]:
            move = f"{origin}{file}{rank}"
            if move not in legal and move[2:] != origin:
                return move
    return "a1a1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fault", choices=FAULTS, default="none")
    parser.add_argument("--fault-ply", type=int, default=1)
    parser.add_argument("--fault-once", default="")
    parser.add_argument("--slow-start", type=float, default=0.0)
    parser.add_argument("--no-uciok", action="store_true")
    args = parser.parse_args()
    handshake_fault = args.slow_start or args.no_uciok
    if handshake_fault and not first_time(args.fault_once):
        args.slow_start, args.no_uciok, args.fault_once = 0, False, ""
    if args.slow_start:
        time.sleep(args.slow_start)
    FaultyEngine(args.fault, args.fault_ply, args.fault_once, args.no_uciok).run()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Prints a real exchange between the referee and the plain test engine (the transcripts of
docs/protocol.md): a short game of GAME under a clock, White's engine's side of it, from ``uci``
to ``quit``; ``>`` marks what the referee sent, ``<`` what the engine answered.

    python3 tests/engines/transcript.py congo|congress [--plies N] [--tc BASE_MS+INC_MS]
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

import engine
from worker.referee import EnginePlayer, EngineSpec, play_game

PLAIN = (sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "plain_engine.py"))
START = {
    "congo": "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w",
    "congress": "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game", choices=sorted(START))
    parser.add_argument("--plies", type=int, default=6)
    parser.add_argument("--tc", default="10000+100")
    parser.add_argument("--hash", type=int, default=32)
    args = parser.parse_args()
    base, _, inc = args.tc.partition("+")
    limits = engine.Limits(time_control=engine.TimeControl(int(base), int(inc or 0)))
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}

    def log(way: str, line: str) -> None:
        print(f"{way} {line}", flush=True)

    white = EnginePlayer(EngineSpec(PLAIN, env=env, options={"Hash": args.hash}), args.game, log=log)
    black = EnginePlayer(EngineSpec(PLAIN, env=env, options={"Hash": args.hash}), args.game)
    with white, black:
        played = play_game(
            white, black, args.game, START[args.game], limits, engine.Adjudication(max_plies=args.plies)
        )
    print(f"# {played.result} ({played.reason}): {played.moves_text}", file=sys.stderr)


if __name__ == "__main__":
    main()

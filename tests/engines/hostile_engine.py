#!/usr/bin/env python3
"""The plain engine, hostile first: before it speaks the protocol it tries every way out of the
sandbox (worker/reach.py: keys in its environment and in other processes' ``/proc/PID/environ``,
files of ``$HOME`` and the store, TCP and unix sockets, ``setns``, a user namespace of its own,
capabilities, ``ptrace``, the kernel keyring, ``mmap`` writes, deletions and new files outside its
scratch folder, ``setsid`` children and a bounded fork bomb that should outlive it).

``--targets JSON`` names what to aim at on the test's machine (``worker.reach.Targets``). Each
attempt's outcome goes to stderr, one short line each (``reach NAME: no|YES ...``). If any
attempt reached something, it says ``REACHED name,...`` on stderr and exits with status 3 (its
games are lost as crashes, and a run-start probe fails); else it plays as the plain engine and
says so in its name: ``id name hostile: 0 of N reached``.
"""

from __future__ import annotations

import argparse
import os
import sys

# reach.py is the checkout's worker/reach.py, or its copy beside this file in an engine's folder.
sys.path.append(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "worker"))

from plain_engine import Engine
from reach import Targets, attempts, reached

#: The exit status of an engine that reached something.
REACHED_EXIT = 3


class HostileEngine(Engine):
    """The plain engine, whose name tells how its attempts went."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def on_uci(self, command: str) -> None:
        self.say(f"id name {self.name}")
        self.say("id author arbiter tests")
        for option in self.options():
            self.say(option)
        self.say("ugiok" if command == "ugi" else "uciok")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--targets", default="")
    args = parser.parse_args()
    report = attempts(Targets.from_json(args.targets))
    for name, outcome in report.items():
        line = f"reach {name}: {'YES' if outcome['reached'] else 'no'} {outcome['detail']}"
        print(line[:280], file=sys.stderr)
    got = reached(report)
    if got:
        print(f"REACHED {','.join(got)}", file=sys.stderr, flush=True)
        os._exit(REACHED_EXIT)
    sys.stderr.flush()
    HostileEngine(f"hostile: 0 of {len(report)} reached").run()


if __name__ == "__main__":
    main()

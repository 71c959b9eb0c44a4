"""What the referee tests share: the test engines' commands, quick timeouts, players, and the
check that an engine's process group is gone."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from worker.referee import EnginePlayer, EngineSpec, Timeouts
from worker.referee.uci import OptionValue

ENGINES = Path(__file__).resolve().parent / "engines"
PLAIN = (sys.executable, str(ENGINES / "plain_engine.py"))
FAULTY = (sys.executable, str(ENGINES / "faulty_engine.py"))
#: The engines write no files (RLIMIT_FSIZE is 0): no bytecode caches.
ENV = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
#: Every wait short, so that a fault is judged within seconds.
QUICK = Timeouts(handshake_s=3.0, ready_s=1.0, write_s=1.0, stop_s=0.5, quit_s=1.0, move_s=1.5)

START = {
    "congo": "gmelecz/ppppppp/7/7/7/PPPPPPP/GMELECZ w",
    "congress": "hh1kk1bb/1pppppp1/8/8/1PPPPPP1/HH1KK1BB w",
}


def player(
    game: str,
    argv: Sequence[str] = PLAIN,
    options: dict[str, OptionValue] | None = None,
    timeouts: Timeouts = QUICK,
    name: str | None = None,
    **spec: Any,
) -> EnginePlayer:
    """A player of ``game`` running one of the test engines, with quick timeouts."""
    engine_spec = EngineSpec(tuple(argv), name=name, env=ENV, options=options or {}, **spec)
    return EnginePlayer(engine_spec, game, timeouts)


def group_gone(pgid: int, within_s: float = 5.0) -> bool:
    """True once no process of group ``pgid`` is left, within ``within_s``: the engine itself is
    reaped by the referee; a child of it, killed with the group, is reaped by init a moment
    later."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)  # waiting for processes to end, bounded by the deadline


def processes_named(word: str) -> list[int]:
    """The processes of this machine with ``word`` in one of their arguments (a marker a test gave
    them: engines run in a PID namespace of their own, where their ids mean nothing here)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                words = f.read().split(b"\0")
        except OSError:
            continue
        if any(word.encode() in w for w in words):
            found.append(int(entry))
    return found


def wait_gone(word: str, within_s: float = 5.0) -> bool:
    """True once no process has ``word`` among its arguments, within ``within_s``."""
    deadline = time.monotonic() + within_s
    while processes_named(word):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)  # processes being killed and reaped, bounded by the deadline
    return True


def require_sandbox() -> None:
    """Skip the test where this machine cannot make the engine sandbox, saying why; under CI
    (``$CI``), where scripts/ensure-bubblewrap.sh installed bubblewrap, fail instead."""
    from worker.referee.sandbox import this_machine

    box = this_machine()
    if box.ready:
        return
    message = f"no engine sandbox on this machine: {box.reason}"
    if os.environ.get("CI"):
        pytest.fail(f"{message}; the sandbox tests must run in CI (scripts/ensure-bubblewrap.sh)")
    pytest.skip(message)

"""wire.secrecy: keys taken out of the environment at start, held in memory, gone from
/proc/PID/environ and from every child's environment; the process non-dumpable."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

CODE = """
import ctypes, json, os, subprocess, sys
from wire.secrecy import hold_keys, key_environment
hold_keys()
held = key_environment()
with open("/proc/self/environ", "rb") as f:
    block = f.read()
child = subprocess.run([sys.executable, "-c", "import os; print(sorted(os.environ))"],
                       capture_output=True, text=True).stdout
print(json.dumps({
    "held": [held.get("ARBITER_SECRET"), held.get("ARBITER_WORKER_KEY")],
    "environ": sorted(k for k in os.environ if k.startswith("ARBITER_")),
    "in_proc_environ": [v in block for v in (b"master-secret-value", b"worker-key-value")],
    "child": "ARBITER_" in child,
    "dumpable": ctypes.CDLL(None).prctl(3, 0, 0, 0, 0),
}))
"""


def test_keys_are_held_in_memory_only() -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("ARBITER_")},
        "ARBITER_SECRET": "master-secret-value",
        "ARBITER_WORKER_KEY": "worker-key-value",
        "ARBITER_QUEUES": "stays",
    }
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["held"] == ["master-secret-value", "worker-key-value"]
    assert seen["environ"] == ["ARBITER_QUEUES"]  # other settings stay
    assert seen["in_proc_environ"] == [False, False]
    assert seen["child"] is True  # ARBITER_QUEUES, not a key
    assert seen["dumpable"] == 0


def test_a_child_inherits_no_key() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARBITER_")}
    env |= {"ARBITER_SECRET": "master-secret-value", "ARBITER_WORKER_KEY": "worker-key-value"}
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["child"] is False


def _held_and_environment() -> tuple[list[str], list[str]]:
    """What a process holds and has in its environment of the key variables."""
    import os

    from wire import secrecy

    return sorted(secrecy._held), sorted(n for n in secrecy.KEY_VARIABLES if n in os.environ)


def test_a_function_run_without_keys_runs_where_no_key_was_ever_held(monkeypatch: pytest.MonkeyPatch) -> None:
    from wire import secrecy

    for name in secrecy.KEY_VARIABLES:  # as after hold_keys: the keys in memory, none in the environment
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(secrecy, "_held", {"ARBITER_SECRET": "s" * 64})
    assert _held_and_environment() == (["ARBITER_SECRET"], [])
    assert secrecy.without_keys(_held_and_environment) == ([], [])

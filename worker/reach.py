"""What a program can reach from where it runs: every way out of the engine sandbox tried once.

Run as a program (``python3 -I -S reach.py TARGETS``; standard library only, nothing of arbiter
imported) inside the sandbox by ``arbiter worker --check-sandbox``, and by the hostile test
engine (tests/engines/hostile_engine.py) before it plays. TARGETS is a JSON object naming what
to aim at on this machine (:class:`Targets`); the report is one JSON object, each attempt's name
to ``{"reached": bool, "detail": str}``: ``reached`` is true when the attempt got something a
sandboxed program must not have (a key, a file, a socket, a namespace, a capability, a change
outside its scratch folder).

Two attempts leave processes behind on purpose (``setsid`` children and a bounded fork bomb,
forked, so with the program's command line, which holds the ``marker``): whoever runs this checks
afterwards that none outlived the program.
"""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import socket
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

_CLONE_NEWNET = 0x40000000
_CLONE_NEWUSER = 0x10000000
_PTRACE_SEIZE = 0x4206
_PTRACE_DETACH = 17
_KEYCTL_GET_KEYRING_ID = 0
_KEY_SPEC_SESSION_KEYRING = -3
_SYS_KEYCTL_X86_64 = 250
#: How long a left-behind child sleeps (it must be killed long before).
SLEEP_S = 600

T = TypeVar("T")


@dataclass
class Targets:
    """What to aim at: files to read, files to change (mmap write, delete), folders to create
    files in, TCP endpoints and unix sockets to connect to, network namespaces to enter, the
    marker of the processes left behind and how many to start."""

    read: list[str] = field(default_factory=list)
    change: list[str] = field(default_factory=list)
    create_in: list[str] = field(default_factory=list)
    tcp: list[tuple[str, int]] = field(default_factory=list)
    unix: list[str] = field(default_factory=list)
    netns: list[str] = field(default_factory=list)
    marker: str = ""
    children: int = 3
    fork_bomb: int = 32

    @classmethod
    def from_json(cls, text: str) -> Targets:
        data = json.loads(text) if text else {}
        targets = cls(**{k: v for k, v in data.items() if k != "tcp"})
        targets.tcp = [(str(h), int(p)) for h, p in data.get("tcp", [])]
        return targets


def _outcome(reached: bool, detail: str) -> dict[str, Any]:
    return {"reached": reached, "detail": detail[:200]}


def _error(e: BaseException) -> str:
    return type(e).__name__ + (f" {e.errno}" if isinstance(e, OSError) and e.errno else "")


def _each(
    label: str,
    targets: Iterable[T],
    attempt: Callable[[T], str],
    caught: tuple[type[Exception], ...] = (OSError,),
) -> dict[str, Any]:
    """``attempt`` on every target: reached when any succeeds; the detail names those that did
    (as ``attempt`` returns them) and why the others did not (their ``caught`` errors)."""
    done, why = [], []
    for target in targets:
        try:
            done.append(attempt(target))
        except caught as e:
            why.append(_error(e))
    return _outcome(bool(done), f"{label}: {done}; {why}")


def _libc() -> Any:
    return ctypes.CDLL(None, use_errno=True)


def environment_keys() -> dict[str, Any]:
    found = sorted(k for k in os.environ if k.upper().startswith("ARBITER_"))
    return _outcome(bool(found), f"ARBITER_* variables: {found}; {len(os.environ)} variables")


def other_environments() -> dict[str, Any]:
    """Every /proc/PID/environ readable here, searched for ARBITER_ (the parents' among them)."""
    seen, readable, keys = 0, 0, []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        seen += 1
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                data = f.read()
        except OSError:
            continue
        readable += 1
        if b"ARBITER_" in data:
            keys.append(int(entry))
    return _outcome(bool(keys), f"{seen} other processes seen, {readable} environments read, keys in {keys}")


def read_files(paths: list[str]) -> dict[str, Any]:
    got = []
    for path in paths:
        try:
            if os.path.isdir(path):
                if os.listdir(path):
                    got.append(path)
            else:
                with open(path, "rb") as f:
                    f.read(1)
                got.append(path)
        except OSError:
            pass
    return _outcome(bool(got), f"read: {got} of {len(paths)}")


def mmap_writes(paths: list[str]) -> dict[str, Any]:
    def change(path: str) -> str:
        with open(path, "r+b") as f, mmap.mmap(f.fileno(), 1) as m:
            m[0:1] = b"!"
            m.flush()
        return path

    return _each("changed", paths, change, (OSError, ValueError))


def deletions(paths: list[str]) -> dict[str, Any]:
    def delete(path: str) -> str:
        os.unlink(path)
        return path

    return _each("deleted", paths, delete)


def creations(folders: list[str]) -> dict[str, Any]:
    """Files created (and removed again) in ``folders`` and in the system's (``/``, ``/usr``,
    ``/etc``, the working directory): anywhere but the scratch folder's file system is out of
    bounds. (A folder bound into the sandbox below /tmp has its parents on the scratch tmpfs:
    there a file lands in the scratch, whatever the path says.)"""
    scratch_device = _device(os.environ.get("TMPDIR", "/tmp"))
    made, why = [], []
    for folder in [*folders, "/", "/usr", "/etc", os.getcwd()]:
        if _device(folder) == scratch_device:
            why.append(f"{folder}: the scratch's")
            continue
        path = os.path.join(folder, f"reach-{os.getpid()}")
        try:
            with open(path, "x"):
                pass
            made.append(path)
            os.unlink(path)  # where it could be made, it is taken away again
        except OSError as e:
            why.append(_error(e))
    return _outcome(bool(made), f"created: {made}; {why}")


def _device(path: str) -> int | None:
    try:
        return os.stat(path).st_dev
    except OSError:
        return None


def scratch() -> dict[str, Any]:
    """The one writable folder ($TMPDIR): writing there is allowed (not an escape)."""
    folder = os.environ.get("TMPDIR", "/tmp")
    try:
        os.mkdir(os.path.join(folder, f"scratch-{os.getpid()}"))
        return _outcome(False, f"{folder} writable")
    except OSError as e:
        return _outcome(False, f"{folder}: {_error(e)}")


def tcp_connections(endpoints: list[tuple[str, int]]) -> dict[str, Any]:
    def connect(endpoint: tuple[str, int]) -> str:
        with socket.create_connection(endpoint, timeout=2):
            return f"{endpoint[0]}:{endpoint[1]}"

    return _each("connected", endpoints, connect)


def unix_connections(paths: list[str]) -> dict[str, Any]:
    def connect(path: str) -> str:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(2)
            s.connect(path)
        return path

    return _each("connected", paths, connect)


def enter_namespaces(paths: list[str]) -> dict[str, Any]:
    """setns into each network namespace file (the sandbox's PID 1's among them)."""
    libc = _libc()
    entered, why = [], []
    for path in [*paths, "/proc/1/ns/net"]:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError as e:
            why.append(f"{path}: {_error(e)}")
            continue
        try:
            if libc.setns(fd, _CLONE_NEWNET) == 0:
                entered.append(path)
            else:
                why.append(f"{path}: errno {ctypes.get_errno()}")
        finally:
            os.close(fd)
    return _outcome(bool(entered), f"entered: {entered}; {why}")


def new_user_namespace() -> dict[str, Any]:
    """A user namespace of its own would give it every capability there."""
    if _libc().unshare(_CLONE_NEWUSER) == 0:
        return _outcome(True, "unshare(CLONE_NEWUSER) succeeded")
    return _outcome(False, f"errno {ctypes.get_errno()}")


def capabilities() -> dict[str, Any]:
    try:
        with open("/proc/self/status") as f:
            effective = next(line.split()[1] for line in f if line.startswith("CapEff:"))
    except (OSError, StopIteration) as e:
        return _outcome(False, _error(e))
    return _outcome(int(effective, 16) != 0, f"CapEff {effective}")


def trace_parent() -> dict[str, Any]:
    """ptrace the parent: PTRACE_SEIZE, which stops nothing, then a detach at once."""
    libc = _libc()
    parent = os.getppid() or 1
    if libc.ptrace(_PTRACE_SEIZE, parent, None, None) == 0:
        libc.ptrace(_PTRACE_DETACH, parent, None, None)
        return _outcome(True, f"attached to {parent}")
    return _outcome(False, f"pid {parent}: errno {ctypes.get_errno()}")


def keyring() -> dict[str, Any]:
    if not sys.platform.startswith("linux") or os.uname().machine != "x86_64":
        return _outcome(False, "not tried off x86_64 Linux")
    number = _libc().syscall(_SYS_KEYCTL_X86_64, _KEYCTL_GET_KEYRING_ID, _KEY_SPEC_SESSION_KEYRING, 0)
    if number >= 0:
        return _outcome(True, f"session keyring {number}")
    return _outcome(False, f"errno {ctypes.get_errno()}")


def _sleeper(new_session: bool) -> None:
    """In a forked child: a session of its own if asked, then a long sleep (its command line is
    the program's, the marker among it)."""
    try:
        quiet = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):  # the program's pipes are not held open by its children
            os.dup2(quiet, fd)
        if new_session:
            os.setsid()
        time.sleep(SLEEP_S)
    finally:
        os._exit(0)


def left_behind(marker: str, count: int, new_session: bool) -> dict[str, Any]:
    """``count`` children that outlive this program if they can (``setsid``, or just forked)."""
    started, why = 0, ""
    for _ in range(count):
        try:
            if os.fork() == 0:
                _sleeper(new_session)
            started += 1
        except OSError as e:
            why = _error(e)
            break
    return _outcome(False, f"{started} started under {marker!r} {why}")


def attempts(targets: Targets) -> dict[str, dict[str, Any]]:
    """Every attempt, in order; the processes last."""
    report = {
        "environment": environment_keys(),
        "proc_environ": other_environments(),
        "read": read_files(targets.read),
        "mmap_write": mmap_writes(targets.change),
        "create": creations(targets.create_in),
        "delete": deletions(targets.change),
        "scratch": scratch(),
        "tcp": tcp_connections(targets.tcp),
        "unix": unix_connections(targets.unix),
        "setns": enter_namespaces(targets.netns),
        "userns": new_user_namespace(),
        "capabilities": capabilities(),
        "ptrace": trace_parent(),
        "keyring": keyring(),
    }
    if targets.marker:
        report["setsid_children"] = left_behind(targets.marker, targets.children, True)
        report["fork_bomb"] = left_behind(targets.marker, targets.fork_bomb, False)
    return report


def reached(report: dict[str, dict[str, Any]]) -> list[str]:
    """The attempts that got somewhere."""
    return [name for name, outcome in report.items() if outcome["reached"]]


def main() -> None:
    started = time.monotonic()
    report = attempts(Targets.from_json(sys.argv[1] if len(sys.argv) > 1 else ""))
    report["took"] = _outcome(False, f"{time.monotonic() - started:.2f} s")
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()

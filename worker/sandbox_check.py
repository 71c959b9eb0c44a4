"""What an engine program could reach on this machine: ``arbiter worker --check-sandbox``.

The attempts of :mod:`worker.reach` run as an engine program would: in the sandbox where this
machine can make one (``worker.referee.sandbox``), else as the unsandboxed child a worker that
allows unsandboxed programs would start. They aim at this machine's own things: the worker's
``$HOME`` and ``/root``, ``/etc/shadow``, the program and build caches, the broker's TCP port,
unix sockets of common daemons, this process's network namespace, and a canary file and folder
made for the check (so that a change or deletion harms nothing). Afterwards no process the
attempts started may be left. The check passes when the sandbox is made and nothing is reached.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from worker import reach
from worker.builds import default_build_root as builds_root
from worker.programs import default_cache_root as programs_root
from worker.referee.sandbox import (
    Launch,
    Sandbox,
    bwrap_argv,
    extra_paths,
    program_environment,
    this_machine,
)

#: Unix sockets of daemons a program should never reach, tried where they exist.
DAEMON_SOCKETS = (
    "/var/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/run/redis/redis-server.sock",
    "/var/run/redis/redis.sock",
    "/run/dbus/system_bus_socket",
    "/run/systemd/private",
)
#: The bound on the attempts' run and on their processes' end (seconds).
TIMEOUT_S = 60.0


@dataclass(frozen=True)
class CheckReport:
    """The check's outcome: the sandbox found, each attempt's outcome, the processes left."""

    sandbox: Sandbox
    attempts: dict[str, dict[str, object]]
    left_behind: int
    error: str | None = None

    @property
    def sandboxed(self) -> bool:
        return (
            self.sandbox.ready
            and self.error is None
            and self.left_behind == 0
            and not reach.reached(self.attempts)
        )

    def lines(self) -> list[str]:
        """The report as text, one attempt a line."""
        box = self.sandbox
        if box.ready:
            seccomp = "seccomp filter on" if box.seccomp else f"no seccomp filter ({box.seccomp_reason})"
            head = f"sandbox: bubblewrap ({box.bwrap}), {seccomp}"
        else:
            head = f"no sandbox: {box.reason}; the attempts run as an unsandboxed program would"
        out = [head]
        if self.error is not None:
            out.append(f"  the attempts did not run: {self.error}")
        for name, outcome in self.attempts.items():
            mark = "REACHED" if outcome["reached"] else "no"
            out.append(f"  {name:<16} {mark:<8} {outcome['detail']}")
        mark = "REACHED" if self.left_behind else "no"
        out.append(f"  {'left behind':<16} {mark:<8} {self.left_behind} processes")
        return out


def _targets(broker: str, canary: Path, marker: str, bound: list[str]) -> reach.Targets:
    home = os.path.expanduser("~")
    readable = [home, "/root", "/home", "/etc/shadow", str(programs_root()), str(builds_root())]
    # A folder holding a path bound for the attempts' interpreter lists that path only.
    readable = [p for p in readable if not any(b.startswith(p.rstrip("/") + "/") for b in bound)]
    url = urlsplit(broker)
    host = url.hostname if url.hostname not in (None, "localhost") else "127.0.0.1"
    tcp = [(host, url.port or 6379)] if url.scheme.startswith("redis") else []
    return reach.Targets(
        read=[*readable, str(canary / "file")],
        change=[str(canary / "file")],
        create_in=[str(canary)],
        tcp=tcp,
        unix=[p for p in DAEMON_SOCKETS if os.path.exists(p)],
        netns=[f"/proc/{os.getpid()}/ns/net", "/proc/self/ns/net"],
        marker=marker,
        children=2,
        fork_bomb=8,
    )


def _left(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    if marker.encode() in f.read():
                        found.append(int(entry))
            except OSError:
                continue
    return found


def _wait_gone(marker: str, timeout_s: float) -> int:
    deadline = time.monotonic() + timeout_s
    while (left := _left(marker)) and time.monotonic() < deadline:
        time.sleep(0.01)  # processes being killed and reaped, bounded by the deadline
    return len(left)


def check_sandbox(broker: str) -> CheckReport:
    """Runs the attempts as an engine program would run here; the report."""
    box = this_machine()
    marker = f"arbiter-sandbox-check-{uuid.uuid4().hex}"
    program = Path(reach.__file__).resolve()
    bound = [sys.prefix, sys.base_prefix]
    with tempfile.TemporaryDirectory(prefix="arbiter-check-") as work:
        canary = Path(work) / "canary"
        canary.mkdir()
        (canary / "file").write_text("canary\n")
        folder = Path(work) / "program"
        folder.mkdir()
        shutil.copy(program, folder / "reach.py")
        os.chmod(work, 0o755)
        targets = _targets(broker, canary, marker, bound)
        argv = [sys.executable, "-I", "-S", "reach.py", json.dumps(dataclasses.asdict(targets))]
        try:
            with Launch(box) as launch:
                if box.ready:
                    info, seccomp = launch.info_fd, launch.seccomp_fd
                    paths = [*extra_paths(), *bound]
                    argv = bwrap_argv(box, argv, str(folder), info_fd=info, seccomp_fd=seccomp, paths=paths)
                done = subprocess.run(
                    argv,
                    capture_output=True,
                    text=True,
                    env=program_environment(None),
                    cwd=None if box.ready else folder,
                    pass_fds=launch.passed if box.ready else (),
                    timeout=TIMEOUT_S,
                    check=False,
                )
            attempts = json.loads(done.stdout)
            error = None
        except (OSError, subprocess.SubprocessError, ValueError) as e:
            attempts, error = {}, f"{type(e).__name__}: {e}"
        else:
            if done.returncode != 0:
                error = f"exit status {done.returncode}: {done.stderr.strip()[-300:]}"
        left = _wait_gone(marker, 5.0 if box.ready else 0.0)
        for pid in _left(marker):  # unsandboxed: the check's own leftovers, ended here
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
    return CheckReport(box, attempts, left, error)

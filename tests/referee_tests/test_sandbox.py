"""worker.referee.sandbox: a hostile engine program (tests/engines/hostile_engine.py) started by the
referee of a process that holds keys reaches nothing and leaves nothing behind; without a sandbox
a program is refused, unless the operator allows unsandboxed programs."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from referee_testkit import ENGINES, QUICK, processes_named, require_sandbox, wait_gone

from worker.referee import EngineFault, EnginePlayer, EngineSpec
from worker.referee.faults import EngineConfigError
from worker.referee.process import EngineProcess
from worker.referee.sandbox import UNSANDBOXED_ENV, Launch, bwrap_argv, program_environment, this_machine

HOSTILE = (sys.executable, str(ENGINES / "hostile_engine.py"))
REACH = Path(__file__).resolve().parents[2] / "worker" / "reach.py"
#: What the hostile engine's name says when none of its attempts got anywhere.
CLEAN_NAME = "hostile: 0 of 16 reached"


@pytest.fixture
def sandboxed() -> None:
    require_sandbox()


class Bait:
    """What a hostile program is aimed at: keys in the referee's environment, files of a home
    folder and a store, a TCP listener on loopback and a unix socket, a file to change and a
    folder to write in, all outside its sandbox."""

    def __init__(self, root: Path, marker: str) -> None:
        self.home = root / "home"
        self.home.mkdir()
        self.secret = self.home / "planted-secret"
        self.secret.write_text("the worker's secret\n")
        self.store = root / "store.db"
        self.store.write_bytes(b"SQLite format 3\0 check keys")
        self.victim = root / "victim.txt"
        self.victim.write_text("unchanged\n")
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind(str(root / "s.sock"))
        self.unix.listen()
        self.root = root
        self.marker = marker
        self.before = sorted(p.name for p in root.iterdir())

    def targets(self) -> str:
        return json.dumps(
            {
                "read": [str(self.secret), str(self.store), str(self.home), "/etc/shadow", "/root/.bashrc"],
                "change": [str(self.victim)],
                "create_in": [str(self.root), str(self.home)],
                "tcp": [["127.0.0.1", self.listener.getsockname()[1]]],
                "unix": [str(self.root / "s.sock")],
                "netns": [f"/proc/{os.getpid()}/ns/net", f"/proc/{os.getppid()}/ns/net"],
                "marker": self.marker,
                "children": 3,
                "fork_bomb": 24,
            }
        )

    def untouched(self) -> None:
        assert self.victim.read_text() == "unchanged\n"
        assert sorted(p.name for p in self.root.iterdir()) == self.before
        assert os.listdir(self.home) == ["planted-secret"]

    def close(self) -> None:
        self.listener.close()
        self.unix.close()


@pytest.fixture
def bait(tmp_path: Path) -> Iterator[Bait]:
    laid = Bait(tmp_path, f"arbiter-hostile-{os.getpid()}-{time.monotonic_ns()}")
    yield laid
    laid.close()


def hostile_player(bait: Bait, monkeypatch: pytest.MonkeyPatch) -> EnginePlayer:
    """The hostile engine, started by this process holding both kinds of key in its environment,
    handed to the engine's spec too (the sandbox must withhold them)."""
    monkeypatch.setenv("ARBITER_SECRET", "the-master-secret-a-program-must-not-read")
    monkeypatch.setenv("ARBITER_WORKER_KEY", "arbiter-worker-1:not-for-programs")
    monkeypatch.setenv("HOME", str(bait.home))
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    spec = EngineSpec((*HOSTILE, "--targets", bait.targets()), name="hostile", env=env)
    return EnginePlayer(spec, "congo", QUICK)


def test_a_hostile_program_reaches_nothing_and_leaves_nothing(
    sandboxed: None, bait: Bait, monkeypatch: pytest.MonkeyPatch
) -> None:
    with hostile_player(bait, monkeypatch) as player:
        try:
            player.start()
        except EngineFault as e:
            pytest.fail(f"the hostile engine reached something: {e.reason}: {player.stderr_tail()}")
        assert player.info is not None and player.info.name == CLEAN_NAME, player.stderr_tail()
        tail = player.stderr_tail()
        assert sum(line.startswith("reach ") for line in tail) == 16, tail
        assert not any(": YES" in line for line in tail), tail
        process = player.process
        assert process is not None and process.sandboxed
        # Its setsid children and its fork bomb run until the sandbox ends.
        assert len(processes_with(bait.marker)) > 20
    assert wait_gone(bait.marker), f"left behind: {processes_with(bait.marker)}"
    bait.untouched()


def processes_with(marker: str) -> list[int]:
    return processes_named(marker)


def test_a_killed_referee_takes_the_program_and_its_children_along(sandboxed: None, bait: Bait) -> None:
    # The referee is a process of its own here, killed with SIGKILL while its engine and the
    # engine's setsid children run: none of them may outlive it.
    code = (
        "import sys\n"
        "from worker.referee import EngineSpec, EnginePlayer\n"
        f"spec = EngineSpec({(*HOSTILE, '--targets', bait.targets())!r}, name='hostile')\n"
        "player = EnginePlayer(spec, 'congo')\n"
        "player.start()\n"
        "print(player.info.name, flush=True)\n"
        "sys.stdin.read()\n"
    )
    referee = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert referee.stdout is not None
        assert referee.stdout.readline().strip() == CLEAN_NAME
        assert len(processes_with(bait.marker)) > 20
    finally:
        referee.kill()
        referee.wait(10)
    assert wait_gone(bait.marker), f"left behind: {processes_with(bait.marker)}"
    bait.untouched()


def test_as_a_plain_user_too(sandboxed: None) -> None:
    # As root, the sandbox maps root to the program's user; as a plain user, that user. The
    # sandbox's own command line (bwrap_argv), run by user nobody, with the attempts run by the
    # system's Python (this test's lives where nobody may not read), aimed at files, sockets and
    # folders of nobody's: the same attempts fail.
    if os.geteuid() != 0:
        pytest.skip("the tests run as a plain user already (the other tests are that case)")
    setpriv, python = shutil.which("setpriv"), shutil.which("python3", path="/usr/bin:/bin")
    if setpriv is None or python is None:
        pytest.skip("setpriv (util-linux) or the system's python3 is not installed")
    base = Path(tempfile.mkdtemp(prefix="arbiter-plain-user-"))
    try:
        os.chmod(base, 0o755)
        (base / "bait").mkdir()
        folder = base / "program"
        folder.mkdir()
        shutil.copy(REACH, folder / "reach.py")
        bait = Bait(base / "bait", f"arbiter-hostile-{os.getpid()}-{time.monotonic_ns()}")
        for path in [base / "bait", *(base / "bait").rglob("*")]:
            os.chown(path, 65534, 65534)
        try:
            run_as_nobody(setpriv, python, folder, bait)
        finally:
            bait.close()
    finally:
        shutil.rmtree(base)


def run_as_nobody(setpriv: str, python: str, folder: Path, bait: Bait) -> None:
    box = this_machine()
    with Launch(box) as launch:
        argv = bwrap_argv(
            box,
            [python, "-I", "-S", "reach.py", bait.targets()],
            str(folder),
            info_fd=launch.info_fd,
            seccomp_fd=launch.seccomp_fd,
            paths=(),
        )
        done = subprocess.run(
            [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--", *argv],
            capture_output=True,
            text=True,
            env=program_environment(None),
            pass_fds=launch.passed,
            timeout=60,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert len(report) == 17 and [n for n, o in report.items() if o["reached"]] == [], report
    assert wait_gone(bait.marker), f"left behind: {processes_with(bait.marker)}"
    bait.untouched()


def test_without_a_sandbox_a_program_is_refused_unless_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    # A machine without bubblewrap: a PATH where no bwrap is.
    monkeypatch.setenv("PATH", "/nonexistent")
    this_machine.cache_clear()
    try:
        box = this_machine()
        assert not box.ready and box.reason == "bubblewrap (bwrap) is not installed"
        code = [sys.executable, "-c", "print('started', flush=True)"]
        with pytest.raises(
            EngineConfigError, match=r"only in a sandbox.*bubblewrap.*ARBITER_UNSANDBOXED_PROGRAMS=1"
        ):
            EngineProcess.start(code)
        monkeypatch.setenv(UNSANDBOXED_ENV, "1")
        with EngineProcess.start(code) as process:
            assert not process.sandboxed
            assert process.read_line(time.monotonic() + 5) == "started"
    finally:
        this_machine.cache_clear()


def test_a_command_outside_the_sandboxs_view_is_a_configuration_error(
    sandboxed: None, tmp_path: Path
) -> None:
    # An executable of the machine that the sandbox does not show: one clear line, nothing started.
    program = tmp_path / "elsewhere" / "engine"
    program.parent.mkdir()
    program.write_text("#!/bin/sh\nexit 0\n")
    program.chmod(0o755)
    with pytest.raises(
        EngineConfigError, match=r"lies outside what the sandbox shows.*ARBITER_SANDBOX_PATHS"
    ):
        EngineProcess.start([str(program)])
    # Run from its own folder, it is the program's own file, shown.
    with EngineProcess.start(["./engine"], cwd=str(program.parent)) as process:
        assert process.wait_exit(5.0) and process.exit_how() == "exit status 0"

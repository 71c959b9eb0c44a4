"""``arbiter engine check``: can arbiter use this engine program, and verify its games?

The program runs as a worker runs it (from the archive of the files its engine file lists,
unpacked in this machine's program cache, through the referee's process and protocol layers): the
handshake (its ``id`` and options), the engine file's option values against its declarations,
the determinism probe (coordinator.sides.probe) in each game it plays, and its ``bench`` if it
has one. Every failure is one line in ``problems``; the engine is usable when there is none.
Not playing alike again is no failure: such an engine's runs are unverifiable.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any

import engine
from coordinator.escape import terminal
from coordinator.sides.files import EngineFile, load_engine_file
from coordinator.sides.probe import PROBE_MOVETIME_MS, Probe, probe
from wire.programs import ProgramError
from worker.builds import BENCH_OUTPUT
from worker.program_batch import program_spec
from worker.programs import ProgramCache
from worker.referee import (
    EngineConfigError,
    EngineFault,
    EngineInfo,
    EnginePlayer,
    EngineProcess,
    EngineSpec,
    OptionSpec,
    Timeouts,
    UciClient,
)
from worker.referee.uci import VARIANT

#: Nodes per search of the check (more than the run-start probe: an author may wait a moment).
CHECK_NODES = 1000
#: How long ``bench`` may run (seconds).
BENCH_TIMEOUT_S = 120.0


@dataclass(frozen=True)
class GameCheck:
    """The probe in one game, or the fault that ended it."""

    game: str
    probe: Probe | None = None
    fault: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "fault": self.fault, **(self.probe.to_json() if self.probe else {})}


@dataclass
class CheckReport:
    """Everything the check found about one engine file."""

    file: str
    name: str
    digest: str
    id_name: str | None = None
    id_author: str | None = None
    options: list[OptionSpec] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    games: list[GameCheck] = field(default_factory=list)
    bench: int | None = None
    problems: list[str] = field(default_factory=list)
    #: What the engine wrote on stderr before its last fault (a crash's traceback, say).
    stderr: list[str] = field(default_factory=list)

    @property
    def usable(self) -> bool:
        return not self.problems

    @property
    def unverifiable(self) -> list[str]:
        """The games in which the engine did not play alike again."""
        return [g.game for g in self.games if g.probe is not None and not g.probe.deterministic]

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "name": self.name,
            "hash": self.digest,
            "id": {"name": self.id_name, "author": self.id_author},
            "options": [option_json(o) for o in self.options],
            "ignored_option_lines": self.ignored,
            "games": [g.to_json() for g in self.games],
            "bench": self.bench,
            "problems": self.problems,
            "stderr": self.stderr,
            "usable": self.usable,
        }

    def lines(self) -> list[str]:
        """The report as text, problems last (what the engine printed made safe for a terminal)."""
        out = [
            f"engine file   {terminal(self.file)}",
            f"name          {terminal(self.name)}",
            f"hash          {self.digest}",
            f"id name       {terminal(self.id_name or '-')}",
            f"id author     {terminal(self.id_author or '-')}",
            f"options       {len(self.options)}",
        ]
        out += [f"  {terminal(option_text(o))}" for o in self.options]
        out += [f"  ignored: {terminal(line)}" for line in self.ignored]
        for g in self.games:
            out.append(f"{g.game:<13} {game_text(g)}")
            if g.probe is not None:
                out += [f"  differs: {terminal(d)}" for d in g.probe.differences]
        out.append(f"bench         {self.bench if self.bench is not None else 'none'}")
        if self.problems:
            out += [f"problem: {terminal(p)}" for p in self.problems]
            out += [f"  stderr: {terminal(line)}" for line in self.stderr]
        elif self.unverifiable:
            out.append(f"usable, but unverifiable in {', '.join(self.unverifiable)}: runs rely on replay")
        else:
            out.append("usable")
        return out


def option_json(option: OptionSpec) -> dict[str, Any]:
    return {
        "name": option.name,
        "type": option.type,
        "default": option.default,
        "min": option.min,
        "max": option.max,
        "vars": list(option.vars),
    }


def option_text(option: OptionSpec) -> str:
    """One option as a line: name, type, default, range or choices."""
    text = f"{option.name} ({option.type})"
    if option.default is not None:
        text += f" default {option.default or '<empty>'}"
    if option.type == "spin":
        text += f" min {option.min} max {option.max}"
    if option.vars:
        text += " vars " + ", ".join(option.vars)
    return text


def game_text(check: GameCheck) -> str:
    if check.fault is not None:
        return f"failed: {check.fault}"
    assert check.probe is not None
    found = "deterministic" if check.probe.deterministic else "NOT deterministic"
    if check.probe.replayable is not None:
        found += ", replayable" if check.probe.replayable else ", NOT replayable"
    return found


def option_problems(file: EngineFile, info: EngineInfo) -> list[str]:
    """Each option value the engine file sets that the engine does not declare or accept."""
    problems = []
    for name, value in file.options.items():
        declared = info.option(name)
        if declared is None:
            problems.append(f"options.{name}: the engine declares no such option")
            continue
        try:
            declared.text(value)
        except EngineConfigError as e:
            problems.append(str(e))
    return problems


def played_games(info: EngineInfo, wanted: str | None) -> tuple[list[str], list[str]]:
    """The games to check (``wanted``, else those its UCI_Variant offers, else both), and the
    problem when it does not play ``wanted``."""
    variant = info.option(VARIANT)
    offered = [g for g in engine.GAMES if variant is None or g in [v.lower() for v in variant.vars]]
    if wanted is not None:
        if wanted in offered:
            return [wanted], []
        offers = ", ".join(variant.vars) if variant is not None else "-"
        return [], [f"{VARIANT}: the engine does not offer {wanted} (it offers {offers})"]
    if not offered:
        return [], [f"{VARIANT}: the engine offers neither congo nor congress"]
    return offered, []


class StartFault(Exception):
    """The engine failed its handshake; ``stderr``: what it wrote there (a crash's traceback)."""

    def __init__(self, fault: EngineFault, stderr: list[str]) -> None:
        super().__init__(str(fault))
        self.stderr = stderr


def handshake(spec: EngineSpec, timeouts: Timeouts) -> EngineInfo:
    """The engine's handshake alone (no options set); :class:`StartFault` when it fails."""
    process = EngineProcess.start(spec.argv, cwd=spec.cwd, limits=spec.process_limits(), name=spec.name)
    client = UciClient(process, timeouts)
    try:
        return client.handshake(spec.command)
    except EngineFault as e:
        raise StartFault(e, process.stderr_tail()) from None
    finally:
        client.quit()


def run_bench(spec: EngineSpec, timeout_s: float = BENCH_TIMEOUT_S) -> int | None:
    """The node signature ``<command> bench`` prints (``Bench: N nodes``), or None when it prints
    none (``quit`` is written to its input, so an engine without a bench exits at once)."""
    process = EngineProcess.start(
        [*spec.argv, "bench"], cwd=spec.cwd, limits=spec.process_limits(), name=spec.name
    )
    deadline = time.monotonic() + timeout_s
    try:
        process.send("quit", 1.0)
        process.begin_answer()
        while (line := process.read_line(deadline)) is not None:
            found = BENCH_OUTPUT.match(line)
            if found:
                return int(found.group(1))
    except EngineFault:
        return None  # it ended without a signature
    finally:
        process.kill()
    return None


def check_engine_file(
    source: str, game: str | None = None, nodes: int = CHECK_NODES, timeout_s: float = 10.0
) -> CheckReport:
    """The check of the engine file ``source``; ValueError (one line) when the file itself is bad."""
    file = load_engine_file(source)
    problems = []
    try:
        program, archive = file.program()
    except ProgramError:
        raise
    except ValueError as e:  # the files are not those its hash names: checked all the same
        problems.append(str(e))
        program, archive = replace(file, digest=None).program()
    report = CheckReport(file=source, name=file.name, digest=program.digest, problems=problems)
    timeouts = Timeouts(handshake_s=timeout_s, ready_s=timeout_s, move_s=timeout_s)
    cache = ProgramCache()
    try:
        cache.install(program.digest, archive)
        spec = program_spec(program, cache, None)
        info = handshake(spec, timeouts)
    except StartFault as e:
        report.problems.append(str(e))
        report.stderr = e.stderr
        return report
    except (EngineConfigError, ProgramError) as e:
        report.problems.append(str(e))
        return report
    report.id_name, report.id_author = info.name, info.author
    report.options = list(info.options.values())
    report.ignored = list(info.ignored)
    games, missing = played_games(info, game)
    unplayable = option_problems(file, info) + missing
    report.problems += unplayable
    if unplayable:
        return report
    for name in games:
        player = EnginePlayer(spec, name, timeouts)
        try:
            with player:
                found = probe(player, name, nodes, timed=True, movetime_ms=PROBE_MOVETIME_MS)
            report.games.append(GameCheck(name, probe=found))
        except (EngineFault, EngineConfigError) as e:
            report.games.append(GameCheck(name, fault=str(e)))
            report.problems.append(f"{name}: {e}")
            report.stderr = player.stderr_tail()
    try:
        report.bench = run_bench(spec)
    except EngineConfigError as e:
        report.problems.append(f"bench: {e}")
    return report

"""The referee's side of the protocol (docs/protocol.md) over one engine process.

Handshake with the options the engine declares, setoption checked against those declarations,
UCI_Variant, ucinewgame and isready, position, go under every kind of limit with the info lines of
the search, and bestmove. Every failure of the engine raises EngineFault with the failure table's
reason; a value the engine does not accept raises EngineConfigError (a ValueError).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from worker.referee.faults import EngineConfigError, EngineFault, no_readyok, no_uciok
from worker.referee.process import EngineProcess

OptionValue = str | int | bool | None

OPTION_TYPES = ("spin", "check", "combo", "string", "button")
_OPTION_KEYWORDS = frozenset(("name", "type", "default", "min", "max", "var"))
#: How the empty string is written as a string option's value (UCI's convention, as cutechess).
EMPTY = "<empty>"
VARIANT = "UCI_Variant"


@dataclass(frozen=True)
class Timeouts:
    """How long the referee waits for each answer (seconds)."""

    handshake_s: float = 10.0
    ready_s: float = 10.0
    #: For the engine to take a line on its input.
    write_s: float = 5.0
    #: For bestmove after ``stop``.
    stop_s: float = 1.0
    #: For the process to exit after ``quit``.
    quit_s: float = 1.0
    #: For bestmove when no time limit applies (fixed nodes or depth).
    move_s: float = 60.0


class AtDeadline(Enum):
    """What a search that has not answered by its deadline means."""

    #: A clock or movetime ran out: ``stop``; a bestmove within Timeouts.stop_s is a time
    #: forfeit, none is a hang.
    FORFEIT = "forfeit"
    #: The referee ends the search (``go infinite``): ``stop``, and the bestmove that follows
    #: within Timeouts.stop_s is the answer; none is a hang.
    STOP = "stop"
    #: Fixed nodes or depth took longer than any search may: a hang.
    HANG = "hang"


@dataclass(frozen=True)
class OptionSpec:
    """One option as the engine declared it (values as text; spin bounds as numbers)."""

    name: str
    type: str
    default: str | None = None
    min: int | None = None
    max: int | None = None
    vars: tuple[str, ...] = ()

    def command(self, value: OptionValue) -> str:
        """The ``setoption`` line setting this option to ``value``; EngineConfigError naming the
        option and what it expects unless the value is one it accepts."""
        text = self.text(value)
        return f"setoption name {self.name}" + ("" if self.type == "button" else f" value {text}")

    def text(self, value: OptionValue) -> str:
        """``value`` as this option's value text, checked."""

        def bad(expected: str) -> EngineConfigError:
            return EngineConfigError(f"option {self.name}: expected {expected}, got {value!r}")

        if self.type == "button":
            if value is not None:
                raise bad("no value (a button)")
            return ""
        if self.type == "spin":
            number = _spin_value(value)
            if number is None or self.min is None or self.max is None or not self.min <= number <= self.max:
                raise bad(f"an integer from {self.min} to {self.max}")
            return str(number)
        if self.type == "check":
            if isinstance(value, bool):
                return "true" if value else "false"
            if isinstance(value, str) and value.lower() in ("true", "false"):
                return value.lower()
            raise bad("true or false")
        if self.type == "combo":
            for var in self.vars:
                if isinstance(value, str) and value.lower() == var.lower():
                    return var
            raise bad("one of " + ", ".join(self.vars))
        if not isinstance(value, str) or any(c in value for c in "\r\n\0"):
            raise bad("a string of one line")
        return value if value else EMPTY


def _spin_value(value: OptionValue) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            return None
    return None


def parse_option(line: str) -> OptionSpec | str:
    """The option an ``option name ... type ...`` line declares, or why the line is no
    declaration (the referee ignores such lines, as UCI's GUIs do)."""
    fields: dict[str, list[str]] = {}
    vars_: list[str] = []
    key: str | None = None
    words: list[str] = []

    def close() -> None:
        if key == "var":
            vars_.append(" ".join(words))
        elif key is not None:
            fields.setdefault(key, words)

    for token in line.split()[1:]:
        if token in _OPTION_KEYWORDS and not (key == "name" and token != "type"):
            close()
            key, words = token, []
        else:
            words.append(token)
    close()
    name = " ".join(fields.get("name", []))
    kind = " ".join(fields.get("type", []))
    if not name or kind not in OPTION_TYPES:
        return f"not an option declaration: {line!r}"
    default = " ".join(fields["default"]) if "default" in fields else None
    if kind == "string" and default == EMPTY:
        default = ""
    spec = OptionSpec(name, kind, default, vars=tuple(vars_))
    if kind == "spin":
        bounds = [_spin_value(" ".join(fields.get(k, []))) for k in ("default", "min", "max")]
        if None in bounds:
            return f"option {name}: spin needs integer default, min and max: {line!r}"
        low, high = bounds[1], bounds[2]
        spec = replace(spec, min=low, max=high)
    elif kind == "check" and (default or "").lower() not in ("true", "false"):
        return f"option {name}: check needs default true or false: {line!r}"
    elif kind == "combo" and not vars_:
        return f"option {name}: combo needs at least one var: {line!r}"
    return spec


@dataclass(frozen=True)
class EngineInfo:
    """What the handshake told: the engine's name and author, and its options by lower-case name.
    ``ignored`` lists the option lines that declared nothing usable."""

    name: str | None
    author: str | None
    options: dict[str, OptionSpec]
    ignored: tuple[str, ...] = ()

    def option(self, name: str) -> OptionSpec | None:
        """The option called ``name`` (UCI option names are not case sensitive)."""
        return self.options.get(name.lower())


@dataclass(frozen=True)
class GoLimits:
    """What one ``go`` asks for; None fields are not sent."""

    wtime: int | None = None
    btime: int | None = None
    winc: int | None = None
    binc: int | None = None
    movestogo: int | None = None
    movetime: int | None = None
    nodes: int | None = None
    depth: int | None = None
    infinite: bool = False

    def command(self) -> str:
        words = ["go"]
        for key in ("wtime", "btime", "winc", "binc", "movestogo", "movetime", "nodes", "depth"):
            value = getattr(self, key)
            if value is not None:
                words += [key, str(value)]
        if self.infinite:
            words.append("infinite")
        return " ".join(words)


@dataclass
class SearchInfo:
    """The last value of each field the engine's info lines gave during one search (the main
    line only: lines with ``multipv`` above 1 are not counted)."""

    depth: int | None = None
    seldepth: int | None = None
    score_cp: int | None = None
    score_mate: int | None = None
    nodes: int | None = None
    nps: int | None = None
    time_ms: int | None = None
    pv: tuple[str, ...] = ()

    @classmethod
    def of_fields(cls, fields: tuple[Any, ...]) -> SearchInfo:
        """From the fields as ``engine.EnginePipe.search`` gives them, in this order."""
        depth, seldepth, score_cp, score_mate, nodes, nps, time_ms, pv = fields
        return cls(depth, seldepth, score_cp, score_mate, nodes, nps, time_ms, tuple(pv))


@dataclass(frozen=True)
class BestMove:
    """An engine's answer to ``go``: its move as written, its ponder move, what its info lines
    said, and how long it took from writing ``go`` to reading ``bestmove`` (ms)."""

    move: str
    ponder: str | None
    info: SearchInfo
    elapsed_ms: float


def position_command(fen: str, moves: Sequence[str] = ()) -> str:
    """``position fen <fen> [moves ...]``."""
    return f"position fen {fen}" + (" moves " + " ".join(moves) if moves else "")


def _first_word(line: str) -> str:
    words = line.split(maxsplit=1)
    return words[0] if words else ""


@dataclass
class UciClient:
    """The protocol over one :class:`EngineProcess`. ``now`` is the clock the moves are timed
    with (monotonic seconds; replaceable in tests)."""

    process: EngineProcess
    timeouts: Timeouts = field(default_factory=Timeouts)
    now: Callable[[], float] = time.monotonic
    info: EngineInfo | None = None

    def send(self, *lines: str) -> None:
        """Writes ``lines`` to the engine, in one write."""
        self.process.send_lines(lines, self.timeouts.write_s)

    def handshake(self, command: str = "uci") -> EngineInfo:
        """``uci`` (or ``ugi``) up to ``uciok`` (or ``ugiok``): the engine's name, author and
        options."""
        self.send(command)
        self.process.begin_answer()
        deadline = time.monotonic() + self.timeouts.handshake_s
        name = author = None
        options: dict[str, OptionSpec] = {}
        ignored: list[str] = []
        while True:
            line = self.process.read_line(deadline)
            if line is None:
                raise no_uciok()
            word = _first_word(line)
            if word in ("uciok", "ugiok"):
                break
            if word == "id":
                parts = line.split(maxsplit=2)
                if len(parts) == 3 and parts[1] == "name":
                    name = parts[2].strip()
                elif len(parts) == 3 and parts[1] == "author":
                    author = parts[2].strip()
            elif word == "option":
                spec = parse_option(line)
                if isinstance(spec, str):
                    ignored.append(spec)
                else:
                    options[spec.name.lower()] = spec
        self.info = EngineInfo(name, author, options, tuple(ignored))
        return self.info

    def declared(self, name: str) -> OptionSpec:
        """The option ``name`` as the engine declared it; EngineConfigError if it did not."""
        info = self.info
        if info is None:
            raise EngineConfigError("an option was asked for before the handshake")
        spec = info.option(name)
        if spec is None:
            known = ", ".join(sorted(s.name for s in info.options.values())) or "none"
            raise EngineConfigError(
                f"engine {info.name or self.process.name} has no option {name!r} (it has: {known})"
            )
        return spec

    def set_option(self, name: str, value: OptionValue = None) -> None:
        """``setoption`` for an option the engine declared, with a value it accepts."""
        self.send(self.declared(name).command(value))

    def set_options(self, values: Mapping[str, OptionValue]) -> None:
        """:meth:`set_option` for each, every value checked before any is sent."""
        self.send(*[self.declared(name).command(value) for name, value in values.items()])

    def plays(self, game: str) -> bool:
        """Whether the engine plays ``game``: by its UCI_Variant, or (not declared) by trust."""
        spec = self.info.option(VARIANT) if self.info is not None else None
        if spec is None:
            return True
        return spec.type == "combo" and any(v.lower() == game for v in spec.vars)

    def set_variant(self, game: str) -> None:
        """``setoption name UCI_Variant value <game>`` if the engine declares UCI_Variant;
        EngineConfigError if it declares it without ``game``."""
        spec = self.info.option(VARIANT) if self.info is not None else None
        if spec is None:
            return
        if not self.plays(game):
            raise EngineConfigError(
                f"engine {self.process.name} does not play {game}: its UCI_Variant offers "
                + (", ".join(spec.vars) or f"no vars (type {spec.type})")
            )
        self.send(spec.command(game))

    def is_ready(self, *before: str) -> None:
        """``isready`` up to ``readyok`` (anything else the engine prints meanwhile is passed
        over, a late bestmove included); the lines ``before`` are sent first, in the same write."""
        self.send(*before, "isready")
        self.process.begin_answer()
        deadline = time.monotonic() + self.timeouts.ready_s
        while True:
            line = self.process.read_line(deadline)
            if line is None:
                raise no_readyok()
            if _first_word(line) == "readyok":
                return

    def new_game(self) -> None:
        """``ucinewgame``, then ``isready`` up to ``readyok``."""
        self.is_ready("ucinewgame")

    def position(self, fen: str, moves: Sequence[str] = ()) -> None:
        """``position fen <fen> [moves ...]``."""
        self.send(position_command(fen, moves))

    def position_ready(self, fen: str, moves: Sequence[str] = ()) -> None:
        """:meth:`position`, then ``isready`` up to ``readyok``."""
        self.is_ready(position_command(fen, moves))

    def go(self, limits: GoLimits, deadline_s: float, at_deadline: AtDeadline, *before: str) -> BestMove:
        """``go`` and its bestmove, with the info lines seen meanwhile; ``deadline_s`` after
        writing ``go`` the search is judged by ``at_deadline``. The lines ``before`` (a
        ``position``) go out in the same write, and their time counts as the move's."""
        started = self.now()
        timeouts = self.timeouts
        move, ponder, fields = self.process.search(
            [*before, limits.command()], deadline_s, at_deadline.value, timeouts.stop_s, timeouts.write_s
        )
        elapsed_ms = (self.now() - started) * 1000.0
        return BestMove(move, ponder, SearchInfo.of_fields(fields), elapsed_ms)

    def quit(self) -> None:
        """``quit``, up to Timeouts.quit_s for the engine to exit, then its group killed."""
        try:
            self.send("quit")
            self.process.wait_exit(self.timeouts.quit_s)
        except EngineFault:
            pass
        finally:
            self.process.kill()

"""Engine files: a TOML file that says how to run an engine program, so that ``--candidate``,
``--baseline`` (and a tournament's ``--engine``) can name any program that speaks the protocol
(docs/protocol.md), besides a weights file or ``default`` for the built-in engine.

    name = "Plain 1.0"                 # how reports name it (default: the file's name)
    command = ["./plain"]              # argv; a relative first word with a slash is a file of the
                                       # program; "python3" or "/usr/bin/java" are the machine's
    workdir = "."                      # the program's folder, from the engine file's folder
    files = ["plain", "nets/x.bin"]    # what is shipped to workers (default: the command's file)
    protocol = "uci"                   # or "ugi"
    hash = "3f0c..."                   # the files' digest, once known: a change is then refused
    include = ["champion.toml"]        # option files (a tuning run's champion), over [options]
    [options]                          # setoption values: spin, check, combo and string options
    Hash = 16

The files named are the program: the coordinator packs them (wire.programs), and their digest
is the program's identity on every machine. A file outside the folder, a link, or a folder of
more than 64 MiB is refused, in one line naming the engine file and what was expected.
"""

from __future__ import annotations

import shlex
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wire.programs import (
    MAX_OPTION_TEXT,
    PROTOCOLS,
    EngineProgram,
    OptionValue,
    ProgramError,
    files_digest,
    is_program_file,
    pack,
)

#: The keys an engine file may hold.
KEYS = ("name", "command", "workdir", "files", "protocol", "hash", "options", "include")
#: What marks an engine file among --candidate values (the rest: weights JSON or ``default``).
SUFFIX = ".toml"


def is_engine_file(source: str) -> bool:
    """Whether ``source`` (a --candidate or --baseline value) names an engine file."""
    return source.lower().endswith(SUFFIX)


@dataclass(frozen=True)
class EngineFile:
    """An engine file, read and checked: what runs, from which folder, with which files."""

    path: Path
    name: str
    command: tuple[str, ...]
    folder: Path
    files: tuple[Path, ...]
    protocol: str = "uci"
    digest: str | None = None
    options: dict[str, OptionValue] = field(default_factory=dict)

    def program(self, deterministic: bool = True) -> tuple[EngineProgram, bytes]:
        """The program as a payload names it, and the archive of its files; ValueError when the
        files are not those the engine file's ``hash`` names."""
        found = files_digest(self.folder, list(self.files))
        if self.digest is not None and found != self.digest:
            raise ValueError(
                f"{self.path}: hash: the program's files changed since it was written "
                f"(they are {found} now; update hash if the change is meant)"
            )
        archive = pack(self.folder, list(self.files))
        program = EngineProgram(
            name=self.name,
            digest=found,
            command=self.command,
            options=dict(self.options),
            protocol=self.protocol,
            deterministic=deterministic,
        )
        return program, archive


def _fail(path: Path, key: str, expected: str) -> ValueError:
    return ValueError(f"{path}: {key}: expected {expected}")


def _text(data: dict[str, Any], path: Path, key: str, default: str | None = None) -> str:
    value = data.get(key, default)
    if not isinstance(value, str) or not value.strip() or "\n" in value:
        raise _fail(path, key, "one line of text")
    return value.strip()


def _command(data: dict[str, Any], path: Path) -> tuple[str, ...]:
    value = data.get("command")
    if isinstance(value, str):
        try:
            words = shlex.split(value)
        except ValueError as e:
            raise _fail(path, "command", f"a command line ({e})") from None
    elif isinstance(value, list) and all(isinstance(w, str) for w in value):
        words = list(value)
    else:
        raise _fail(path, "command", 'the program and its arguments, e.g. ["./engine", "--uci"]')
    if not words or not words[0]:
        raise _fail(path, "command", "a program to run")
    return tuple(words)


def _options(data: dict[str, Any], path: Path) -> dict[str, OptionValue]:
    value = data.get("options", {})
    if not isinstance(value, dict):
        raise _fail(path, "options", "a table of option names and values")
    out: dict[str, OptionValue] = {}
    for name, option in value.items():
        if name.lower() == "uci_variant":
            raise _fail(path, f"options.{name}", "no UCI_Variant: the referee sets it from the game")
        if isinstance(option, bool | int) or (isinstance(option, str) and len(option) <= MAX_OPTION_TEXT):
            out[name] = option
        else:
            raise _fail(path, f"options.{name}", "a whole number, true/false or a string")
    return out


def _included(data: dict[str, Any], path: Path) -> dict[str, OptionValue]:
    """The options of the files ``include`` names (each a TOML file with an ``[options]`` table,
    as ``arbiter tune -o champion.toml`` writes one), later files over earlier ones."""
    value = data.get("include", [])
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise _fail(path, "include", "an option file or a list of them")
    merged: dict[str, OptionValue] = {}
    for name in names:
        included = path.parent / name
        try:
            options = tomllib.loads(included.read_text())
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError) as e:
            raise _fail(path, "include", f"option files that read as TOML; {name}: {e}") from None
        if set(options) - {"options"}:
            raise _fail(path, "include", f"option files holding only an [options] table; {name} holds more")
        merged |= _options(options, included)
    return merged


def _inside(folder: Path, relative: str, path: Path, key: str) -> Path:
    """``relative`` as a regular file inside ``folder``."""
    target = (folder / relative).resolve()
    if not target.is_relative_to(folder.resolve()):
        raise _fail(path, key, f"files inside the program's folder {folder}, not {relative!r}")
    if target.is_symlink() or not target.is_file():
        raise _fail(path, key, f"a file of the program's folder; {relative!r} is not there")
    return target


def load_engine_file(source: str | Path) -> EngineFile:
    """The engine file at ``source``; ValueError (one line, naming the file and the key) when it
    cannot be read or is not an engine file."""
    path = Path(source)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ValueError(f"{path}: no such engine file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise ValueError(f"{path}: cannot be read ({e})") from None
    except (tomllib.TOMLDecodeError, RecursionError) as e:  # RecursionError: nested too deeply
        raise ValueError(f"{path}: not TOML ({e})") from None
    unknown = sorted(set(data) - set(KEYS))
    if unknown:
        raise ValueError(f"{path}: unknown key {unknown[0]!r}; an engine file holds {', '.join(KEYS)}")
    command = _command(data, path)
    folder = (path.parent / _text(data, path, "workdir", ".")).resolve()
    if not folder.is_dir():
        raise _fail(path, "workdir", f"the program's folder; {folder} is not one")
    listed, key = data.get("files"), "files"
    if listed is None:
        if not is_program_file(command[0]):
            raise _fail(path, "files", "the program's files (the command names no file of its folder)")
        listed, key = [command[0]], "command"
    if not isinstance(listed, list) or not listed or not all(isinstance(f, str) for f in listed):
        raise _fail(path, "files", "a list of the program's files, relative to its folder")
    files = tuple(sorted({_inside(folder, f, path, key) for f in listed}))
    if is_program_file(command[0]):
        program = _inside(folder, command[0], path, "command")
        if program not in files:
            raise _fail(path, "files", f"the command's own file {command[0]!r} among them")
    protocol = _text(data, path, "protocol", "uci")
    if protocol not in PROTOCOLS:
        raise _fail(path, "protocol", f"one of {', '.join(PROTOCOLS)}, got {protocol!r}")
    digest = data.get("hash")
    if digest is not None:
        digest = str(digest).removeprefix("sha256:")
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise _fail(path, "hash", "the 64 hex digits `arbiter engine check` prints")
    return EngineFile(
        path=path,
        name=_text(data, path, "name", path.stem),
        command=command,
        folder=folder,
        files=files,
        protocol=protocol,
        digest=digest,
        options=_options(data, path) | _included(data, path),
    )


def read_program(source: str) -> tuple[EngineProgram, bytes]:
    """The program an engine file names, with its archive; ValueError in one line."""
    try:
        return load_engine_file(source).program()
    except ProgramError as e:
        raise ValueError(f"{source}: {e}") from None

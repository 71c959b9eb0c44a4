"""Engine programs as payloads name them, and the folder of files each one is, as both sides see it.

A side of a batch may be played by an engine program rather than by the built-in engine. The
payload names it (:class:`EngineProgram`): its name, the command that starts it, the option values
it is given, and the **digest of its files**. The digest is a SHA-256 over the folder's contents
(:func:`tree_digest`: each file's path, whether it is executable, and its bytes), so the same files
have the same digest on every machine, whatever the archive that carried them. The coordinator
packs a program's files as one archive (:func:`pack`); a worker unpacks it (:func:`unpack`, size
bounded, nothing outside the folder) and checks the digest of what it unpacked, and checks it again
before every batch that uses it (``worker.programs.ProgramCache``). A side built from a commit on
each worker is named by its :class:`BuildSpec` (``worker.builds`` builds it).

Only a payload the coordinator signed makes a worker start a program (worker.games).
"""

from __future__ import annotations

import hashlib
import io
import re
import stat
import tarfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wire.fields import check_int, check_list, check_object, check_str

#: The largest program archive (and unpacked program) a run may ship, in bytes.
MAX_PROGRAM_BYTES = 64 << 20
#: The most files one program may hold.
MAX_PROGRAM_FILES = 10_000
#: Protocols the referee speaks.
PROTOCOLS = ("uci", "ugi")
#: Where a fleet's coordinator puts a program's archive for its workers (in the result backend's
#: Redis), and for how long after it last shipped it (seconds).
PROGRAM_KEY_PREFIX = "arbiter:program:"
PROGRAM_TTL = 7 * 24 * 3600
#: The longest option name or value, and the most options, a payload may carry.
MAX_OPTION_TEXT = 1024
MAX_OPTIONS = 1000

#: A full commit SHA, as a build names its commit.
SHA = re.compile(r"^[0-9a-f]{40}$")
#: The longest a worker may take to build a commit a payload names (seconds): its batch's lease
#: allows for it.
BUILD_TIMEOUT = 1200

#: An option value as ``setoption`` sends it: spin (int), check (bool), combo or string (str).
OptionValue = int | bool | str


class ProgramError(ValueError):
    """A program cannot be had or run here: a bad archive, a digest that does not match, a command
    this machine cannot start. Nobody's lie: the batch goes to another worker."""


def _check_options(value: Any, name: str) -> dict[str, OptionValue]:
    if not isinstance(value, dict):
        raise ValueError(f"{name}: expected an object of option names and values")
    d: dict[str, Any] = value
    if len(d) > MAX_OPTIONS:
        raise ValueError(f"{name}: expected at most {MAX_OPTIONS} options, got {len(d)}")
    out: dict[str, OptionValue] = {}
    for key, option in d.items():
        check_str(key, f"{name}: option name", max_length=MAX_OPTION_TEXT)
        if isinstance(option, bool | int) or (
            isinstance(option, str) and len(option) <= MAX_OPTION_TEXT and "\n" not in option
        ):
            out[key] = option
        else:
            raise ValueError(f"{name}[{key!r}]: expected a whole number, true/false or one line of text")
    return out


@dataclass(frozen=True)
class BuildSpec:
    """A commit to build: ``repo`` (a path, ``git://`` or ``https://`` URL), its full ``sha``, and
    the ``bench`` node count every build of it must print."""

    repo: str
    sha: str
    bench: int

    def to_json(self) -> dict[str, Any]:
        return {"repo": self.repo, "sha": self.sha, "bench": self.bench}

    @classmethod
    def from_json(cls, data: Any, name: str = "build") -> BuildSpec:
        d = check_object(data, name, ("repo", "sha", "bench"))
        sha = check_str(d["sha"], f"{name}: sha", max_length=40)
        if not SHA.match(sha):
            raise ValueError(f"{name}: sha: expected a full commit SHA (40 lower-case hex digits)")
        repo = check_str(d["repo"], f"{name}: repo", max_length=1000)
        if repo.startswith("-") or "\n" in repo:
            raise ValueError(f"{name}: repo: expected a repository path or URL")
        return cls(repo=repo, sha=sha, bench=check_int(d["bench"], f"{name}: bench", low=1))

    @property
    def digest(self) -> str:
        """The identity of the build as a program: the commit, whatever machine builds it."""
        return hashlib.sha256(f"build:{self.sha}".encode()).hexdigest()


@dataclass(frozen=True)
class EngineProgram:
    """A side played by an engine program: ``command`` is its argv, a relative first word with a
    slash being a path inside the program's folder (where it runs; an absolute one, or a bare
    name looked up on the PATH, is a program of the machine, such as an interpreter); ``digest``
    the :func:`tree_digest` of that folder; ``options`` what it is set to before it plays;
    ``deterministic`` whether it was found to play the same moves twice at fixed nodes,
    ``replayable`` whether a timed game's moves come again when each is searched with the nodes
    it reported (else its games of that kind are checked by replay alone, never by playing them
    again: the run is unverifiable)."""

    name: str
    digest: str
    command: tuple[str, ...]
    options: Mapping[str, OptionValue] = field(default_factory=dict)
    protocol: str = "uci"
    deterministic: bool = True
    replayable: bool = True
    #: A commit built on each worker (its ``digest`` then names the commit), else None: the files
    #: of an archive.
    build: BuildSpec | None = None

    def verifiable(self, timed: bool) -> bool:
        """Whether its games under fixed limits (``timed``: under time limits) can be checked
        by playing them again."""
        return self.replayable if timed else self.deterministic

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "digest": self.digest,
            "command": list(self.command),
            "options": dict(self.options),
            "protocol": self.protocol,
            "deterministic": self.deterministic,
            "replayable": self.replayable,
            **({} if self.build is None else {"build": self.build.to_json()}),
        }

    @classmethod
    def from_json(cls, data: Any, name: str = "program") -> EngineProgram:
        """A program from its JSON object; ValueError naming the first bad field."""
        d = check_object(
            data,
            name,
            ("name", "digest", "command", "options", "protocol", "deterministic"),
            ("replayable", "build"),
        )
        digest = check_str(d["digest"], f"{name}: digest", max_length=64)
        if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
            raise ValueError(f"{name}: digest: expected 64 lower-case hex digits")
        command = check_list(d["command"], f"{name}: command")
        if not command or len(command) > 100:
            raise ValueError(f"{name}: command: expected 1 to 100 words")
        words = tuple(check_str(w, f"{name}: command[{i}]", max_length=4096) for i, w in enumerate(command))
        protocol = check_str(d["protocol"], f"{name}: protocol", max_length=8)
        if protocol not in PROTOCOLS:
            raise ValueError(f"{name}: protocol: expected one of {', '.join(PROTOCOLS)}, got {protocol!r}")
        deterministic, replayable = d["deterministic"], d.get("replayable", True)
        if not isinstance(deterministic, bool) or not isinstance(replayable, bool):
            raise ValueError(f"{name}: deterministic, replayable: expected true or false")
        return cls(
            name=check_str(d["name"], f"{name}: name", max_length=200),
            digest=digest,
            command=words,
            options=_check_options(d["options"], f"{name}: options"),
            protocol=protocol,
            deterministic=deterministic,
            replayable=replayable,
            build=None if d.get("build") is None else BuildSpec.from_json(d["build"], f"{name}: build"),
        )

    def argv(self, folder: Path) -> tuple[str, ...]:
        """The command to start it with, its own program resolved inside ``folder``."""
        first, *rest = self.command
        if is_program_file(first):
            return (str(folder / first), *rest)
        return (first, *rest)


def is_program_file(word: str) -> bool:
    """Whether a command's first word names a file of the program (a relative path with a slash,
    like ``./engine``), not a program of the machine (``python3``, ``/usr/bin/java``)."""
    return "/" in word and not word.startswith("/")


# a program's files ------------------------------------------------------------------------------


def program_files(folder: Path) -> list[Path]:
    """Every regular file under ``folder``, sorted by relative path (links refused)."""
    found: list[Path] = []
    for path in sorted(folder.rglob("*")):
        if path.is_symlink():
            raise ProgramError(f"{path}: a symbolic link; ship the file itself")
        if path.is_file():
            found.append(path)
        if len(found) > MAX_PROGRAM_FILES:
            raise ProgramError(f"{folder}: more than {MAX_PROGRAM_FILES} files")
    return found


def tree_digest(folder: Path) -> str:
    """The SHA-256 of a program's files (every file under ``folder``; see :func:`files_digest`)."""
    return files_digest(folder, program_files(folder))


def files_digest(folder: Path, files: list[Path]) -> str:
    """The SHA-256 of ``files`` under ``folder``: for each file in relative path order, its path,
    whether it is executable, its size and its bytes."""
    return _named_files_digest([(path.relative_to(folder).as_posix(), path) for path in files])


def file_as_program_digest(name: str, path: Path) -> str:
    """The digest a program would have whose one file is ``path``'s, at relative path ``name``."""
    return _named_files_digest([(name, path)])


def _named_files_digest(files: list[tuple[str, Path]]) -> str:
    digest = hashlib.sha256()
    for relative, path in sorted(files):
        executable = bool(path.stat().st_mode & stat.S_IXUSR)
        digest.update(f"{relative}\0{int(executable)}\0{path.stat().st_size}\0".encode())
        with path.open("rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
    return digest.hexdigest()


def pack(folder: Path, files: list[Path]) -> bytes:
    """``files`` (under ``folder``) as one gzipped tar, the same bytes from the same files: sorted,
    no owners, no times, modes 0755 or 0644. ProgramError beyond :data:`MAX_PROGRAM_BYTES`."""
    buffer = io.BytesIO()
    total = 0
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT, compresslevel=6) as tar:
        for path in sorted(files, key=lambda p: p.relative_to(folder).as_posix()):
            total += path.stat().st_size
            if total > MAX_PROGRAM_BYTES:
                raise ProgramError(f"{folder}: the program's files exceed {MAX_PROGRAM_BYTES >> 20} MiB")
            info = tarfile.TarInfo(path.relative_to(folder).as_posix())
            info.size = path.stat().st_size
            info.mode = 0o755 if path.stat().st_mode & stat.S_IXUSR else 0o644
            with path.open("rb") as f:
                tar.addfile(info, f)
    data = buffer.getvalue()
    if len(data) > MAX_PROGRAM_BYTES:
        raise ProgramError(f"{folder}: the program's archive exceeds {MAX_PROGRAM_BYTES >> 20} MiB")
    return data


def unpack(archive: bytes, folder: Path) -> None:
    """An archive made by :func:`pack` into the empty ``folder``: regular files only, nothing
    outside it, at most :data:`MAX_PROGRAM_BYTES` unpacked. ProgramError for anything else."""
    if len(archive) > MAX_PROGRAM_BYTES:
        raise ProgramError(f"program archive: larger than {MAX_PROGRAM_BYTES >> 20} MiB")
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:*") as tar:
            members = tar.getmembers()
            if len(members) > MAX_PROGRAM_FILES:
                raise ProgramError(f"program archive: more than {MAX_PROGRAM_FILES} files")
            for member in members:
                if not (member.isfile() or member.isdir()):
                    raise ProgramError(f"program archive: {member.name!r} is not a regular file")
                total += member.size
                if total > MAX_PROGRAM_BYTES:
                    raise ProgramError(f"program archive: unpacks to more than {MAX_PROGRAM_BYTES >> 20} MiB")
            tar.extractall(folder, members=members, filter="data")
    except (tarfile.TarError, OSError, EOFError) as e:
        raise ProgramError(f"program archive: cannot be unpacked ({e})") from None


def program_key(digest: str) -> str:
    """The Redis key of program ``digest``'s archive."""
    return PROGRAM_KEY_PREFIX + digest

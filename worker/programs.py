"""The programs a worker keeps: each engine program a payload names, fetched from the broker and
unpacked in this machine's program cache (:class:`ProgramCache`), its files checked against its
digest (``wire.programs``) when unpacked and again before every batch that uses it."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from wire.programs import MAX_PROGRAM_BYTES, ProgramError, files_digest, program_files, program_key, unpack
from worker.caches import cache_folder

#: Where workers keep programs (default: ~/.cache/arbiter/programs).
CACHE_ENV = "ARBITER_PROGRAM_CACHE"


def default_cache_root() -> Path:
    """Where this machine keeps programs."""
    return cache_folder(CACHE_ENV, "programs")


class ProgramCache:
    """Programs unpacked on this machine, one folder per digest with the list of its files beside
    it, each checked against its digest when it is unpacked and again before every use (files
    the engine writes into its folder, such as logs, are not the program's and are left alone)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root or default_cache_root()

    def folder(self, digest: str) -> Path:
        return self.root / digest

    def _manifest(self, digest: str) -> Path:
        return self.root / f"{digest}.files"

    def install(self, digest: str, archive: bytes) -> Path:
        """Unpack ``archive`` as program ``digest`` (already there: kept); ProgramError when its
        files are not the ones the digest names."""
        target = self.folder(digest)
        if target.is_dir() and self._manifest(digest).is_file():
            return target
        self.root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{digest[:12]}-", dir=self.root))
        try:
            unpack(archive, staging)
            files = program_files(staging)
            found = files_digest(staging, files)
            if found != digest:
                why = f"its archive holds other files (digest {found[:12]})"
                raise ProgramError(f"program {digest[:12]}: {why}")
            names = "\n".join(f.relative_to(staging).as_posix() for f in files)
            shutil.rmtree(target, ignore_errors=True)  # a folder left without its list of files
            try:
                staging.rename(target)
            except OSError:
                if not target.is_dir():  # another process unpacked it first: theirs is as good
                    raise
            manifest = self._manifest(digest)
            partial = manifest.with_suffix(f".{os.getpid()}.tmp")
            partial.write_text(names)
            partial.replace(manifest)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return target

    def ready(self, digest: str, fetch: Callable[[str], bytes] | None) -> Path:
        """The folder of program ``digest``, fetched and unpacked if missing (``fetch``: its
        archive by digest), its files checked against the digest before this use."""
        target, manifest = self.folder(digest), self._manifest(digest)
        if not (target.is_dir() and manifest.is_file()):
            if fetch is None:
                raise ProgramError(f"program {digest[:12]} is not on this machine and cannot be fetched")
            self.install(digest, fetch(digest))
        try:
            files = [target / name for name in manifest.read_text().splitlines()]
            intact = files_digest(target, files) == digest
        except OSError:
            intact = False
        if not intact:
            manifest.unlink(missing_ok=True)
            shutil.rmtree(target, ignore_errors=True)
            raise ProgramError(f"program {digest[:12]}: its files on this machine changed; removed")
        return target


def redis_fetch(client: Any) -> Callable[[str], bytes]:
    """Fetches a program's archive from a Redis ``client`` (the result backend's), its size asked
    first: nothing beyond :data:`MAX_PROGRAM_BYTES` is read."""

    def fetch(digest: str) -> bytes:
        key = program_key(digest)
        try:
            size = int(client.strlen(key))
            if size == 0:
                raise ProgramError(f"program {digest[:12]} is not on the broker (its run may have ended)")
            if size > MAX_PROGRAM_BYTES:
                raise ProgramError(f"program {digest[:12]}: {size} bytes on the broker, beyond the bound")
            data = client.get(key)
        except ProgramError:
            raise
        except Exception as e:  # redis-py raises its own connection and response errors
            raise ProgramError(f"program {digest[:12]}: cannot be fetched ({type(e).__name__})") from None
        if not isinstance(data, bytes):
            raise ProgramError(f"program {digest[:12]}: is not on the broker")
        return data

    return fetch

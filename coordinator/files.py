"""Writing files people keep (books, champion weights, reports, game exports) so that a failure
never leaves half a file."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO


@contextmanager
def atomic_writer(path: Path) -> Iterator[TextIO]:
    """A text file to write ``path`` through: a temporary file next to it, renamed over ``path``
    when the block ends, removed if it raises. The file gets the permissions a new file gets
    (the umask's), not a temporary file's private ones. A symbolic link's target is the file
    replaced; a path that is neither a file nor absent (a device such as /dev/stdout, a fifo)
    is written in place, since renaming over it would replace the device with a file."""
    target = path.resolve()
    if target.exists() and not target.is_file():
        with target.open("w", encoding="utf-8", newline="\n") as f:
            yield f
        return
    if not target.parent.is_dir():
        raise FileNotFoundError(2, "its folder does not exist", str(path))
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as f:
            yield f
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through :func:`atomic_writer`."""
    with atomic_writer(path) as f:
        f.write(text)


def _umask() -> int:
    """The process's umask (reading it means setting it; it is set back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask

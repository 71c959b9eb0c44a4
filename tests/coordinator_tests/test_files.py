"""atomic_writer: a file people keep is replaced whole, and what is not a file is written in place."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from coordinator.files import write_atomically


def test_a_fifo_is_written_in_place_not_replaced_by_a_file(tmp_path: Path) -> None:
    """`-o /dev/stdout` or a fifo: renaming a temporary file over it replaced the device (as root,
    `arbiter games RUN -o /dev/null` left a regular file at /dev/null)."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so opening to write does not wait
    try:
        write_atomically(fifo, "games\n")
        assert stat.S_ISFIFO(os.stat(fifo).st_mode)
        assert os.read(reader, 100) == b"games\n"
    finally:
        os.close(reader)


def test_a_symbolic_links_target_is_replaced_and_the_link_kept(tmp_path: Path) -> None:
    """The link stays a link; the file it names gets the text."""
    (tmp_path / "kept").mkdir()
    target = tmp_path / "kept" / "book.txt"
    target.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    write_atomically(link, "new\n")
    assert link.is_symlink()
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in (tmp_path / "kept").iterdir()) == ["book.txt"]

"""Live progress on stderr: one line redrawn in place on a terminal, a line per interval in logs."""

from __future__ import annotations

import math
import shutil
import sys
import time
from typing import TextIO

#: Seconds between two progress lines when stderr is not a terminal.
LOG_INTERVAL = 10.0
#: Seconds between two redraws on a terminal.
TTY_INTERVAL = 0.2
#: The columns a progress line fits in (an 80-column terminal, its last column left free).
PROGRESS_WIDTH = 79


class ProgressPrinter:
    """Draws progress lines on ``stream``: on a terminal redrawn in place and cut to its width (so
    it never wraps), otherwise one line per interval."""

    def __init__(self, stream: TextIO | None = None, interval: float | None = None) -> None:
        """Print to ``stream`` (default stderr)."""
        self.stream = stream or sys.stderr
        self.tty = self.stream.isatty()
        self.interval = interval if interval is not None else (TTY_INTERVAL if self.tty else LOG_INTERVAL)
        self._last = -math.inf
        self._width = 0
        #: The columns a line given to :meth:`show` may take (less than :data:`PROGRESS_WIDTH` where
        #: the printer adds text of its own).
        self.width = PROGRESS_WIDTH

    def show(self, line: str, force: bool = False) -> None:
        """Show one progress line unless the last one is too recent (or ``force``)."""
        now = time.monotonic()
        if not force and now - self._last < self.interval:
            return
        self._last = now
        if self.tty:
            columns = shutil.get_terminal_size((80, 24)).columns - 1
            line = line[:columns]
            self.stream.write("\r" + line.ljust(self._width))
            self._width = len(line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def finish(self, line: str | None = None) -> None:
        """Draw ``line`` (the final state) if given, and end the line."""
        if line is not None:
            self.show(line, force=True)
        if self.tty and self._width:
            self.stream.write("\n")
            self.stream.flush()
        self._width = 0

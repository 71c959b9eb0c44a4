"""Reports for live pages: each run's report built by ``coordinator.reports`` (the code that writes
``arbiter report``'s file), kept while the run's version stays the same, and cut into parts
(the report's sections, each with a digest) that a page replaces one by one.

A report takes a second or more to draw (matplotlib), so a running run's report is built again at
most every :data:`REFRESH_SECONDS`, however many pages poll it. One run's report is built by one
request at a time (others wait for it); reports of different runs gather their data at once, and
their plots draw one at a time (matplotlib's settings are global: see ``reports.plots``).
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from coordinator.reports import build, html_page, json_safe
from coordinator.reports.data import ReportData
from coordinator.reports.html import ReportPage
from coordinator.store import Run, Store

#: Shortest time between two builds of a running run's report (seconds).
REFRESH_SECONDS = 5.0
#: Reports kept (the least recently used goes first): about 150 KB each.
KEPT = 256


def digest(html: str) -> str:
    """A short mark of a part's HTML: equal marks, equal parts."""
    return hashlib.sha256(html.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Part:
    """One section of a report, as a page holds it."""

    key: str
    digest: str
    html: str


@dataclass(frozen=True)
class Rendered:
    """A run's report as built at one version of the run."""

    version: str
    built_at: float
    #: The report's data, and its JSON form (JSON-safe: what the API sends).
    report: ReportData
    data: dict[str, Any]
    page: ReportPage
    parts: tuple[Part, ...]


def cut(page: ReportPage) -> tuple[Part, ...]:
    """The sections of a report page as parts, by their keys."""
    return tuple(Part(s.key, digest(s), s) for s in page.sections)


class ReportCache:
    """Rendered reports by run, rebuilt when the run's version changed and the last build is at
    least ``refresh`` seconds old."""

    def __init__(self, refresh: float = REFRESH_SECONDS, kept: int = KEPT) -> None:
        self.refresh = refresh
        self.kept = kept
        self._entries: OrderedDict[int, Rendered] = OrderedDict()
        self._entries_lock = threading.Lock()
        self._building: dict[int, threading.Lock] = {}

    def _usable(self, run_id: int, version: str) -> Rendered | None:
        """The kept report of ``run_id`` if it is current, or recent enough to keep showing."""
        with self._entries_lock:
            entry = self._entries.get(run_id)
            if entry is None:
                return None
            if entry.version == version or time.monotonic() - entry.built_at < self.refresh:
                self._entries.move_to_end(run_id)
                return entry
        return None

    def get(self, store: Store, run: Run, version: str) -> Rendered:
        """The report of ``run`` at ``version`` (or a recent build of it), building it if needed."""
        entry = self._usable(run.id, version)
        if entry is not None:
            return entry
        with self._entries_lock:
            lock = self._building.setdefault(run.id, threading.Lock())
        with lock:  # one build per run at a time; other runs' builds go on
            entry = self._usable(run.id, version)  # built by another request meanwhile
            if entry is not None:
                return entry
            report = build(store, run)
            page = html_page(report)
            data = json_safe(report.data.to_json())
            entry = Rendered(version, time.monotonic(), report.data, data, page, cut(page))
        with self._entries_lock:
            self._entries[run.id] = entry
            self._entries.move_to_end(run.id)
            while len(self._entries) > self.kept:
                gone, _ = self._entries.popitem(last=False)
                self._building.pop(gone, None)
        return entry

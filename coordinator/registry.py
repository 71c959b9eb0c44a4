"""The kinds of run, as a registry in the pluggable style of Optuna's samplers: each kind (an SPRT, a
tuning run and its match runs, a tournament, a match) is one object of a :class:`Kind` subclass in
its own package (``coordinator/<package>/kind.py``), and :data:`KINDS` maps its stored name to it.

Everything that differs between kinds is a method of the kind: decoding its stored configuration,
playing or resuming a run, its line in ``arbiter status``, its report and its dashboard row. Code
outside a kind's package asks :func:`kind_of` and never branches on a kind's name. A kind module is
imported only when a run of that kind is met (it sits above the reports it renders with).
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Container
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, Generic, Protocol, Self, TypeVar

from coordinator.runs import RunKind

if TYPE_CHECKING:
    from coordinator.executors.base import Executor
    from coordinator.reports.data import ReportData
    from coordinator.reports.engines import Engines
    from coordinator.store import Run, Store

#: A kind's report data (a frozen dataclass of ``coordinator.reports``, see ``reports/data.py``).
ReportT = TypeVar("ReportT", bound="ReportData")

#: Every kind: the stored name (a :class:`RunKind`) and the object that implements it, as
#: ``module:attribute`` (imported on first use).
KINDS: dict[RunKind, str] = {
    RunKind.SPRT: "coordinator.sprt.kind:SPRT",
    RunKind.TUNE: "coordinator.tuning.kind:TUNE",
    RunKind.TRIAL: "coordinator.tuning.kind:TRIAL",
    RunKind.ACCEPTANCE: "coordinator.tuning.kind:ACCEPTANCE",
    RunKind.ITERATION: "coordinator.tuning.kind:ITERATION",
    RunKind.TOURNAMENT: "coordinator.tournament.kind:TOURNAMENT",
    RunKind.MATCH: "coordinator.match.kind:MATCH",
    RunKind.CAMPAIGN: "coordinator.campaign.kind:CAMPAIGN",
    RunKind.ROUND: "coordinator.campaign.kind:ROUND",
    RunKind.VERIFY: "coordinator.campaign.kind:VERIFY",
}

#: The version of a stored configuration that has none: every configuration stored before
#: configurations had versions.
FIRST_VERSION = 1


class RunConfig(Protocol):
    """What every kind's configuration is: of one game, with one JSON form, and a fingerprint
    equal for runs that would play the same games."""

    @property
    def game(self) -> str:
        """The game played."""
        ...

    def to_json(self) -> dict[str, Any]:
        """The configuration as a JSON-safe dict."""
        ...

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        """Inverse of :meth:`to_json`."""
        ...

    def fingerprint(self) -> str:
        """Equal for runs that would play the same games."""
        ...


@dataclass(frozen=True)
class LiveItem:
    """One item of a run's live line on the dashboard: ``label value after``, the value in bold
    (``bold``) and named ``field`` for the page's script to update in place."""

    label: str
    value: object
    field: str | None = None
    after: str = ""
    bold: bool = True


class Kind(ABC, Generic[ReportT]):
    """What every kind of run does. Subclasses set the attributes and implement the methods;
    ``ReportT`` is the type of the kind's report data, which its renderers read."""

    #: The stored name.
    name: RunKind
    #: How messages name a run of this kind ("run", "tuning run", "tournament").
    noun: str = "run"
    #: True for the runs people start (listed by default, resumable); False for the runs a
    #: tuning run makes for itself.
    started_by_user: bool = True
    #: True when the run ends in an SPRT decision (H1 accepted, H0 accepted, budget reached).
    decides: bool = False
    #: True when a report of the run can rate its engines relative to one (``--anchor``).
    anchored: bool = False
    #: True when its report checks each worker's games against the others' (two fixed sides).
    worker_check: bool = False
    #: True when the sides of its games are named per batch (:meth:`sides`), not by the run's two
    #: engines.
    sides_per_batch: bool = False
    #: True when runs of this kind have a parent run or child runs (recorded by the tuning tables).
    related: bool = False
    #: What its child runs are called, whose games make up its own (None: it plays its own).
    children: str | None = None
    #: The version of the stored configuration this arbiter writes and reads.
    config_version: int = FIRST_VERSION
    #: The class of its configuration, whose ``from_json`` reads the JSON form.
    config_type: type[RunConfig]

    # --- configuration ----------------------------------------------------------------------------

    def decode(self, data: dict[str, Any]) -> Any:
        """The typed configuration of its stored JSON form (without ``version``: the first); a
        ValueError for a version this arbiter does not read."""
        version = data.get("version", FIRST_VERSION)
        if version != self.config_version:
            expected = self.config_version
            raise ValueError(f"{self.name} configuration version {version}: this arbiter reads {expected}")
        return self.from_json({k: v for k, v in data.items() if k != "version"})

    def encode(self, config: RunConfig) -> dict[str, Any]:
        """The stored JSON form of ``config`` (the first version carries no ``version`` key, so
        the stores and fingerprints of runs made before versions stay what they were)."""
        data = config.to_json()
        return data if self.config_version == FIRST_VERSION else data | {"version": self.config_version}

    def from_json(self, data: dict[str, Any]) -> Any:
        """The configuration of its JSON form (of this kind's current version)."""
        return self.config_type.from_json(data)

    # --- the store's view -------------------------------------------------------------------------

    def match_runs(self, store: Store, run: Run) -> list[Run]:
        """The runs whose games make up ``run``'s (itself, unless its games are its children's)."""
        return [run]

    def parent_of(self, store: Store, run: Run) -> int | None:
        """The run ``run`` belongs to, or None."""
        return None

    def games(self, store: Store, run: Run) -> int:
        """Games counted for ``run``."""
        return store.totals(run.id).games

    def sides(self, run: Run, batch_index: int) -> tuple[tuple[str, str], tuple[str, str]]:
        """The (name, source) of the candidate and the baseline side of batch ``batch_index``."""
        config = run.config
        return ("candidate", config.get("candidate_source", "")), (
            "baseline",
            config.get("baseline_source", ""),
        )

    # --- playing ----------------------------------------------------------------------------------

    @abstractmethod
    def play(self, store: Store, run: Run, executor: Executor) -> None:
        """Play ``run`` to its end with live progress, then print its summary (what both the
        command and ``arbiter resume`` do)."""

    def finished_text(self, store: Store, run: Run) -> str | None:
        """What ``arbiter resume`` of a finished run shows (None: nothing)."""
        return None

    # --- arbiter status ---------------------------------------------------------------------------

    @abstractmethod
    def status_row(self, store: Store, run: Run) -> str:
        """The run's line of the ``arbiter status`` table."""

    @abstractmethod
    def status_text(self, store: Store, run: Run) -> str:
        """``arbiter status RUN``: the run for people."""

    @abstractmethod
    def status_json(self, store: Store, run: Run) -> dict[str, Any]:
        """``arbiter status RUN --json``: the run as one JSON-safe dict."""

    # --- arbiter report ---------------------------------------------------------------------------

    @abstractmethod
    def report_data(self, store: Store, run: Run, anchor: str | None) -> ReportT:
        """The report's data, with its "unverifiable" line (``anchor``: see :attr:`anchored`)."""

    @abstractmethod
    def report_plots(self, store: Store, run: Run, data: ReportT) -> dict[str, str]:
        """The report's plots as inline SVG, by name."""

    @abstractmethod
    def report_html(self, data: ReportT, plots: dict[str, str]) -> str:
        """The report's self-contained HTML page (made by ``reports.html.page``)."""

    @abstractmethod
    def report_text(self, data: ReportT) -> str:
        """The report's 80-column terminal summary."""

    @abstractmethod
    def engines(self, store: Store, run: Run) -> Engines:
        """The engines part of the report, without reading game records (what status shows)."""

    # --- the dashboard ----------------------------------------------------------------------------

    @abstractmethod
    def row(self, store: Store, run: Run) -> dict[str, Any]:
        """The run's columns of the dashboard's runs list (games, Elo, ...), JSON data."""

    @abstractmethod
    def report_row(self, data: ReportT) -> dict[str, Any]:
        """The columns of :meth:`row` as the report ``data`` has them: a run page's live line is
        read from the report shown below it (not from the store again, which may have moved on
        since), so that the two never disagree."""

    @abstractmethod
    def versus(self, row: dict[str, Any]) -> str:
        """Who plays, in the runs list, from :meth:`row`."""

    @abstractmethod
    def outcome(self, row: dict[str, Any]) -> str:
        """Where the run ended or stands, in the runs list, from :meth:`row`."""

    @abstractmethod
    def live(self, row: dict[str, Any]) -> list[LiveItem]:
        """The items of the run page's live line after its state, from :meth:`row`."""


@cache
def kind_of(name: str) -> Kind[Any]:
    """The kind stored as ``name``; a ValueError for a name no kind has."""
    try:
        where = KINDS[RunKind(name)]
    except ValueError:
        raise ValueError(f"kind: expected one of {', '.join(KINDS)}, got {name!r}") from None
    module, attribute = where.split(":")
    found = getattr(importlib.import_module(module), attribute)
    assert isinstance(found, Kind), where
    return found


def orphan_or_new(store: Store, kind: RunKind, game: str, config: Any, taken: Container[int] = ()) -> int:
    """The run of a step of a longer run (a tuning run's match, a campaign's round or
    verification): the one a kill left between creating it and recording it (the latest unfinished
    run of ``kind`` with ``config``'s fingerprint, unless ``taken`` holds it), else a new one."""
    orphan = store.find_unfinished(kind, config.fingerprint())
    if orphan is not None and orphan.id not in taken:
        return orphan.id
    return store.create_run(kind, game, kind_of(kind).encode(config), config.fingerprint())


def elo_text(row: dict[str, Any]) -> str:
    """Elo ± 95% of a dashboard row, or a dash."""
    if row.get("elo") is None:
        return "-"
    return f"{row['elo']:+.1f} ± {row['elo95']:.1f}"


def planned_outcome(row: dict[str, Any]) -> str:
    """The outcome of a run that plays a whole plan (a match, a tournament): complete, or the
    games played of the plan's."""
    return "complete" if row["state"] == "finished" else f"{row['games']} of {row['planned_games']} games"


def planned_games_item(row: dict[str, Any]) -> LiveItem:
    """The live games of a run that plays a whole plan, of the plan's."""
    return LiveItem("games", row["games"], "games", f" of {row['planned_games']}")


def llr_text(row: dict[str, Any]) -> str:
    """LLR [bounds] of a dashboard row, or a dash."""
    if row.get("llr") is None:
        return "-"
    return f"{row['llr']:.2f} [{row['lower_bound']:.2f}, {row['upper_bound']:.2f}]"


__all__ = ["KINDS", "Kind", "LiveItem", "RunConfig", "elo_text", "kind_of", "llr_text"]

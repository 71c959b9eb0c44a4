"""Campaigns as kinds of run: the campaign itself (``arbiter tune --rounds``), whose games are
those of its rounds (tuning runs of kind ``round``) and of its verification SPRTs (kind
``verify``), both children of the campaign that the campaign alone plays and resumes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from coordinator.campaign.config import CampaignConfig
from coordinator.registry import Kind, LiveItem
from coordinator.runs import RunKind
from coordinator.sprt.kind import MatchRunKind
from coordinator.tuning.kind import TuneKind, tuning_children, tuning_parent

if TYPE_CHECKING:
    from coordinator.campaign.report import CampaignReport
    from coordinator.executors.base import Executor
    from coordinator.reports.engines import Engines
    from coordinator.store import Run, Store


class CampaignKind(Kind["CampaignReport"]):
    """``arbiter tune --rounds N``: rounds of tuning, each champion verified before the next."""

    name = RunKind.CAMPAIGN
    noun = "campaign"
    config_type = CampaignConfig
    related = True
    children = "its rounds and verification SPRTs"

    def match_runs(self, store: Store, run: Run) -> list[Run]:
        """The match runs of its rounds, and its verification SPRTs."""
        found: list[Run] = []
        for child in tuning_children(store, run):
            found += ROUND.match_runs(store, child) if child.kind is RunKind.ROUND else [child]
        return found

    def games(self, store: Store, run: Run) -> int:
        """The games of all its rounds and verification SPRTs."""
        from coordinator.campaign.chain import read_chain

        return read_chain(store, run.id, run.settings_as(CampaignConfig)).games

    def play(self, store: Store, run: Run, executor: Executor) -> None:
        """Play the campaign to its end; write its final values and report; print the chain."""
        from coordinator.campaign.drive import drive

        drive(store, run, run.settings_as(CampaignConfig), executor, None)

    def finished_text(self, store: Store, run: Run) -> str | None:
        """The campaign's summary."""
        return self.status_text(store, run)

    def status_row(self, store: Store, run: Run) -> str:
        """Games, and how far the chain went."""
        from coordinator.sprt.report import status_row

        row = self.row(store, run)
        return status_row(run, row["games"], "-", "-", f"{row['passed']}/{row['planned']} rounds passed")

    def status_text(self, store: Store, run: Run) -> str:
        """The chain, round by round."""
        from coordinator.campaign.report import campaign_data, campaign_text

        return campaign_text(campaign_data(store, run))

    def status_json(self, store: Store, run: Run) -> dict[str, Any]:
        """The report data."""
        from coordinator.campaign.report import campaign_data

        data = campaign_data(store, run).to_json()
        del data["unverifiable"]  # the status JSON never carried the report's line
        return data

    def report_data(self, store: Store, run: Run, anchor: str | None) -> CampaignReport:
        """:func:`coordinator.campaign.report.campaign_data`."""
        from coordinator.campaign.report import campaign_data

        return campaign_data(store, run)

    def report_plots(self, store: Store, run: Run, data: CampaignReport) -> dict[str, str]:
        """None: the chain is a table (each round's own report has its plots)."""
        return {}

    def report_html(self, data: CampaignReport, plots: dict[str, str]) -> str:
        """The campaign page."""
        from coordinator.campaign.report import campaign_html

        return campaign_html(data)

    def report_text(self, data: CampaignReport) -> str:
        """The chain for people."""
        from coordinator.campaign.report import campaign_text

        return campaign_text(data)

    def engines(self, store: Store, run: Run) -> Engines:
        """None of its own: its games are its rounds'."""
        raise TypeError(f"run {run.id} is a campaign: its engines are those of its rounds")

    def row(self, store: Store, run: Run) -> dict[str, Any]:
        """Rounds, games and the last round's verdict."""
        from coordinator.campaign.report import campaign_data, campaign_row

        return campaign_row(campaign_data(store, run))

    def report_row(self, data: CampaignReport) -> dict[str, Any]:
        """:meth:`row` from the report data."""
        from coordinator.campaign.report import campaign_row

        return campaign_row(data)

    def versus(self, row: dict[str, Any]) -> str:
        """Where it started."""
        return f"start: {row['start']}"

    def outcome(self, row: dict[str, Any]) -> str:
        """Rounds passed and the last round's verdict."""
        return f"{row['passed']}/{row['planned']} rounds passed; round {row['rounds']}: {row['verdict']}"

    def live(self, row: dict[str, Any]) -> list[LiveItem]:
        """Rounds, games and the last round's verdict."""
        return [
            LiveItem("rounds", f"{row['rounds']}/{row['planned']}", "rounds"),
            LiveItem("passed", row["passed"], "passed"),
            LiveItem("games", row["games"], "games"),
            LiveItem("last round", row["verdict"], "verdict", bold=False),
        ]


class RoundKind(TuneKind):
    """One round of a campaign: a tuning run the campaign plays and resumes."""

    name = RunKind.ROUND
    noun = "campaign round"
    started_by_user = False

    def parent_of(self, store: Store, run: Run) -> int | None:
        """The campaign it belongs to."""
        return tuning_parent(store, run)


class VerifyKind(MatchRunKind):
    """A campaign's SPRT of a round's champion against the round's start."""

    name = RunKind.VERIFY
    started_by_user = False
    related = True

    def parent_of(self, store: Store, run: Run) -> int | None:
        """The campaign it belongs to."""
        return tuning_parent(store, run)


#: The kinds of the registry.
CAMPAIGN = CampaignKind()
ROUND = RoundKind()
VERIFY = VerifyKind()

"""A campaign's report, status and dashboard row: its chain of rounds (start, champion, the
verification SPRTs' results), its games and how it ended, as typed data (JSON by ``to_json``),
text and HTML. (It lives in the campaign's package, not in ``coordinator/reports``: its chain is
read by ``campaign.chain``, and the campaign sits above the reports.)"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from coordinator.campaign.chain import Chain, read_chain
from coordinator.campaign.config import CampaignConfig, limits_text
from coordinator.reports.data import JsonData, RunInfo
from coordinator.runs import decision_label

if TYPE_CHECKING:
    from coordinator.reports.html import ReportPage
    from coordinator.store import Run, Store


@dataclass(frozen=True)
class CampaignSettings(JsonData):
    """A campaign's settings as its report shows them: rounds and budgets, the verification and
    tuning limits in words, the method, seed, start and tuned weights."""

    rounds: int
    max_games: int
    round_games: int
    tune_games: int
    verify: list[str]
    verify_max_games: int
    tuning: str
    method: str
    seed: int
    start_source: str | None
    params: list[str]


@dataclass(frozen=True)
class CampaignTotals(JsonData):
    """Games, rounds played and passed, how it ended, and the final values that changed."""

    games: int
    rounds: int
    passed: int
    ending: str | None
    changed: dict[str, int]


@dataclass(frozen=True)
class CampaignReport(JsonData):
    """Everything the report of a campaign shows."""

    run: RunInfo
    config: CampaignSettings
    chain: Chain
    totals: CampaignTotals
    unverifiable: str | None


def campaign_data(store: Store, run: Run) -> CampaignReport:
    """The campaign's report data (what ``arbiter report --json`` prints; ``status --json`` the
    same without the "unverifiable" line)."""
    from coordinator.trust.verifiable import unverifiable_note

    config = run.settings_as(CampaignConfig)
    chain = read_chain(store, run.id, config)
    passed = sum(r.verdict == "passed" for r in chain.rounds)
    return CampaignReport(
        run=RunInfo.of(run),
        config=CampaignSettings(
            rounds=config.rounds,
            max_games=config.max_games,
            round_games=config.round_games,
            tune_games=config.tune_games,
            verify=[limits_text(limits) for limits in config.verify_limits],
            verify_max_games=config.verify_max_games,
            tuning=limits_text(config.tune.limits),
            method=config.tune.method,
            seed=config.tune.seed,
            start_source=config.tune.start_source,
            params=list(config.tune.params),
        ),
        chain=chain,
        totals=CampaignTotals(
            games=chain.games,
            rounds=len(chain.rounds),
            passed=passed,
            ending=chain.ending,
            changed={k: v for k, v in chain.best.items() if config.tune.start.get(k) != v},
        ),
        unverifiable=unverifiable_note(run.config),
    )


def campaign_text(data: CampaignReport) -> str:
    """The campaign for people: its settings, the chain and the final values that changed."""
    from coordinator.campaign.chain import chain_table
    from coordinator.reports.text import fit

    c, t, run = data.config, data.totals, data.run
    table = chain_table(data.chain)
    changed = ", ".join(f"{k} {data.chain.rounds[0].start.get(k)} -> {v}" for k, v in t.changed.items())
    head = [
        f"campaign {run.id} ({run.game}, {c.method}): {run.state}, {t.rounds} of "
        f"{c.rounds} round(s), {t.passed} passed, {t.games} games",
        f"tuning at {c.tuning}, verified at {' and '.join(c.verify)}; budget {c.max_games} games "
        f"({c.round_games} a round: {c.tune_games} to tune, 2 x {c.verify_max_games} to verify)",
    ]
    final = f"final values: {changed or 'the start values (nothing changed)'}"
    tail = [t.ending, final] if t.ending else [final]
    return "\n".join([*map(fit, head), table, *map(fit, tail)])  # the table is laid out to fit


def campaign_html(data: CampaignReport) -> ReportPage:
    """The campaign's report page: its settings, then the chain, round by round."""
    from coordinator.reports.html import esc, page, pairs_table, section, table

    c, t, run = data.config, data.totals, data.run
    settings = pairs_table(
        [
            ("run", f"{run.id} (campaign, {run.game})"),
            ("state", run.state),
            ("tuning", f"{c.method} at {c.tuning}, from {c.start_source}, seed {c.seed}"),
            ("verification", " and ".join(c.verify) + f", up to {c.verify_max_games} games each"),
            ("budget", f"{c.max_games} games, {c.round_games} a round ({c.tune_games} to tune)"),
            ("games", t.games),
            ("ending", t.ending or "running"),
        ]
    )
    rows = []
    for r in data.chain.rounds:
        changed = (
            "-"
            if r.champion is None
            else ", ".join(
                f"{k} {r.start[k]} → {v}" for k, v in sorted(r.champion.items()) if r.start.get(k) != v
            )
        )
        verifications = "; ".join(
            f"{v.setting}: {decision_label(v.decision) if v.decision else v.state}"
            + ("" if v.elo is None else f" ({v.elo:+.1f} ± {v.elo95:.1f} Elo, {v.games} games)")
            for v in r.verifications
        )
        rows.append(
            [r.number + 1, r.tune_run_id, r.tune_games, changed or "none", verifications or "-", r.verdict]
        )
    chain = table(
        ["round", "tuning run", "games", "champion vs start", "verification SPRTs", "verdict"], rows
    )
    final = pairs_table(sorted(data.chain.best.items()))
    return page(
        f"Campaign {run.id}",
        section("settings", "Settings", settings),
        section("chain", "Chain", chain),
        section("final", "Final values", f"<p>{esc(len(t.changed))} changed from the start.</p>", final),
    )


def campaign_row(data: CampaignReport) -> dict[str, Any]:
    """The campaign's dashboard columns, from its report data."""
    t, rounds = data.totals, data.chain.rounds
    return {
        "start": data.config.start_source or "default",
        "games": t.games,
        "rounds": t.rounds,
        "planned": data.config.rounds,
        "passed": t.passed,
        "verdict": rounds[-1].verdict if rounds else "-",
    }

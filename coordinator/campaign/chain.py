"""A campaign as one chain, round by round: where each round started, the champion its tuning run
crowned, and its verification SPRTs' results; and how the campaign ended. Read from the store by
:func:`read_chain`; the verdicts are pure functions of what was read (:func:`round_verdict`)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from coordinator.campaign.config import CampaignConfig, limits_text
from coordinator.campaign.records import TUNING_STEP, CampaignRecords
from coordinator.runs import Decision, RunState, decision_label
from coordinator.sprt.config import SprtConfig
from coordinator.store import Store
from coordinator.tuning.records import TuningRecords

#: How a round stands.
PASSED = "passed"
FAILED = "failed verification"
NO_CHAMPION = "no champion"
PLAYING = "playing"


@dataclass(frozen=True)
class Verification:
    """One verification SPRT of a round's champion against its start."""

    run_id: int
    setting: str
    state: str
    decision: str | None
    games: int
    elo: float | None
    elo95: float | None
    llr: float


@dataclass(frozen=True)
class Round:
    """One round: its start, its tuning run, the champion that run crowned (None while it tunes
    or when it crowned none), the verification SPRTs played so far, and, when the round crowned
    none, the last acceptance SPRT its tuning played (None if it played none)."""

    number: int
    start: dict[str, int]
    tune_run_id: int
    tune_state: str
    tune_games: int
    champion: dict[str, int] | None
    verifications: list[Verification]
    verdict: str
    last_acceptance: Verification | None = None


@dataclass(frozen=True)
class Chain:
    """The rounds of a campaign, its best values so far and the games of all its runs."""

    rounds: list[Round]
    best: dict[str, int]
    games: int
    ending: str | None

    def to_json(self) -> dict[str, Any]:
        """The chain as JSON data."""
        return asdict(self)


def round_verdict(tune_finished: bool, crowned: bool, decisions: list[str | None], stages: int) -> str:
    """Where a round stands: still playing, its tuning crowned nothing, a verification SPRT did
    not accept its champion, or every one of the ``stages`` did."""
    if not tune_finished:
        return PLAYING
    if not crowned:
        return NO_CHAMPION
    if any(d is not None and d != Decision.ACCEPTED for d in decisions):
        return FAILED
    if len(decisions) == stages and all(d == Decision.ACCEPTED for d in decisions):
        return PASSED
    return PLAYING


def ending_text(rounds: list[Round], planned: int, finished: bool) -> str | None:
    """How the campaign ended (None while it runs)."""
    if not finished or not rounds:
        return None
    last = rounds[-1]
    if last.verdict == NO_CHAMPION:
        return no_champion_text(last.number, last.last_acceptance)
    if last.verdict == FAILED:
        return f"round {last.number + 1}'s champion failed verification: its start stays the best"
    return f"all {planned} rounds passed"


def no_champion_text(number: int, acceptance: Verification | None) -> str:
    """Why a round that crowned no champion ends the campaign, and how sure that is: an acceptance
    SPRT that stopped at its game cap with a gain in sight is not "nothing left"."""
    head = f"round {number + 1}'s tuning crowned no champion"
    if acceptance is None:
        return f"{head}: no candidate reached an acceptance SPRT"
    if acceptance.decision == Decision.BUDGET and acceptance.elo is not None and acceptance.elo > 0:
        a = acceptance
        return (
            f"{head}: its last acceptance SPRT (run {a.run_id}, {a.setting}) stopped undecided at its "
            f"cap of {a.games} games, {a.elo:+.1f} +- {a.elo95:.1f} Elo, LLR {a.llr:.2f}: a gain this "
            "small needs more games (--accept-max-games) to prove"
        )
    return f"{head}: nothing left to find at these settings"


def _verification(store: Store, run_id: int) -> Verification:
    """A verification SPRT as the store has it."""
    from coordinator.reports.sprt.gather import match_columns

    run = store.get_run(run_id)
    assert run is not None
    config = run.settings_as(SprtConfig)
    row = match_columns(store, run, config)
    return Verification(
        run_id,
        limits_text(config.limits),
        str(run.state),
        run.decision,
        row["games"],
        row["elo"],
        row["elo95"],
        row["llr"],
    )


def read_chain(store: Store, campaign_run_id: int, config: CampaignConfig) -> Chain:
    """The campaign's chain as the store has it."""
    steps = CampaignRecords(store).steps(campaign_run_id)
    tuning = TuningRecords(store)
    stages = len(config.verify_limits)
    best = dict(config.tune.start)
    rounds: list[Round] = []
    games = 0
    for number in range(config.rounds):
        tune_run_id = steps.get((number, TUNING_STEP))
        run = store.get_run(tune_run_id) if tune_run_id is not None else None
        if run is None:
            break
        champions = tuning.champions(run.id)
        finished = run.state is RunState.FINISHED
        crowned = finished and len(champions) > 1
        verifications = [
            _verification(store, steps[(number, stage + 1)])
            for stage in range(stages)
            if (number, stage + 1) in steps
        ]
        tune_games = tuning.games(run.id)
        games += tune_games + sum(v.games for v in verifications)
        verdict = round_verdict(finished, crowned, [v.decision for v in verifications], stages)
        start = dict(best)
        if verdict == PASSED:
            best = dict(champions[-1].weights)
        champion = dict(champions[-1].weights) if crowned else None
        last = None
        if verdict == NO_CHAMPION:
            played = [a.run_id for a in tuning.acceptances(run.id) if a.run_id is not None]
            last = _verification(store, played[-1]) if played else None
        rounds.append(
            Round(number, start, run.id, str(run.state), tune_games, champion, verifications, verdict, last)
        )
        if verdict != PASSED:
            break
    campaign = store.get_run(campaign_run_id)
    done = campaign is not None and campaign.state is RunState.FINISHED
    return Chain(rounds, best, games, ending_text(rounds, config.rounds, done))


def chain_table(chain: Chain) -> str:
    """The chain for people: one line per round and one per verification SPRT."""
    lines = [f"{'round':>5}  {'tuning run':>10}  {'games':>7}  {'changed':>7}  verdict"]
    for r in chain.rounds:
        changed = "-" if r.champion is None else str(sum(r.champion.get(k) != v for k, v in r.start.items()))
        lines.append(f"{r.number + 1:>5}  {r.tune_run_id:>10}  {r.tune_games:>7}  {changed:>7}  {r.verdict}")
        for v in r.verifications:
            elo = "-" if v.elo is None else f"{v.elo:+.1f} +- {v.elo95:.1f}"
            decision = decision_label(v.decision) if v.decision else v.state
            lines.append(f"{'':>5}  verify {v.setting} (run {v.run_id}): {v.games} games, {elo}, {decision}")
    if not chain.rounds:
        lines.append(f"{'':>5}  no round yet")
    return "\n".join(lines)

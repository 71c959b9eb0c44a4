"""What became of each trial of a tuning run, and the tally of it, read from the stored state.

Every view of a tuning run (the end line of ``arbiter tune``, ``arbiter status``, ``arbiter
report`` and the dashboard) counts its trials with :func:`trial_outcomes` and words the count with
:func:`tally_text`, so that no two of them can disagree.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the tally and its words are pure; only reading the store needs SQLAlchemy
    from coordinator.store import Store

#: Trial outcomes, in the order a tally and a legend list them.
OUTCOMES = ("pruned", "complete", "in acceptance", "accepted", "rejected", "running", "failed")


def trial_outcomes(store: Store, tune_run_id: int) -> dict[int, str]:
    """Each trial's outcome by trial number: ``pruned``, ``failed`` or ``running`` as Optuna left
    it; a complete trial that played no acceptance SPRT is ``complete``; one that did is
    ``accepted`` (crowned), ``in acceptance`` (an SPRT still undecided) or ``rejected``."""
    from coordinator.tuning.records import TuningRecords

    records = TuningRecords(store)
    crowned = {c.trial_number for c in records.champions(tune_run_id)[1:] if c.trial_number is not None}
    played: dict[int, list[int]] = {}
    for row in records.acceptances(tune_run_id):
        if row.run_id is not None:
            played.setdefault(row.candidate, []).append(row.run_id)
    outcomes = {}
    for trial in records.trials(tune_run_id):
        runs = played.get(trial.trial_number)
        if not runs:
            outcomes[trial.trial_number] = trial.state
        elif trial.trial_number in crowned:
            outcomes[trial.trial_number] = "accepted"
        elif any((run := store.get_run(r)) is None or run.decision is None for r in runs):
            outcomes[trial.trial_number] = "in acceptance"
        else:
            outcomes[trial.trial_number] = "rejected"
    return outcomes


def tally(outcomes: Iterable[str]) -> dict[str, int]:
    """How many trials ended each way, every outcome of :data:`OUTCOMES` present (0 or more)."""
    found = list(outcomes)
    return {o: found.count(o) for o in OUTCOMES}


def tally_text(counts: dict[str, int]) -> str:
    """``16 trials (6 pruned, 4 complete, 1 accepted, 5 rejected)``: the outcomes that happened."""
    total = sum(counts.values())
    shown = ", ".join(f"{n} {o}" for o, n in counts.items() if n)
    return f"{total} trial{'s' if total != 1 else ''} ({shown or 'none yet'})"


def acceptance_ending(
    decision: str | None, crowned: bool, stage: int, stages: int, champion: int, max_games: int | None
) -> str:
    """How an acceptance SPRT of a candidate against champion ``champion`` ended, in words, and
    what became of the candidate (why one with a good Elo was not crowned)."""
    if decision is None:
        return "under way"
    if decision == "accepted":
        if crowned:
            return "H1 accepted: crowned"
        if stage + 1 < stages:
            return "H1 accepted at this setting: on to the next setting (it must pass every one)"
        return "H1 accepted: to be crowned when the run goes on"
    if decision == "rejected":
        return f"H0 accepted: not better than champion #{champion} by H1's margin; not crowned"
    cap = f" of {max_games} games" if max_games is not None else ""
    return f"stopped at its game cap{cap} undecided: not crowned (only an accepted H1 crowns)"

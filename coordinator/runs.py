"""The vocabulary of runs: what kind a run is, where it stands, where its batches stand, and what it
decided. Stored as their string values, so the store stays readable with any SQL client."""

from __future__ import annotations

from enum import StrEnum


class RunKind(StrEnum):
    """What a run of the store is: the names of the kinds of ``coordinator.registry`` (what each
    kind does is its object there, never a branch on these names)."""

    #: An SPRT a user started (``arbiter sprt``).
    SPRT = "sprt"
    #: A tuning run (``arbiter tune``): its trials and acceptance SPRTs are runs of their own.
    TUNE = "tune"
    #: A tuning trial: a short match of an Optuna candidate against the run's start weights (the
    #: one fixed reference of the study; see ``tuning/objective.py``).
    TRIAL = "trial"
    #: A tuning run's SPRT of a promising trial against the champion; H1 accepted crowns it.
    ACCEPTANCE = "acceptance"
    #: One SPSA iteration of a tuning run: theta+ against theta- for one batch of game pairs.
    ITERATION = "iteration"
    #: A tuning campaign (``arbiter tune --rounds N``): rounds of tuning, each round's champion
    #: verified by two SPRTs before it starts the next round.
    CAMPAIGN = "campaign"
    #: One round of a campaign: a tuning run from the campaign's current best.
    ROUND = "round"
    #: A campaign's SPRT of a round's champion against the round's start.
    VERIFY = "verify"
    #: A tournament of several engines (``arbiter tournament``): each batch plays one pairing.
    TOURNAMENT = "tournament"
    #: A fixed number of game pairs of two sides, no SPRT (``arbiter match``).
    MATCH = "match"


class RunState(StrEnum):
    """Where a run stands."""

    #: Submitted to ``arbiter server``, not started yet.
    QUEUED = "queued"
    RUNNING = "running"
    INTERRUPTED = "interrupted"
    #: Stopped on request (``arbiter stop``): a server plays it again only once it is resumed.
    STOPPED = "stopped"
    FINISHED = "finished"
    FAILED = "failed"

    @property
    def unfinished(self) -> bool:
        """True while the run can still be resumed."""
        return self in UNFINISHED


#: The states of a run that can still be resumed.
UNFINISHED = frozenset({RunState.QUEUED, RunState.RUNNING, RunState.INTERRUPTED, RunState.STOPPED})


class BatchState(StrEnum):
    """Where one batch of a run stands."""

    PENDING = "pending"
    RUNNING = "running"
    DONE = "done"
    REFUSED = "refused"


class Decision(StrEnum):
    """How a match run ended."""

    ACCEPTED = "accepted"
    REJECTED = "rejected"
    BUDGET = "budget"

    @property
    def label(self) -> str:
        """Human wording."""
        return {
            Decision.ACCEPTED: "H1 accepted",
            Decision.REJECTED: "H0 accepted (H1 rejected)",
            Decision.BUDGET: "undecided at its game cap",
        }[self]


def decision_label(decision: str | None) -> str:
    """Human wording of a stored decision (``undecided`` for none)."""
    return Decision(decision).label if decision else "undecided"

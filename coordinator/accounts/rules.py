"""Who may do what on a server, and which runs wait for an approver (pure: no store, no HTTP).

Roles, as fishtest and OpenBench have them: a **user** submits runs and acts on their own; an
**approver** also approves runs (never their own) and enables pending accounts; an **admin** also
manages accounts. The operator (who holds ``$ARBITER_SERVER_TOKEN``) acts as an admin.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Role(StrEnum):
    USER = "user"
    APPROVER = "approver"
    ADMIN = "admin"


class AccountState(StrEnum):
    #: Signed up on the web: waits for an approver to enable it.
    PENDING = "pending"
    ACTIVE = "active"
    DISABLED = "disabled"


class Approval(StrEnum):
    """Where a run stands with the approvers: only approved runs are played (and signed)."""

    APPROVED = "approved"
    PENDING = "pending"


#: Every name a role goes by, in rank order.
RANK = {Role.USER: 0, Role.APPROVER: 1, Role.ADMIN: 2}


@dataclass(frozen=True)
class Identity:
    """Who a request comes from."""

    name: str
    role: Role
    #: True for the operator's token (not an account).
    operator: bool = False

    @property
    def approves(self) -> bool:
        """An approver or an admin."""
        return RANK[self.role] >= RANK[Role.APPROVER]

    @property
    def admin(self) -> bool:
        return self.role is Role.ADMIN


@dataclass(frozen=True)
class Policy:
    """The operator's choices: ``cross_approval``: an approver's own runs wait for another
    approver too (OpenBench's setting); ``signup``: people may sign up on the web; ``private``:
    reading needs a login too."""

    cross_approval: bool = False
    signup: bool = True
    #: Reading too needs a login or a token.
    private: bool = False


def may_act_on(who: Identity, owner: str | None) -> bool:
    """Stop, resume, rerun, change or delete a run of ``owner``: its owner, or an approver."""
    return who.approves or (owner is not None and owner == who.name)


def may_approve(who: Identity, owner: str | None) -> bool:
    """Approve a run of ``owner``: an approver, never of their own run (the operator may)."""
    return who.approves and (who.operator or owner != who.name)


def needs_approval(who: Identity, runs_a_program: bool, policy: Policy) -> bool:
    """Whether a run ``who`` submits waits for an approver: every run of a user; an approver's
    run when it plays an engine program or a ref of another repository (``runs_a_program``), or
    under cross approval; never the operator's."""
    if who.operator:
        return False
    if not who.approves:
        return True
    return runs_a_program or policy.cross_approval


def change_unapproves(who: Identity) -> bool:
    """A change of priority or throughput by anyone but an approver sends the run back to the
    approvers (fishtest's rule)."""
    return not who.approves

"""Why an engine program lost a game, in the words the referee records (docs/protocol.md, the
failure table), and the errors that are nobody's fault but the configuration's.

Every failure of an engine while it plays is one :class:`EngineFault`: its ``reason`` is the full
text of the failure table (``"illegal move d2d5"``, ``"crashed: signal 11"``), its ``kind`` the
short code a game record's ``reason`` field holds (``wire.protocol.FaultKind``).
"""

from __future__ import annotations

from wire.protocol import FaultKind

#: The longest piece of engine output quoted in a reason (a garbage move can be 64 KiB long).
MAX_QUOTED = 80

NO_UCIOK = "no uciok in time"
NO_READYOK = "no readyok in time"
TIME_FORFEIT = "time forfeit"
HANG = "hang"


class EngineFault(Exception):
    """An engine broke the protocol or the rules: the game is lost for its side."""

    def __init__(self, kind: FaultKind, reason: str) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason


class EngineConfigError(ValueError):
    """An engine cannot be used as configured (a missing program, an option value it does not
    accept, a game it does not play): no game can be played, so no side is to blame."""


def quoted(text: str) -> str:
    """``text`` made safe to quote in a one-line reason: printable ASCII, at most MAX_QUOTED."""
    clean = "".join(c if " " <= c <= "~" else "?" for c in text)
    return clean if len(clean) <= MAX_QUOTED else clean[: MAX_QUOTED - 3] + "..."


def no_uciok() -> EngineFault:
    return EngineFault(FaultKind.NO_ANSWER, NO_UCIOK)


def no_readyok() -> EngineFault:
    return EngineFault(FaultKind.NO_ANSWER, NO_READYOK)


def time_forfeit() -> EngineFault:
    return EngineFault(FaultKind.TIME_FORFEIT, TIME_FORFEIT)


def hang() -> EngineFault:
    return EngineFault(FaultKind.HANG, HANG)


def illegal_move(text: str) -> EngineFault:
    """A bestmove that is not a legal move here, or not a move at all."""
    return EngineFault(FaultKind.ILLEGAL_MOVE, f"illegal move {quoted(text)}")


def crashed(how: str) -> EngineFault:
    """The process ended: ``how`` is ``"signal 11"`` or ``"exit status 1"``."""
    return EngineFault(FaultKind.CRASH, f"crashed: {how}")


def protocol_violation(what: str) -> EngineFault:
    return EngineFault(FaultKind.PROTOCOL, f"protocol violation: {what}")

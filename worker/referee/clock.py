"""The chess clock of a refereed game, kept the way fastchess keeps it (docs/protocol.md, Clock).

Pure arithmetic on milliseconds: the referee measures each move (from writing ``go`` to reading
``bestmove``) and charges it here; this module says what ``go`` is told, how long the referee
waits for an answer, and whether a side has lost on time.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The default grace past a side's remaining time before it loses on time (ms).
DEFAULT_MARGIN_MS = 100

SIDES = ("white", "black")


@dataclass(frozen=True)
class TimeControl:
    """``base_ms`` for the game (or for every ``moves`` moves of each side, when set), plus
    ``increment_ms`` after each move: ``10+0.1`` is (10000, 100), ``40/60+0.5`` is
    (60000, 500, 40)."""

    base_ms: int
    increment_ms: int = 0
    moves: int | None = None

    def __post_init__(self) -> None:
        if self.base_ms <= 0 or self.increment_ms < 0:
            raise ValueError(f"time control: base must be positive and increment not negative: {self}")
        if self.moves is not None and self.moves <= 0:
            raise ValueError(f"time control: moves per period must be positive, got {self.moves}")


class Clock:
    """Both sides' remaining time under one time control, with a forfeit margin."""

    def __init__(self, control: TimeControl, margin_ms: int = DEFAULT_MARGIN_MS) -> None:
        if margin_ms < 0:
            raise ValueError(f"time margin must not be negative, got {margin_ms}")
        self.control = control
        self.margin_ms = margin_ms
        self._remaining = {side: float(control.base_ms) for side in SIDES}
        self._moves = dict.fromkeys(SIDES, 0)

    def remaining_ms(self, side: str) -> float:
        """``side``'s time left (negative only after it lost on time)."""
        return self._remaining[side]

    def moves_to_go(self, side: str) -> int | None:
        """Moves ``side`` has left to the next time control (None without moves per period)."""
        per = self.control.moves
        return None if per is None else per - self._moves[side] % per

    def go_fields(self, side: str) -> dict[str, int]:
        """What ``go`` is told when ``side`` is to move: wtime, btime, winc, binc (whole ms),
        and movestogo under a repeating control."""
        fields = {
            "wtime": max(0, int(self._remaining["white"])),
            "btime": max(0, int(self._remaining["black"])),
            "winc": self.control.increment_ms,
            "binc": self.control.increment_ms,
        }
        to_go = self.moves_to_go(side)
        if to_go is not None:
            fields["movestogo"] = to_go
        return fields

    def limit_ms(self, side: str) -> float:
        """How long ``side`` may take over its move before it loses on time."""
        return self._remaining[side] + self.margin_ms

    def charge(self, side: str, elapsed_ms: float) -> bool:
        """Charges ``side`` a move that took ``elapsed_ms``; True if it lost on time by it.

        remaining -= elapsed; below -margin the side has lost; below 0 it is set to 0; then the
        increment is added, and under ``moves/base`` the base again after the side's last move of
        a period.
        """
        left = self._remaining[side] - elapsed_ms
        if left < -self.margin_ms:
            self._remaining[side] = left
            return True
        left = max(0.0, left) + self.control.increment_ms
        self._moves[side] += 1
        per = self.control.moves
        if per is not None and self._moves[side] % per == 0:
            left += self.control.base_ms
        self._remaining[side] = left
        return False

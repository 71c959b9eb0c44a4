"""The odds that spot checks catch a lying worker, alone or colluding (docs/deploy.md's table).

The rule (:mod:`coordinator.executors.checking`): a worker's first batch in a run is played again by
the coordinator's own pool; afterwards each of its batches is checked with probability ``f`` (the
verify fraction, chosen by a key no worker sees), by a peer drawn (by that key) from the run's
trusted workers other than itself, or by the coordinator's own pool when there is none. A peer's
agreement proves the batch; a disagreement goes to the coordinator's pool, which finds the lie.

So a liar's checked batch escapes only when its peer lies alike: among ``n`` trusted workers of
which ``k`` collude (the liar one of them), the peer is a partner with probability
``(k - 1) / (n - 1)``. A worker lying on a share ``q`` of its ``m`` batches after its first is caught
by the checks with probability

    P = 1 - (1 - q * f * (n - k) / (n - 1)) ** m

(``k = 1``: the lone liar's ``1 - (1 - q f)^m``; ``k = n``: 0, only the first batch and suspicion
are left). Suspicion, measured against the results the coordinator played itself, comes on top.
"""

from __future__ import annotations

from collections.abc import Sequence

#: The rows of docs/deploy.md's table: (verify fraction, lying share, colluders, workers).
DOC_ROWS: tuple[tuple[float, float, int, int], ...] = (
    (0.02, 1.0, 1, 3),
    (0.02, 0.5, 1, 3),
    (0.02, 0.1, 1, 3),
    (0.10, 1.0, 1, 3),
    (0.10, 0.1, 1, 3),
    (0.02, 1.0, 2, 3),
    (0.02, 1.0, 2, 10),
    (0.02, 1.0, 5, 10),
    (0.02, 1.0, 9, 10),
    (0.10, 1.0, 2, 3),
    (0.10, 1.0, 5, 10),
    (1.00, 1.0, 2, 3),
    (1.00, 1.0, 3, 3),
)
#: Its columns: batches a worker plays after its first.
DOC_BATCHES: tuple[int, ...] = (10, 50, 100, 200, 500)


def catch_probability(
    fraction: float, lying_share: float, batches: int, colluders: int = 1, workers: int = 1
) -> float:
    """The probability that the spot checks catch a worker lying on ``lying_share`` of its
    ``batches`` batches after its first, one of ``colluders`` that lie alike among the run's
    ``workers`` trusted workers (see the module text). ValueError on numbers out of range."""
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction: expected a number from 0 to 1, got {fraction}")
    if not 0.0 <= lying_share <= 1.0:
        raise ValueError(f"lying_share: expected a number from 0 to 1, got {lying_share}")
    if batches < 0:
        raise ValueError(f"batches: expected a count, got {batches}")
    if not 1 <= colluders <= workers:
        raise ValueError(f"colluders: expected 1 to {workers} (the workers), got {colluders}")
    honest_peer = 1.0 if workers == 1 else (workers - colluders) / (workers - 1)
    return 1.0 - (1.0 - lying_share * fraction * honest_peer) ** batches


def percent(probability: float) -> str:
    """A probability as the table writes it: ``18%``, ``2.0%``, ``99.3%``, ``>99.9%``, ``0%``."""
    if probability > 0.999:
        return ">99.9%"
    value = 100 * probability
    return f"{value:.0f}%" if 10 <= value < 99 or value == 0 else f"{value:.1f}%"


def catch_table(
    rows: Sequence[tuple[float, float, int, int]] = DOC_ROWS, batches: Sequence[int] = DOC_BATCHES
) -> str:
    """The Markdown table of :func:`catch_probability` over ``rows`` (fraction, lying share,
    colluders, workers) and ``batches``."""
    head = (
        "| f | lying share q | colluders k of n workers | " + " | ".join(f"m = {m}" for m in batches) + " |"
    )
    lines = [head, "|" + "---|" * (3 + len(batches))]
    for fraction, share, colluders, workers in rows:
        cells = [percent(catch_probability(fraction, share, m, colluders, workers)) for m in batches]
        who = "1 (alone)" if colluders == 1 else f"{colluders} of {workers}"
        lines.append(f"| {100 * fraction:g}% | {share:g} | {who} | " + " | ".join(cells) + " |")
    return "\n".join(lines)

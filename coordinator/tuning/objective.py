"""What an Optuna trial's value means: its Elo against one fixed reference, the run's start weights.

Every trial of a study plays the same opponent (champion #0, the start weights) at the trials'
settings, so its value, and every intermediate value it reports after a counted batch, is one
direct, fixed-sample measurement in one unit for the whole study: Optuna's samplers, the
successive-halving pruner (which compares trials at equal game counts), the importance figures and
the reports all see comparable numbers, whatever champions came and went. The chained alternative
(a trial's Elo against the champion of the moment plus that champion's Elo against the start) adds
SPRT-stopped estimates of other matches, and with acceptance at other node counts than the trials'
(``--accept-nodes``) it would add gains measured at another fidelity; Elo between engine variants is
not transitive either. The cost of a fixed reference is that a trial's relation to the champion is
indirect: the champion's own value (its trial's) is subtracted, and that value was selected for
being high, so the bar after a crowning sits a little high. From the defaults, which is where this
matters, all the values are small and measured against an opponent close to them.
"""

from __future__ import annotations

import math

from coordinator.stats.numeric import phi

#: Half-width of a 95% interval in standard errors.
Z95 = 1.959963984540054


def superiority(elo: float, elo95: float, champion: float, champion95: float) -> float:
    """Likelihood that a trial measured at ``elo`` +- ``elo95`` (95%) against the reference is
    better than a champion measured at ``champion`` +- ``champion95`` against the same reference
    (normal approximation of the difference)."""
    spread = math.hypot(elo95, champion95) / Z95
    if spread == 0:
        return 1.0 if elo > champion else 0.0 if elo < champion else 0.5
    return phi((elo - champion) / spread)

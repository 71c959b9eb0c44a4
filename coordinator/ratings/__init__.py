"""Rating lists by maximum likelihood over all games of many engines (pure: no I/O).

The model is Ordo's: White's expected score is the logistic curve of the rating difference plus a
fitted White advantage, and a draw counts half a win (``model.py`` has the equations). Why Ordo's
rather than BayesElo's: Ordo's ratings are logistic Elo, the scale of everything else arbiter
reports (an SPRT's Elo, a tuning run's champions), so +20 in a rating list means what +20 in an
SPRT means. BayesElo's ratings are not: the same score gives a larger BayesElo difference the more
draws there are, and its draw-elo would be one more fitted parameter for draw rates that vary with
the node count. Draws still shape the errors: those come from the observed variance of the results
(the sandwich covariance), as Ordo's own simulations get them from its draw rate, but in closed form
and without a random seed. BayesElo's prior is kept for degenerate data: virtual games per pairing
keep every rating finite.

Errors are cluster-robust: a game pair (one opening, colours swapped) is one cluster, so pairs are
counted as pairs (pentanomial), and correlated games in a pair widen or narrow the bars as they
should. ``rate`` raises a one-line :class:`ValueError` for bad games or options and
:class:`NotRatable` (also a ValueError) when nothing can be rated: no games, an anchor that did not
play, or engines never linked by games (two groups that never met, directly or through others).
"""

from coordinator.ratings.games import RatedGame
from coordinator.ratings.headtohead import HeadToHead
from coordinator.ratings.rate import DEFAULT_PRIOR, MODEL, Checkpoint, NotRatable, rate, rate_over
from coordinator.ratings.ratinglist import Rating, RatingList

__all__ = [
    "DEFAULT_PRIOR",
    "MODEL",
    "Checkpoint",
    "HeadToHead",
    "NotRatable",
    "RatedGame",
    "Rating",
    "RatingList",
    "rate",
    "rate_over",
]

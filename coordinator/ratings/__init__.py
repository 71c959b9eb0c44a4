"""Rating lists by maximum likelihood over all games of many engines (pure: no I/O).

The model is Ordo's: White's expected score is the logistic curve of the rating difference plus a
fitted White advantage, and a draw counts half a win (``model.py`` has the equations). Why Ordo's
rather than BayesElo's: Ordo's ratings are logistic Elo, the scale of everything else arbiter
reports (an SPRT's Elo, a tuning run's champions), so a difference of 20 in a rating list means
what +20 in an SPRT means; BayesElo's draw model stretches its scale by the draw rate, and its
draw-elo would be one more parameter for the Congo and Congress draw rates that vary with the
node count. Draws enter the errors through the observed variance of the results (the sandwich
covariance), which is what Ordo's simulations get from its draw rate. BayesElo's idea is kept for
degenerate data: a prior of virtual games per pairing keeps all ratings finite.

Errors are cluster-robust: a game pair (one opening, colours swapped) is one cluster, so pairs are
counted as pairs (pentanomial) and correlated pairs widen or narrow the bars as they should.
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

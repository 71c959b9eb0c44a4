"""The report data of a tournament: its rating list (maximum likelihood over every counted game,
see :mod:`coordinator.ratings`), likelihoods of superiority, head-to-head scores, ratings over the
games, each engine's faults and time per move (gathered as a match report's, per engine name), and,
for a tuning run's champions, whether the list orders them as the chain claims."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from coordinator.ratings import NotRatable, RatedGame, RatingList, rate, rate_over
from coordinator.reports.engines import MoveTimes, from_results, repos_of
from coordinator.reports.match import counted_result_rows, run_info
from coordinator.store import Run, Store
from coordinator.tournament.config import TournamentConfig
from coordinator.tournament.games import rated_games
from wire.protocol import SIDES

#: Points of the ratings-over-games plot at most (each one a full rating of the games so far).
CHECKPOINTS = 8
_CHAMPION = re.compile(r"champion #(\d+)")


def checkpoints(total: int, count: int = CHECKPOINTS) -> list[int]:
    """Game counts at which to rate the first games: ``count`` even steps of whole game pairs (an
    even number of games), the last one every game."""
    if total == 0:
        return []
    steps = {max(2, 2 * round(total * k / count / 2)) for k in range(1, count + 1)} | {total}
    return sorted(s for s in steps if s <= total)


def over_games(games: Sequence[RatedGame], names: Sequence[str], anchor: str | None) -> list[dict[str, Any]]:
    """Each engine's rating and error after the first games (see :func:`checkpoints`); an engine
    without a game by then is left out of that point, and a point nothing can be rated at yet."""
    points = []
    for point in rate_over(games, checkpoints(len(games)), anchor=anchor):
        by_name = {r.name: r for r in point.ratings.ratings}
        points.append(
            {
                "games": point.games,
                "ratings": {n: [by_name[n].elo, by_name[n].error] for n in names if n in by_name},
            }
        )
    return points


def rating_rows(ratings: RatingList) -> list[dict[str, Any]]:
    """The rating list's rows, best first, with score and draw rates."""
    return [
        {
            "rank": rank,
            "name": r.name,
            "elo": r.elo,
            "error": r.error,
            "games": r.games,
            "points": r.points,
            "score": r.points / r.games if r.games else None,
            "draws": r.draws,
            "draw_rate": r.draws / r.games if r.games else None,
        }
        for rank, r in enumerate(ratings.ratings, start=1)
    ]


def chain_check(ratings: RatingList) -> dict[str, Any]:
    """Whether the list orders a tuning run's champions as the chain claims (#0 < #1 < ...): a
    line per link that does not hold, with the likelihood that the later one is the stronger."""
    elo = {r.name: r.elo for r in ratings.ratings}
    numbered = sorted((int(m.group(1)), n) for n in elo if (m := _CHAMPION.fullmatch(n)))
    broken = []
    for (low, below), (high, above) in pairwise(numbered):
        if elo[above] <= elo[below]:
            los = ratings.los.get((above, below))
            text = "?" if los is None else f"{100 * los:.0f}%"
            broken.append(f"#{high} is not above #{low} (LOS {text})")
    return {"confirmed": not broken, "lines": broken or ["chain order confirmed"]}


def engines_rows(store: Store, run: Run, config: TournamentConfig, times: MoveTimes) -> list[dict[str, Any]]:
    """Each engine of the tournament with its faults and its time per move in the counted games
    (the match report's figures, per engine name instead of per side; ``times`` gathered from
    the records already)."""
    pairings = store.pairings(run.id)
    rows = counted_result_rows(store, run.id, run.counted_batches)
    names = [e.name for e in config.entrants]
    found = from_results(
        rows, repos_of(config), lambda index: dict(zip(SIDES, pairings[index], strict=True)), names
    )
    return [
        {
            "name": e.name,
            "source": e.source,
            "faults": found["faults"][e.name],
            "move_times": times.of(e.name),
        }
        for e in config.entrants
    ]


def tournament_report(store: Store, run: Run, anchor: str | None = None) -> dict[str, Any]:
    """The report data of tournament ``run``, its ratings relative to engine ``anchor`` (None: to
    their mean); ValueError for an anchor that is not one of its engines."""
    config = run.settings_as(TournamentConfig)
    names = [e.name for e in config.entrants]
    if anchor is not None and anchor not in names:
        raise ValueError(
            f"--anchor: expected an engine of tournament {run.id} ({', '.join(names)}), got {anchor!r}"
        )
    times = MoveTimes(names)
    games = rated_games(store, run, times.add)
    data: dict[str, Any] = {
        "type": "tournament",
        "run": run_info(run),
        "format": config.format,
        "gauntlet_engine": names[config.vs] if config.format == "gauntlet" else None,
        "engines": engines_rows(store, run, config, times),
        "pairs_per_pairing": config.pairs,
        "pairings": len(config.pairings),
        "planned_batches": config.max_batches,
        "planned_games": config.max_games,
        "counted_batches": run.counted_batches,
        "games": len(games),
        "limits": config.limits.to_json(),
        "seed": config.seed,
        "book": config.book,
        "champions_of": config.champions_of,
        "ratings": [],
        "los": {"names": [], "matrix": []},
        "head_to_head": [],
        "over_games": [],
        "model": None,
        "chain": None,
    }
    if not games:
        return data
    try:
        ratings = rate(games, anchor=anchor)
    except NotRatable as e:  # engines not linked by games yet, say
        return data | {"ratings_error": str(e)}
    order = [r.name for r in ratings.ratings]
    data |= {
        "ratings": rating_rows(ratings),
        "anchor": ratings.anchor,
        "anchor_elo": ratings.anchor_elo,
        "confidence": ratings.confidence,
        "model": ratings.model,
        "white_advantage": ratings.white_advantage,
        "white_advantage_error": ratings.white_advantage_error,
        "prior": ratings.prior,
        "draw_elo": ratings.draw_elo,
        "los": {
            "names": order,
            "matrix": [[None if a == b else ratings.los.get((a, b)) for b in order] for a in order],
        },
        "head_to_head": [
            {
                "engine": a,
                "opponent": b,
                "wins": h.wins,
                "draws": h.draws,
                "losses": h.losses,
                "pentanomial": None if h.pentanomial is None else list(h.pentanomial),
            }
            for (a, b), h in sorted(ratings.head_to_head.items())
            if order.index(a) < order.index(b)
        ],
        "over_games": over_games(games, order, anchor),
    }
    if config.champions_of is not None:
        data["chain"] = chain_check(ratings)
    return data

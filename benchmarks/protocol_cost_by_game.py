"""The engine protocol's CPU cost per move, with the two ways of playing interleaved game by game.

``protocol_cost.py`` times whole batches of each mode one after the other; on a machine whose
speed drifts by a third within minutes its ratios move by +-15% between repetitions. Here every
game is played twice in a row, through the protocol and in-process (the order alternating), on
one CPU, and each is charged exactly the CPU it used:

- ``protocol``: the referee's CPU (this process, ``getrusage``) and both engine processes' (every
  thread's run time from the process CPU clock, ``EnginePlayer.cpu_seconds``) over the game; getting
  each batch's engines is charged too, measured the same way, as a worker gets them: the program's
  files checked against its digest, and the engines started (fork, exec, limits, network
  namespace, handshake) where no engine is kept from the batch before. A worker keeps both, the
  built-in engine and the shipped copy of it (``worker.program_batch.keepable``), so they start
  once for the whole benchmark;
- ``in-process``: ``engine.play_game`` in this process with 16 MiB tables, the table the protocol's
  arbiter-engine is given: the very same games (checked move for move), with the freed tables
  kept by the C library (``protocol_cost.steady_heap``).

The candidate is a shipped copy of ``arbiter-engine`` from a program cache, the baseline the
built-in arbiter-engine, as ``protocol_cost.py`` plays them; the referee is the worker's
(``worker.referee``: untimed games refereed in one call). Linux only (process CPU clocks).

    python benchmarks/protocol_cost_by_game.py --games congo,congress --nodes 2000 --pairs 8 --batches 4
"""

from __future__ import annotations

import functools
import resource
import statistics
from dataclasses import dataclass, replace

from protocol_cost import argument_parser, cached_engine_program, games_of, payloads, steady_heap

import engine
from wire.protocol import BatchPayload
from worker.games import pair_limits
from worker.program_batch import BUILTIN_HASH_MB, keepable
from worker.program_batch import sides as sides_of
from worker.programs import ProgramCache
from worker.referee import EnginePlayer, play_game
from worker.referee.cpu import one_cpu
from worker.referee.kept import KeptEngines


def own_cpu_ns() -> int:
    """This process's CPU time so far (ns)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return round((usage.ru_utime + usage.ru_stime) * 1e9)


def engines_cpu_ns(sides: tuple[EnginePlayer, EnginePlayer]) -> int:
    """The CPU both engines' processes have used so far (ns, their process CPU clocks)."""
    return round(sum(p.cpu_seconds() for p in sides) * 1e9)


@dataclass
class Spent:
    """CPU ns and moves of each way of playing, over one batch."""

    protocol: int = 0
    starts: int = 0
    referee: int = 0
    in_process: int = 0
    moves: int = 0
    games: int = 0


def play_refereed(
    payload: BatchPayload,
    opening: str,
    limits: engine.Limits,
    sides: tuple[EnginePlayer, EnginePlayer],
    spent: Spent,
) -> list[str]:
    """One game between the running engines (white first), its CPU added to ``spent``."""
    engines, own = engines_cpu_ns(sides), own_cpu_ns()
    played = play_game(*sides, payload.game, opening, limits, payload.adjudication)
    referee = own_cpu_ns() - own
    spent.referee += referee
    spent.protocol += referee + engines_cpu_ns(sides) - engines
    return list(played.moves)


def play_in_process(
    payload: BatchPayload, opening: str, limits: engine.Limits, candidate_white: bool, spent: Spent
) -> list[str]:
    """The same game in this process with the tables the protocol's arbiter-engine gets (16 MiB),
    its CPU added to ``spent``."""
    sides = (payload.candidate, payload.baseline)
    if not candidate_white:
        sides = sides[::-1]
    own = own_cpu_ns()
    game, adjudication = payload.game, payload.adjudication
    played = engine.play_game(game, *sides, opening, limits, adjudication, hash_mb=BUILTIN_HASH_MB)
    spent.in_process += own_cpu_ns() - own
    return list(played["moves"])


def play_interleaved(payload: BatchPayload, cache: ProgramCache, kept: KeptEngines, index: int) -> Spent:
    """Every game of ``payload`` through the protocol and in-process, one after the other, with
    the engines ``kept`` from the batch before where a worker would keep them."""
    spent = Spent()
    own = own_cpu_ns()
    candidate, baseline = kept.players(*sides_of(payload, cache, None))
    sides = (candidate, baseline)
    with one_cpu(), kept.lent(candidate, baseline, keep=keepable(payload)):
        engines = engines_cpu_ns(sides)
        for player in sides:
            player.start()
        spent.starts = own_cpu_ns() - own + engines_cpu_ns(sides) - engines
        for pair, opening in enumerate(payload.openings):
            limits = pair_limits(payload.limits, payload.seed, pair)
            for white, black in ((candidate, baseline), (baseline, candidate)):
                candidate_white = white is candidate
                plays = [
                    functools.partial(play_refereed, payload, opening, limits, (white, black), spent),
                    functools.partial(play_in_process, payload, opening, limits, candidate_white, spent),
                ]
                if (index + spent.games) % 2:
                    plays.reverse()
                moves = [play() for play in plays]
                if moves[0] != moves[1]:
                    raise SystemExit("protocol_cost_by_game: a refereed game differs from in-process play")
                spent.moves += len(moves[0])
                spent.games += 1
    return spent


def main() -> None:
    parser = argument_parser(__doc__)
    parser.add_argument("--nodes", type=int, default=2000, help="node limit per move")
    parser.add_argument("--pairs", type=int, default=8, help="pairs per batch")
    parser.add_argument("--batches", type=int, default=4, help="batches per game")
    args = parser.parse_args()
    games = games_of(parser, args)
    if min(args.pairs, args.batches, args.nodes) < 1:
        parser.error("--pairs, --batches and --nodes must be positive")
    steady_heap()
    print(
        "| game | nodes | games | plies/game | CPU vs in-process 16 MiB: all batches | per batch, median "
        "(range) | CPU µs/move: in-process 16 MiB | protocol: games | of it the referee | engine set-up |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    with cached_engine_program(args.same_file) as (cache, program):
        kept = KeptEngines()
        for game in games:
            batches = [
                play_interleaved(replace(p, candidate_program=program), cache, kept, i)
                for i, p in enumerate(payloads(game, args.nodes, args.pairs, args.batches))
            ]
            moves = sum(b.moves for b in batches)
            protocol = sum(b.protocol + b.starts for b in batches)
            in_process = sum(b.in_process for b in batches)
            ratios = [(b.protocol + b.starts) / b.in_process - 1 for b in batches]
            n_games = sum(b.games for b in batches)
            in_games = sum(b.protocol for b in batches)
            print(
                f"| {game} | {args.nodes:,} | {n_games} | {moves / n_games:.0f} | "
                f"{protocol / in_process - 1:+.1%} | "
                f"{statistics.median(ratios):+.1%} ({min(ratios):+.1%} to {max(ratios):+.1%}) | "
                f"{in_process / moves / 1e3:.0f} | {in_games / moves / 1e3:.0f} | "
                f"{sum(b.referee for b in batches) / moves / 1e3:.0f} | "
                f"{sum(b.starts for b in batches) / moves / 1e3:.0f} |",
                flush=True,
            )
        kept.close()


if __name__ == "__main__":
    main()

"""The engine protocol's cost per move: arbiter-engine through the referee against in-process play.

The same batches (defaults against defaults, the game's default book, fixed nodes with the
worker's per-pair jitter) are played three ways, as a worker plays them (``worker.games
.play_batch``, one core):

- ``in-process``: ``engine.play_game`` through the PyO3 binding, each side's table sized to the
  node limit (what a worker does for the built-in engine);
- ``in-process 16 MiB``: the same with 16 MiB tables, the table arbiter-engine is given when it
  plays as a program (``worker.program_batch.BUILTIN_HASH_MB``): the very games the protocol plays
  (the freed tables kept by the C library from game to game, :func:`steady_heap`);
- ``protocol``: the candidate an engine program (a copy of ``arbiter-engine`` in a program cache,
  as a shipped program runs), the baseline the built-in engine as ``arbiter-engine``: both through
  the referee (``worker.referee``: process, handshake, ``position``/``isready``/``go`` per move,
  every move checked by the rules core, the referee and both engines on one CPU for the batch);
  with ``--same-file`` the candidate runs the built-in arbiter-engine file itself.

The modes are interleaved batch by batch (their order alternates) so that the load of a shared
machine drifts over all of them alike; each repetition gives a ratio of the protocol's time to
in-process time, and the table reports their median and range. Wall time is what a worker's core spends
(the referee and the engines take turns); CPU time adds the engines' CPU to the referee's. A worker
keeps the built-in engine for its next batch (``worker.referee.kept``), so it is started once for
the whole benchmark; the shipped copy, which a check could play again, every batch.

    python benchmarks/protocol_cost.py                              # quick: Congo, 500/2000/20000 nodes
    python benchmarks/protocol_cost.py --games congo,congress --pairs 8 --reps 5
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import functools
import resource
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import engine
from coordinator.openings.book import default_book_path, load_book
from coordinator.sprt.config import BatchPlan, SprtConfig
from wire.programs import EngineProgram, files_digest, pack
from wire.protocol import BatchPayload, BatchResult
from worker.games import play_batch
from worker.program_batch import BUILTIN_HASH_MB, builtin_program
from worker.programs import ProgramCache
from worker.referee.kept import KEPT

MODES = ("in-process", "in-process 16 MiB", "protocol")
#: mallopt's parameters (glibc's malloc.h).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3


@dataclass
class Timings:
    """Wall and CPU seconds of each repetition of one mode, and the moves it played."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    #: This process's part of ``cpu`` (the referee's, for the protocol).
    own: list[float] = field(default_factory=list)
    moves: int = 0
    games: int = 0


def cpu_now() -> tuple[float, float]:
    """CPU seconds of this process, and of it with its children: the engines reaped, and those
    a worker keeps for its next batch (``worker.referee.kept``), still running."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    mine = own.ru_utime + own.ru_stime
    kept = sum(p.cpu_seconds() for p in KEPT.idle)
    return mine, mine + children.ru_utime + children.ru_stime + kept


def steady_heap() -> None:
    """Has glibc keep the memory this process frees (no trimming, and blocks up to 32 MiB from
    the heap, not mmap), so that in-process play's 16 MiB tables reuse the last game's pages.

    Otherwise whether freed tables go back to the system depends on what else lies at the top
    of the heap: in some runs every game page-faulted two fresh tables (about 9 ms, a third of
    a Congress game's in-process CPU), in others none, whole runs at a time (the "flip" of
    docs/performance.md). The engines keep their table from game to game (``ucinewgame`` clears
    it). No effect where the C library is not glibc."""
    try:
        libc = ctypes.CDLL(None)
        libc.mallopt(_M_TRIM_THRESHOLD, 1 << 30)
        libc.mallopt(_M_MMAP_THRESHOLD, 32 << 20)
    except (OSError, AttributeError):
        pass


def engine_program(cache: ProgramCache, same_file: bool = False) -> EngineProgram:
    """A copy of arbiter-engine as a shipped program, installed in ``cache`` by its digest; with
    ``same_file``, a program whose command is the built-in arbiter-engine itself (one file for both
    sides: the protocol's cost without that of two copies of the code in memory and caches)."""
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder)
        if same_file:
            binary = source / "README"
            binary.write_text("runs the machine's arbiter-engine\n")
            command: tuple[str, ...] = (builtin_program(),)
        else:
            binary = source / "arbiter-engine"
            binary.write_bytes(Path(builtin_program()).read_bytes())
            binary.chmod(0o755)
            command = ("./arbiter-engine",)
        digest = files_digest(source, [binary])
        cache.install(digest, pack(source, [binary]))
    return EngineProgram("arbiter-engine", digest, command, {"Hash": BUILTIN_HASH_MB})


@contextlib.contextmanager
def cached_engine_program(same_file: bool) -> Iterator[tuple[ProgramCache, EngineProgram]]:
    """A program cache in a temporary folder and :func:`engine_program` installed in it (both
    removed on exit)."""
    with tempfile.TemporaryDirectory() as root:
        cache = ProgramCache(Path(root))
        yield cache, engine_program(cache, same_file)


def payloads(game: str, nodes: int, pairs: int, batches: int) -> list[BatchPayload]:
    """``batches`` batches of ``pairs`` pairs at ``nodes``, defaults against defaults."""
    defaults = engine.validate_weights(game, None)
    config = SprtConfig(
        game=game,
        candidate=dict(defaults),
        baseline=dict(defaults),
        openings=load_book(default_book_path(game), game),
        engine_version=engine.ENGINE_VERSION,
        limits=engine.Limits(nodes=nodes),
        batch_pairs=pairs,
        seed=1,
    )
    plan = BatchPlan(config)
    return [plan.payload(1, i) for i in range(batches)]


def players(cache: ProgramCache, program: EngineProgram) -> dict[str, Callable[[BatchPayload], BatchResult]]:
    """How each mode plays a payload."""
    table16 = functools.partial(engine.play_game, hash_mb=BUILTIN_HASH_MB)
    return {
        "in-process": lambda p: play_batch(p, worker="bench"),
        "in-process 16 MiB": lambda p: play_batch(p, play_game=table16, worker="bench"),
        "protocol": lambda p: play_batch(replace(p, candidate_program=program), worker="bench", cache=cache),
    }


def measure(
    batches: list[BatchPayload], reps: int, play: dict[str, Callable[[BatchPayload], BatchResult]]
) -> dict[str, Timings]:
    """Every mode over ``batches``, ``reps`` times, interleaved batch by batch (the modes' order
    alternating), so that a drift of the machine's speed falls on every mode alike; checks that
    the 16 MiB games and the protocol's are the same games."""
    timings = {mode: Timings() for mode in MODES}
    for rep in range(reps):
        spent = {mode: [0.0, 0.0, 0.0] for mode in MODES}
        moves: dict[str, list[str]] = {mode: [] for mode in MODES}
        for index, payload in enumerate(batches):
            order = MODES if (rep + index) % 2 == 0 else tuple(reversed(MODES))
            for mode in order:
                wall, (own, cpu) = time.perf_counter(), cpu_now()
                result = play[mode](payload)
                own_after, cpu_after = cpu_now()
                for i, value in enumerate((time.perf_counter() - wall, own_after - own, cpu_after - cpu)):
                    spent[mode][i] += value
                moves[mode] += [g.moves for g in result.games]
        for mode in MODES:
            wall, own, cpu = spent[mode]
            timings[mode].wall.append(wall)
            timings[mode].own.append(own)
            timings[mode].cpu.append(cpu)
            timings[mode].games = len(moves[mode])
            timings[mode].moves = sum(len(m.split()) for m in moves[mode])
        if moves["protocol"] != moves["in-process 16 MiB"]:
            raise SystemExit("protocol_cost: the protocol's games differ from in-process play with 16 MiB")
    return timings


def ratios(a: list[float], b: list[float]) -> str:
    """median (min to max) of a[i] / b[i] - 1 over the repetitions, as percentages."""
    r = [x / y - 1 for x, y in zip(a, b, strict=True)]
    return f"{statistics.median(r):+.1%} ({min(r):+.1%} to {max(r):+.1%})"


def row(game: str, nodes: int, t: dict[str, Timings]) -> str:
    base, same, proto = t["in-process"], t["in-process 16 MiB"], t["protocol"]
    games_s = {m: base.games / statistics.median(t[m].wall) for m in MODES}
    per_move_us = (statistics.median(proto.wall) - statistics.median(same.wall)) / proto.moves * 1e6
    referee_us = statistics.median(proto.own) / proto.moves * 1e6
    engines_us = (statistics.median(proto.cpu) - statistics.median(proto.own)) / proto.moves * 1e6
    in_process_us = statistics.median(same.cpu) / same.moves * 1e6
    return (
        f"| {game} | {nodes:,} | {base.games} | {base.moves / base.games:.0f} | "
        f"{games_s['in-process']:.1f} | {games_s['in-process 16 MiB']:.1f} | {games_s['protocol']:.1f} | "
        f"{ratios(proto.wall, base.wall)} | {ratios(proto.wall, same.wall)} | "
        f"{ratios(proto.cpu, same.cpu)} | {per_move_us:.0f} | {in_process_us:.0f} | {engines_us:.0f} | "
        f"{referee_us:.0f} |"
    )


def argument_parser(doc: str) -> argparse.ArgumentParser:
    """The options this benchmark and protocol_cost_by_game.py share: --games and --same-file."""
    parser = argparse.ArgumentParser(
        description=doc.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", default="congo", help="comma-separated: congo,congress")
    parser.add_argument(
        "--same-file",
        action="store_true",
        help="the candidate runs the built-in arbiter-engine file itself, not a shipped copy",
    )
    return parser


def games_of(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    """The games --games names (a usage error for any other)."""
    games = [g for g in args.games.split(",") if g]
    for game in games:
        if game not in engine.GAMES:
            parser.error(f"--games: expected congo or congress, got {game!r}")
    return games


def main() -> None:
    """Print a markdown table: per game and node count, games/s of each mode and the ratios."""
    parser = argument_parser(__doc__)
    parser.add_argument("--nodes", default="500,2000,20000", help="comma-separated node counts")
    parser.add_argument("--pairs", type=int, default=4, help="pairs per batch")
    parser.add_argument("--batches", type=int, default=2, help="batches per repetition")
    parser.add_argument("--reps", type=int, default=3, help="interleaved repetitions of every mode")
    parser.add_argument(
        "--scale-20000", type=float, default=0.5, help="share of the pairs played at 20,000 nodes and more"
    )
    args = parser.parse_args()
    games = games_of(parser, args)
    try:
        node_counts = [int(n) for n in args.nodes.split(",") if n]
    except ValueError:
        parser.error(f"--nodes: expected comma-separated numbers, got {args.nodes!r}")
    if min(args.pairs, args.batches, args.reps, *node_counts) < 1:
        parser.error("--pairs, --batches, --reps and --nodes must be positive")
    steady_heap()
    print(f"arbiter-engine {builtin_program()}, engine {engine.ENGINE_VERSION}")
    print(
        "| game | nodes | games | plies/game | in-process games/s | in-process 16 MiB games/s | "
        "protocol games/s | protocol wall vs in-process | wall vs 16 MiB | CPU vs 16 MiB | "
        "µs per move (wall, vs 16 MiB) | CPU µs/move: in-process 16 MiB | engines | referee |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    with cached_engine_program(args.same_file) as (cache, program):
        play = players(cache, program)
        for game in games:
            for nodes in node_counts:
                pairs = args.pairs if nodes < 20000 else max(1, round(args.pairs * args.scale_20000))
                batches = payloads(game, nodes, pairs, args.batches)
                print(row(game, nodes, measure(batches, args.reps, play)), flush=True)
    KEPT.close()


if __name__ == "__main__":
    main()

"""Which tuning method improves a good engine most for the same game budget, for docs/performance.md.

For each game, every method starts from the engine's shipped defaults and gets the same game
budget (``--budget``): Optuna TPE over the whole table's ranges (arbiter's default), Optuna CMA-ES
searching locally (``--radius``, starting from the defaults with a small step), SPSA
(fishtest's, arbiter's defaults) and Optuna random search. Each is an ordinary ``arbiter tune``
run of the CLI, in its own SQLite store under ``--work`` (run the same command again and finished
runs are only reported, interrupted ones resume). Each result is then measured by an independent
fixed-length match against the defaults (``--pairs`` game pairs from the shipped book, a seed of
its own) at the tuning node count and at 4x that count. A method's result is its champion, the
weights an acceptance SPRT crowned (the defaults if none was: 0 Elo, no match played); for SPSA
also its final theta, which fishtest users would take. Games spent counts every game the run
played, trials, iterations and acceptance SPRTs; CPU hours are the workers' CPU time for them, and
minutes the run's wall-clock time from its start to its end as the store has them.

    nice python benchmarks/tuning.py --smoke                 # about 10 minutes on 2 cores
    nice python benchmarks/tuning.py                         # the full run (hours): 40,000 games
    nice python benchmarks/tuning.py --budget 100000 --pairs 2000 --nodes 500 --games congo
    nice python benchmarks/tuning.py --write-docs            # and put the table in docs/performance.md

The table goes to stdout (Markdown), and with ``--write-docs`` between the markers of the tuning
benchmark in docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import engine
from coordinator.executors.local import LocalExecutor
from coordinator.openings.book import default_book_path, load_book
from coordinator.runs import RunKind
from coordinator.sprt.config import BatchPlan, SprtConfig, derive_seed
from coordinator.stats import fixed_elo
from coordinator.store import Store
from coordinator.tuning import spsa
from coordinator.tuning.records import TuningRecords
from wire.protocol import BatchResult

DOCS = Path(__file__).resolve().parents[1] / "docs" / "performance.md"
BEGIN, END = "<!-- tuning-benchmark:begin -->", "<!-- tuning-benchmark:end -->"
#: Each method: its label and the `arbiter tune` options that make it.
METHODS = {
    "tpe": ("Optuna TPE", ["--method", "optuna", "--sampler", "tpe"]),
    "cmaes": ("Optuna CMA-ES, local", ["--method", "optuna", "--sampler", "cmaes", "--radius", "0.15"]),
    "spsa": ("SPSA", ["--method", "spsa"]),
    "random": ("random search", ["--method", "optuna", "--sampler", "random"]),
}
#: Game pairs per batch of the independent matches.
MATCH_BATCH_PAIRS = 8


@dataclass(frozen=True)
class Tuned:
    """One tuning run's outcome: its champion (and SPSA's final theta), games, CPU and time."""

    method: str
    champion: dict[str, int]
    crowned: int
    theta: dict[str, int] | None
    games: int
    cpu_seconds: float
    seconds: float


@dataclass(frozen=True)
class Measured:
    """An independent match against the defaults: Elo and its 95% half-width."""

    elo: float
    elo95: float
    pairs: int


def tune(game: str, method: str, args: argparse.Namespace, work: Path) -> Tuned:
    """Run (or resume, or only report) `arbiter tune` for one method; its outcome."""
    store_url = f"sqlite:///{work / f'{game}-{method}.db'}"
    command = [sys.executable, "-m", "coordinator.cli", "tune", game, *METHODS[method][1]]
    command += ["--max-games", str(args.budget), "--nodes", str(args.nodes), "--seed", str(args.seed)]
    if method != "spsa":
        command += ["--max-trials", "1000000"]  # the game budget ends the run
    if args.accept_nodes:
        command += ["--accept-nodes", args.accept_nodes]
    if args.concurrency:
        command += ["--concurrency", str(args.concurrency)]
    command += ["--store", store_url, "--output", str(work / f"{game}-{method}-champion.json")]
    print(f"# {game} {method}: {' '.join(command[2:])}", file=sys.stderr, flush=True)
    env = {k: v for k, v in os.environ.items() if k not in ("ARBITER_STORE", "ARBITER_BROKER")}
    done = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"arbiter tune failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    store = Store(store_url, create=False)
    try:
        run = store.list_runs(RunKind.TUNE)[-1]
        # From the run's start to its end as the store has them (a resumed run's pause included).
        seconds = ((run.finished_at or run.updated_at) - run.created_at).total_seconds()
        records = TuningRecords(store)
        champions = records.champions(run.id)
        theta = None
        if method == "spsa":
            applied = [row.theta for row in records.iterations(run.id) if row.theta is not None]
            if applied:
                theta = {**champions[0].weights, **spsa.rounded(applied[-1])}
        cpu = sum(store.totals(child).cpu_seconds for child in records.children(run.id))
        return Tuned(
            method, champions[-1].weights, len(champions) - 1, theta, records.games(run.id), cpu, seconds
        )
    finally:
        store.close()


def measure(game: str, weights: dict[str, int], nodes: int, args: argparse.Namespace, label: str) -> Measured:
    """A fixed-length match of ``weights`` against the defaults: every game pair is played."""
    defaults = dict(engine.validate_weights(game, None))
    openings = load_book(default_book_path(game), game)
    config = SprtConfig(
        game=game,
        candidate=dict(weights),
        baseline=defaults,
        openings=openings,
        engine_version=engine.ENGINE_VERSION,
        limits=engine.Limits(nodes=nodes),
        batch_pairs=MATCH_BATCH_PAIRS,
        seed=derive_seed(args.seed, "benchmark match", label, nodes),
    )
    plan = BatchPlan(config)
    count = -(-args.pairs // MATCH_BATCH_PAIRS)
    pentanomial = [0] * 5
    with LocalExecutor(args.concurrency) as executor:
        pending = list(range(count))
        while pending or executor.in_flight():
            while pending and executor.in_flight() < executor.slots:
                executor.submit(plan.payload(0, pending.pop(0)))
            for outcome in executor.completed(timeout=1.0):
                if outcome.error is not None:
                    raise SystemExit(f"a match batch failed: {outcome.error}")
                result = BatchResult.from_json(outcome.result)
                pentanomial = [a + b for a, b in zip(pentanomial, result.pentanomial, strict=True)]
    e = fixed_elo(pentanomial)
    return Measured(e.elo, e.elo95, sum(pentanomial))


def cell(m: Measured | None) -> str:
    """``+3.1 ± 4.2`` or ``+0 (no champion)``."""
    return "+0 (no champion)" if m is None else f"{m.elo:+.1f} ± {m.elo95:.1f}"


def row(game: str, label: str, t: Tuned, low: Measured | None, high: Measured | None) -> str:
    """One line of the table."""
    return (
        f"| {game} | {label} | {t.crowned} | {t.games:,} | {t.cpu_seconds / 3600:.3f} | "
        f"{t.seconds / 60:.1f} | {cell(low)} | {cell(high)} |"
    )


def table(rows: list[str], args: argparse.Namespace) -> str:
    """The Markdown table with its header."""
    head = (
        f"| game | method | champions crowned | games spent | worker CPU h | minutes | "
        f"Elo vs defaults at {args.nodes} nodes (95%) | at {4 * args.nodes} nodes (95%) |\n"
        "|---|---|---|---|---|---|---|---|"
    )
    return head + "\n" + "\n".join(rows)


def write_docs(text: str, command: str) -> None:
    """Put the table between the markers in docs/performance.md."""
    docs = DOCS.read_text()
    block = f"{BEGIN}\n`{command}`\n\n{text}\n{END}"
    pattern = re.compile(re.escape(BEGIN) + ".*?" + re.escape(END), re.S)
    if not pattern.search(docs):
        raise SystemExit(f"{DOCS} has no {BEGIN} ... {END} markers")
    DOCS.write_text(pattern.sub(lambda _: block, docs))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--smoke", action="store_true", help="a quick check: small budget and matches")
    parser.add_argument("--budget", type=int, default=40_000, help="games per method (default 40,000)")
    parser.add_argument("--pairs", type=int, default=2_000, help="pairs per measuring match (default 2,000)")
    parser.add_argument("--nodes", type=int, default=500, help="tuning nodes per move (default 500)")
    parser.add_argument("--accept-nodes", help="acceptance SPRTs at these node counts (default: --nodes)")
    parser.add_argument("--games", default=",".join(engine.GAMES), help="games, comma-separated")
    parser.add_argument("--methods", default=",".join(METHODS), help=f"of {', '.join(METHODS)}")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--concurrency", type=int, help="worker processes (default: one per core)")
    parser.add_argument("--work", type=Path, default=Path("tuning-benchmark"), help="stores and champions")
    parser.add_argument("--write-docs", action="store_true", help="put the table in docs/performance.md")
    args = parser.parse_args()
    if args.smoke:
        args.budget, args.pairs, args.nodes = 1_500, 100, 300
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    if unknown := [m for m in methods if m not in METHODS] + [g for g in games if g not in engine.GAMES]:
        parser.error(f"unknown method or game: {', '.join(unknown)}")
    args.work.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    rows = []
    for game in games:
        defaults = dict(engine.validate_weights(game, None))
        for method in methods:
            t = tune(game, method, args, args.work)
            results = [(METHODS[method][0], t.champion)]
            if t.theta is not None and t.theta != t.champion:
                results.append(("SPSA, final theta (no SPRT)", t.theta))
            for label, weights in results:
                measured = [
                    None if weights == defaults else measure(game, weights, n, args, f"{method} {label}")
                    for n in (args.nodes, 4 * args.nodes)
                ]
                rows.append(row(game, label, t, *measured))
                print(rows[-1], file=sys.stderr, flush=True)
    text = table(rows, args)
    print(text)
    print(f"# {time.monotonic() - started:.0f} s in all", file=sys.stderr)
    if args.write_docs:
        write_docs(text, "python benchmarks/tuning.py " + " ".join(sys.argv[1:]))
    (args.work / "table.json").write_text(json.dumps({"rows": rows, "argv": sys.argv[1:]}, indent=2))


if __name__ == "__main__":
    main()

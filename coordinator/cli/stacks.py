"""The option stacks the commands that play runs share, each defined once: who plays (the two sides
of an SPRT or a match), how the games are played (limits, book, batch size), and where (the
executor's options); and reading the two sides the options name."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

import engine
from coordinator.cli.options import (
    F,
    Side,
    batch_pairs_for,
    batch_pairs_option,
    batch_seconds_option,
    book_option,
    broker_option,
    check_batch_time,
    check_programs_can_go,
    concurrency_option,
    create_or_resume,
    limit_options,
    open_executor_and_store,
    priority_option,
    probed,
    read_book,
    read_ref_side,
    read_side,
    search_limits,
    settled_heap,
    verify_option,
)
from coordinator.cli.remote import remote, server_options, submit
from coordinator.defaults import ADJUDICATION, TOURNAMENT_PAIRS
from coordinator.executors.options import ExecutorOptions
from coordinator.sides.refs import DEFAULT_BASE

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    from coordinator.registry import RunConfig
    from coordinator.runs import RunKind
    from coordinator.stats import SprtParams


def stack(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    """One decorator applying ``decorators`` as if written one above the other, in that order
    (the first option first in the help)."""

    def apply(f: F) -> F:
        for decorator in reversed(decorators):
            f = decorator(f)
        return f

    return apply


def packed(into: str, make: type[DataclassInstance]) -> Callable[[F], F]:
    """A decorator handing the command the values of the options named as the fields of the
    dataclass ``make`` as one ``make(...)``, in the argument ``into``, instead of one by one (the
    options keep their names: ``get_parameter_source`` still finds them)."""
    names = tuple(field.name for field in fields(make))

    def decorate(f: F) -> F:
        @functools.wraps(f)
        def command(*args: Any, **kwargs: Any) -> Any:
            kwargs[into] = make(**{name: kwargs.pop(name) for name in names})
            return f(*args, **kwargs)

        return cast(F, command)

    return decorate


@dataclass(frozen=True)
class SidesChoice:
    """What :data:`side_options` say: the two sides' files or commits and the commits' repository."""

    candidate: str | None
    baseline: str
    candidate_ref: str | None
    baseline_ref: str | None
    repo: str | None

    def read(self, game: str) -> tuple[Side, Side]:
        """The two sides named: weights, engine files or commits of the repository. A commit under
        test plays its base (``--baseline-ref``, default main) unless ``--baseline`` is given."""
        ctx = click.get_current_context()
        baseline_given = ctx.get_parameter_source("baseline") is not click.core.ParameterSource.DEFAULT
        if (self.candidate is None) == (self.candidate_ref is None):
            raise click.UsageError(
                "give the engine under test with --candidate or --candidate-ref (one of them)"
            )
        if self.baseline_ref is not None and baseline_given:
            raise click.UsageError("give the engine to beat with --baseline or --baseline-ref (one of them)")
        if self.repo is not None and self.candidate_ref is None and self.baseline_ref is None:
            raise click.UsageError("--repo names the repository of --candidate-ref or --baseline-ref")
        if self.candidate_ref is not None:
            first = read_ref_side(game, self.repo, self.candidate_ref, "'--candidate-ref'")
        else:
            assert self.candidate is not None
            first = read_side(game, self.candidate, "'--candidate'")
        if self.baseline_ref is not None or (self.candidate_ref is not None and not baseline_given):
            second = read_ref_side(game, self.repo, self.baseline_ref or DEFAULT_BASE, "'--baseline-ref'")
        else:
            second = read_side(game, self.baseline, "'--baseline'")
        return first, second

    def played(self, game: str, limits: engine.Limits, broker: str | None) -> tuple[Side, Side]:
        """The two sides named (:meth:`read`), checked to be playable where the games go, each
        program probed once."""
        sides = self.read(game)
        check_programs_can_go(sides, broker)
        return probed(game, sides[0], limits), probed(game, sides[1], limits)


@dataclass(frozen=True)
class GamesChoice:
    """What :func:`games_options` say: the search limits, the book and the batch size."""

    nodes: int | None
    depth: int | None
    movetime: int | None
    tc: engine.TimeControl | None
    timemargin: int | None
    book: str | None
    batch_pairs: int | None
    batch_seconds: float | None

    def planned(
        self,
        game: str,
        default: engine.Limits,
        broker: str | None,
        cap: int | None = None,
        sprt: SprtParams | None = None,
        max_pairs: int | None = None,
    ) -> tuple[engine.Limits, int]:
        """The limits (``default`` when none is given) and the pairs per batch (``--batch-pairs``
        at most ``cap``, or sized: :func:`batch_pairs_for`), checked to fit a task on ``broker``."""
        limits = search_limits(self.nodes, self.depth, self.movetime, default, self.tc, self.timemargin)
        given = self.batch_pairs if cap is None or self.batch_pairs is None else min(self.batch_pairs, cap)
        ctx = click.get_current_context()
        batch_pairs = batch_pairs_for(ctx, given, self.batch_seconds, game, limits, sprt, max_pairs)
        check_batch_time(game, limits, batch_pairs, broker)
        return limits, batch_pairs

    def config_fields(self, game: str, limits: engine.Limits, batch_pairs: int, seed: int) -> dict[str, Any]:
        """The fields of a played run's configuration that say how its games are played: the
        book (read here), the limits, the adjudication, the batches and the seed."""
        book_path, openings = read_book(game, self.book)
        return {
            "game": game,
            "openings": openings,
            "engine_version": engine.ENGINE_VERSION,
            "limits": limits,
            "adjudication": ADJUDICATION,
            "batch_pairs": batch_pairs,
            "seed": seed,
            "book": book_path,
            "scale_time": not limits.deterministic,
        }


C = TypeVar("C")


def checked(make: Callable[..., C], **values: Any) -> C:
    """``make(**values)``, a run's configuration, whose ValueError is a usage error."""
    try:
        return make(**values)
    except ValueError as e:
        raise click.UsageError(str(e)) from None


#: The two sides of an SPRT or a match: weights or engine files, or commits of a repository.
side_options = stack(
    click.option(
        "--candidate",
        metavar="FILE",
        help="The engine under test: weights (JSON) of the built-in engine, or an engine file (.toml).",
    ),
    click.option(
        "--baseline",
        default="default",
        show_default=True,
        metavar="FILE|default",
        help="The engine to beat: weights (JSON), default, or an engine file (.toml).",
    ),
    click.option(
        "--candidate-ref", metavar="REF", help="Test a commit of --repo (a branch, tag or SHA) instead."
    ),
    click.option(
        "--baseline-ref",
        metavar="REF",
        help=f"The commit to beat (with --candidate-ref: default {DEFAULT_BASE}).",
    ),
    click.option(
        "--repo", metavar="URL", help="The repository of the refs (default: arbiter's own checkout)."
    ),
    packed("sides", SidesChoice),
)


def games_options(limits: engine.Limits, batch_pairs: int | None) -> Callable[[F], F]:
    """How every game is played and batched: the search limits (default ``limits``' nodes), the
    book, and the pairs per batch (default ``batch_pairs``, or None: sized from the limits and the
    SPRT) or the seconds a batch should take."""
    return stack(
        limit_options(f"{limits.nodes}"),
        book_option,
        batch_pairs_option(batch_pairs),
        batch_seconds_option,
        packed("games", GamesChoice),
    )


def pairs_option(help_text: str) -> Callable[[F], F]:
    """--pairs: how many game pairs (an opening, colours reversed) a run or each of its pairings
    plays, ``help_text`` saying which."""
    return click.option(
        "--pairs",
        type=click.IntRange(1, 10**6),
        default=TOURNAMENT_PAIRS,
        show_default=True,
        help=help_text,
    )


#: Where the games are played: the local pool's size or the broker, spot checks, priority; or the
#: server the run is submitted to.
fleet_options = stack(
    concurrency_option,
    broker_option,
    verify_option,
    priority_option,
    server_options,
    packed("options", ExecutorOptions),
)


def sides_fields(sides: tuple[Side, Side]) -> dict[str, Any]:
    """The fields of a two-sided run's configuration that its sides give: weights, sources,
    programs and commits of the candidate and the baseline."""
    candidate, baseline = sides
    return {
        "candidate": candidate.weights,
        "baseline": baseline.weights,
        "candidate_source": candidate.source,
        "baseline_source": baseline.source,
        "candidate_program": candidate.program,
        "baseline_program": baseline.program,
        "candidate_commit": candidate.commit,
        "baseline_commit": baseline.commit,
    }


def play_run(
    kind: RunKind, config: RunConfig, sides: Sequence[Side], options: ExecutorOptions, store_url: str | None
) -> None:
    """Open the executor and the store, keep the sides' programs, then play the unfinished run of
    ``kind`` with ``config`` (or show the finished one, or start a new one) to its end."""
    from coordinator.console.lease import holding_lease
    from coordinator.registry import kind_of

    where = remote()
    if where.server is not None:
        submit(kind, config, sides, where)
        return
    executor, store = open_executor_and_store(options, store_url)
    for side in sides:
        side.keep(store)
    run = create_or_resume(store, kind, config, finished_too=True)
    # a run found again keeps its programs' probe findings: it plays its stored configuration
    with holding_lease(store, run.id), settled_heap():
        kind_of(run.kind).play(store, run, executor)

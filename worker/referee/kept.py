"""Engine processes kept from one batch to the next in a worker process.

A worker process plays batch after batch of a run with the same two engines. Starting an engine
costs about 12 ms of CPU (fork, exec, the sandbox, handshake, the page faults of its first
table): at 2,000 nodes a move, a tenth of a Congress batch's protocol cost (docs/performance.md).
So the engines of a batch that ended cleanly stay up, idle, and the next batch that asks for the
same engine (the same spec and game) takes it again; its games start with ``ucinewgame`` as every
game of a batch does. Only the last batch's engines are kept: an engine not taken by the next
batch is closed then.

An engine is not kept when its batch ended with an error, when it is no longer running, or once
it has used a tenth of its CPU limit (RLIMIT_CPU counts over the process's life: a kept engine
keeps most of its limit for each batch). Engines die with the worker's process (``PR_SET_PDEATHSIG``
where Linux has it; otherwise they read the end of their input).

Which engines may be kept is the caller's choice (``worker.program_batch.keepable``): an engine
that carried anything from one batch into the next would play a batch differently from the
fresh engines a spot check plays it with, and an honest worker would be called a liar.
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from worker.referee.player import EnginePlayer, EngineSpec

#: The share of its CPU limit an engine may have used and still be kept.
KEPT_CPU_SHARE = 0.1


class KeptEngines:
    """The idle engines of the last batch, to be taken again by the next."""

    def __init__(self) -> None:
        self._idle: list[EnginePlayer] = []
        self._hooks_set = False

    @property
    def idle(self) -> tuple[EnginePlayer, ...]:
        """The engines kept and not taken yet."""
        return tuple(self._idle)

    def players(self, *wanted: tuple[EngineSpec, str]) -> list[EnginePlayer]:
        """A player for each (spec, game): a kept engine of the same spec and game where one is
        still fit to play, else a new one (not started). Kept engines not taken are closed."""
        idle, self._idle = self._idle, []
        found = []
        try:
            for spec, game in wanted:
                kept = next((p for p in idle if p.spec == spec and p.game == game), None)
                if kept is not None:
                    idle.remove(kept)
                    if not _fit(kept):
                        kept.close()
                        kept = None
                found.append(kept if kept is not None else EnginePlayer(spec, game))
        except BaseException:
            idle += found
            raise
        finally:
            for player in idle:
                player.close()
        return found

    @contextmanager
    def lent(self, *players: EnginePlayer, keep: Sequence[bool] | None = None) -> Iterator[None]:
        """The block plays with ``players``, whose running engines first take this thread's CPUs
        and scheduling policy (the batch's, ``worker.referee.cpu``) and forget their stderr lines
        so far; afterwards those that ``keep`` says (all by default) are kept, the others closed,
        and all closed if the block raised."""
        keeping = [True] * len(players) if keep is None else list(keep)
        for player in players:
            if player.process is not None and player.running:
                player.process.follow()
                player.process.forget_stderr()
        try:
            yield
        except BaseException:
            for player in players:
                player.close()
            raise
        for player, kept in zip(players, keeping, strict=True):
            if kept and player.running:
                self._idle.append(player)
            else:
                player.close()
        if self._idle and not self._hooks_set:
            atexit.register(self.close)
            os.register_at_fork(after_in_child=self._forget)
            self._hooks_set = True

    def _forget(self) -> None:
        """In a forked child: the engines are the parent's, not this process's to close."""
        self._idle = []

    def close(self) -> None:
        """Closes every kept engine (``quit``, then its process group killed)."""
        idle, self._idle = self._idle, []
        for player in idle:
            player.close()


def _fit(player: EnginePlayer) -> bool:
    """Whether a kept engine may play another batch: running, and well within its CPU limit."""
    process = player.process
    if not player.running or process is None or not process.alive:
        return False
    limit = player.spec.process_limits().cpu_seconds
    if limit is None:
        return True
    used = process.cpu_seconds()
    return used is not None and used < KEPT_CPU_SHARE * limit


#: This process's kept engines (a worker process plays one batch at a time).
KEPT = KeptEngines()

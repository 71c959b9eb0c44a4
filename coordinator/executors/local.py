"""The local executor: a process pool over this machine's cores, playing batches in-process.

Each worker process runs ``worker.games.play_batch`` (the engine releases the GIL, but separate
processes also keep Python's own per-game work parallel). Worker processes ignore SIGINT so that a
Ctrl-C reaches only the coordinator, which then stores what arrived and closes the pool; they end
themselves when the coordinator dies without closing them (kill -9). A pool broken by a dead worker
is replaced on the next submission; the batches it held come back as errors.

While a batch plays, its process writes the games played so far into a counter of memory shared
with the coordinator (one per batch in flight, handed to it with the batch), which
:meth:`LocalExecutor.playing` reads: no message, no lock a killed process could leave held.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from ctypes import c_int64
from typing import Any

from coordinator.executors.base import BatchOutcome, Executor
from wire.protocol import BatchPayload
from worker.programs import ProgramCache

#: Batches kept in flight per worker process: one playing, one queued behind it.
IN_FLIGHT_PER_WORKER = 2

Task = Callable[[dict[str, Any]], dict[str, Any]]


#: How often a worker process checks that the coordinator is still alive (seconds).
PARENT_CHECK_SECONDS = 1.0


def _exit_with_parent(parent: int) -> None:
    """Worker-side watchdog: end this process once the coordinator is gone (e.g. after kill -9)."""
    while os.getppid() == parent:
        time.sleep(PARENT_CHECK_SECONDS)
    os._exit(1)


#: The counters of games played, one per batch in flight (set in each worker process).
_played: Any = None


def _init_worker(played: Any = None) -> None:
    """Pool initializer: leave Ctrl-C to the coordinator, and never outlive it; ``played``: the
    shared counters of games played."""
    global _played
    _played = played
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()


def _counted_batch(counter: int, data: dict[str, Any]) -> dict[str, Any]:
    """The default task, telling the games played so far in the shared counter ``counter``."""
    from worker.games import run_batch

    def tell(games: int) -> None:
        _played[counter] = games

    return run_batch(data, progress=tell)


def default_task() -> Task:
    """``worker.games.run_batch`` (imported late so that importing executors stays cheap)."""
    from worker.games import run_batch

    return run_batch


def _describe(error: BaseException) -> str:
    """One-line description of a failed batch."""
    text = " ".join(str(error).split())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class LocalExecutor(Executor):
    """A ``ProcessPoolExecutor`` of ``concurrency`` processes (default: every core)."""

    def __init__(self, concurrency: int | None = None, task: Task | None = None) -> None:
        """Start nothing yet; processes are spawned on the first submission.

        ``task`` must be picklable (a module-level function); it defaults to ``play_batch``.
        """
        self.concurrency = concurrency or os.cpu_count() or 1
        if self.concurrency < 1:
            raise ValueError(f"concurrency: expected a positive number of processes, got {concurrency}")
        self.slots = IN_FLIGHT_PER_WORKER * self.concurrency
        self.task = task or default_task()
        #: True when batches tell their games played (the default task: another task's data is
        #: not known to be a batch).
        self.counting = task is None
        self._pool: ProcessPoolExecutor | None = None
        self._futures: dict[Future[dict[str, Any]], tuple[int, int]] = {}
        #: The pool's shared counters of games played, and the one each future in flight has.
        self._played: Any = None
        self._counters: dict[Future[dict[str, Any]], int] = {}

    def _ensure_pool(self) -> ProcessPoolExecutor:
        """The live pool, creating one if there is none."""
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._played = context.RawArray(c_int64, self.slots) if self.counting else None
            self._counters.clear()
            self._pool = ProcessPoolExecutor(
                max_workers=self.concurrency,
                mp_context=context,
                initializer=_init_worker,
                initargs=(self._played,),
            )
        return self._pool

    def _submit(self, data: dict[str, Any]) -> Future[dict[str, Any]]:
        """The task on ``data`` sent to the pool, with a free counter of games played if any."""
        pool = self._ensure_pool()
        free = sorted(set(range(self.slots)) - set(self._counters.values())) if self.counting else []
        if not free:
            return pool.submit(self.task, data)
        self._played[free[0]] = 0
        future = pool.submit(_counted_batch, free[0], data)
        self._counters[future] = free[0]
        return future

    def ship_programs(self, archives: Mapping[str, bytes]) -> None:
        """Unpack the programs into this machine's program cache, where the pool's processes
        find them."""
        cache = ProgramCache()
        for digest, archive in archives.items():
            cache.install(digest, archive)

    def submit(self, payload: BatchPayload) -> None:
        """Queue one batch on the pool (replacing a broken pool first)."""
        self.submit_job(payload.run_id, payload.batch_index, payload.to_json())

    def submit_job(self, run_id: int, batch_index: int, data: dict[str, Any]) -> None:
        """Queue the task on ``data`` as the work of batch ``batch_index`` of run ``run_id`` (the
        task decides what ``data`` is: a payload, or a check of one)."""
        try:
            future = self._submit(data)
        except RuntimeError:  # BrokenProcessPool: a worker died; start afresh
            self._terminate()
            future = self._submit(data)
        self._futures[future] = (run_id, batch_index)

    def in_flight(self) -> int:
        """Batches submitted and not yet delivered."""
        return len(self._futures)

    def completed(self, timeout: float | None = None) -> Iterator[BatchOutcome]:
        """Outcomes of finished batches (waits up to ``timeout`` for the first)."""
        if not self._futures:
            return
        done, _ = wait(list(self._futures), timeout=timeout, return_when=FIRST_COMPLETED)
        for future in done:
            run_id, batch_index = self._futures.pop(future)
            self._counters.pop(future, None)
            error = future.exception()
            if error is not None:  # this machine's own process could not play it
                yield BatchOutcome(run_id, batch_index, error=_describe(error), refused_by_worker=True)
            else:
                result = future.result()
                worker = result.get("worker") if isinstance(result, dict) else None
                yield BatchOutcome(run_id, batch_index, result=result, worker=worker)

    def playing(self) -> dict[tuple[int, int], int]:
        """The games played so far of the batches in flight (their counters)."""
        return {
            self._futures[f]: int(self._played[c]) for f, c in self._counters.items() if f in self._futures
        }

    def _terminate(self) -> None:
        """Stop the worker processes now, whatever they are doing."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        processes = list(getattr(pool, "_processes", {}).values())
        for process in processes:
            if process.is_alive():
                process.kill()
        for process in processes:
            process.join(timeout=5)
        # A worker killed while it wrote a result leaves the pool's reader thread waiting for the
        # rest of it for ever (the pipe's write end is held here too), and shutdown waits for that
        # thread: closing this end lets the read fail, and the pool end as broken.
        writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
        if writer is not None:
            writer.close()
        pool.shutdown(wait=True, cancel_futures=True)

    def cancel(self) -> None:
        """Drop everything in flight and stop the workers (a later submit starts new ones)."""
        self._futures.clear()
        self._counters.clear()
        self._terminate()

    def close(self) -> None:
        """Cancel and release the pool."""
        self.cancel()

"""The spot-checking executor's rules, step by step (coordinator/executors/checking.py): what proves
a held result, per run, and that every check ends. The games are real (played in this process,
tiny batches); the workers, the peers and the coordinator's pool are scripted executors whose
outcomes each test hands over in the order it needs (the e2e tests run the same rules on a real
fleet: tests/e2e_tests/test_trust_keys.py, test_collusion.py)."""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Iterator
from typing import Any

from sprt_testkit import book_positions

import engine
from coordinator.executors.base import BatchOutcome, Executor
from coordinator.executors.checking import REPLAY_ATTEMPTS, CheckingExecutor
from coordinator.sprt.config import BatchPlan, SprtConfig
from wire.protocol import BatchPayload
from worker.games import play_batch

RUN, OTHER_RUN = 1, 2
CONFIG = SprtConfig(
    game="congo",
    candidate={},
    baseline={},
    openings=book_positions("congo", 12, seed=3),
    engine_version=engine.ENGINE_VERSION,
    seed=5,
    batch_pairs=1,
    limits=engine.Limits(nodes=60),
    max_games=40,
)


class Scripted(Executor):
    """An executor whose outcomes the test hands over (:meth:`deliver`); it keeps what was sent."""

    def __init__(self, live: set[str] | None = None) -> None:
        self.slots = 8
        self.live = live
        self.sent: list[Any] = []
        self.ready: deque[BatchOutcome] = deque()
        self.outstanding = 0

    def submit(self, payload: BatchPayload) -> None:
        self.sent.append(("play", payload.run_id, payload.batch_index))
        self.outstanding += 1

    def submit_to(self, payload: BatchPayload, node: str) -> None:
        self.sent.append(("peer", payload.run_id, payload.batch_index, node))
        self.outstanding += 1

    def submit_job(self, run_id: int, batch_index: int, data: dict[str, Any]) -> None:
        self.sent.append(("job", run_id, batch_index))
        self.outstanding += 1

    def deliver(self, outcome: BatchOutcome) -> None:
        self.ready.append(outcome)
        self.outstanding -= 1

    def in_flight(self) -> int:
        return self.outstanding

    def completed(self, timeout: float | None = None) -> Iterator[BatchOutcome]:
        while self.ready:
            yield self.ready.popleft()

    def cancel(self) -> None:
        self.ready.clear()
        self.outstanding = 0

    def close(self) -> None:
        self.cancel()

    def live_workers(self) -> set[str] | None:
        return self.live


def payload(batch: int, run: int = RUN) -> BatchPayload:
    return BatchPlan(CONFIG).payload(run, batch)


def played(batch: int, worker: str | None, run: int = RUN, lie: bool = False) -> BatchOutcome:
    """``worker``'s answer for a batch: its true games, or (``lie``) games against a crippled baseline."""
    sent = payload(batch, run)
    if lie:
        sent = dataclasses.replace(sent, baseline={w.name: w.min for w in engine.weights("congo")})
    result = play_batch(sent, worker=worker or "coordinator").to_json()
    return BatchOutcome(run, batch, result=result, worker=worker)


class Fleet:
    """A checking executor over scripted workers (``live``), peers and pool."""

    def __init__(self, live: set[str], fraction: float = 0.0) -> None:
        self.inner = Scripted(live)
        self.pool = Scripted()
        self.peers = Scripted()
        self.checking = CheckingExecutor(self.inner, self.pool, fraction=fraction, peers=self.peers)
        for run in (RUN, OTHER_RUN):
            self.checking.set_check_key(run, b"k" * 32)

    def answer(self, outcome: BatchOutcome) -> list[BatchOutcome]:
        """``outcome`` comes from the workers: what the checking executor delivers now."""
        self.checking.submit(payload(outcome.batch_index, outcome.run_id))
        self.inner.deliver(outcome)
        return list(self.checking.completed(timeout=0))

    def replay(self, outcome: BatchOutcome, peer: bool = False) -> list[BatchOutcome]:
        """The pool's (or a peer's) play comes back: what is delivered now."""
        (self.peers if peer else self.pool).deliver(outcome)
        return list(self.checking.completed(timeout=0))

    def prove(self, worker: str, batch: int, run: int = RUN) -> None:
        """``worker``'s first batch of ``run``, replayed alike by the pool."""
        assert self.answer(played(batch, worker, run)) == []
        assert self.pool.sent[-1] == ("play", run, batch)
        [delivered] = self.replay(played(batch, None, run))
        assert delivered.worker == worker and delivered.error is None


def test_a_first_batch_is_proved_by_the_coordinators_pool_never_by_a_peer() -> None:
    fleet = Fleet({"a", "b"})
    fleet.prove("b", 0)
    assert fleet.answer(played(1, "a")) == []  # a's first: held, and sent to this machine's pool
    assert fleet.peers.sent == [] and fleet.pool.sent[-1] == ("play", RUN, 1)
    assert fleet.checking.trusted(RUN) == {"b"}


def test_a_proven_workers_checked_batch_goes_to_a_trusted_peer_whose_agreement_proves_it() -> None:
    fleet = Fleet({"a", "b"}, fraction=1.0)
    fleet.prove("a", 0)
    fleet.prove("b", 1)
    assert fleet.answer(played(2, "a")) == []
    assert fleet.peers.sent == [("peer", RUN, 2, "b")]
    [delivered] = fleet.replay(played(2, "b"), peer=True)
    assert delivered.worker == "a" and delivered.error is None


def test_colluders_agreeing_on_a_lie_are_decided_by_the_pool_once_the_peer_is_not_trusted() -> None:
    """b vouches for a's lie, but b is no longer trusted (quarantined meanwhile): the pool plays the
    batch, and a is caught."""
    fleet = Fleet({"a", "b", "c"}, fraction=1.0)
    for batch, worker in enumerate("abc"):
        fleet.prove(worker, batch)
    assert fleet.answer(played(3, "a", lie=True)) == []
    [(_, _, _, peer)] = fleet.peers.sent
    fleet.checking.quarantine(peer, "caught elsewhere")
    assert fleet.replay(played(3, peer, lie=True), peer=True) == []  # agreement, not proof
    assert fleet.pool.sent[-1] == ("play", RUN, 3)
    [refused] = fleet.replay(played(3, None))
    assert refused.error is not None and "not believed" in refused.error
    assert "a" in fleet.checking.quarantined


def test_proof_is_kept_per_run() -> None:
    fleet = Fleet({"a", "b"})
    fleet.prove("a", 0)
    assert fleet.answer(played(1, "a")) != []  # proved in run 1: unchecked (fraction 0)
    assert fleet.answer(played(0, "a", run=OTHER_RUN)) == []  # its first batch of run 2: checked
    assert fleet.pool.sent[-1] == ("play", OTHER_RUN, 0)


def test_a_batch_the_pool_cannot_replay_is_refused_never_delivered_unproved() -> None:
    fleet = Fleet({"a"})
    assert fleet.answer(played(0, "a")) == []
    failed = BatchOutcome(RUN, 0, error="the pool broke")
    for _ in range(REPLAY_ATTEMPTS - 1):
        assert fleet.replay(failed) == []  # tried again
    assert fleet.pool.sent.count(("play", RUN, 0)) == REPLAY_ATTEMPTS
    [refused] = fleet.replay(failed)
    assert refused.result is None and refused.error is not None and "could not check" in refused.error
    assert fleet.checking.quarantined == {}  # nobody's fault
    assert fleet.checking.in_flight() == 0


def test_an_audit_and_a_held_result_of_one_batch_each_get_their_own_replay() -> None:
    """The run that never ended: a result delivered unchecked is being checked after all when the
    same batch, played again, is held for a peer's check; the pool's replay of the first must not
    be taken for the second's, or the first waits forever, and so does the run."""
    fleet = Fleet({"a", "b", "c"}, fraction=0.0)
    for batch, worker in enumerate("abc"):
        fleet.prove(worker, batch)
    fleet.checking.submit(payload(9))  # a batch out: the run goes on
    assert fleet.answer(played(3, "a")) != []  # delivered unchecked
    assert fleet.pool.sent[-1] == ("play", RUN, 3)  # the idle pool checks it after all
    assert fleet.checking.unsettled(RUN)  # a lie it finds would change the counts: the run waits
    # Batch 3 comes back from c (as after a retry) and is chosen for a check by a trusted peer.
    fleet.checking.fraction = 1.0
    assert fleet.answer(played(3, "c")) == []
    assert len(fleet.peers.sent) == 1
    passed = fleet.checking.checks_passed
    assert fleet.replay(played(3, None)) == []  # the audit's replay: a's result proved, no more
    assert fleet.checking.checks_passed == passed + 1 and not fleet.checking.unsettled(RUN)
    [(_, _, _, peer)] = fleet.peers.sent
    [delivered] = fleet.replay(played(3, peer), peer=True)  # the held one, proved by its peer
    assert delivered.worker == "c" and delivered.error is None
    assert fleet.checking.checks_failed == 0 and fleet.checking.quarantined == {}
    assert fleet.checking.in_flight() == 1  # batch 9 alone


def test_every_result_of_a_new_worker_waits_for_the_pool_which_gets_them_in_turn() -> None:
    """Until the pool proves one of its batches, a worker's results are all held for the pool (a
    partner's vouching is no proof): handed over as the pool takes them, one at a time here."""
    fleet = Fleet({"a", "b"}, fraction=0.0)
    fleet.prove("b", 0)
    fleet.pool.slots = 1
    for batch in range(1, 4):
        assert fleet.answer(played(batch, "a", lie=batch == 3)) == []
    assert fleet.pool.sent[-1] == ("play", RUN, 1) and fleet.peers.sent == []
    [first] = fleet.replay(played(1, None))
    assert first.batch_index == 1 and fleet.pool.sent[-1] == ("play", RUN, 2)
    [second] = fleet.replay(played(2, None))
    assert second.batch_index == 2 and fleet.pool.sent[-1] == ("play", RUN, 3)
    [refused] = fleet.replay(played(3, None))  # its lie, caught
    assert refused.error is not None and "a" in fleet.checking.quarantined


def test_a_caught_workers_held_results_are_refused_at_once_not_replayed() -> None:
    """A new worker answers many batches at once (an insider can answer every task it sees with
    legal, made-up games): all wait for the pool. Once its first replay catches it, the rest are
    refused without costing the pool a replay each."""
    fleet = Fleet({"a", "b"}, fraction=0.0)
    fleet.pool.slots = 1
    for batch in range(4):
        assert fleet.answer(played(batch, "a", lie=True)) == []
    assert fleet.pool.sent == [("play", RUN, 0)]
    caught, *refused = fleet.replay(played(0, None))
    assert "a" in fleet.checking.quarantined and caught.batch_index == 0 and caught.error is not None
    assert sorted(o.batch_index for o in refused) == [1, 2, 3]
    assert all(o.result is None and "not believed" in (o.error or "") for o in refused)
    assert fleet.pool.sent == [("play", RUN, 0)]  # no replay spent on them
    assert fleet.checking.in_flight() == 0


def test_a_worker_answering_a_spot_check_sent_to_another_is_quarantined() -> None:
    """The check of a's batch goes to the trusted peer drawn for it; c, an insider who took the
    task off the peer's queue, answers it under its own key (to have this machine's pool play the
    batch instead, or to spoil the check). An honest worker refuses a task addressed to another:
    c is quarantined, and the pool decides the batch."""
    fleet = Fleet({"a", "b", "c"}, fraction=1.0)
    for batch, worker in enumerate("abc"):
        fleet.prove(worker, batch)
    assert fleet.answer(played(3, "a")) == []
    [(_, _, _, peer)] = fleet.peers.sent
    taker = next(w for w in "bc" if w != peer)
    answer = dataclasses.replace(played(3, taker), authenticated=True)
    assert fleet.replay(answer, peer=True) == []
    assert taker in fleet.checking.quarantined and peer not in fleet.checking.quarantined
    assert fleet.pool.sent[-1] == ("play", RUN, 3)
    [delivered] = fleet.replay(played(3, None))
    assert delivered.worker == "a" and delivered.error is None

"""What a campaign keeps in the store beside its runs: which run played each step of each round
(step 0: the round's tuning run; step 1 and on: its verification SPRTs in order)."""

from __future__ import annotations

from sqlalchemy import insert, select

from coordinator.store import Store
from coordinator.store.schema import campaign_steps

#: The step of a round's tuning run; verification SPRT ``stage`` is step ``stage + 1``.
TUNING_STEP = 0


class CampaignRecords:
    """Reads and writes the campaign table of one store."""

    def __init__(self, store: Store) -> None:
        """The campaign records of ``store``."""
        self.store = store

    def add_step(self, campaign_run_id: int, round_number: int, step: int, run_id: int) -> None:
        """Record that ``run_id`` plays step ``step`` of round ``round_number``."""
        with self.store.transaction() as c:
            c.execute(
                insert(campaign_steps).values(
                    campaign_run_id=campaign_run_id, round=round_number, step=step, run_id=run_id
                )
            )

    def steps(self, campaign_run_id: int) -> dict[tuple[int, int], int]:
        """The run of every recorded step: ``{(round, step): run id}``."""
        query = select(campaign_steps.c.round, campaign_steps.c.step, campaign_steps.c.run_id).where(
            campaign_steps.c.campaign_run_id == campaign_run_id
        )
        with self.store.engine.connect() as c:
            return {(r, s): run_id for r, s, run_id in c.execute(query)}

"""Engine programs a store's runs ship: each archive kept once, by the digest of its files."""

from __future__ import annotations

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError

from coordinator.store.connection import Database
from coordinator.store.rows import now
from coordinator.store.schema import programs


class ProgramStore(Database):
    """The archives of the engine programs of a store's runs."""

    def keep_program(self, digest: str, name: str, archive: bytes) -> None:
        """Keep ``archive`` as program ``digest`` (kept already: nothing changes)."""
        try:
            with self.engine.begin() as c:
                c.execute(
                    insert(programs).values(
                        digest=digest, name=name[:200], archive=archive, size=len(archive), stored_at=now()
                    )
                )
        except IntegrityError:
            pass  # the same digest is the same files

    def program_archive(self, digest: str) -> bytes | None:
        """The archive of program ``digest``, if kept."""
        with self.engine.connect() as c:
            found = c.execute(select(programs.c.archive).where(programs.c.digest == digest)).scalar()
        return None if found is None else bytes(found)

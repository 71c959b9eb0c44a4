"""The I/O of who is online: the heartbeat keys read off the broker's Redis (a bounded SCAN over
their prefix, each value read only up to :data:`wire.heartbeat.MAX_BYTES`), then what the store
holds against their workers; :mod:`coordinator.fleet.online` does the rest."""

from __future__ import annotations

import time
from typing import Any

from coordinator.fleet.online import Fleet, RawHeartbeat, fleet_of
from coordinator.store.fleet import FleetStore
from wire.connectivity import Unreachable, failure
from wire.heartbeat import KEY_PREFIX, MAX_BYTES, redis_client
from wire.sealing import FleetKeys

#: Heartbeat keys read at most (more are left out, and the fleet says so).
MAX_WORKERS = 10_000
#: Keys a SCAN call looks at, and SCAN calls at most (a keyspace of millions is not walked twice).
SCAN_COUNT = 1000
MAX_SCANS = 10_000


class Broker:
    """A Redis broker heartbeats are read from (``url`` kept for messages, shown masked)."""

    def __init__(self, url: str) -> None:
        """A client of ``url``; ValueError for a broker that is not Redis. Nothing is sent yet."""
        self.url = url
        self.client: Any = redis_client(url)

    def heartbeat_keys(self, limit: int = MAX_WORKERS) -> tuple[list[bytes], bool]:
        """The heartbeat keys (at most ``limit``), and whether there were more (or the SCAN was
        cut short); :class:`Unreachable` when the broker does not answer."""
        found: list[bytes] = []
        cursor, scans = 0, 0
        try:
            while True:
                cursor, keys = self.client.scan(cursor=cursor, match=KEY_PREFIX + "*", count=SCAN_COUNT)
                found.extend(keys)
                scans += 1
                if cursor == 0 or len(found) > limit or scans >= MAX_SCANS:
                    break
        except Exception as e:  # redis-py and the socket layer raise their own types
            raise failure("broker", self.url, e) from None
        unique = sorted(set(found))
        return unique[:limit], len(unique) > limit or cursor != 0

    def heartbeats(self, limit: int = MAX_WORKERS) -> tuple[list[RawHeartbeat], bool]:
        """Every heartbeat key with its value and remaining time to live (see :meth:`heartbeat_keys`)."""
        keys, truncated = self.heartbeat_keys(limit)
        pipe = self.client.pipeline(transaction=False)
        for key in keys:
            pipe.strlen(key)
            pipe.getrange(key, 0, MAX_BYTES)
            pipe.pttl(key)
        try:
            replies = pipe.execute(raise_on_error=False)
        except Exception as e:
            raise failure("broker", self.url, e) from None
        raws = []
        for i, key in enumerate(keys):
            length, value, pttl = replies[3 * i : 3 * i + 3]
            if isinstance(pttl, int) and pttl == -2:  # expired between SCAN and read
                continue
            readable = isinstance(length, int) and length <= MAX_BYTES and isinstance(value, bytes)
            remaining = pttl / 1000 if isinstance(pttl, int) and pttl >= 0 else None
            node = key[len(KEY_PREFIX) :].decode(errors="replace")
            raws.append(RawHeartbeat(node, value if readable else None, remaining))
        return raws, truncated

    def close(self) -> None:
        """Close the client's connections."""
        self.client.close()


def online(
    broker: Broker, store: FleetStore | None, keys: FleetKeys | None, now: float | None = None
) -> Fleet:
    """The live workers of ``broker``, with what ``store`` (when given) holds against them, their
    heartbeats checked under ``keys``; :class:`Unreachable` when the broker does not answer."""
    raws, truncated = broker.heartbeats()
    standing = None if store is None else store.standing(r.node for r in raws)
    return fleet_of(raws, keys, time.time() if now is None else now, standing, truncated)


__all__ = ["MAX_WORKERS", "Broker", "Unreachable", "online"]

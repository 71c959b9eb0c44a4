"""Who is online: the live workers of a broker, from their heartbeats (``wire.heartbeat``),
checked and merged with what the store holds against each (``arbiter workers``, the dashboard's
workers page)."""

from coordinator.fleet.online import Fleet, OnlineWorker, age_text
from coordinator.fleet.read import Broker, Unreachable, online

__all__ = ["Broker", "Fleet", "OnlineWorker", "Unreachable", "age_text", "online"]

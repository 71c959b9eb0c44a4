"""``arbiter server``: one long-running process that owns every run of its store.

``shares`` (how the fleet is shared among open runs: pure), ``supervisor`` (plays every unfinished
run in a process of its own, holding its lease, and announces its end), ``submissions`` (a run
from an API request, checked before anything is stored), ``api`` (the JSON API, ``/api/v1``),
``app`` (the API beside the dashboard), ``client`` (the CLI's side of the API).
"""

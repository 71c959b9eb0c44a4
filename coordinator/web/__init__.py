"""The live web dashboard (``arbiter serve``): every run of a store, its report as ``arbiter
report`` draws it, updating while the run goes on, its games replayed on a board, and the workers;
read-only. ``create_app(store)`` is the ASGI application; docs/deploy.md says how to serve it."""

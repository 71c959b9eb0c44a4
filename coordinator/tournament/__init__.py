"""Tournaments of several engines (``arbiter tournament``): who plays whom (round robin or
gauntlet), the deterministic batch plan (one pairing per batch), and the games as rated games.

A tournament is a run of kind ``tournament`` played by the SPRT runner over a plan without an
SPRT: it ends when every batch is counted. Its ratings come from :mod:`coordinator.ratings`.
"""

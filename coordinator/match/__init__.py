"""The match, a kind of run (``arbiter match``): a fixed number of game pairs of a candidate against a
baseline, no SPRT, the Elo with its interval and the pentanomial counts at the end (cutechess's
plain mode). config.py: its configuration and batch plan; kind.py: the kind (play, status, report,
dashboard row)."""

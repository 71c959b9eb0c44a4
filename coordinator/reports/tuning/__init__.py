"""The report of a tuning run (Optuna or SPSA): its typed data (data.py), gathered from the store
and the run's study (gather.py), and its terminal summary, HTML page and plots (text.py, html.py,
plots.py)."""

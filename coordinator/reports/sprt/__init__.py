"""The report of a match run (an SPRT, a tuning trial, an acceptance SPRT, an SPSA iteration): its
typed data (data.py), gathered from the store (gather.py), and its terminal summary, HTML page and
plots (text.py, html.py, plots.py)."""

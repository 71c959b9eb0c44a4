"""The report of a tournament: its typed data (data.py), gathered from the store and rated
(gather.py), and its terminal summary, HTML page and plots (text.py, html.py, plots.py)."""

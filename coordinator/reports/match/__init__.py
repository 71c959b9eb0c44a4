"""The report of a match (``arbiter match``: a fixed number of game pairs, no SPRT): its typed data
(data.py), gathered from the store (gather.py), and its terminal summary and HTML page (text.py,
html.py). It has no plots: the result is its few numbers."""

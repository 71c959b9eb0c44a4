"""Tuning campaigns: rounds of tuning, each round's champion verified before it starts the next."""

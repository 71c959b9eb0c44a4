"""Tuning evaluation weights with Optuna, with SPRT acceptance of every new champion."""

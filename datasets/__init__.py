"""Seeded, deterministic dataset generators for the labs (see generate.py)."""

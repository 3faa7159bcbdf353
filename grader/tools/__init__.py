"""Tools that run the lab programs without grading them, for students and the
instructor alike: the sweep of a variant over launch configurations.
"""

"""Grader side of the hidden checks: one ``Check`` per graded cell, its reference and verdicts."""

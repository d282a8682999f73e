"""Grading a class in parallel on Dask."""

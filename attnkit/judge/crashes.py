"""What a crash says about its cause, where the error alone tells it: the student's own
assert, a name not defined when the test runs, np.max of a fully masked column, a float mask
used as an index, an index past the end of an axis, an array unpacked along the wrong axis,
a D x D matrix where a D x N one belongs. Each reading needs only the error message and the
case's facts (``attnkit.judge.misconceptions.describe``); other errors are shown as they
came."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

SIZES = ("D", "N", "Dq", "H", "dims", "n", "T", "d", "d_k")

_UNPACK = re.compile(r"(too many|not enough) values to unpack \(expected (\d+)(?:, got (\d+))?\)")


def sizes_of(facts: dict[str, Any]) -> str:
    """The case's sizes, "D = 8, N = 6, H = 2", or "" where it has none."""
    return ", ".join(f"{k} = {facts[k]}" for k in SIZES if k in facts)


def _own_assert(error: str, facts: dict[str, Any]) -> str:
    said = error.partition(":")[2].strip()
    sizes = "" if "=" in facts["case"] else sizes_of(facts)  # unless the name gives them
    return (f"an assert in your own code failed on {facts['case']}"
            + (f" ({sizes})" if sizes else "")
            + (f": \"{said[:200]}\"" if said else " (it has no message)")
            + ". The hidden test's input is valid, so what your assert checks was computed "
            "wrongly in the lines before it (or the assert expects a shape the input need "
            "not have): print the shapes there on this case")


def _empty_max(error: str, facts: dict[str, Any]) -> str:
    where = (f"column {facts['empty']} has no allowed entry"
             if facts.get("empty") not in (None, "none") else "a column has no allowed entry")
    return (f"np.max of an empty array raised ValueError on {facts['case']}: {where}, so its "
            "allowed scores form an empty array and np.max (or .max()) has nothing to "
            "return. A column can be fully masked; the notebook says such a column gets zero "
            "weights (M2): skip it, or leave its weights 0, before taking the maximum of its "
            "allowed scores")


def _float_index(error: str, facts: dict[str, Any]) -> str:
    return (f"your code indexed an array with a float array on {facts['case']} (numpy: "
            "\"arrays used as indices must be of integer (or boolean) type\"): a mask used "
            "as an index, scores[mask] or scores[~mask], must be boolean, and a 0/1 mask "
            "of floats (.astype(float), np.ones or np.tril without dtype=bool) is not. Keep "
            "the mask boolean, as causal_mask returns it (dtype=bool), or use "
            "np.where(mask, ...)")


def _unpacked(error: str, facts: dict[str, Any]) -> str | None:
    match = _UNPACK.search(error)
    if not match:
        return None
    expected, got = match.group(2), match.group(3)
    held = f"{got}" if got else ("more than" if match.group(1) == "too many" else "fewer than")
    held = f"{held} {expected}" if not got else held
    dims = facts.get("dims")
    if dims is not None:
        return (f"on {facts['case']} you unpacked one array into {expected} names, but "
                f"unpacking splits an array along its first axis, and yours has {held} "
                f"entries there (one of shape (dims, dims, {expected}), for instance, has "
                f"dims = {dims}, each a dims x {expected} slice, not a dims x dims matrix). "
                f"Put the count first, shape ({expected}, dims, dims), or draw each matrix "
                "separately")
    return (f"on {facts['case']} you unpacked an array (or tuple) into {expected} names, but "
            f"it has {held} entries along its first axis, the one unpacking splits: check "
            "the shape of what you unpack")


_BOUNDS = re.compile(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)")


def _out_of_bounds(error: str, facts: dict[str, Any]) -> str | None:
    match = _BOUNDS.search(error)
    if not match:
        return None
    index, axis, size = match.groups()
    return (f"on {facts['case']} your code asked for entry {index} along axis {axis}, which "
            f"has only {size} entries: a loop (or an index) counts along the wrong axis, "
            "such as rows numbered up to the number of columns. Loop over range(X.shape[0]) "
            "for the rows and range(X.shape[1]) for the columns, or let numpy run along an "
            "axis (axis=...) with no loop")


_BROADCAST = re.compile(r"broadcast together with shapes \((\d+),(\d+)\) \((\d+),(\d+)\)")


def _features_for_tokens(error: str, facts: dict[str, Any]) -> str | None:
    """A D x D matrix where a D x N one belongs (tokens in columns, D != N)."""
    match = _BROADCAST.search(error)
    D, N = facts.get("D"), facts.get("N")
    if not match or D is None or D == N:
        return None
    shapes = {(int(match.group(1)), int(match.group(2))), (int(match.group(3)),
                                                          int(match.group(4)))}
    if shapes != {(D, D), (D, N)}:
        return None
    return (f"on {facts['case']} ({sizes_of(facts)}) a {D} x {D} matrix, D x D, met a "
            f"{D} x {N} one, D x N: something that should count the tokens (N = X.shape[1], "
            "the columns) counts the features (D = X.shape[0]). For instance the bias term "
            "beta 1^T repeats each bias over the N tokens, so its row of ones has N entries: "
            "np.ones((1, X.shape[1]))")


_UNDEFINED = re.compile(r"name '(\w{1,60})' is not defined")


def _undefined(error: str, facts: dict[str, Any]) -> str | None:
    match = _UNDEFINED.search(error)
    if not match:
        return None
    name = match.group(1)
    return (f"your code raised NameError on {facts['case']}: `{name}` does not exist when "
            "this cell's test runs. The grader runs the notebook from the top, as Kernel → "
            "Restart & Run All does, and the hidden test runs right after your cell: if "
            f"`{name}` is misspelt, defined only in a later cell, or in a cell you have since "
            "deleted, define what your function needs in its own cell or above it")


_NORMALISERS = ("softmax", "softmax_cols", "masked_softmax_cols", "get_attention_weights")


def reshaped_by_helper(calls: list | None, facts: dict[str, Any], columns: bool) -> str | None:
    """A crash after the caller's own softmax helper turned a score matrix into another shape
    (all its entries in one line): the helper's argument was the mistake, not its maths.
    ``columns``: the notebook has softmax_cols for a matrix (tokens in columns)."""
    for call in calls or ():
        if call.helper not in _NORMALISERS or not call.args or call.own is None:
            continue
        given, returned = np.shape(call.args[0]), np.shape(call.own)
        if len(given) != 2 or given == returned or int(np.prod(returned)) != int(np.prod(given)):
            continue
        fix = ("call softmax_cols on the matrix, which normalises each column (each token's "
               "weights)" if columns and call.helper == "softmax" else
               "give it what it is written for, or apply it to each column (or row) in turn")
        return (f"on {facts['case']} your code passed a {given[0]} x {given[1]} score matrix "
                f"to your `{call.helper}`, which returned shape {returned}: it normalised all "
                f"{int(np.prod(given))} entries together as one list, and the next step could "
                f"not use the result (hence the error). A softmax of a matrix keeps its shape: "
                f"{fix}")
    return None


def crash_reading(error: str, facts: dict[str, Any]) -> str | None:
    """A hint naming the cause of ``error`` (``"Type: message"``), or None."""
    kind = error.partition(":")[0]
    if kind == "AssertionError":
        return _own_assert(error, facts)
    if kind == "NameError":
        return _undefined(error, facts)
    if kind == "ValueError" and "zero-size array to reduction operation" in error:
        return _empty_max(error, facts)
    if kind == "IndexError" and "must be of integer (or boolean) type" in error:
        return _float_index(error, facts)
    if kind == "IndexError":
        return _out_of_bounds(error, facts)
    if kind == "ValueError":
        return _unpacked(error, facts) or _features_for_tokens(error, facts)
    return None

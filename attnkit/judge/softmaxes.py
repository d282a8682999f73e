"""Softmax mistakes every softmax check shares, as a family of variants.

``softmax_variant(z, axis, shift=, denominator=, keepdims=, clean=)`` is a softmax with one
or two things done wrong: the shift (none, one maximum for the whole matrix, the mean, the
minimum, the first score, the largest absolute value, a clip to [-700, 700]), a denominator
left unshifted, sums taken without keepdims, inf and nan hidden by ``np.nan_to_num``. Being
one family, any two of these compose into one variant whose hint names both.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from attnkit.judge.wrong import Wrong, variant
from attnkit.kernel.cases import Args

CLIP = 700.0  # the bound students pick to stay below np.exp's limit, 709


def softmax_variant(z: Any, axis: int = -1, *, shift: str = "line", denominator: str = "same",
                    keepdims: bool | str = True, clean: bool = False) -> np.ndarray:
    """A softmax along ``axis`` with the shift, the denominator or the sums done wrong
    (``keepdims="neither"``: the maxima and the sums without keepdims, "max": the maxima
    only; shift "cross": each line of the other axis shifted by its own maximum; denominator
    "cross": divided by the sums of the other axis's lines)."""
    z = np.asarray(z, dtype=float)
    other = 0 if axis in (-1, z.ndim - 1) else -1
    shifted = {"line": lambda: z - z.max(axis=axis, keepdims=keepdims not in ("neither",
                                                                           "max")),
               "cross": lambda: z - z.max(axis=other, keepdims=True),
               "none": lambda: z,
               "one max": lambda: z - z.max(),
               "mean": lambda: z - z.mean(axis=axis, keepdims=True),
               "min": lambda: z - z.min(axis=axis, keepdims=True),
               "floor": lambda: z - np.maximum(z.max(axis=axis, keepdims=True), 0.0),
               "first": lambda: z - np.take(z, [0], axis=axis),
               "abs max": lambda: z - np.abs(z).max(axis=axis, keepdims=True),
               "clip": lambda: np.clip(z, -CLIP, CLIP)}[shift]()
    e = np.exp(shifted)
    below = np.exp(z) if denominator == "unshifted" else e
    summed = other if denominator == "cross" else axis
    weights = e / below.sum(axis=summed, keepdims=keepdims in (True, "max"))
    return np.nan_to_num(weights) if clean else weights


def softmax_family(key: str, axis: int) -> Callable[..., Any]:
    """``softmax_variant`` on a check's scores ``args[key]``: the family its variants share."""
    return partial(_on, key=key, axis=axis)


SHIFTS = {  # a shift that is not the maximum: the same weights until np.exp overflows
    "mean": ("centred on the mean", "the mean of the scores"),
    "min": ("smallest score subtracted", "the smallest score"),
    "first": ("first score subtracted", "the first score"),
    "floor": ("maximum started at 0", "a maximum that starts at 0 (never below it)"),
}


def softmax_mistakes(family: Callable[..., Any], axis: int, line: str, *,
                     keepdims: bool = False, shifts: tuple[str, ...] | None = None
                     ) -> list[Wrong]:
    """The shared softmax mistakes of ``family`` (``softmax_family``); ``line`` is "column",
    "row" or "" (one vector); ``keepdims`` adds the missing-keepdims variant; ``shifts``
    the wrong shifts of ``SHIFTS`` (for a matrix, by default, all but "floor")."""
    each = f"each {line}'s own maximum" if line else "the largest score"
    out = [
        variant("denominator not shifted", family,
                "you subtracted the maximum in the numerator but divided by the sum of the "
                "unshifted exponentials, np.exp(z).sum(): the weights then sum to exp(-max z), "
                "not 1, and that sum still overflows to inf on large scores. Shift once and "
                "use the same array twice: e = np.exp(z - z.max()); e / e.sum()",
                denominator="unshifted"),
        variant("clipped instead of shifted", family,
                "you clipped the scores (np.clip, to a bound such as 700) to keep np.exp "
                "finite: on {case} the scores beyond the bound are flattened to it and the "
                "weights come out wrong. "
                f"Subtract {each} instead: softmax(z) = softmax(z - max z) loses nothing",
                shift="clip"),
        variant("overflow hidden by nan_to_num", family,
                "you took np.exp of the unshifted scores and replaced the resulting inf and nan "
                "with np.nan_to_num: on {case} (the largest score is {zmax}) np.exp overflows, "
                f"so the weights come out 0 or wrong. Subtract {each} before np.exp instead",
                shift="none", clean=True),
    ]
    if not line:  # the vector cases hold scores far below zero; the matrix cases do not
        out.append(variant("largest absolute value subtracted", family,
                "you subtracted the largest absolute value, max |z|, not the largest score "
                "max z: on {case} the scores reach {zmin}, so max |z| is far above every "
                "score, each z - max |z| is below -745 where np.exp underflows to 0, and "
                f"0 / 0 gives nan. Subtract {each} itself (no np.abs): every exponent is then "
                "at most 0 and the largest is exactly 0: you keep half the points", 0.5,
                shift="abs max"))
    if line:
        across, other = ("row", 1) if line == "column" else ("column", 0)
        out.append(variant(
            f"each {across}'s maximum subtracted", family,
            f"you subtracted each {across}'s maximum (np.max(z, axis={other})) before a "
            f"{line} softmax: a shift cancels only when it is the same for every entry of the "
            f"{line} normalised, and each {across}'s maximum is not, so the weights change. "
            f"Subtract each {line}'s own maximum: np.max(z, axis={axis}, keepdims=True)",
            shift="cross"))
        out.append(variant(
            f"divided by each {across}'s sum", family,
            f"you shifted each {line} by its own maximum but divided by each {across}'s sum "
            f"(e.sum(axis={other})), so your {line}s do not sum to 1. Divide by the sum of "
            f"the {line} itself, along the axis of the maximum: e.sum(axis={axis}, "
            "keepdims=True)", denominator="cross"))
    for shift in (("mean", "min", "first") if line else ()) if shifts is None else shifts:
        name, what = SHIFTS[shift]
        what = what.replace("the scores", f"each {line}") if line else what
        out.append(variant(
            name, family,
            f"you subtracted {what}, not {each}: a shift by it gives the same weights while "
            "np.exp stays finite, but on {case} (the scores run from {zmin} to {zmax}) the "
            "largest sits far above it, so np.exp overflows to inf and inf / inf gives nan. "
            f"Subtract {each}: every exponent is then at most 0: you keep half the points",
            0.5, shift=shift))
    if keepdims:
        out.append(variant(
            "sums without keepdims", family,
            f"you divided by the {line} sums taken without keepdims=True: a 1-D array that "
            f"numpy lines up with the last axis, so on a square matrix {line} i is divided by "
            "another line's sum, and on other shapes it raises ValueError (on {case}). Write "
            f"e.sum(axis={axis}, keepdims=True)", keepdims=False))
        out.append(variant(
            "maxima without keepdims", family,
            f"you took the {line} maxima without keepdims=True: a 1-D array that numpy lines "
            "up with the last axis, so entry (i, j) is shifted by line j's maximum: on a "
            f"square matrix each {line} is no longer shifted by one number and its weights "
            "change, and on other shapes it raises ValueError (on {case}). Write z.max(axis="
            f"{axis}, keepdims=True)", keepdims="max"))
        out.append(variant(  # after the sums alone: with one max they agree
            "maxima and sums without keepdims", family,
            f"you took the {line} maxima and sums without keepdims=True: 1-D arrays that numpy "
            f"lines up with the last axis, so on a square matrix {line} i is shifted and "
            "divided by another line's maximum and sum, and on other shapes it raises "
            "ValueError (on {case}). Write z.max(axis=" f"{axis}, keepdims=True) and "
            f"e.sum(axis={axis}, keepdims=True)", keepdims="neither"))
    return out


def _on(a: Args, *, key: str, axis: int, **kw: Any) -> np.ndarray:
    return softmax_variant(a[key], axis, **kw)

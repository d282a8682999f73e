"""What a hidden check feeds the student's code, and how it calls it: ``Case`` and ``Probe``.

This package runs inside the student's kernel (next to ``probe``), so it holds
inputs only: never an expected value. Case 0 of a check is the notebook's own
pinned data; the other cases are drawn fresh from the grading seed, with
rectangular shapes (N != D, n_q != n_k) and large logits.

Each assignment has one module here, named after it, that defines
``PROBES = by_id(Probe(...), ...)``; ``probes()`` finds them all.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

Args = dict[str, Any]


@dataclass(frozen=True)
class Case:
    name: str
    args: Args
    pinned: bool = False  # the notebook's visible data
    large: bool = False  # logits large enough to overflow a naive exp


@dataclass(frozen=True)
class Probe:
    """The kernel half of one check: its inputs and how the student's code is called.

    ``id`` is the grade id of the test cell whose hidden block calls
    ``probe(id, *targets)``. ``cases(seed)`` returns the inputs (case 0 pinned to the
    notebook's data when there is one); ``call(targets, args)`` runs the student's
    ``targets`` on one case's ``args``. ``pinned`` maps each argument of the pinned case
    to an expression that gives it in the notebook just before the test cell
    (``tests/test_consistency.py`` evaluates them against the master notebook).
    """

    id: str
    cases: Callable[[int], list[Case]]
    call: Callable[[tuple, Args], Any]
    pinned: Mapping[str, str] | None = None


def by_id(*probes: Probe) -> dict[str, Probe]:
    """An assignment's ``PROBES``: its probes keyed by grade id."""
    out: dict[str, Probe] = {}
    for p in probes:
        if p.id in out:
            raise ValueError(f"two probes for the grade id {p.id!r}")
        out[p.id] = p
    return out


@cache
def probes() -> dict[str, Probe]:
    """Every assignment's probes: the ``PROBES`` of each module of ``attnkit.kernel``."""
    import attnkit.kernel as package

    found: dict[str, Probe] = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for grade_id, p in getattr(module, "PROBES", {}).items():
            if grade_id in found:
                raise ValueError(f"the grade id {grade_id!r} has probes in two modules")
            found[grade_id] = p
    return found


def seeded_rng(seed: int, stream: str) -> np.random.Generator:
    """The generator of one check's fresh cases: the grading seed and a name of the check."""
    return np.random.default_rng([seed, sum(map(ord, stream))])


def attention_params(rng: np.random.Generator, D: int, Dq: int | None = None, Dv: int | None = None,
                     suffix: str = "") -> Args:
    """Column-convention weights: Omega (D_out x D), beta (D_out x 1)."""
    Dq = Dq or D
    Dv = Dv or D
    out = {}
    for name, rows in (("q", Dq), ("k", Dq), ("v", Dv)):
        out[f"omega_{name}{suffix}"] = rng.normal(size=(rows, D))
        out[f"beta_{name}{suffix}"] = rng.normal(size=(rows, 1))
    return out


def overflowing(draw: Callable[[], Args], scores: Callable[[Args], np.ndarray],
                tries: int = 100) -> Args:
    """``draw()``, again until some entry of ``scores(args)`` passes 710, where a naive
    np.exp overflows: a large case that stays below it hands that mistake full marks for the
    seed (seeds come from a course's random salt, so some student would draw it)."""
    for _ in range(tries):
        args = draw()
        if scores(args).max() > 710:
            return args
    raise ValueError(f"no draw in {tries} reached a score of 710: draw larger inputs")


def far_apart(rng: np.random.Generator, shape: tuple[int, int], axis: int) -> np.ndarray:
    """Scores whose columns (``axis=0``) or rows (``axis=1``) sit at 0, 900, -50 and 300, ...:
    one maximum for the whole matrix underflows np.exp to 0 in every column far below it."""
    offsets = np.resize([0.0, 900.0, -50.0, 300.0], shape[1 - axis])
    return rng.normal(0, 2, shape) + (offsets[None, :] if axis == 0 else offsets[:, None])


def spiked(rng: np.random.Generator, shape: tuple[int, int], axis: int) -> np.ndarray:
    """Columns (``axis=0``) or rows (``axis=1``) whose largest score sits 1500 above the
    others, so far above their mean too: a shift by anything short of the maximum (the mean,
    the first score) still overflows np.exp. The first line's peak is its first score, the
    others' elsewhere: a shift by the first score passes one line and not the rest."""
    X = rng.normal(0, 2, shape)
    lines = np.arange(shape[1 - axis])
    peaks = rng.integers(1, shape[axis], lines.size)
    peaks[0] = 0 if lines.size > 1 else peaks[0]
    X[(peaks, lines) if axis == 0 else (lines, peaks)] += 1500.0
    return X


def large_attention(rng: np.random.Generator, D: int, N: int, Dq: int | None = None,
                    Dv: int | None = None, scale: float = 25.0,
                    allowed: np.ndarray | None = None) -> Args:
    """UDL attention's inputs (tokens ``scale`` x N(0, 1) in columns) whose scaled scores
    K^T Q / sqrt(D_q), over the ``allowed`` entries, overflow a naive np.exp."""
    def scores(a: Args) -> np.ndarray:
        Q = a["beta_q"] + a["omega_q"] @ a["X"]  # Dq x N
        K = a["beta_k"] + a["omega_k"] @ a["X"]  # Dq x N
        return (K.T @ Q / np.sqrt(Q.shape[0]))[allowed if allowed is not None else ...]

    return overflowing(lambda: {"X": scale * rng.normal(size=(D, N)),
                                **attention_params(rng, D, Dq, Dv)}, scores)


def named(*keys: str) -> Callable[[tuple, Args], Any]:
    """Call the single target with the case's arguments in ``keys`` order."""
    def call(targets: tuple, a: Args) -> Any:
        return targets[0](*(a[k] for k in keys))
    return call

"""Known-wrong variants of each skill, used to name a student's likely mistake.

Each variant computes what a particular misconception would return on a
check's inputs. When a failing answer matches a variant on every case, the
feedback shows that variant's hint. Add a misconception by adding a ``Wrong``
to the check's list (and a student-style implementation to
``tests/catalogue``, which proves the hint fires).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from attnkit import reference as ref
from attnkit.cases import Args


@dataclass(frozen=True)
class Wrong:
    name: str
    fn: Callable[[Args], Any]
    hint: str
    credit: float = 0.0  # fraction of the cell's points this mistake keeps


def naive_softmax(z: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(np.asarray(z, dtype=float))
    return e / e.sum(axis=axis, keepdims=True)


def attention_variant(a: Args, *, scale: str = "none", axis: int = 0, order: str = "KtQ",
                      biases: bool = True, values: str = "V", stable: bool = True,
                      after: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """UDL attention (tokens in columns) with one thing done wrong."""
    X = a["X"]
    bq, bk, bv = (a["beta_q"], a["beta_k"], a["beta_v"]) if biases else (0, 0, 0)
    Q, K, V = bq + a["omega_q"] @ X, bk + a["omega_k"] @ X, bv + a["omega_v"] @ X
    S = K.T @ Q if order == "KtQ" else Q.T @ K
    divisor = {"none": 1.0, "sqrt_Dq": np.sqrt(Q.shape[0]), "sqrt_D": np.sqrt(X.shape[0]),
               "D": float(X.shape[0]), "Dq": float(Q.shape[0])}[scale]
    soft = ref.softmax if stable else naive_softmax
    A = soft(S, axis=axis) / divisor if after else soft(S / divisor, axis=axis)
    return (X if values == "X" else V) @ A, A


def _mh(a: Args, **kw: Any) -> np.ndarray:
    return multihead_variant(a["X"], [{k: a[f"{k}{h}"] for k in
                                       ("omega_q", "omega_k", "omega_v", "beta_q", "beta_k",
                                        "beta_v")} for h in (1, 2)], a["omega_c"], **kw)


def multihead_variant(X: np.ndarray, heads: list[Args], omega_c: np.ndarray, *,
                      scale: str = "sqrt_Dq", reverse: bool = False,
                      mix: bool = True) -> np.ndarray:
    outs = [attention_variant({"X": X, **h}, scale=scale)[0] for h in heads]  # H x (D/H, N)
    stacked = np.vstack(outs[::-1] if reverse else outs)  # (D, N)
    return omega_c @ stacked if mix else stacked


_SCALE_HINTS = {
    "none": "your attention is not scaled: divide K^T Q by sqrt(D_q) before the softmax "
            "(eq. 12.9)",
    "sqrt_D": "your result matches attention scaled by sqrt(D), the input size; eq. 12.9 "
              "divides by sqrt(D_q), the size of one query (the rows of Q)",
    "D": "your result matches attention divided by D; eq. 12.9 divides by the square root "
         "sqrt(D_q)",
    "Dq": "your result matches attention divided by D_q; eq. 12.9 divides by its square root",
}

_COMMON: list[tuple[str, dict[str, Any], str]] = [
    ("softmax over rows", {"axis": 1},
     "the attention matrix is normalised over rows; with tokens in columns each column "
     "must sum to 1 (softmax over axis 0)"),
    ("Q^T K order", {"order": "QtK"},
     "you computed Q^T K; eq. 12.8 uses K^T Q, so entry (m, n) is k_m . q_n and "
     "column n holds the weights for output n"),
    ("biases forgotten", {"biases": False},
     "the biases beta_q, beta_k, beta_v are missing from the queries, keys and values "
     "(eq. 12.6)"),
    ("weighted sum of X", {"values": "X"},
     "you weighted the inputs X; the outputs are weighted sums of the values V (eq. 12.7)"),
]


def _common(**fixed: Any) -> list[Wrong]:
    """The mistakes shared by every attention function, on top of ``fixed`` settings."""
    return [Wrong(name, (lambda kw: lambda a: attention_variant(a, **fixed, **kw))(kw), hint)
            for name, kw, hint in _COMMON]


WRONG: dict[str, list[Wrong]] = {
    "ps1_softmax": [
        Wrong("no max subtraction", lambda a: naive_softmax(a["items_in"]),
              "np.exp overflows on large scores: subtract the maximum before exponentiating "
              "(the result is unchanged mathematically)", credit=0.5),
    ],
    "ps1_softmax_cols": [
        Wrong("softmax over rows", lambda a: ref.softmax(a["data_in"], axis=1),
              "each row sums to 1; softmax_cols must normalise each column (axis 0)"),
        Wrong("no max subtraction", lambda a: naive_softmax(a["data_in"], axis=0),
              "np.exp overflows on large logits: subtract each column's maximum first",
              credit=0.5),
    ],
    "ps1_self_attention": [
        Wrong("scaled", lambda a: attention_variant(a, scale="sqrt_Dq"),
              "this part is the unscaled attention of eq. 12.8: do not divide by sqrt(D_q) yet"),
        Wrong("unstable softmax", lambda a: attention_variant(a, stable=False),
              "np.exp overflows on large logits: use a softmax that subtracts the maximum",
              credit=0.5),
        *_common(),
    ],
    "ps1_scaled_attention": [
        *(Wrong(f"scale {s}", (lambda s: lambda a: attention_variant(a, scale=s))(s), hint)
          for s, hint in _SCALE_HINTS.items()),
        Wrong("scaled after softmax", lambda a: attention_variant(a, scale="sqrt_Dq", after=True),
              "you divided after the softmax; scale K^T Q before it, so the attention "
              "columns still sum to 1"),
        Wrong("unstable softmax", lambda a: attention_variant(a, scale="sqrt_Dq", stable=False),
              "np.exp overflows on large logits: use a softmax that subtracts the maximum",
              credit=0.5),
        *_common(scale="sqrt_Dq"),
    ],
    "ps2_single_head": [
        Wrong("scale sqrt(D)", lambda a: attention_variant(a, scale="sqrt_D")[0],
              "your result matches a head scaled by sqrt(D) = sqrt of the input size; a head's "
              "queries have D_q = D/H rows, so divide by sqrt(D/H)"),
        Wrong("no scaling", lambda a: attention_variant(a, scale="none")[0],
              _SCALE_HINTS["none"]),
    ],
    "ps2_multihead_scaled": [
        Wrong("scale sqrt(D)", lambda a: _mh(a, scale="sqrt_D"),
              "your result matches attention scaled by sqrt(D); for multihead attention D_q is "
              "the per-head size D/H"),
        Wrong("scale D/H", lambda a: _mh(a, scale="Dq"),
              "your result matches attention divided by D/H; divide by its square root "
              "sqrt(D/H)"),
        Wrong("no scaling", lambda a: _mh(a, scale="none"), _SCALE_HINTS["none"]),
        Wrong("heads reversed", lambda a: _mh(a, reverse=True),
              "the heads are stacked in reverse order: head 1's output goes on top"),
        Wrong("omega_c omitted", lambda a: _mh(a, mix=False),
              "the stacked heads are not mixed: multiply the concatenation by omega_c"),
    ],
}

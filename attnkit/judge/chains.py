"""Every call chain of ps1-ps5 (helper -> caller) and the caller's reference maths with the
student's helpers substituted: what a cell should return given the student's own helpers.

A ``replay(args, call)`` is the reference caller written against ``call(name, *arguments)``,
which hands back what the student's helper ``name`` returned when the student's caller
passed it exactly those arguments (``attnkit.judge.carry`` finds the recorded call, or
refuses). ``otherwise=`` gives the reference for a step a caller may do itself instead of
calling a helper (``K @ q`` in place of ``get_scores``, ``np.triu`` in place of
``causal_mask``): a caller earns follow-through through the helpers it does call. The
kernel's list of helpers per caller is ``attnkit.kernel.carry.HELPERS``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from attnkit.judge import reference as ref
from attnkit.kernel.cases import Args

Call = Callable[..., Any]
_HEAD = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")


@dataclass(frozen=True)
class Chain:
    """A caller's graded cell, its helpers (global name -> the helper's grade id), and its
    reference maths with the helpers' results substituted. ``inherits``: a requirement the
    caller breaks only by passing on what a helper returned (its name -> the helper
    requirements that cause it), so it is charged at the helper, not again here."""

    check: str
    helpers: Mapping[str, str]
    replay: Callable[[Args, Call], Any]
    inherits: Mapping[str, frozenset[str]] = field(default_factory=dict)


def _weights(value: Any) -> np.ndarray:
    return np.asarray(value, dtype=float).squeeze()


def _attention(a: Args, call: Call, *, scaled: bool) -> tuple:
    Q, K, V = ref.qkv(a["X"], a["omega_q"], a["omega_k"], a["omega_v"],
                      a["beta_q"], a["beta_k"], a["beta_v"])
    S = K.T @ Q / (np.sqrt(Q.shape[0]) if scaled else 1.0)  # (N, N)
    A = _weights(call("softmax_cols", S))  # the student's (N, N) weights
    return V @ A, A  # (D_v, N), (N, N)


def _loop(a: Args, call: Call) -> list:
    X = np.hstack(a["all_x"])  # (D, N)
    Q, K, V = ref.qkv(X, a["omega_q"], a["omega_k"], a["omega_v"],
                      a["beta_q"], a["beta_k"], a["beta_v"])
    S = K.T @ Q  # (N, N): column n holds query n's scores
    out = []
    for n in range(X.shape[1]):
        w = _weights(call("softmax", [float(s) for s in S[:, n]]))  # (N,)
        out.append(V @ w.reshape(-1, 1))  # (D_v, 1)
    return out


def _columns(a: Args, call: Call) -> np.ndarray:
    S = np.asarray(a["data_in"], dtype=float)  # (N, M): one softmax per column
    return np.stack([_weights(call("softmax", S[:, n])) for n in range(S.shape[1])], axis=1)


def _heads(X: np.ndarray, heads: list[Args], omega_c: np.ndarray, call: Call) -> np.ndarray:
    outs = [np.asarray(call("single_head_attention", X, *(h[k] for k in _HEAD)), dtype=float)
            for h in heads]  # H x (D/H, N)
    return omega_c @ np.vstack(outs)  # (D, N)


def _two_heads(a: Args, call: Call) -> np.ndarray:
    heads = [{k: a[f"{k}{h}"] for k in _HEAD} for h in (1, 2)]
    return _heads(a["X"], heads, a["omega_c"], call)


def _general(a: Args, call: Call) -> np.ndarray | list[np.ndarray]:
    """On a ``twice`` case the probe calls the function twice with the same heads."""
    out = _heads(a["X"], a["heads"], a["omega_c"], call)
    return [out, _heads(a["X"], a["heads"], a["omega_c"], call)] if a.get("twice") else out


def _forward(a: Args, call: Call) -> np.ndarray:
    x = a["x"]  # (n, dims), tokens in rows
    Q, K, V = x @ a["W_q"], x @ a["W_k"], x @ a["W_v"]  # (n, dims) each
    A = _weights(call("softmax", Q @ K.T / np.sqrt(a["dims"])))  # (n, n)
    return A @ V @ a["W_o"]  # (n, dims)


def _single_query(a: Args, call: Call) -> tuple:
    q = a["query_token"] @ a["W_Q"]  # (d_k,)
    K, V = a["tokens"] @ a["W_K"], a["tokens"] @ a["W_V"]  # (T, d_k), (T, d_v)
    scores = call("get_scores", K, q, otherwise=lambda: K @ q)  # (T,)
    scaled = call("scale_scores", scores, K.shape[1],
                  otherwise=lambda: ref.scale_scores(_weights(scores), K.shape[1]))
    w = _weights(call("get_attention_weights", scaled,
                      otherwise=lambda: ref.softmax(_weights(scaled))))  # (T,)
    context = call("get_context_vector", w, V, otherwise=lambda: w @ V)  # (d_v,)
    return w, np.asarray(context, dtype=float)


def _masked(a: Args, call: Call) -> tuple:
    Q, K, V = ref.qkv(a["X"], a["omega_q"], a["omega_k"], a["omega_v"],
                      a["beta_q"], a["beta_k"], a["beta_v"])
    S = K.T @ Q / np.sqrt(Q.shape[0])  # (N, N)
    N = a["X"].shape[1]
    mask = call("causal_mask", N, otherwise=lambda: ref.causal_mask(N))  # (N, N)
    A = _weights(call("masked_softmax_cols", S, mask,
                      otherwise=lambda: ref.masked_softmax_cols(S, np.asarray(mask, bool))))
    return V @ A, A


def _gaps(a: Args, call: Call) -> np.ndarray:
    X, perm = a["X"], list(a["perm"])
    params = tuple(a[k] for k in _HEAD)

    def plain(Z: np.ndarray) -> np.ndarray:
        return ref.self_attention(Z, *params, scaled=True)[0]  # the notebook's given function

    def causal(Z: np.ndarray) -> np.ndarray:
        out = call("masked_self_attention", Z, *params,
                   otherwise=lambda: ref.masked_self_attention(Z, *params))
        return np.asarray(out[0] if isinstance(out, (list, tuple)) else out, dtype=float)

    Pi = np.asarray(call("positional_encoding", *X.shape,
                         otherwise=lambda: ref.positional_encoding(*X.shape)), dtype=float)
    maps = (plain, causal, lambda Z: plain(Z + Pi))
    return np.array([np.abs(f(X[:, perm]) - f(X)[:, perm]).max() for f in maps])  # (3,)


CHAINS: dict[str, Chain] = {c.check: c for c in (
    Chain("ps1_self_attention_loop", {"softmax": "ps1_softmax"}, _loop),
    Chain("ps1_softmax_cols", {"softmax": "ps1_softmax"}, _columns),
    # softmax: when the student's softmax_cols calls it, an error it raises inside
    Chain("ps1_self_attention", {"softmax_cols": "ps1_softmax_cols", "softmax": "ps1_softmax"},
          lambda a, call: _attention(a, call, scaled=False)),
    Chain("ps1_scaled_attention", {"softmax_cols": "ps1_softmax_cols", "softmax": "ps1_softmax"},
          lambda a, call: _attention(a, call, scaled=True)),
    Chain("ps2_multihead_scaled", {"single_head_attention": "ps2_single_head"}, _two_heads),
    Chain("ps2_multihead_general", {"single_head_attention": "ps2_single_head"}, _general),
    Chain("ps3_forward", {"softmax": "ps3_softmax"}, _forward),
    Chain("ps4_single_query", {"get_scores": "ps4_get_scores", "scale_scores":
                               "ps4_scale_scores", "get_attention_weights":
                               "ps4_attention_weights", "get_context_vector":
                               "ps4_context_vector"}, _single_query,
          {"results not 1-D": frozenset({"scores as a column"})}),
    Chain("ps5_masked_attention", {"causal_mask": "ps5_causal_mask",
                                   "masked_softmax_cols": "ps5_masked_softmax"}, _masked),
    Chain("ps5_equivariance", {"masked_self_attention": "ps5_masked_attention",
                               "positional_encoding": "ps5_positional_encoding"}, _gaps),
)}

"""The maths of the known-wrong variants: softmaxes, scales and the attention functions of
ps1-ps4 with one thing done wrong (see ``attnkit.judge.misconceptions``).

A caller's variant takes each helper step through ``helped``: where the probe recorded the
student's helper called with exactly the arguments the mistake passes, the variant uses what
that helper returned, so a caller's own mistake is recognised whatever its helpers do.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from attnkit.judge import reference as ref
from attnkit.judge.wrong import helped
from attnkit.kernel.cases import Args


def naive_softmax(z: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(np.asarray(z, dtype=float))
    return e / e.sum(axis=axis, keepdims=True)


def one_max_softmax(z: np.ndarray, axis: int = 0) -> np.ndarray:
    """Shifted by one maximum for the whole matrix: lines far below it underflow to 0/0."""
    z = np.asarray(z, dtype=float)
    e = np.exp(z - z.max())
    return e / e.sum(axis=axis, keepdims=True)


def softmax_of(stable: bool | str) -> Callable[..., np.ndarray]:
    """The softmax a variant uses: stable (per line), naive, or "one max" for the matrix."""
    if stable == "one max":
        return one_max_softmax
    return ref.softmax if stable else naive_softmax


def global_softmax(z: np.ndarray) -> np.ndarray:
    """Normalised over every entry at once."""
    z = np.asarray(z, dtype=float)
    e = np.exp(z - z.max())
    return e / e.sum()


def divisor(scale: str, *, D: int, Dq: int, N: int, Dv: int | None = None) -> float:
    """What a scale divides the scores by: the right sqrt(D_q), or the square root of another
    size (D the input, N the tokens, Dv the values), a size not rooted, ``size ** 1/2``
    (which is size / 2: "two_Dq" divides by 2 D_q)."""
    return {"none": 1.0, "sqrt_Dq": math.sqrt(Dq), "sqrt_D": math.sqrt(D), "D": float(D),
            "Dq": float(Dq), "sqrt_N": math.sqrt(N), "two": 2.0, "four": 4.0, "half_Dq": Dq / 2,
            "sqrt_half_D": math.sqrt(D / 2), "two_Dq": 2.0 * Dq, "sqrt_eight": math.sqrt(8),
            "sqrt_dv": math.sqrt(Dv if Dv is not None else Dq)}[scale]


Swap = tuple[str, str, bool]  # (role, matrix used instead, bias swapped too)


UDL_PARAMS = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")


def udl_attention(scaled: bool) -> Callable[[Args], Any]:
    """The reference attention on a case holding X and UDL's six parameters."""
    return lambda a: ref.self_attention(a["X"], *(a[k] for k in UDL_PARAMS), scaled=scaled)


def projections(a: Args, biases: str = "qkv", swap: Swap | None = None,
                bias_swap: tuple[str, str] | None = None, bias_as: str = "column",
                bias_roles: str = "qkv", transposed: str = "", use: str = "qkv"
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q, K, V of UDL's column convention, with biases left out, a matrix swapped, one
    role's bias taken from another role (``bias_swap``: role, source), or the biases of
    ``bias_roles`` added as a row (``bias_as="row"``: beta.T, broadcast or ValueError) or as
    their first entry (``"first"``: beta[0], one number added to every entry) or inside the
    product (``"inside"``: omega (X + beta)); the roles in
    ``transposed`` multiply X by their Omega transposed. ``use`` names the role whose matrix
    and bias each of q, k, v is computed with ("qvk": keys and values exchanged)."""
    matrix, bias = dict(zip("qkv", use, strict=True)), dict(zip("qkv", use, strict=True))
    if swap:
        role, source, with_bias = swap
        matrix[role] = source
        if with_bias:
            bias[role] = source
    if bias_swap:
        bias[bias_swap[0]] = bias_swap[1]

    def project(role: str) -> np.ndarray:
        omega = np.asarray(a[f"omega_{matrix[role]}"])
        projected = (omega.T if role in transposed else omega) @ a["X"]
        if role not in biases:
            return projected
        b = np.asarray(a[f"beta_{bias[role]}"])
        if role not in bias_roles:
            return b + projected
        if bias_as == "row":
            return projected + b.T
        if bias_as == "first":
            return projected + b[0]
        if bias_as == "inside":  # omega (x + beta): a bias of the input's size, D x 1
            return (omega.T if role in transposed else omega) @ (a["X"] + b)
        return b + projected

    return project("q"), project("k"), project("v")


def attention_variant(a: Args, *, scale: str = "none", axis: int = 0, order: str = "KtQ",
                      biases: str = "qkv", values: str = "V", stable: bool | str = True,
                      after: bool = False, swap: Swap | None = None, transpose: bool = False,
                      helper: str = "softmax_cols", bias_swap: tuple[str, str] | None = None,
                      bias_as: str = "column", bias_roles: str = "qkv", drop: str = "",
                      returned: str = "used", transposed: str = "", use: str = "qkv",
                      weights_by: str = "A") -> tuple[np.ndarray, np.ndarray]:
    """UDL attention (tokens in columns) with one thing done wrong; returns (X', A), or
    (X', A^T) with ``transpose``. A stable column softmax is the student's ``helper``
    ("softmax_cols", or "softmax" per column for the loop) where it was called. ``drop``:
    the first or last value left out of each weighted sum (a range off by one);
    ``returned="unscaled"``: the attention matrix returned is the softmax of the unscaled
    scores (computed again after X'); ``weights_by="At"``: the values multiplied by the
    transposed attention matrix, V A^T."""
    X = a["X"]
    Q, K, V = projections(a, biases, swap, bias_swap, bias_as, bias_roles, transposed, use)
    S = K.T @ Q if order == "KtQ" else Q.T @ K
    by = divisor(scale, D=X.shape[0], Dq=Q.shape[0], N=X.shape[1], Dv=V.shape[0])
    soft = softmax_of(stable)
    if stable is True and axis == 0 and not after:
        A = _columns(S / by, helper)
    else:
        A = soft(S, axis=axis) / by if after else soft(S / by, axis=axis)
    values_ = X if values == "X" else V
    keep = {"first": slice(1, None), "last": slice(0, -1)}.get(drop, slice(None))
    X_prime = values_[:, keep] @ (A.T if weights_by == "At" else A)[keep, :]
    if returned == "unscaled":
        A = _columns(S, helper) if stable is True and axis == 0 else soft(S, axis=axis)
    return X_prime, (A.T if transpose else A)


def _columns(S: np.ndarray, helper: str) -> np.ndarray:
    """The column softmax of S, through the student's ``helper`` where it was called."""
    if helper == "softmax_cols":
        return np.asarray(helped("softmax_cols", S, otherwise=lambda: ref.softmax(S, axis=0)),
                          dtype=float)
    return np.column_stack([np.ravel(np.asarray(helped(
        helper, [float(v) for v in column], otherwise=lambda c=column: ref.softmax(c)),
        dtype=float)) for column in S.T])


def loop_variant(a: Args, **kw: Any) -> list[np.ndarray]:
    """The per-token version: a list of D x 1 outputs."""
    X_prime, _ = attention_variant({**a, "X": np.hstack(a["all_x"])}, helper="softmax", **kw)
    return [X_prime[:, [n]] for n in range(X_prime.shape[1])]


def times(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b; where the shapes do not fit, numpy's ValueError with the operands' shapes noted,
    so a student's crash on the same pair through another operation (einsum, broadcasting)
    is recognised (``attnkit.judge.explain.same_error``)."""
    try:
        return a @ b
    except ValueError as error:
        raise ValueError(f"{error} [operands {np.shape(a)} {np.shape(b)}]") from None


def in_order(head: Args, order: str) -> Args:
    """A head's matrices passed in the ``order`` of their roles (say "qkv") to a v, q, k
    signature: the matrix for each slot of the signature."""
    return {f"{p}_{slot}": head[f"{p}_{role}"] for p in ("omega", "beta")
            for slot, role in zip("vqk", order, strict=True)}


def multihead_variant(X: np.ndarray, heads: list[Args], omega_c: np.ndarray, *,
                      scale: str = "sqrt_Dq", reverse: bool = False, mix: str = "all",
                      concat: str = "rows", stable: bool | str = True, count: int | None = None,
                      order: str = "vqk", rotate: bool = False, bias_order: str = "",
                      upto: int | None = None) -> np.ndarray:
    """Multihead attention (eqs. 12.10-12.11) with one thing done wrong: ``count`` heads
    only (heads[0] ... heads[count - 1], IndexError past the end; a negative count skips
    that many from the start; ``upto``: heads[:upto], no error past the end), each head's
    matrices passed in the ``order`` of their roles (say "qkv") to a v, q, k signature, or
    ("dict") in the order its dictionary holds them (``*head.values()``), ``rotate``: the
    last head first (heads[i - 1]), ``mix="transposed"``: the stack mixed by omega_c^T,
    ``"rows"``: stack^T @ omega_c (N x D), ``"right"``: stack @ omega_c; ``bias_order``:
    the biases alone passed in that order. A right head is the student's
    ``single_head_attention`` where it was called."""
    used = (heads[-count:] if count < 0 else [heads[h] for h in range(count)]) if count \
        else heads[:upto]
    if bias_order:
        used = [{**h, **{f"beta_{slot}": h[f"beta_{role}"]
                         for slot, role in zip("vqk", bias_order, strict=True)}} for h in used]
    if order == "dict":
        used = [dict(zip(UDL_PARAMS, h.values(), strict=True)) for h in used]
    elif order != "vqk":
        used = [in_order(h, order) for h in used]
    def head(h: Args) -> np.ndarray:
        def own() -> np.ndarray:
            return attention_variant({"X": X, **h}, scale=scale, stable=stable)[0]
        if scale != "sqrt_Dq" or stable is not True:
            return own()
        return np.asarray(helped("single_head_attention", X, *(h[k] for k in UDL_PARAMS),
                                 otherwise=own), dtype=float)

    outs = [head(h) for h in used]
    if reverse:
        outs = outs[::-1]
    if rotate:
        outs = outs[-1:] + outs[:-1]
    if concat == "cols":  # side by side, then reshaped to D x N
        stacked = np.hstack(outs).reshape(sum(o.shape[0] for o in outs), X.shape[1])
    elif concat == "side":  # side by side: D/H x HN
        stacked = np.hstack(outs)
    else:
        stacked = np.vstack(outs)
    if mix == "none":
        return stacked
    if mix == "transposed":
        return omega_c.T @ stacked
    if mix == "rows":  # the tokens-in-rows product of problem sets 3 and 4
        return stacked.T @ omega_c
    if mix == "right":  # runs only when N = D
        return times(stacked, omega_c)
    if mix == "per head":  # each head mixed by its own diagonal block of omega_c
        ends = np.cumsum([o.shape[0] for o in outs])
        return np.vstack([omega_c[e - o.shape[0]:e, e - o.shape[0]:e] @ o
                          for o, e in zip(outs, ends, strict=True)])
    return times(omega_c, stacked)


def layer_variant(a: Args, *, scale: str = "sqrt_Dq", axis: int = -1, order: str = "QKt",
                  output: bool = True, values: str = "V", stable: bool | str = True,
                  after: bool = False, transposed: bool | str = False,
                  swap: Swap | None = None, last: str = "o", use: str = "qkv") -> np.ndarray:
    """The exam's layer (tokens in rows) with one thing done wrong; ``transposed`` is True
    for every weight matrix transposed, "qkv" for the three projections only, "o" for W_o
    only; ``last`` the
    matrix the output is multiplied by (W_o, or "v": W_v again); ``use`` the matrix each of
    q, k, v is computed with ("qvk": keys and values exchanged). A stable row softmax is the
    student's ``softmax`` where it was called."""
    x = a["x"]
    matrix = dict(zip("qkv", use, strict=True))
    if swap:
        matrix[swap[0]] = swap[1]

    def project(role: str) -> np.ndarray:
        W = a[f"W_{matrix[role]}"]
        return x @ (W.T if transposed in (True, "qkv") else W)

    Q, K, V = project("q"), project("k"), project("v")
    S = {"QKt": lambda: Q @ K.T, "KQt": lambda: K @ Q.T, "QK": lambda: Q @ K}[order]()
    by = divisor(scale, D=a["W_q"].shape[0], Dq=a["W_q"].shape[0], N=x.shape[0])
    soft = softmax_of(stable)
    if stable is True and axis == -1 and not after:
        Sb = S / by
        A = np.asarray(helped("softmax", Sb, otherwise=lambda: ref.softmax(Sb, axis=-1)),
                       dtype=float)
    else:
        A = soft(S, axis=axis) / by if after else soft(S / by, axis=axis)
    out = A @ (x if values == "x" else V)
    if not output:
        return out
    W_o = a[f"W_{last}"]
    return out @ (W_o.T if transposed in (True, "o") else W_o)


def query_variant(a: Args, *, scale: str = "sqrt_Dq", values: str = "V", stable: bool = True,
                  swap: Swap | None = None, use: str = "qkv") -> tuple[np.ndarray, np.ndarray]:
    """One query against all tokens (rows) with one thing done wrong: (weights, output);
    ``use`` the matrix each of q, k, v is computed with ("qvk": keys and values exchanged)."""
    tokens = a["tokens"]
    W = {"q": a["W_Q"], "k": a["W_K"], "v": a["W_V"]}
    matrix = dict(zip("qkv", use, strict=True))
    if swap:
        matrix[swap[0]] = swap[1]
    q = a["query_token"] @ W[matrix["q"]]
    K, V = tokens @ W[matrix["k"]], tokens @ W[matrix["v"]]
    by = divisor(scale, D=tokens.shape[1], Dq=K.shape[1], N=tokens.shape[0], Dv=V.shape[1])
    # the size a caller passes scale_scores for each scale (n: it takes the root itself)
    size = {"sqrt_Dq": K.shape[1], "sqrt_D": tokens.shape[1], "sqrt_N": tokens.shape[0],
            "sqrt_dv": V.shape[1]}.get(scale)
    scores = np.asarray(helped("get_scores", K, q, otherwise=lambda: K @ q), dtype=float)
    if size is None:
        scaled = scores / by
    else:
        scaled = np.asarray(helped("scale_scores", scores, size, otherwise=lambda: scores / by),
                            dtype=float)
    weights = (np.asarray(helped("get_attention_weights", scaled,
                                 otherwise=lambda: ref.softmax(scaled)), dtype=float)
               if stable else naive_softmax(scaled))
    values_ = tokens if values == "tokens" else V
    return weights, np.asarray(helped("get_context_vector", weights, values_,
                                      otherwise=lambda: weights @ values_), dtype=float)


def positional_variant(a: Args, *, base: float = 10000.0, swap: bool = False,
                       exponent: str = "pair", start: int = 0, layout: str = "interleaved",
                       rows: bool = False, multiply: bool = False,
                       fixed_D: int | None = None) -> np.ndarray:
    """Vaswani et al.'s sinusoidal encoding (D x N) with one thing done wrong (``fixed_D``:
    the exponent divides by that D whatever D is asked for)."""
    D, N = int(a["D"]), int(a["N"])
    n = np.arange(start, start + N)[None, :]
    k = np.arange(D)[:, None]  # row index
    size = fixed_D or D
    power = {"pair": (k // 2) * 2 / size, "row": k / size,
             "twice": (k // 2) * 4 / size}[exponent]
    wavelength = base ** power
    angle = n * wavelength if multiply else n / wavelength
    use_sin = (k % 2 == 0) if layout == "interleaved" else (k < D // 2)
    if layout == "halves":  # rows i and D/2 + i share frequency i
        angle = n / base ** ((k % (D // 2)) * 2 / D)
    if swap:
        use_sin = ~use_sin
    Pi = np.where(use_sin, np.sin(angle), np.cos(angle))
    return Pi.T if rows else Pi


def gaps_variant(a: Args, *, compare: str = "both", positions: str = "fixed",
                 size: str = "max", sizes: tuple[int, int] | None = None) -> np.ndarray:
    """The three equivariance gaps (plain, causal, positional) measured wrongly; ``sizes``:
    the encoding made for those (D, N), not X's."""
    X, perm = a["X"], list(a["perm"])
    params = tuple(a[k] for k in UDL_PARAMS)
    D, N = sizes or X.shape
    Pi = np.asarray(helped("positional_encoding", D, N, otherwise=lambda: positional_variant(
        {"D": D, "N": N})), dtype=float)

    def plain(Z: np.ndarray) -> np.ndarray:
        return ref.self_attention(Z, *params, scaled=True)[0]

    def causal(Z: np.ndarray) -> np.ndarray:
        out = helped("masked_self_attention", Z, *params,
                     otherwise=lambda: ref.masked_self_attention(Z, *params))
        return np.asarray(out[0] if isinstance(out, (list, tuple)) else out, dtype=float)

    inverse = list(np.argsort(perm))
    gaps = []
    for f, shift in ((plain, 0.0), (causal, 0.0), (plain, Pi)):
        moved = shift[:, perm] if positions == "moved" and np.ndim(shift) else shift
        left = f(X[:, perm] + moved)
        right = f(X + shift)
        right = {"both": right[:, perm], "input only": right, "inverse": right[:, inverse]}[
            compare]
        gaps.append({"max": lambda d: np.abs(d).max(), "signed": np.max,
                     "frobenius": np.linalg.norm}[size](left - right))
    return np.array(gaps)

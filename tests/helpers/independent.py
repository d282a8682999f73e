"""Independent re-implementations (explicit loops and einsum) used to check pinned numbers.

Nothing here imports attnkit: these are the second opinion on the reference.
"""

from __future__ import annotations

import math

import numpy as np


def softmax_loop(scores) -> np.ndarray:
    scores = [float(s) for s in np.ravel(scores)]
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = math.fsum(exps)
    return np.array([e / total for e in exps])


def softmax_axis_loop(Z: np.ndarray, axis: int) -> np.ndarray:
    Z = np.asarray(Z, dtype=float)
    out = np.empty_like(Z)
    if axis == 0:
        for n in range(Z.shape[1]):
            out[:, n] = softmax_loop(Z[:, n])
    else:
        for m in range(Z.shape[0]):
            out[m, :] = softmax_loop(Z[m, :])
    return out


def attention_einsum(X, omega_q, omega_k, omega_v, beta_q, beta_k, beta_v, scaled):
    """Tokens in columns; returns (X', A) with A[m, n] = weight of input m for output n."""
    Q = np.einsum("qd,dn->qn", omega_q, X) + beta_q
    K = np.einsum("qd,dn->qn", omega_k, X) + beta_k
    V = np.einsum("vd,dn->vn", omega_v, X) + beta_v
    S = np.einsum("qm,qn->mn", K, Q)
    if scaled:
        S = S / math.sqrt(Q.shape[0])
    A = softmax_axis_loop(S, axis=0)
    return np.einsum("vm,mn->vn", V, A), A


def attention_per_token(all_x, omega_q, omega_k, omega_v, beta_q, beta_k, beta_v):
    """Equations 12.2-12.5 one token at a time, with Python loops over tokens."""
    q = [beta_q + omega_q @ x for x in all_x]
    k = [beta_k + omega_k @ x for x in all_x]
    v = [beta_v + omega_v @ x for x in all_x]
    outs = []
    for n in range(len(all_x)):
        weights = softmax_loop([float(np.sum(k[m] * q[n])) for m in range(len(all_x))])
        outs.append(sum(w * v[m] for m, w in enumerate(weights)).ravel())
    return np.array(outs)


def udl_12_1():
    """The UDL notebook 12.1 data, drawn here independently of the kit."""
    np.random.seed(3)
    all_x = [np.random.normal(size=(4, 1)) for _ in range(3)]
    np.random.seed(0)
    omega_q, omega_k, omega_v = (np.random.normal(size=(4, 4)) for _ in range(3))
    beta_q, beta_k, beta_v = (np.random.normal(size=(4, 1)) for _ in range(3))
    return all_x, (omega_q, omega_k, omega_v, beta_q, beta_k, beta_v)


def pinned_ps1() -> dict[str, tuple[np.ndarray, float]]:
    """Every pinned value of ps1: name -> (value, atol)."""
    all_x, params = udl_12_1()
    X = np.hstack(all_x)
    X1, A1 = attention_einsum(X, *params, scaled=False)
    X2, A2 = attention_einsum(X, *params, scaled=True)
    scores = np.array([[1.0, 2, 3], [0, 0, 0], [-1, 4, 1]])
    return {
        "softmax_true": (softmax_loop([1.0, 2.0, 3.0]), 1e-8),
        "x_prime_true": (attention_per_token(all_x, *params), 1e-8),
        "softmax_cols_true": (softmax_axis_loop(scores, axis=0), 1e-8),
        "far_true": (softmax_axis_loop(np.array([[0.0, 900, -50, 300], [1, 901, -49, 301],
                                                 [2, 902, -48, 302]]), axis=0), 1e-8),
        "attentions_true": (A1, 1e-3),  # printed to 3 decimals, as in UDL
        "X_prime_true": (X1, 1e-8),  # section 3's own copy of the loop's outputs, as columns
        "attentions_true2": (A2, 1e-3),
        "X_prime_true2": (X2, 1e-8),
    }


def udl_multihead_data():
    """The UDL chapter-12 multihead data (N=6, D=8, H=2), drawn independently."""
    np.random.seed(3)
    X = np.random.normal(size=(8, 6))
    np.random.seed(0)
    heads = []
    for _ in range(2):
        omegas = [np.random.normal(size=(4, 8)) for _ in range(3)]  # q, k, v
        betas = [np.random.normal(size=(4, 1)) for _ in range(3)]
        heads.append((*omegas, *betas))
    return X, heads, np.random.normal(size=(8, 8))


def multihead_einsum(X, heads, omega_c):
    outs = [attention_einsum(X, *h, scaled=True)[0] for h in heads]
    return np.einsum("ij,jn->in", omega_c, np.concatenate(outs, axis=0))


def pinned_ps2() -> dict[str, tuple[np.ndarray, float]]:
    X, heads, omega_c = udl_multihead_data()
    rng = np.random.default_rng(12)  # the notebook's four-head example
    X4 = rng.normal(size=(8, 5))
    heads4 = []
    for _ in range(4):
        omegas = [rng.normal(size=(2, 8)) for _ in range(3)]
        betas = [rng.normal(size=(2, 1)) for _ in range(3)]
        heads4.append((*omegas, *betas))
    full = multihead_einsum(X, heads, omega_c)
    return {
        "head1_true": (attention_einsum(X, *heads[0], scaled=True)[0], 1e-8),
        "head2_true": (attention_einsum(X, *heads[1], scaled=True)[0], 1e-8),
        "X_prime_true": (full, 1e-8),
        "X_prime_two_true": (full, 1e-8),  # part 3's copy of part 2's result
        "X_prime_true_3dp": (full, 1e-3),  # UDL prints the answer to 3 decimals
        "X_prime_four_true": (multihead_einsum(X4, heads4, rng.normal(size=(8, 8))), 1e-8),
    }


def layer_forward_loops(x, W_q, W_k, W_v, W_o):
    """The exam's attention layer with explicit loops over tokens (rows)."""
    n, dims = x.shape
    Q, K, V = x @ W_q, x @ W_k, x @ W_v
    out = np.zeros((n, dims))
    for i in range(n):
        weights = softmax_loop([Q[i] @ K[j] / math.sqrt(dims) for j in range(n)])
        mixed = sum(weights[j] * V[j] for j in range(n))
        out[i] = mixed @ W_o
    return out


def pinned_ps3() -> dict[str, tuple[np.ndarray, float]]:
    np.random.seed(0)
    W_q, W_k, W_v, W_o = (np.random.normal(size=(4, 4)) for _ in range(4))
    x = np.random.random(size=(3, 4))
    scores = np.array([[1.0, 2.0, 3.0], [0.5, 0.5, -1.0]])
    np.random.seed(2)  # the second size, dims = 9
    W9 = [np.random.normal(size=(9, 9)) for _ in range(4)]
    x9 = np.random.random(size=(2, 9))
    return {
        "softmax_true": (softmax_axis_loop(scores, axis=1), 1e-8),
        "forward_true": (layer_forward_loops(x, W_q, W_k, W_v, W_o), 1e-8),
        "attention_true": (softmax_axis_loop(np.einsum("id,de,je->ij", x, W_q @ W_k.T, x)
                                             / math.sqrt(4), axis=1), 1e-8),
        "forward_9_true": (layer_forward_loops(x9, *W9), 1e-8),
    }


def worksheet_data():
    """The encoder-decoder worksheet's numbers, typed in again here."""
    h_e = np.array([[0.64, -0.27, 0.89, -0.12], [-0.45, 0.33, 0.71, 0.08],
                    [0.19, -0.94, 0.56, 0.37], [0.03, 0.85, -0.41, 0.76]])
    h_d1 = np.array([0.45, 0.11, -0.88, 0.67])
    W_Q = np.array([[0.12, -0.87, 0.33, 0.45], [0.76, 0.21, -0.34, 0.67],
                    [-0.55, 0.18, 0.29, -0.73], [0.03, -0.99, 0.42, 0.11]])
    W_V = np.array([[0.58, -0.13, 0.94, 0.22], [-0.31, 0.66, -0.74, 0.09],
                    [0.45, 0.11, -0.88, 0.67], [-0.92, 0.37, 0.28, -0.50]])
    tokens = np.array([[0.12, -0.87, 0.33, 0.45], [0.76, 0.21, -0.34, 0.67],
                       [0.03, -0.99, 0.42, 0.11]])  # "this", "is", "translation"
    return h_e, h_d1, W_Q, h_e.copy(), W_V, tokens


def single_query_loops(q_token, tokens, W_Q, W_K, W_V):
    d_k = W_K.shape[1]
    q = [sum(q_token[i] * W_Q[i, j] for i in range(len(q_token))) for j in range(d_k)]
    keys = [[sum(t[i] * W_K[i, j] for i in range(len(t))) for j in range(d_k)] for t in tokens]
    values = [[sum(t[i] * W_V[i, j] for i in range(len(t))) for j in range(W_V.shape[1])]
              for t in tokens]
    weights = softmax_loop([math.fsum(a * b for a, b in zip(k, q, strict=True)) / math.sqrt(d_k)
                            for k in keys])
    output = [math.fsum(w * v[j] for w, v in zip(weights, values, strict=True))
              for j in range(W_V.shape[1])]
    return weights, np.array(output)


def pinned_ps4() -> dict[str, tuple[np.ndarray, float]]:
    h_e, h_d1, W_Q, W_K, W_V, tokens = worksheet_data()
    scores = np.array([math.fsum(h * d for h, d in zip(row, h_d1, strict=True)) for row in h_e])
    scaled = scores / math.sqrt(4)
    alpha = softmax_loop(scaled)
    # The worksheet prints [0.0769, -0.0053, 0.3897, 0.4512] here: it multiplied each column j
    # of h_e by alpha_j (broadcasting) instead of summing alpha_j * h_j over the tokens.
    context = np.array([math.fsum(alpha[j] * h_e[j, i] for j in range(4)) for i in range(4)])
    w_sq, out_sq = single_query_loops(tokens[1], tokens, W_Q, W_K, W_V)
    w_3, out_3 = single_query_loops(tokens[1], tokens, W_Q[:, :3], W_K[:, :3], W_V[:, :3])
    return {
        "scores_true": (scores, 1e-8), "scaled_true": (scaled, 1e-8), "alpha_true": (alpha, 1e-8),
        "context_true": (context, 1e-8), "weights_sq_true": (w_sq, 1e-8),
        "output_sq_true": (out_sq, 1e-8), "weights_3_true": (w_3, 1e-8),
        "output_3_true": (out_3, 1e-8),
    }


def ps5_data():
    """The masked-attention notebook's data (D=4, N=5, tokens in columns), drawn independently."""
    np.random.seed(3)
    X = np.random.normal(size=(4, 5))
    np.random.seed(0)
    omega_q, omega_k, omega_v = (np.random.normal(size=(4, 4)) for _ in range(3))
    beta_q, beta_k, beta_v = (np.random.normal(size=(4, 1)) for _ in range(3))
    return X, (omega_q, omega_k, omega_v, beta_q, beta_k, beta_v)


def masked_softmax_loop(scores, allowed) -> np.ndarray:
    """Column by column over the allowed rows only; a column with none stays 0."""
    scores = np.asarray(scores, dtype=float)
    out = np.zeros_like(scores)
    for n in range(scores.shape[1]):
        rows = [m for m in range(scores.shape[0]) if allowed[m][n]]
        if rows:
            out[rows, n] = softmax_loop([scores[m, n] for m in rows])
    return out


def causal_attention_per_token(X, omega_q, omega_k, omega_v, beta_q, beta_k, beta_v):
    """Output n from tokens 0..n only, one token at a time; returns (X', A)."""
    N = X.shape[1]
    q = [beta_q + omega_q @ X[:, [n]] for n in range(N)]
    k = [beta_k + omega_k @ X[:, [n]] for n in range(N)]
    v = [beta_v + omega_v @ X[:, [n]] for n in range(N)]
    A = np.zeros((N, N))
    for n in range(N):
        A[: n + 1, n] = softmax_loop([float(np.sum(k[m] * q[n])) / math.sqrt(len(q[n]))
                                      for m in range(n + 1)])
    X_prime = np.hstack([sum(A[m, n] * v[m] for m in range(n + 1)) for n in range(N)])
    return X_prime, A


def sinusoids_loop(D: int, N: int) -> np.ndarray:
    """Vaswani et al.'s formula entry by entry, with math.sin / math.cos."""
    Pi = np.zeros((D, N))
    for n in range(N):
        for row in range(D):
            angle = n / math.pow(10000.0, (row - row % 2) / D)
            Pi[row, n] = math.sin(angle) if row % 2 == 0 else math.cos(angle)
    return Pi


def pinned_ps5() -> dict[str, tuple[np.ndarray, float]]:
    X, params = ps5_data()
    N = X.shape[1]
    mask = np.array([[m <= n for n in range(N)] for m in range(N)])
    scores = np.array([[1.0, 2, 3, 0], [0, 0, 0, 2], [-1, 4, 1, 1]])
    allowed = [[True, True, False, False], [False, True, True, False], [True, False, True, False]]
    X_causal, A_causal = causal_attention_per_token(X, *params)
    P = np.eye(N)[:, [2, 0, 4, 1, 3]]  # the notebook's perm as a permutation matrix
    Pi = sinusoids_loop(*X.shape)

    def gap(f) -> float:
        return float(np.max(np.abs(f(X @ P) - f(X) @ P)))

    plain = lambda Z: attention_einsum(Z, *params, scaled=True)[0]  # noqa: E731
    return {
        "causal_mask_true": (mask, 0),
        "masked_softmax_true": (masked_softmax_loop(scores, allowed), 1e-8),
        "attentions_masked_true": (A_causal, 1e-3),  # printed to 3 decimals
        "X_prime_masked_true": (X_causal, 1e-8),
        "positional_true": (sinusoids_loop(4, 5), 1e-8),
        "gaps_true": (np.array([gap(plain),
                                gap(lambda Z: causal_attention_per_token(Z, *params)[0]),
                                gap(lambda Z: plain(Z + Pi))]), 1e-8),
    }

"""Reference maths for every graded skill: one idea per line, shapes in comments.

UDL convention (ps1, ps2, ps5): tokens are the columns of X (D x N).
Exam and worksheet convention (ps3, ps4): tokens are the rows.
"""

from __future__ import annotations

import numpy as np


def softmax(z: np.ndarray, axis: int = -1) -> np.ndarray:
    """Numerically stable softmax along ``axis`` (eq. 12.5)."""
    z = np.asarray(z, dtype=float)
    e = np.exp(z - z.max(axis=axis, keepdims=True))  # largest exponent is 0: no overflow
    return e / e.sum(axis=axis, keepdims=True)


def softmax_cols(z: np.ndarray) -> np.ndarray:
    return softmax(z, axis=0)


def qkv(X, omega_q, omega_k, omega_v, beta_q, beta_k, beta_v):
    """Queries, keys and values for tokens in columns (eq. 12.6)."""
    Q = beta_q + omega_q @ X  # (D_q, N)
    K = beta_k + omega_k @ X  # (D_q, N)
    V = beta_v + omega_v @ X  # (D_v, N)
    return Q, K, V


def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, scaled=False):
    """Sa[X] = V Softmax[K^T Q / sqrt(D_q)] (eqs. 12.7-12.9); returns (X', A)."""
    Q, K, V = qkv(X, omega_q, omega_k, omega_v, beta_q, beta_k, beta_v)
    S = K.T @ Q  # (N, N): S[m, n] = k_m . q_n
    if scaled:
        S = S / np.sqrt(Q.shape[0])  # D_q, the size of one query
    A = softmax_cols(S)  # (N, N): column n holds the weights for output n
    return V @ A, A  # (D_v, N), (N, N)


def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """The per-token form (eqs. 12.2-12.5): list of N outputs, each D x 1."""
    X = np.hstack(all_x)
    X_prime, _ = self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    return [X_prime[:, [n]] for n in range(X.shape[1])]


def multihead_self_attention(X, heads, omega_c):
    """Concatenate scaled heads along rows, then mix with omega_c (eq. 12.10-12.11)."""
    outs = [self_attention(X, h["omega_v"], h["omega_q"], h["omega_k"],
                           h["beta_v"], h["beta_q"], h["beta_k"], scaled=True)[0]
            for h in heads]  # H x (D/H, N)
    return omega_c @ np.vstack(outs)  # (D, N)


def is_equivariant(f, X, perm) -> bool:
    """f(X P) == f(X) P for the column permutation ``perm``."""
    return bool(np.allclose(f(X[:, perm]), f(X)[:, perm]))


def softmax_rows(X):
    return softmax(X, axis=-1)


def layer_forward(x, W_q, W_k, W_v, W_o):
    """The exam's layer, tokens in rows: softmax(Q K^T / sqrt(dims)) V W_o."""
    Q, K, V = x @ W_q, x @ W_k, x @ W_v  # (n, dims) each
    A = softmax_rows(Q @ K.T / np.sqrt(W_q.shape[0]))  # (n, n), rows sum to 1
    return A @ V @ W_o  # (n, dims)


def get_scores(matrix, vector):
    return matrix @ vector  # (T,): one dot product per encoder state


def scale_scores(scores, n):
    return scores / np.sqrt(n)


def get_context_vector(attention_weights, hidden_encoder_matrix):
    return attention_weights @ hidden_encoder_matrix  # sum_j alpha_j h_j: (d,)


def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    """One query against all tokens (rows); returns (weights (T,), output (d_v,))."""
    q = query_token @ W_Q  # (d_k,)
    K, V = tokens @ W_K, tokens @ W_V  # (T, d_k), (T, d_v)
    weights = softmax(K @ q / np.sqrt(K.shape[1]))  # (T,)
    return weights, weights @ V


def split_heads(W, n):
    """Column blocks of W, one (d, d_model / n) block per head."""
    return np.split(W, n, axis=1)


# ---------------------------------------------------------------- ps5 (tokens in columns)


def causal_mask(N):
    """True where output n may look at input m: m <= n (itself and earlier tokens)."""
    return np.triu(np.ones((N, N), dtype=bool))  # (N, N): rows are inputs m, columns outputs n


def masked_softmax_cols(S, mask):
    """Softmax down each column over its allowed entries; a column with none gets zeros."""
    S = np.where(mask, S, -np.inf)  # (N, N): a masked score can never win
    top = S.max(axis=0, keepdims=True)  # (1, N): -inf on a fully masked column
    e = np.exp(S - np.where(np.isfinite(top), top, 0))  # exp(-inf) = 0, never -inf - -inf
    total = e.sum(axis=0, keepdims=True)  # (1, N): 0 on a fully masked column
    return e / np.where(total > 0, total, 1)  # 0 / 1, not 0 / 0


def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Causal scaled self-attention (eq. 12.9 with a mask); returns (X', A)."""
    Q, K, V = qkv(X, omega_q, omega_k, omega_v, beta_q, beta_k, beta_v)
    S = K.T @ Q / np.sqrt(Q.shape[0])  # (N, N): S[m, n] = k_m . q_n / sqrt(D_q)
    A = masked_softmax_cols(S, causal_mask(X.shape[1]))  # A[m, n] = 0 for m > n
    return V @ A, A  # (D_v, N), (N, N)


def positional_encoding(D, N):
    """Vaswani et al.'s sinusoids, position n in column n: rows 2i sin, rows 2i+1 cos."""
    n = np.arange(N)[None, :]  # (1, N): positions 0 .. N-1
    i = np.arange(D // 2)[:, None]  # (D/2, 1): one frequency per pair of rows
    angle = n / 10000 ** (2 * i / D)  # (D/2, N)
    Pi = np.empty((D, N))
    Pi[0::2], Pi[1::2] = np.sin(angle), np.cos(angle)
    return Pi  # (D, N)


def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """max |f(X P) - f(X) P| for plain, causal and positional attention: (0, > 0, > 0)."""
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    maps = (lambda X: self_attention(X, *params, scaled=True)[0],
            lambda X: masked_self_attention(X, *params)[0],
            lambda X: self_attention(X + positional_encoding(*X.shape), *params, scaled=True)[0])
    return np.array([np.abs(f(X[:, perm]) - f(X)[:, perm]).max() for f in maps])  # (3,)

"""Reference maths for every graded skill: one idea per line, shapes in comments.

UDL convention (ps1, ps2): tokens are the columns of X (D x N).
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

"""Problem set 5 (masked attention, positional encodings) as students write it, right and wrong.

Tokens are the columns of X (UDL). Every function is registered with the graded cell it
answers (``@entry``); ``wrong=`` names the misconception the feedback must identify. The code
is written from the notebook's instructions, never from the kit's reference.
"""

# ruff: noqa: B905 - student code, written the way students write it

import math

import numpy as np

from attnkit.dev.validate import entry

# ---------------------------------------------------------------- 1. the causal mask


@entry("ps5_causal_mask")
def causal_mask_triu(N):
    """np.triu of a boolean matrix of ones."""
    return np.triu(np.ones((N, N), dtype=bool))


@entry("ps5_causal_mask")
def causal_mask_loops(N):
    """Two loops: input m is visible to output n when m <= n."""
    mask = np.zeros((N, N), dtype=bool)
    for m in range(N):
        for n in range(N):
            mask[m, n] = m <= n
    return mask


@entry("ps5_causal_mask")
def causal_mask_compare(N):
    """Broadcast a column of input positions against a row of output positions."""
    positions = np.arange(N)
    return positions[:, None] <= positions[None, :]


@entry("ps5_causal_mask")
def causal_mask_tril_transposed(N):
    """np.tril, then transposed (the rows-convention mask, turned to columns)."""
    return np.tril(np.ones((N, N))).T.astype(bool)


@entry("ps5_causal_mask", wrong="diagonal masked; mask not boolean", says=("itself", "boolean"))
def causal_mask_float_strict(N):
    """Two mistakes: a 0/1 float matrix without its diagonal."""
    return np.triu(np.ones((N, N)), k=1)


@entry("ps5_causal_mask", wrong="mask not boolean", says=("boolean",))
def causal_mask_float_ones(N):
    """The upper triangle of ones: the right pattern as a 0/1 float matrix."""
    return np.triu(np.ones((N, N)))


@entry("ps5_causal_mask", wrong="mask transposed", says=("np.triu", "transposed"))
def causal_mask_tril(N):
    """The mask from a rows-convention tutorial: lower triangle."""
    return np.tril(np.ones((N, N), dtype=bool))


@entry("ps5_causal_mask", wrong="diagonal masked", says=("itself",))
def causal_mask_strict(N):
    """Strictly earlier tokens only: m < n."""
    return np.triu(np.ones((N, N), dtype=bool), k=1)


@entry("ps5_causal_mask", wrong="hard-coded")
def causal_mask_typed_in(N):
    """The 5 x 5 mask of the notebook, typed in."""
    return np.array([[1, 1, 1, 1, 1], [0, 1, 1, 1, 1], [0, 0, 1, 1, 1], [0, 0, 0, 1, 1],
                     [0, 0, 0, 0, 1]], dtype=bool)


# ---------------------------------------------------------------- 2. the masked softmax


@entry("ps5_masked_softmax")
def masked_softmax_where(scores, mask):
    """np.where with -inf, shifted by the column max, empty columns set to 0 afterwards."""
    masked = np.where(mask, scores, -np.inf)
    top = np.max(masked, axis=0, keepdims=True)
    top = np.where(np.isinf(top), 0.0, top)
    exps = np.exp(masked - top)
    totals = exps.sum(axis=0, keepdims=True)
    return np.divide(exps, totals, out=np.zeros_like(exps), where=totals > 0)


@entry("ps5_masked_softmax")
def masked_softmax_putmask(scores, mask):
    """np.putmask writes -inf into a copy; nan from empty columns replaced by 0."""
    masked = np.array(scores, dtype=float)
    np.putmask(masked, ~np.asarray(mask, dtype=bool), -np.inf)
    with np.errstate(invalid="ignore"):
        exps = np.exp(masked - masked.max(axis=0))
        weights = exps / exps.sum(axis=0)
    return np.nan_to_num(weights, nan=0.0)


@entry("ps5_masked_softmax")
def masked_softmax_loops(scores, mask):
    """One column at a time: softmax over the allowed rows, zeros when there are none."""
    rows, cols = np.shape(scores)
    weights = np.zeros((rows, cols))
    for n in range(cols):
        allowed = [m for m in range(rows) if mask[m][n]]
        if not allowed:
            continue
        top = max(scores[m][n] for m in allowed)
        exps = {m: math.exp(scores[m][n] - top) for m in allowed}
        total = sum(exps.values())
        for m in allowed:
            weights[m, n] = exps[m] / total
    return weights


@entry("ps5_masked_softmax")
def masked_softmax_multiply(scores, mask):
    """Shift by the max of the allowed scores, exponentiate, multiply by the 0/1 mask."""
    keep = np.asarray(mask, dtype=float)
    top = np.where(keep > 0, scores, -np.inf).max(axis=0)
    top[~np.isfinite(top)] = 0.0
    exps = np.exp(np.minimum(scores - top, 0.0)) * keep
    totals = exps.sum(axis=0)
    totals[totals == 0] = 1.0
    return exps / totals


@entry("ps5_masked_softmax", wrong="mask after the softmax", says=("before the softmax",))
def masked_softmax_after(scores, mask):
    """The ordinary column softmax, then the masked weights zeroed."""
    exps = np.exp(scores - scores.max(axis=0))
    weights = exps / exps.sum(axis=0)
    return weights * mask


@entry("ps5_masked_softmax", wrong="masked with 0 instead of -inf", says=("-inf",))
def masked_softmax_zero_fill(scores, mask):
    """Masked scores set to 0 ("switched off") before the softmax."""
    filled = np.where(mask, scores, 0.0)
    exps = np.exp(filled - filled.max(axis=0))
    return exps / exps.sum(axis=0)


@entry("ps5_masked_softmax", wrong="nan on a fully masked column", says=("nan", "column"))
def masked_softmax_nan(scores, mask):
    """-inf and a stable softmax, nothing special for a column with no allowed entry."""
    masked = np.where(mask, scores, -np.inf)
    exps = np.exp(masked - masked.max(axis=0, keepdims=True))
    return exps / exps.sum(axis=0, keepdims=True)


@entry("ps5_masked_softmax",
       wrong="renormalised after the softmax; nan on a fully masked column",
       says=("two mistakes", "underflow", "-inf", "fully masked, column"))
def masked_softmax_renormalised(scores, mask):
    """Softmax, zero the masked weights, renormalise: 0 / 0 on a fully masked column."""
    exps = np.exp(scores - scores.max(axis=0))
    kept = exps / exps.sum(axis=0) * mask
    return kept / kept.sum(axis=0)


@entry("ps5_masked_softmax", wrong="renormalised after the softmax", says=("underflow",))
def masked_softmax_renormalised_guarded(scores, mask):
    """Softmax of everything, masked weights zeroed, renormalised where anything is left."""
    e = np.exp(scores - scores.max(axis=0, keepdims=True))
    w = np.where(mask, e / e.sum(axis=0, keepdims=True), 0.0)
    total = w.sum(axis=0, keepdims=True)
    return np.where(total > 0, w / np.where(total > 0, total, 1.0), 0.0)


@entry("ps5_masked_softmax", wrong="shifted by the column's maximum, masked included",
       says=("masked ones included", "underflows"))
def masked_softmax_column_max_loop(scores, mask):
    """Per column: the exponentials of the allowed scores, shifted by the column's maximum."""
    weights = np.zeros(scores.shape)
    for n in range(scores.shape[1]):
        allowed = mask[:, n]
        if allowed.any():
            exps = np.exp(scores[allowed, n] - scores[:, n].max())
            weights[allowed, n] = exps / exps.sum()
    return weights


@entry("ps5_masked_softmax", wrong="shifted by the column's maximum, masked included",
       says=("masked ones included",))
def masked_softmax_column_max(scores, mask):
    """-inf where masked, but the shift taken from the scores before masking."""
    masked = np.where(mask, scores, -np.inf)
    exps = np.exp(masked - scores.max(axis=0, keepdims=True))
    totals = exps.sum(axis=0, keepdims=True)
    return np.where(mask.any(axis=0, keepdims=True), exps / totals, 0.0)


@entry("ps5_masked_softmax", wrong="uniform weights on a fully masked column",
       says=("-1e9",))
def masked_softmax_big_negative(scores, mask):
    """Fills with -1e9, as many tutorials do."""
    masked = np.where(mask, scores, -1e9)
    exps = np.exp(masked - masked.max(axis=0))
    return exps / exps.sum(axis=0)


@entry("ps5_masked_softmax", wrong="mask inverted")
def masked_softmax_inverted(scores, mask):
    """Reads True as 'masked out'."""
    masked = np.where(mask, -np.inf, scores)
    top = masked.max(axis=0)
    top[np.isinf(top)] = 0
    exps = np.exp(masked - top)
    totals = exps.sum(axis=0)
    return exps / np.where(totals == 0, 1, totals)


@entry("ps5_masked_softmax", wrong="softmax over rows", says=("axis 0",))
def masked_softmax_rows(scores, mask):
    """The rows convention: each row normalised."""
    masked = np.where(mask, scores, -np.inf)
    top = masked.max(axis=1, keepdims=True)
    top[np.isinf(top)] = 0
    exps = np.exp(masked - top)
    totals = exps.sum(axis=1, keepdims=True)
    return exps / np.where(totals == 0, 1, totals)


@entry("ps5_masked_softmax", wrong="no max subtraction", says=("overflows",))
def masked_softmax_naive(scores, mask):
    """exp of the allowed scores as they are: inf near 800."""
    exps = np.where(mask, np.exp(scores), 0.0)
    totals = exps.sum(axis=0)
    return exps / np.where(totals == 0, 1, totals)


# ---------------------------------------------------------------- 3. masked self-attention


def _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    return beta_q + omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X


def _softmax_cols(scores):
    exps = np.exp(scores - scores.max(axis=0, keepdims=True))
    return exps / exps.sum(axis=0, keepdims=True)


@entry("ps5_masked_attention", wrong="scaled after softmax", says=("after the softmax",))
def masked_attention_scaled_after(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """The masked weights divided by sqrt(D_q), not the scores."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    N = X.shape[1]
    allowed = np.triu(np.ones((N, N), dtype=bool))
    attentions = _softmax_cols(np.where(allowed, K.T @ Q, -np.inf)) / np.sqrt(Q.shape[0])
    return V @ attentions, attentions


@entry("ps5_masked_attention", wrong="scale sqrt(D)", says=("sqrt(D_q)",))
def masked_attention_scaled_by_input_size(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Divides by sqrt(D), the rows of X, as in ps1's classic mistake."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    N = X.shape[1]
    scores = K.T @ Q / np.sqrt(X.shape[0])
    attentions = _softmax_cols(np.where(np.triu(np.ones((N, N), dtype=bool)), scores, -np.inf))
    return V @ attentions, attentions


@entry("ps5_masked_attention")
def masked_attention_triu(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """np.triu mask, -inf with np.where, the column softmax."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    N = X.shape[1]
    scores = K.T @ Q / np.sqrt(Q.shape[0])
    scores = np.where(np.triu(np.ones((N, N), dtype=bool)), scores, -np.inf)
    attentions = _softmax_cols(scores)
    return V @ attentions, attentions


@entry("ps5_masked_attention")
def masked_attention_tril_index(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """-inf written below the diagonal with np.tril_indices (k=-1)."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    scores = K.T @ Q / math.sqrt(len(Q))
    scores[np.tril_indices(X.shape[1], k=-1)] = -np.inf
    attentions = _softmax_cols(scores)
    return V @ attentions, attentions


@entry("ps5_masked_attention")
def masked_attention_putmask(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """np.putmask with the strictly lower triangle."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    N = X.shape[1]
    scores = K.T @ Q / np.sqrt(Q.shape[0])
    np.putmask(scores, np.tril(np.ones((N, N)), k=-1) == 1, -np.inf)
    attentions = _softmax_cols(scores)
    return V @ attentions, attentions


@entry("ps5_masked_attention")
def masked_attention_loops(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Per output n: softmax over inputs 0..n only, a weighted sum of their values."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    D_q, N = Q.shape
    attentions = np.zeros((N, N))
    for n in range(N):
        scores = [float(K[:, m] @ Q[:, n]) / math.sqrt(D_q) for m in range(n + 1)]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        for m in range(n + 1):
            attentions[m, n] = exps[m] / sum(exps)
    return V @ attentions, attentions


@entry("ps5_masked_attention")
def masked_attention_additive(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """An additive mask of 0 and -1e9 built with np.where, added to the scores."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    N = X.shape[1]
    m, n = np.meshgrid(np.arange(N), np.arange(N), indexing="ij")
    bias = np.where(m <= n, 0.0, -1e9)
    attentions = _softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]) + bias)
    return V @ attentions, attentions


@entry("ps5_masked_attention", wrong="mask after the softmax", says=("before the softmax",))
def masked_attention_after(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Softmax first, then the future weights zeroed."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    attentions = _softmax_cols(K.T @ Q / np.sqrt(Q.shape[0])) * np.triu(np.ones((X.shape[1],) * 2))
    return V @ attentions, attentions


@entry("ps5_masked_attention", wrong="masked with 0 instead of -inf", says=("-inf",))
def masked_attention_zero(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Multiplies the scores by the 0/1 mask: masked scores become 0, not -inf."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    scores = K.T @ Q / np.sqrt(Q.shape[0]) * np.triu(np.ones((X.shape[1], X.shape[1])))
    attentions = _softmax_cols(scores)
    return V @ attentions, attentions


@entry("ps5_masked_attention", wrong="mask transposed", says=("np.triu",))
def masked_attention_tril(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """The rows-convention mask (np.tril) kept with tokens in columns: the future is visible."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    N = X.shape[1]
    scores = np.where(np.tril(np.ones((N, N))) == 1, K.T @ Q / np.sqrt(Q.shape[0]), -np.inf)
    attentions = _softmax_cols(scores)
    return V @ attentions, attentions


@entry("ps5_masked_attention", wrong="diagonal masked", says=("itself",))
def masked_attention_strict(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Only strictly earlier tokens: output 0 has nothing to attend to (nan)."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    N = X.shape[1]
    scores = K.T @ Q / np.sqrt(Q.shape[0])
    scores[np.tril_indices(N)] = -np.inf
    attentions = _softmax_cols(scores)
    return V @ attentions, attentions


@entry("ps5_masked_attention", wrong="no mask", says=("plain scaled attention",))
def masked_attention_forgot_mask(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """The mask is built but never used."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    mask = np.triu(np.ones((X.shape[1], X.shape[1]), dtype=bool))  # noqa: F841
    attentions = _softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
    return V @ attentions, attentions


@entry("ps5_masked_attention", wrong="no scaling", says=("sqrt(D_q)",))
def masked_attention_unscaled(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Masked, but the scores are not divided by sqrt(D_q)."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    N = X.shape[1]
    scores = np.where(np.triu(np.ones((N, N), dtype=bool)), K.T @ Q, -np.inf)
    attentions = _softmax_cols(scores)
    return V @ attentions, attentions


@entry("ps5_masked_attention", wrong="notebook's N for the mask", says=("X.shape[1]",))
def masked_attention_notebook_N(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """The mask built with the notebook's N = 5 (a global), whatever X holds."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    scores = K.T @ Q / np.sqrt(Q.shape[0])
    scores[~np.triu(np.ones((5, 5), dtype=bool))] = -np.inf
    attentions = _softmax_cols(scores)
    return V @ attentions, attentions


@entry("ps5_masked_attention", wrong="scale fixed at 2; notebook's N for the mask",
       says=("two mistakes", "sqrt(4)", "X.shape[1]"))
def masked_attention_notebook_N_and_D(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """The notebook's N = 5 for the mask and its D = 4 for the scale: two globals."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    scores = K.T @ Q / np.sqrt(4)
    scores[~np.triu(np.ones((5, 5), dtype=bool))] = -np.inf
    attentions = _softmax_cols(scores)
    return V @ attentions, attentions


@entry("ps5_masked_attention", wrong="softmax over rows", says=("column",))
def masked_attention_rows(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """The rows-convention softmax (axis=1) on the column-convention scores."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    N = X.shape[1]
    scores = np.where(np.triu(np.ones((N, N), dtype=bool)), K.T @ Q / np.sqrt(Q.shape[0]),
                      -np.inf)
    exps = np.exp(scores - scores.max(axis=1, keepdims=True))
    attentions = exps / exps.sum(axis=1, keepdims=True)
    return V @ attentions, attentions


@entry("ps5_masked_attention", wrong="keys and queries swapped")
def masked_attention_qtk(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Q^T K instead of K^T Q, masked with np.triu."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    N = X.shape[1]
    scores = np.where(np.triu(np.ones((N, N), dtype=bool)), Q.T @ K / np.sqrt(Q.shape[0]),
                      -np.inf)
    attentions = _softmax_cols(scores)
    return V @ attentions, attentions


@entry("ps5_masked_attention", wrong="unstable softmax", says=("overflows",))
def masked_attention_naive_exp(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """exp(-inf) = 0 does the masking, but the largest scores overflow."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    N = X.shape[1]
    scores = np.where(np.triu(np.ones((N, N), dtype=bool)), K.T @ Q / np.sqrt(Q.shape[0]),
                      -np.inf)
    exps = np.exp(scores)
    attentions = exps / exps.sum(axis=0)
    return V @ attentions, attentions


@entry("ps5_masked_attention", wrong="biases forgotten", says=("beta_q",))
def masked_attention_no_biases(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Q = omega_q @ X and so on, the biases left out."""
    Q, K, V = omega_q @ X, omega_k @ X, omega_v @ X
    N = X.shape[1]
    scores = np.where(np.triu(np.ones((N, N), dtype=bool)), K.T @ Q / np.sqrt(Q.shape[0]),
                      -np.inf)
    attentions = _softmax_cols(scores)
    return V @ attentions, attentions


@entry("ps5_masked_attention", wrong="weighted sum of inputs")
def masked_attention_sums_inputs(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Weights the tokens X instead of the values V."""
    Q, K, _ = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    N = X.shape[1]
    scores = np.where(np.triu(np.ones((N, N), dtype=bool)), K.T @ Q / np.sqrt(Q.shape[0]),
                      -np.inf)
    attentions = _softmax_cols(scores)
    return X @ attentions, attentions


@entry("ps5_masked_attention", wrong="wrong weight matrix", says=("values", "omega_k"))
def masked_attention_copied_line(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """The values line copied from the keys line, only the bias renamed."""
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_k @ X
    N = X.shape[1]
    scores = np.where(np.triu(np.ones((N, N), dtype=bool)), K.T @ Q / np.sqrt(Q.shape[0]),
                      -np.inf)
    attentions = _softmax_cols(scores)
    return V @ attentions, attentions


# ---------------------------------------------------------------- 4. positional encoding


@entry("ps5_positional_encoding")
def positional_encoding_slices(D, N):
    """Angles for each pair of rows, then Pi[0::2] = sin and Pi[1::2] = cos."""
    positions = np.arange(N)
    pairs = np.arange(0, D, 2)
    angles = positions[None, :] / np.power(10000, pairs[:, None] / D)
    Pi = np.zeros((D, N))
    Pi[0::2, :] = np.sin(angles)
    Pi[1::2, :] = np.cos(angles)
    return Pi


@entry("ps5_positional_encoding")
def positional_encoding_loops(D, N):
    """The formula entry by entry."""
    Pi = np.zeros((D, N))
    for n in range(N):
        for i in range(D // 2):
            angle = n / 10000 ** (2 * i / D)
            Pi[2 * i, n] = math.sin(angle)
            Pi[2 * i + 1, n] = math.cos(angle)
    return Pi


@entry("ps5_positional_encoding")
def positional_encoding_exp_log(D, N):
    """The tensor2tensor way of writing the frequencies, exp(-2i log(10000) / D), in rows."""
    position = np.arange(N)[:, None]
    div_term = np.exp(np.arange(0, D, 2) * (-math.log(10000.0) / D))
    pe = np.zeros((N, D))
    pe[:, 0::2] = np.sin(position * div_term)
    pe[:, 1::2] = np.cos(position * div_term)
    return pe.T


@entry("ps5_positional_encoding")
def positional_encoding_where(D, N):
    """One angle per row (pairs share it), then np.where on the row parity."""
    rows = np.arange(D)[:, None]
    angles = np.arange(N)[None, :] / 10000 ** ((rows - rows % 2) / D)
    return np.where(rows % 2 == 0, np.sin(angles), np.cos(angles))


@entry("ps5_positional_encoding", wrong="sin and cos swapped", says=("row 2i",))
def positional_encoding_cos_first(D, N):
    """Cosines in the even rows."""
    Pi = np.zeros((D, N))
    for n in range(N):
        for i in range(D // 2):
            Pi[2 * i, n] = math.cos(n / 10000 ** (2 * i / D))
            Pi[2 * i + 1, n] = math.sin(n / 10000 ** (2 * i / D))
    return Pi


@entry("ps5_positional_encoding", wrong="wrong frequency base", says=("10000",))
def positional_encoding_base_1000(D, N):
    """A thousand typed for ten thousand."""
    angles = np.arange(N)[None, :] / 1000 ** (np.arange(0, D, 2)[:, None] / D)
    Pi = np.zeros((D, N))
    Pi[0::2], Pi[1::2] = np.sin(angles), np.cos(angles)
    return Pi


@entry("ps5_positional_encoding", wrong="row index as exponent", says=("pairs",))
def positional_encoding_row_exponent(D, N):
    """Each row k uses 10000^(k/D), the odd rows too."""
    rows = np.arange(D)[:, None]
    angles = np.arange(N)[None, :] / 10000 ** (rows / D)
    return np.where(rows % 2 == 0, np.sin(angles), np.cos(angles))


@entry("ps5_positional_encoding", wrong="positions from 1", says=("np.arange(N)",))
def positional_encoding_from_one(D, N):
    """Counts positions 1..N."""
    angles = np.arange(1, N + 1)[None, :] / 10000 ** (np.arange(0, D, 2)[:, None] / D)
    Pi = np.zeros((D, N))
    Pi[0::2], Pi[1::2] = np.sin(angles), np.cos(angles)
    return Pi


@entry("ps5_positional_encoding", wrong="sin and cos in halves", says=("interleave",))
def positional_encoding_halves(D, N):
    """np.concatenate of all the sines, then all the cosines."""
    angles = np.arange(N)[None, :] / 10000 ** (np.arange(0, D, 2)[:, None] / D)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=0)


@entry("ps5_positional_encoding", wrong="multiplied by the wavelength", says=("divided",))
def positional_encoding_times(D, N):
    """n * 10000^(2i/D) instead of n / 10000^(2i/D)."""
    angles = np.arange(N)[None, :] * 10000 ** (np.arange(0, D, 2)[:, None] / D)
    Pi = np.zeros((D, N))
    Pi[0::2], Pi[1::2] = np.sin(angles), np.cos(angles)
    return Pi


@entry("ps5_positional_encoding", wrong="tokens in rows", says=("columns",))
def positional_encoding_rows(D, N):
    """The paper's N x D table, one row per position."""
    angles = np.arange(N)[:, None] / 10000 ** (np.arange(0, D, 2)[None, :] / D)
    pe = np.zeros((N, D))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles)
    return pe


# ---------------------------------------------------------------- 5. equivariance


def _attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, causal):
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    scores = K.T @ Q / np.sqrt(Q.shape[0])
    if causal:
        scores = np.where(np.triu(np.ones(scores.shape, dtype=bool)), scores, -np.inf)
    return V @ _softmax_cols(scores)


def _encoding(D, N):
    angles = np.arange(N)[None, :] / 10000 ** (np.arange(0, D, 2)[:, None] / D)
    Pi = np.zeros((D, N))
    Pi[0::2], Pi[1::2] = np.sin(angles), np.cos(angles)
    return Pi


@entry("ps5_equivariance")
def equivariance_gaps_lambdas(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Three maps as lambdas, the largest |f(X P) - f(X) P| of each."""
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = _encoding(*X.shape)
    maps = [lambda Z: _attention(Z, *params, causal=False),
            lambda Z: _attention(Z, *params, causal=True),
            lambda Z: _attention(Z + Pi, *params, causal=False)]
    return np.array([np.max(np.abs(f(X[:, perm]) - f(X)[:, perm])) for f in maps])


@entry("ps5_equivariance")
def equivariance_gaps_matrix(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """A permutation matrix P (X P), as in the book; returned as a list."""
    N = X.shape[1]
    P = np.eye(N)[:, perm]
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    gaps = []
    for causal, shift in ((False, 0.0), (True, 0.0), (False, _encoding(*X.shape))):
        left = _attention(X @ P + shift, *params, causal=causal)
        right = _attention(X + shift, *params, causal=causal) @ P
        gaps.append(float(np.abs(left - right).max()))
    return gaps


@entry("ps5_equivariance", wrong="one side not permuted", says=("f(X)[:, perm]",))
def equivariance_gaps_one_side(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Compares f(X[:, perm]) with f(X)."""
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = _encoding(*X.shape)
    return np.array([
        np.abs(_attention(X[:, perm], *params, causal=False)
               - _attention(X, *params, causal=False)).max(),
        np.abs(_attention(X[:, perm], *params, causal=True)
               - _attention(X, *params, causal=True)).max(),
        np.abs(_attention(X[:, perm] + Pi, *params, causal=False)
               - _attention(X + Pi, *params, causal=False)).max()])


@entry("ps5_equivariance", wrong="inverse permutation", says=("same perm",))
def equivariance_gaps_inverse(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Undoes the permutation on the output side with np.argsort."""
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    back = np.argsort(perm)
    Pi = _encoding(*X.shape)
    gaps = []
    for causal, shift in ((False, 0.0), (True, 0.0), (False, Pi)):
        left = _attention(X[:, perm] + shift, *params, causal=causal)
        right = _attention(X + shift, *params, causal=causal)[:, back]
        gaps.append(np.abs(left - right).max())
    return np.array(gaps)


@entry("ps5_equivariance", wrong="Frobenius norm", says=("np.linalg.norm", "largest entry"))
def equivariance_gaps_frobenius(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Measures each gap with np.linalg.norm of the difference, not its largest entry."""
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = _encoding(*X.shape)
    gaps = []
    for causal, shift in ((False, 0.0), (True, 0.0), (False, Pi)):
        left = _attention(X[:, perm] + shift, *params, causal=causal)
        right = _attention(X + shift, *params, causal=causal)[:, perm]
        gaps.append(np.linalg.norm(left - right))
    return np.array(gaps)


@entry("ps5_equivariance", wrong="encoding permuted with the tokens", says=("positions",))
def equivariance_gaps_moved_encoding(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q,
                                     beta_k):
    """Adds Pi first, then permutes X + Pi: every token carries its encoding along."""
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    X_pos = X + _encoding(*X.shape)
    gaps = []
    for Z, causal in ((X, False), (X, True), (X_pos, False)):
        left = _attention(Z[:, perm], *params, causal=causal)
        right = _attention(Z, *params, causal=causal)[:, perm]
        gaps.append(np.abs(left - right).max())
    return np.array(gaps)


# ---------------------------------------------------------------- slips seen in blind classes


@entry("ps5_masked_attention", wrong="mask sized from D", says=("X.shape[1]",))
def masked_attention_mask_from_rows(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """causal mask of size X.shape[0] = D."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    D = X.shape[0]
    scores = K.T @ Q / np.sqrt(Q.shape[0])
    attentions = _softmax_cols(np.where(np.triu(np.ones((D, D), dtype=bool)), scores, -np.inf))
    return V @ attentions, attentions


@entry("ps5_masked_attention", wrong="renormalised after the softmax",
       says=("before the softmax",))
def masked_attention_renormalised(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Softmax of every score, the future zeroed, the columns renormalised."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    N = X.shape[1]
    attentions = _softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
    attentions = attentions * np.triu(np.ones((N, N)))
    with np.errstate(invalid="ignore"):
        attentions = attentions / attentions.sum(axis=0, keepdims=True)
    return V @ attentions, attentions


@entry("ps5_positional_encoding", wrong="pair index doubled", says=("i/D",))
def positional_encoding_even_loop(D, N):
    """Loops over even rows i and still writes 2 * i / D."""
    Pi = np.zeros((D, N))
    positions = np.arange(N)
    for i in range(0, D, 2):
        Pi[i] = np.sin(positions / 10000 ** (2 * i / D))
        Pi[i + 1] = np.cos(positions / 10000 ** (2 * i / D))
    return Pi


@entry("ps5_equivariance", wrong="largest signed difference", says=("np.abs",))
def equivariance_gaps_signed(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """The largest signed difference of each map, without abs."""
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = _encoding(*X.shape)
    maps = [lambda Z: _attention(Z, *params, causal=False),
            lambda Z: _attention(Z, *params, causal=True),
            lambda Z: _attention(Z + Pi, *params, causal=False)]
    return np.array([np.max(f(X[:, perm]) - f(X)[:, perm]) for f in maps])


@entry("ps5_masked_attention", wrong="query bias forgotten", says=("beta_q",))
def masked_attention_no_query_bias(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Q = omega_q @ X: the query's bias left out."""
    Q, K, V = omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X
    N = X.shape[1]
    scores = np.where(np.triu(np.ones((N, N), dtype=bool)), K.T @ Q / np.sqrt(Q.shape[0]),
                      -np.inf)
    attentions = _softmax_cols(scores)
    return V @ attentions, attentions


@entry("ps5_positional_encoding", wrong="notebook's D in the exponent", says=("the D passed",))
def positional_encoding_notebook_D(D, N):
    """The exponent divides by 4, the notebook's D, whatever D is asked for."""
    angles = np.arange(N)[None, :] / np.power(10000, np.arange(0, D, 2)[:, None] / 4)
    Pi = np.zeros((D, N))
    Pi[0::2, :] = np.sin(angles)
    Pi[1::2, :] = np.cos(angles)
    return Pi


D_DATA, N_DATA = 4, 5  # the notebook's data cell defines D = 4 and N = 5 as globals


@entry("ps5_equivariance", wrong="notebook's D and N for the encoding", says=("X.shape",))
def equivariance_gaps_notebook_sizes(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q,
                                     beta_k):
    """The encoding made for the notebook's global sizes, not X's."""
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = _encoding(D_DATA, N_DATA)
    maps = [lambda Z: _attention(Z, *params, causal=False),
            lambda Z: _attention(Z, *params, causal=True),
            lambda Z: _attention(Z + Pi, *params, causal=False)]
    return np.array([np.max(np.abs(f(X[:, perm]) - f(X)[:, perm])) for f in maps])

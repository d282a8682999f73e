"""Problem set 1 (UDL 12.1) as students write it, right and wrong.

Every function below is registered with the graded cell it answers (``@entry``);
``wrong=`` names the misconception the grader's feedback must identify. The code
is written from the notebook's instructions, never from the kit's reference.
"""

# ruff: noqa: B905 - student code, written the way students write it

import math
import warnings

import numpy as np
import scipy.special

from attnkit.dev.validate import entry

# The notebook's globals (cell ps1_data), as the student's later cells see them.
_seeded = np.random.RandomState(3)
N = 3
D = 4
all_x = [_seeded.normal(size=(D, 1)) for n in range(N)]
_seeded = np.random.RandomState(0)
omega_q = _seeded.normal(size=(D, D))
omega_k = _seeded.normal(size=(D, D))
omega_v = _seeded.normal(size=(D, D))
beta_q = _seeded.normal(size=(D, 1))
beta_k = _seeded.normal(size=(D, 1))
beta_v = _seeded.normal(size=(D, 1))
X = np.hstack(all_x)


# ---------------------------------------------------------------- 1. softmax


@entry("ps1_softmax", wrong="no max subtraction", says=("subtract the largest", "overflows"))
def softmax_textbook(items_in):
    """exp(z) / sum exp(z), the formula as written: nan near 1000."""
    exps = np.exp(items_in)
    return exps / np.sum(exps)


@entry("ps1_softmax", wrong="smallest score subtracted",
       says=("subtracted the smallest score", "Subtract the largest"))
def softmax_min_shift(items_in):
    """Shifts the scores to start at 0 (z - min z): overflows when they spread over 709."""
    z = np.array(items_in, dtype=float)
    z = z - np.min(z)
    e = np.exp(z)
    return e / np.sum(e)


@entry("ps1_softmax", wrong="hard-coded")
def softmax_pasted_answer(items_in):
    """Returns the visible expected weights for [1, 2, 3] whatever the input."""
    return np.array([0.09003057, 0.24472847, 0.66524096])


@entry("ps1_softmax")
def softmax_scipy(items_in):
    """scipy.special.softmax."""
    return scipy.special.softmax(items_in)


@entry("ps1_softmax")
def softmax_logsumexp(items_in):
    """exp(z - logsumexp(z)), the log-sum-exp computed by hand."""
    z = np.array(items_in, dtype=float)
    top = np.max(z)
    log_total = top + np.log(np.sum(np.exp(z - top)))
    return np.exp(z - log_total)


@entry("ps1_softmax")
def softmax_pure_python(items_in):
    """math.exp in a loop, shifted by the max."""
    top = max(items_in)
    exps = [math.exp(z - top) for z in items_in]
    total = sum(exps)
    return np.array([e / total for e in exps])


@entry("ps1_softmax")
def softmax_with_fallback(items_in):
    """Tries the formula, overflows (RuntimeWarning), prints and warns, then shifts."""
    z = np.asarray(items_in, dtype=float)
    exps = np.exp(z)
    weights = exps / exps.sum()
    if not np.all(np.isfinite(weights)):
        print("softmax overflowed, retrying with the max subtracted")
        warnings.warn("softmax: large scores, subtracting the max", RuntimeWarning,
                      stacklevel=2)
        exps = np.exp(z - z.max())
        weights = exps / exps.sum()
    return weights


@entry("ps1_softmax", wrong="error", says=("`softmax_cols_below` does not exist",
                                           "Restart & Run All"))
def softmax_through_a_later_cell(items_in):
    """Calls a function the notebook defines only further down: fine in the student's
    session, a NameError on Restart & Run All."""
    column = np.asarray(items_in, dtype=float)[:, None]
    return softmax_cols_below(column).ravel()  # noqa: F821 - defined in a later cell


@entry("ps1_softmax", wrong="arguments overwritten", says=("overwrote the argument `items_in`",
                                                           "np.asarray"))
def softmax_shifted_in_place(items_in):
    """np.asarray hands a float array back as it is: -= shifts the caller's scores."""
    z = np.asarray(items_in, dtype=float)
    z -= z.max()
    e = np.exp(z)
    return e / e.sum()


@entry("ps1_softmax", wrong="arguments overwritten", says=("overwrote the argument `items_in`",))
def softmax_list_shifted_in_place(items_in):
    """Each score shifted where it stands: the caller's list or array keeps the shift."""
    top = max(items_in)
    for i in range(len(items_in)):
        items_in[i] -= top
    exps = [math.exp(z) for z in items_in]
    return np.array(exps) / sum(exps)


@entry("ps1_softmax")
def softmax_in_place_on_a_copy(items_in):
    """The same -= on its own copy (np.array copies): the caller's scores are kept."""
    z = np.array(items_in, dtype=float)
    z -= z.max()
    np.exp(z, out=z)
    return z / z.sum()


# ---------------------------------------------------------------- 2. loops


@entry("ps1_self_attention_loop")
def self_attention_loop_explicit(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Pure loops: queries, keys, values per token, dot products one at a time."""
    queries = [beta_q + omega_q @ x for x in all_x]
    keys = [beta_k + omega_k @ x for x in all_x]
    values = [beta_v + omega_v @ x for x in all_x]
    outputs = []
    for n in range(len(all_x)):
        scores = [(keys[m].T @ queries[n]).item() for m in range(len(all_x))]
        top = max(scores)
        exps = [math.exp(s - top) for s in scores]
        total = sum(exps)
        x_prime = np.zeros_like(values[0])
        for m in range(len(all_x)):
            x_prime += exps[m] / total * values[m]
        outputs.append(x_prime)
    return outputs


@entry("ps1_self_attention_loop", wrong="outputs not columns", says=("D x 1 column",))
def self_attention_loop_flat_outputs(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Right maths on flattened vectors: each output has shape (D,), not D x 1."""
    qs = [(beta_q + omega_q @ x).ravel() for x in all_x]
    ks = [(beta_k + omega_k @ x).ravel() for x in all_x]
    vs = [(beta_v + omega_v @ x).ravel() for x in all_x]
    outputs = []
    for q in qs:
        scores = np.array([k @ q for k in ks])
        weights = np.exp(scores - scores.max())
        outputs.append(np.array(vs).T @ (weights / weights.sum()))
    return outputs


@entry("ps1_self_attention_loop", wrong="float of a 1 x 1 array", says=(".item()",))
def self_attention_loop_udl_float(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """UDL's float(k.T @ q) for each dot product."""
    queries = [beta_q + omega_q @ x for x in all_x]
    keys = [beta_k + omega_k @ x for x in all_x]
    values = [beta_v + omega_v @ x for x in all_x]
    outputs = []
    for q in queries:
        scores = np.array([float(k.T @ q) for k in keys])
        weights = np.exp(scores - scores.max())
        outputs.append(sum(w * v for w, v in zip(weights / weights.sum(), values)))
    return outputs


@entry("ps1_self_attention_loop", wrong="keys and queries swapped", says=("K^T Q",))
def self_attention_loop_query_dot_key(all_x, omega_v, omega_q, omega_k, beta_v, beta_q,
                                      beta_k):
    """Scores q_m . k_n: output n's weights come from output n's key."""
    queries = [beta_q + omega_q @ x for x in all_x]
    keys = [beta_k + omega_k @ x for x in all_x]
    values = [beta_v + omega_v @ x for x in all_x]
    outputs = []
    for n in range(len(all_x)):
        scores = np.array([(queries[m].T @ keys[n]).item() for m in range(len(all_x))])
        weights = np.exp(scores - scores.max())
        weights /= weights.sum()
        outputs.append(sum(w * v for w, v in zip(weights, values)))
    return outputs


@entry("ps1_self_attention_loop", wrong="wrong weight matrix", says=("keys", "omega_q"))
def self_attention_loop_copied_line(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """The keys line was copied from the queries line and only the bias renamed."""
    queries = [beta_q + omega_q @ x for x in all_x]
    keys = [beta_k + omega_q @ x for x in all_x]
    values = [beta_v + omega_v @ x for x in all_x]
    outputs = []
    for q in queries:
        scores = np.array([(k.T @ q).item() for k in keys])
        weights = np.exp(scores - scores.max())
        weights /= weights.sum()
        outputs.append(sum(w * v for w, v in zip(weights, values)))
    return outputs


@entry("ps1_self_attention_loop", wrong="weighted sum of inputs")
def self_attention_loop_sums_inputs(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Weights the inputs x_m instead of the values v_m."""
    queries = [beta_q + omega_q @ x for x in all_x]
    keys = [beta_k + omega_k @ x for x in all_x]
    outputs = []
    for q in queries:
        scores = np.array([(k.T @ q).item() for k in keys])
        weights = np.exp(scores - scores.max())
        weights /= weights.sum()
        outputs.append(sum(w * x for w, x in zip(weights, all_x)))
    return outputs


@entry("ps1_self_attention_loop", wrong="hard-coded")
def self_attention_loop_pasted_answer(all_x, omega_v, omega_q, omega_k, beta_v, beta_q,
                                      beta_k):
    """Returns the visible expected outputs whatever the input."""
    x_prime_true = np.array([[0.94744244, -0.24348429, -0.91310441, -0.44522983],
                             [1.64201168, -0.08470004, 4.02764044, 2.18690791],
                             [1.61949281, -0.06641533, 3.96863308, 2.15858316]])
    return [row.reshape(4, 1) for row in x_prime_true]


# ---------------------------------------------------------------- 3. softmax_cols


@entry("ps1_softmax_cols", wrong="softmax over rows", says=("column",))
def softmax_cols_along_rows(data_in):
    """axis=1 everywhere: each row sums to 1."""
    exp_values = np.exp(data_in - data_in.max(axis=1, keepdims=True))
    return exp_values / exp_values.sum(axis=1, keepdims=True)


@entry("ps1_softmax_cols", wrong="softmax over all entries")
def softmax_cols_whole_matrix(data_in):
    """Divides by the sum of the whole matrix."""
    exp_values = np.exp(data_in - np.max(data_in))
    return exp_values / np.sum(exp_values)


@entry("ps1_softmax_cols", wrong="no max subtraction", says=("each column's maximum",))
def softmax_cols_textbook(data_in):
    """No shift: nan for logits near 800."""
    exp_values = np.exp(data_in)
    return exp_values / np.sum(exp_values, axis=0)


@entry("ps1_softmax_cols")
def softmax_cols_by_transposing(data_in):
    """Row softmax of the transpose, transposed back."""
    rows = data_in.T
    exp_rows = np.exp(rows - rows.max(axis=1, keepdims=True))
    return (exp_rows / exp_rows.sum(axis=1, keepdims=True)).T


@entry("ps1_softmax_cols", wrong="one maximum for the whole matrix", says=("underflows",))
def softmax_cols_global_shift(data_in):
    """Subtracts the largest entry of the whole matrix, sums per column: a column far below
    it underflows to 0 / 0."""
    exp_values = np.exp(data_in - np.max(data_in))
    return exp_values / np.sum(exp_values, axis=0)


@entry("ps1_softmax_cols", wrong="divided by each row's sum", says=("each row's sum",))
def softmax_cols_row_sums(data_in):
    """Each column shifted by its own maximum, then divided by the row sums."""
    e = np.exp(data_in - data_in.max(axis=0, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@entry("ps1_softmax_cols", wrong="row maxima without keepdims", says=("keepdims",))
def softmax_cols_row_maxima(data_in):
    """np.max(data_in, axis=1): right on a square matrix by accident, crashes on others."""
    exp_values = np.exp(data_in - np.max(data_in, axis=1))
    return exp_values / np.sum(exp_values, axis=0)


@entry("ps1_softmax_cols")
def softmax_cols_column_loop(data_in):
    """One column at a time with the student's own 1-D softmax."""
    out = np.zeros(data_in.shape)
    for n in range(data_in.shape[1]):
        column = data_in[:, n]
        e = np.exp(column - column.max())
        out[:, n] = e / e.sum()
    return out


def _softmax_cols(data_in):
    exp_values = np.exp(data_in - data_in.max(axis=0, keepdims=True))
    return exp_values / exp_values.sum(axis=0, keepdims=True)


# ---------------------------------------------------------------- 3. self_attention


@entry("ps1_self_attention")
def self_attention_einsum(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """np.einsum for every product."""
    Q = np.einsum("ij,jn->in", omega_q, X) + beta_q
    K = np.einsum("ij,jn->in", omega_k, X) + beta_k
    V = np.einsum("ij,jn->in", omega_v, X) + beta_v
    scores = np.einsum("dm,dn->mn", K, Q)
    attentions = _softmax_cols(scores)
    return np.einsum("dm,mn->dn", V, attentions), attentions


@entry("ps1_self_attention")
def self_attention_tokens_in_rows(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Works with tokens in rows (as in most papers) and transposes at the end."""
    tokens = X.T  # N x D
    Q = tokens @ omega_q.T + beta_q.T  # N x D_q
    K = tokens @ omega_k.T + beta_k.T
    V = tokens @ omega_v.T + beta_v.T
    scores = Q @ K.T  # row n = query n against every key
    weights = np.exp(scores - scores.max(axis=1, keepdims=True))
    weights = weights / weights.sum(axis=1, keepdims=True)
    out = weights @ V  # N x D
    return out.T, weights.T


@entry("ps1_self_attention", wrong="error", says=("np.ones((1, X.shape[1]))",))
def self_attention_ones_of_length_D(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """beta 1^T with a row of D ones, not N: D x D, added to D x N."""
    ones = np.ones((1, X.shape[0]))
    Q, K, V = beta_q @ ones + omega_q @ X, beta_k @ ones + omega_k @ X, beta_v @ ones + omega_v @ X
    attentions = _softmax_cols(K.T @ Q)
    return V @ attentions, attentions


@entry("ps1_self_attention", wrong="softmax over rows", says=("column",))
def self_attention_row_softmax(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Normalises the attention matrix along its rows."""
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = _softmax_cols((K.T @ Q).T).T
    return V @ attentions, attentions


@entry("ps1_self_attention", wrong="one maximum for the whole matrix", says=("underflows",))
def self_attention_one_max(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """The softmax shifted by the largest score of the whole matrix."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    e = np.exp(K.T @ Q - np.max(K.T @ Q))
    attentions = e / np.sum(e, axis=0, keepdims=True)
    return V @ attentions, attentions


@entry("ps1_self_attention", wrong="keys and queries swapped")
def self_attention_QtK(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Q^T K instead of K^T Q."""
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = _softmax_cols(Q.T @ K)
    return V @ attentions, attentions


@entry("ps1_self_attention", wrong="biases forgotten", says=("beta_q",))
def self_attention_no_biases(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Omega X only."""
    Q = omega_q @ X
    K = omega_k @ X
    V = omega_v @ X
    attentions = _softmax_cols(K.T @ Q)
    return V @ attentions, attentions


@entry("ps1_self_attention", wrong="value bias forgotten")
def self_attention_no_value_bias(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Adds beta_q and beta_k but not beta_v."""
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = omega_v @ X
    attentions = _softmax_cols(K.T @ Q)
    return V @ attentions, attentions


@entry("ps1_self_attention", wrong="hard-coded", says=("fresh", "globals"))
def self_attention_bias_tiled_with_global_N(X, omega_v, omega_q, omega_k, beta_v, beta_q,
                                            beta_k):
    """Broadcasts the biases by tiling them N times, N being the notebook's global."""
    ones = np.ones((1, N))
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    attentions = _softmax_cols(K.T @ Q)
    return V @ attentions, attentions


@entry("ps1_self_attention", wrong="weighted sum of inputs")
def self_attention_weights_X(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """X @ attentions instead of V @ attentions."""
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    attentions = _softmax_cols(K.T @ Q)
    return X @ attentions, attentions


@entry("ps1_self_attention", wrong="scaled")
def self_attention_scaled_too_early(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Already divides by sqrt(D_q) in the unscaled part."""
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = _softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
    return V @ attentions, attentions


# ---------------------------------------------------------------- 4. scaled


def _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    return beta_q + omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X


@entry("ps1_scaled_attention")
def scaled_float32(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Everything in float32 (as on a GPU)."""
    X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k = (
        np.asarray(a, dtype=np.float32)
        for a in (X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k))
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    scores = K.T @ Q / np.float32(np.sqrt(Q.shape[0]))
    attentions = _softmax_cols(scores)
    return V @ attentions, attentions


@entry("ps1_scaled_attention")
def scaled_column_loop(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """One output column at a time, with scipy's softmax."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    D_q, n_tokens = Q.shape
    attentions = np.zeros((n_tokens, n_tokens))
    for n in range(n_tokens):
        attentions[:, n] = scipy.special.softmax(K.T @ Q[:, n] / math.sqrt(D_q))
    return V @ attentions, attentions


@entry("ps1_scaled_attention", wrong="no scaling")
def scaled_forgot_to_scale(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """The unscaled function, copied."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    attentions = _softmax_cols(K.T @ Q)
    return V @ attentions, attentions


@entry("ps1_scaled_attention", wrong="scale sqrt(D)", says=("sqrt(5)", "sqrt(2)"))
def scaled_by_input_size(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Divides by sqrt(D), the rows of X."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    attentions = _softmax_cols(K.T @ Q / np.sqrt(X.shape[0]))
    return V @ attentions, attentions


@entry("ps1_scaled_attention", wrong="scale sqrt(D); one maximum for the whole matrix",
       says=("two mistakes", "sqrt(D)", "underflows"))
def scaled_by_input_size_one_max(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Two mistakes: sqrt(D) and a softmax shifted by the matrix's single maximum."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    scores = K.T @ Q / np.sqrt(X.shape[0])
    e = np.exp(scores - np.max(scores))
    attentions = e / np.sum(e, axis=0, keepdims=True)
    return V @ attentions, attentions


@entry("ps1_scaled_attention", wrong="scale D")
def scaled_by_D(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Divides by D without the square root."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    attentions = _softmax_cols(K.T @ Q / X.shape[0])
    return V @ attentions, attentions


@entry("ps1_scaled_attention", wrong="no square root")
def scaled_by_Dq(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Divides by D_q without the square root."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    attentions = _softmax_cols(K.T @ Q / Q.shape[0])
    return V @ attentions, attentions


@entry("ps1_scaled_attention", wrong="scale sqrt(N)", says=("Q.shape[0]",))
def scaled_by_number_of_tokens(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """np.sqrt(K.shape[1]): the number of tokens, not the query size."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    attentions = _softmax_cols(K.T @ Q / np.sqrt(K.shape[1]))
    return V @ attentions, attentions


@entry("ps1_scaled_attention", wrong="scale fixed at 2")
def scaled_by_two(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """sqrt(4) = 2 worked out by hand for the notebook's data."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    attentions = _softmax_cols(K.T @ Q / 2)
    return V @ attentions, attentions


@entry("ps1_scaled_attention", wrong="scale fixed at 4", says=("no square root", "global"))
def scaled_by_notebook_D(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Divides by the notebook's D = 4, without the square root."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    attentions = _softmax_cols(K.T @ Q / 4)
    return V @ attentions, attentions


@entry("ps1_scaled_attention", wrong="scaled after softmax")
def scaled_after_softmax(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Softmax first, then divides the weights by sqrt(D_q)."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    attentions = _softmax_cols(K.T @ Q) / np.sqrt(Q.shape[0])
    return V @ attentions, attentions


@entry("ps1_scaled_attention", wrong="unstable softmax", says=("nan",))
def scaled_textbook_softmax(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """exp / sum exp without the shift: nan on large logits."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    exps = np.exp(K.T @ Q / np.sqrt(Q.shape[0]))
    attentions = exps / exps.sum(axis=0)
    return V @ attentions, attentions


@entry("ps1_scaled_attention", wrong="wrong weight matrix", says=("values", "omega_k"))
def scaled_values_from_omega_k(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """V = beta_v + omega_k X: one letter not changed in a copied line."""
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_k @ X
    attentions = _softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
    return V @ attentions, attentions


# ---------------------------------------------------------------- 5. equivariance


@entry("ps1_equivariance")
def check_equivariance_matrix(f, X, perm):
    """With a permutation matrix P: f(X P) against f(X) P."""
    P = np.eye(X.shape[1])[:, perm]
    return bool(np.allclose(f(X @ P), f(X) @ P))


@entry("ps1_equivariance", wrong="inverse permutation", says=("np.argsort(perm)",))
def check_equivariance_inverse(f, X, perm):
    """Undoes the permutation on the output side: f(X)[:, argsort(perm)]."""
    inverse = np.argsort(perm)
    return np.allclose(f(X[:, perm]), f(X)[:, inverse])


@entry("ps1_equivariance", wrong="one side not permuted")
def check_equivariance_one_side(f, X, perm):
    """Compares f(X[:, perm]) with f(X): the output is never permuted."""
    return bool(np.allclose(f(X[:, perm]), f(X)))


# ---------------------------------------------------------------- softmax slips, loops, tolerances


@entry("ps1_softmax", wrong="denominator not shifted", says=("unshifted",))
def softmax_numerator_shifted(items_in):
    """The maximum subtracted above the fraction bar only."""
    z = np.asarray(items_in, dtype=float).ravel()
    return np.exp(z - z.max()) / np.exp(z).sum()


@entry("ps1_softmax", wrong="clipped instead of shifted", says=("np.clip",))
def softmax_clipped(items_in):
    """Clips the scores to [-700, 700] so np.exp stays finite."""
    items = np.clip(np.ravel(np.asarray(items_in, dtype=float)), -700, 700)
    exps = np.exp(items)
    return exps / np.sum(exps)


@entry("ps1_softmax", wrong="overflow hidden by nan_to_num", says=("nan_to_num",))
def softmax_nan_to_num(items_in):
    """The unshifted exp, inf and nan replaced afterwards."""
    with np.errstate(all="ignore"):
        e = np.exp(np.asarray(items_in, dtype=float))
        return np.nan_to_num(e / e.sum())


@entry("ps1_softmax_cols", wrong="denominator not shifted", says=("unshifted",))
def softmax_cols_numerator_shifted(data_in):
    """Column maxima in the numerator, the raw exponentials below."""
    with np.errstate(all="ignore"):
        return (np.exp(data_in - data_in.max(axis=0))
                / np.exp(data_in).sum(axis=0, keepdims=True))


@entry("ps1_softmax_cols", wrong="clipped instead of shifted", says=("np.clip",))
def softmax_cols_clipped(data_in):
    """Clipped scores, column sums."""
    e = np.exp(np.clip(data_in, -700, 700))
    return e / e.sum(axis=0)


@entry("ps1_softmax_cols", wrong="overflow hidden by nan_to_num", says=("nan_to_num",))
def softmax_cols_nan_to_num(data_in):
    """The unshifted exp per column, inf and nan zeroed."""
    with np.errstate(all="ignore"):
        e = np.exp(data_in)
        return np.nan_to_num(e / e.sum(axis=0, keepdims=True))


@entry("ps1_self_attention_loop", wrong="outputs alias one array", says=("same array",))
def self_attention_loop_reused_buffer(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """One output array zeroed and refilled for every token, appended each time."""
    keys = [beta_k + omega_k @ x for x in all_x]
    values = [beta_v + omega_v @ x for x in all_x]
    out = []
    x_prime = np.zeros_like(values[0])
    for x in all_x:
        q = beta_q + omega_q @ x
        s = np.array([(k.T @ q).item() for k in keys])
        a = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
        x_prime[:] = 0
        for a_m, v_m in zip(a, values):
            x_prime += a_m * v_m
        out.append(x_prime)
    return out


@entry("ps1_equivariance", wrong="exact comparison", says=("np.allclose",))
def check_equivariance_exact(f, X, perm):
    """np.array_equal: no float tolerance."""
    return bool(np.array_equal(f(X[:, perm]), f(X)[:, perm]))


@entry("ps1_equivariance", wrong="fixed absolute tolerance", says=("absolute tolerance",))
def check_equivariance_absolute(f, X, perm):
    """The largest difference against a fixed 1e-12."""
    difference = f(X[:, perm]) - f(X)[:, perm]
    return bool(np.max(np.abs(difference)) < 1e-12)


# ---------------------------------------------------------------- blind class 4's families


@entry("ps1_softmax_cols", wrong="each row's maximum subtracted", says=("each row's maximum",))
def softmax_cols_row_shift(data_in):
    """Shifts by each row's maximum (axis=1, keepdims), then normalises the columns."""
    z = np.asarray(data_in, dtype=float)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


@entry("ps1_self_attention", wrong="attention returned transposed", says=("transposed",))
def self_attention_rows_of_weights(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Returns the weights with one row per output (attentions.T), easier to read."""
    Q, K, V = beta_q + omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X
    attentions = _softmax_cols(K.T @ Q)
    return V @ attentions, attentions.T


@entry("ps1_scaled_attention", wrong="attention returned transposed", says=("transposed",))
def scaled_rows_of_weights(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Scaled right, but returns attentions.T."""
    Q, K, V = beta_q + omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X
    attentions = _softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
    return V @ attentions, attentions.T


@entry("ps1_scaled_attention", wrong="size ** 1/2 as size / 2", says=("D_q / 2",))
def scaled_by_half_size(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """S / (D_q ** 1/2): S / (D_q / 2), the square root only for D_q = 4."""
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    attentions = _softmax_cols(K.T @ Q / (Q.shape[0] ** 1/2))
    return V @ attentions, attentions


@entry("ps1_scaled_attention", wrong="size ** 1/2 precedence", says=("binds tighter",))
def scaled_precedence(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """S / D_q ** 1/2: (S / D_q) / 2."""
    Q, K, V = beta_q + omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X
    attentions = _softmax_cols(K.T @ Q / Q.shape[0] ** 1/2)
    return V @ attentions, attentions


@entry("ps1_equivariance", wrong="signed differences summed", says=("cancel",))
def check_equivariance_signed_sum(f, X, perm):
    """Sums the signed differences, then takes the absolute value."""
    return abs(np.sum(f(X[:, perm]) - f(X)[:, perm])) < 1e-8


@entry("ps1_equivariance", wrong="first column only", says=("every column",))
def check_equivariance_first_column(f, X, perm):
    """Compares the first output token only."""
    return bool(np.allclose(f(X[:, perm])[:, 0], f(X)[:, perm[0]]))


# ---------------------------------------------------------------- biases, ranges, tolerances


@entry("ps1_softmax", wrong="largest absolute value subtracted", says=("np.abs",))
def softmax_abs_shift(items_in):
    """Shifts by max |z|: large negative scores push every exponent below -745."""
    z = np.asarray(items_in, dtype=float)
    e = np.exp(z - np.max(np.abs(z)))
    return e / e.sum()


@entry("ps1_self_attention_loop", wrong="wrong bias", says=("beta_q",))
def self_attention_loop_key_bias_on_queries(all_x, omega_v, omega_q, omega_k, beta_v, beta_q,
                                            beta_k):
    """The query line copied from the key line: beta_k added to the queries."""
    queries = [omega_q @ x + beta_k for x in all_x]
    keys = [omega_k @ x + beta_k for x in all_x]
    values = [omega_v @ x + beta_v for x in all_x]
    outputs = []
    for q in queries:
        scores = np.array([(k.T @ q).item() for k in keys])
        w = np.exp(scores - scores.max())
        w = w / w.sum()
        outputs.append(sum(w[m] * values[m] for m in range(len(values))))
    return outputs


@entry("ps1_self_attention_loop", wrong="last value left out", says=("range(N)",))
def self_attention_loop_short_sum(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """The weighted sum over range(N - 1): the last value never added."""
    N = len(all_x)
    queries = [omega_q @ x + beta_q for x in all_x]
    keys = [omega_k @ x + beta_k for x in all_x]
    values = [omega_v @ x + beta_v for x in all_x]
    outputs = []
    for n in range(N):
        scores = np.array([(keys[m].T @ queries[n]).item() for m in range(N)])
        w = np.exp(scores - scores.max())
        w = w / w.sum()
        x_prime = np.zeros_like(values[0])
        for m in range(N - 1):
            x_prime = x_prime + w[m] * values[m]
        outputs.append(x_prime)
    return outputs


@entry("ps1_self_attention_loop", wrong="first value left out", says=("range(N)",))
def self_attention_loop_sum_from_one(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """The weighted sum over range(1, N), tokens counted from 1."""
    N = len(all_x)
    queries = [omega_q @ x + beta_q for x in all_x]
    keys = [omega_k @ x + beta_k for x in all_x]
    values = [omega_v @ x + beta_v for x in all_x]
    outputs = []
    for n in range(N):
        scores = np.array([(keys[m].T @ queries[n]).item() for m in range(N)])
        w = np.exp(scores - scores.max())
        w = w / w.sum()
        outputs.append(sum(w[m] * values[m] for m in range(1, N)))
    return outputs


@entry("ps1_self_attention", wrong="bias added as a row", says=("column",))
def self_attention_bias_rows(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Every bias transposed to a row before adding: ValueError unless D_q = N."""
    Q = omega_q @ X + beta_q.T
    K = omega_k @ X + beta_k.T
    V = omega_v @ X + beta_v.T
    attentions = _softmax_cols(K.T @ Q)
    return V @ attentions, attentions


@entry("ps1_scaled_attention", wrong="unscaled attention returned", says=("unscaled",))
def scaled_returns_unscaled_weights(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """X' from the scaled weights, then the weights recomputed without the scale."""
    Q, K, V = beta_q + omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X
    X_prime = V @ _softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
    return X_prime, _softmax_cols(K.T @ Q)


@entry("ps1_equivariance", wrong="tolerance too loose", says=("too loose",))
def check_equivariance_loose(f, X, perm):
    """np.allclose with atol=1e-3, "to be safe"."""
    return bool(np.allclose(f(X[:, perm]), f(X)[:, perm], atol=1e-3))


@entry("ps1_self_attention", wrong="projection transposed", says=("transposed",))
def self_attention_values_transposed(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """omega_v.T @ X for the values (the D x D matrices hide it)."""
    Q, K = beta_q + omega_q @ X, beta_k + omega_k @ X
    V = beta_v + omega_v.T @ X
    attentions = _softmax_cols(K.T @ Q)
    return V @ attentions, attentions


# ------------------------------------------------------------------ the query's bias left out


@entry("ps1_self_attention_loop", wrong="query bias forgotten", says=("beta_q",))
def self_attention_loop_no_query_bias(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Queries omega_q @ x without beta_q."""
    queries = [omega_q @ x for x in all_x]
    keys = [beta_k + omega_k @ x for x in all_x]
    values = [beta_v + omega_v @ x for x in all_x]
    outputs = []
    for q in queries:
        scores = np.array([(k.T @ q).item() for k in keys])
        weights = np.exp(scores - scores.max())
        outputs.append(sum(w * v for w, v in zip(weights / weights.sum(), values)))
    return outputs


@entry("ps1_self_attention", wrong="query bias forgotten", says=("beta_q",))
def self_attention_no_query_bias(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Q = omega_q @ X: the query's bias left out."""
    Q, K, V = omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X
    attentions = _softmax_cols(K.T @ Q)
    return V @ attentions, attentions


@entry("ps1_scaled_attention", wrong="query bias forgotten", says=("beta_q",))
def scaled_no_query_bias(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Q = omega_q @ X: the query's bias left out."""
    Q, K, V = omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X
    attentions = _softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
    return V @ attentions, attentions


@entry("ps1_equivariance", wrong="output rows permuted", says=("f(X)[perm]",))
def check_equivariance_rows(f, X, perm):
    """Permutes the rows of the output, f(X)[perm], not its columns."""
    return bool(np.allclose(f(X[:, perm]), f(X)[perm]))


@entry("ps1_softmax", wrong="maximum started at 0", says=("starts at 0",))
def softmax_running_max_from_zero(items_in):
    """A running maximum that starts at 0: all-negative scores are not shifted at all."""
    top = 0.0
    for s in items_in:
        top = max(top, s)
    exps = [math.exp(s - top) if s - top > -745 else 0.0 for s in items_in]
    total = sum(exps)
    return np.array([e / total if total else np.nan for e in exps])


@entry("ps1_self_attention_loop", wrong="bias inside the product", says=("Omega (x + beta)",))
def self_attention_loop_bias_inside(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Each projection omega @ (x + beta): the bias added before multiplying."""
    queries = [omega_q @ (x + beta_q) for x in all_x]
    keys = [omega_k @ (x + beta_k) for x in all_x]
    values = [omega_v @ (x + beta_v) for x in all_x]
    outputs = []
    for q in queries:
        scores = np.array([(k.T @ q).item() for k in keys])
        weights = np.exp(scores - scores.max())
        outputs.append(sum(w * v for w, v in zip(weights / weights.sum(), values)))
    return outputs


def _projections(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """A helper of the student's own that returns the projections in the order v, q, k."""
    return beta_q + omega_q @ X, beta_v + omega_v @ X, beta_k + omega_k @ X


@entry("ps1_self_attention", wrong="keys and values swapped", says=("omega_v and beta_v",))
def self_attention_keys_values_exchanged(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Unpacks a helper's (Q, V, K) as Q, K, V: keys and values exchanged."""
    Q, K, V = _projections(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    attentions = _softmax_cols(K.T @ Q)
    return V @ attentions, attentions


@entry("ps1_self_attention", wrong="value bias forgotten; values times transposed weights",
       says=("two mistakes", "beta_v", "V @ A.T"))
def self_attention_no_value_bias_transposed(X, omega_v, omega_q, omega_k, beta_v, beta_q,
                                            beta_k):
    """V = omega_v @ X without its bias, and X' = V @ attentions.T."""
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = omega_v @ X
    attentions = _softmax_cols(K.T @ Q)
    return V @ attentions.T, attentions


@entry("ps1_softmax_cols", wrong="loop over the rows' count", says=("range(n_rows)",))
def softmax_cols_loop_over_row_count(data_in):
    """One pass per column, but counted with the number of rows."""
    n_rows, n_cols = data_in.shape
    softmax_out = np.zeros((n_rows, n_cols))
    for n in range(n_rows):
        column = np.exp(data_in[:, n] - np.max(data_in[:, n]))
        softmax_out[:, n] = column / np.sum(column)
    return softmax_out

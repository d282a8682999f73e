"""Problem set 4 (the encoder-decoder worksheet, tokens in rows) as students write it."""

# ruff: noqa: B905 - student code, written the way students write it

import numpy as np
import scipy.special

from attnkit.dev.validate import entry, values

# The notebook's globals (cell ps4_data), as the student's later cells see them.
h_e = np.array([[0.64, -0.27, 0.89, -0.12],
                [-0.45, 0.33, 0.71, 0.08],
                [0.19, -0.94, 0.56, 0.37],
                [0.03, 0.85, -0.41, 0.76]])
n = h_e.shape[1]


# ---------------------------------------------------------------- scores


@entry("ps4_get_scores")
def get_scores_loop(matrix, vector):
    """np.dot row by row."""
    return np.array([np.dot(row, vector) for row in matrix])


@entry("ps4_get_scores")
def get_scores_einsum(matrix, vector):
    """einsum over the feature axis."""
    return np.einsum("td,d->t", matrix, vector)


@entry("ps4_get_scores", wrong="elementwise product", says=("matrix @ vector",))
def get_scores_elementwise(matrix, vector):
    """matrix * vector: no sum."""
    return matrix * vector


@entry("ps4_get_scores", wrong="scores as a column", says=("1-D array",))
def get_scores_column(matrix, vector):
    """The vector reshaped to a column: right scores, shape (T, 1)."""
    return matrix @ vector.reshape(-1, 1)


@entry("ps4_get_scores", wrong="matrix transposed")
def get_scores_vector_first(matrix, vector):
    """vector @ matrix: the columns combined (runs only on square data)."""
    return vector @ matrix


# ---------------------------------------------------------------- scale


@entry("ps4_scale_scores")
def scale_scores_power(scores, n):
    """scores * n ** -0.5."""
    return np.array(scores) * n ** -0.5


@entry("ps4_scale_scores", wrong="arguments overwritten", says=("overwrote the argument",))
def scale_scores_in_place(scores, n):
    """scores /= np.sqrt(n): the caller's scores are scaled too."""
    scores /= np.sqrt(n)
    return scores


@entry("ps4_scale_scores", wrong="no square root", says=("sqrt(4) = 2",))
def scale_scores_by_n(scores, n):
    """Divides by n."""
    return scores / n


@entry("ps4_scale_scores", wrong="divided by 2n", says=("binds tighter",))
def scale_scores_precedence(scores, n):
    """scores / n**1/2: (scores / n) / 2."""
    return scores / n**1/2


@entry("ps4_scale_scores", wrong="scale fixed at 2", says=("n = 9",))
def scale_scores_by_two(scores, n):
    """Divides by 2 = sqrt(4), the worksheet's value."""
    return scores / 2


# ---------------------------------------------------------------- weights


@entry("ps4_attention_weights", wrong="scipy used", says=("numpy only",))
def get_attention_weights_scipy(scores):
    """scipy.special.softmax."""
    return scipy.special.softmax(scores)


@entry("ps4_attention_weights", wrong="scipy used", says=("numpy only",))
def get_attention_weights_scipy_inside(scores):
    """scipy imported inside the function."""
    from scipy.special import softmax as scipy_softmax
    return scipy_softmax(np.asarray(scores))


@entry("ps4_attention_weights", wrong="no max subtraction", says=("overflows",))
def get_attention_weights_textbook(scores):
    """np.exp(scores) / np.sum(np.exp(scores))."""
    return np.exp(scores) / np.sum(np.exp(scores))


# ---------------------------------------------------------------- context vector


@entry("ps4_context_vector")
def get_context_vector_broadcast_column(attention_weights, hidden_encoder_matrix):
    """Weights as a column, broadcast over the rows, summed over tokens."""
    return np.sum(attention_weights[:, np.newaxis] * hidden_encoder_matrix, axis=0)


@entry("ps4_context_vector")
def get_context_vector_transposed(attention_weights, hidden_encoder_matrix):
    """H^T alpha."""
    return hidden_encoder_matrix.T @ attention_weights


@entry("ps4_context_vector")
def get_context_vector_loop(attention_weights, hidden_encoder_matrix):
    """sum_j alpha_j h_j, literally."""
    context = np.zeros(hidden_encoder_matrix.shape[1])
    for alpha, h in zip(attention_weights, hidden_encoder_matrix):
        context += alpha * h
    return context


@entry("ps4_context_vector", wrong="broadcast instead of weighted sum",
       says=("attention_weights @ hidden_encoder_matrix",))
def get_context_vector_worksheet(attention_weights, hidden_encoder_matrix):
    """The worksheet's own code: sum(attention_weights * h)."""
    return sum(attention_weights * hidden_encoder_matrix)


@entry("ps4_context_vector", wrong="hard-coded")
def get_context_vector_global(attention_weights, hidden_encoder_matrix):
    """Uses the notebook's h_e instead of the argument."""
    return attention_weights @ h_e


@entry("ps4_context_vector", wrong="summed to a number")
def get_context_vector_total(attention_weights, hidden_encoder_matrix):
    """np.sum without an axis."""
    return np.sum(attention_weights.reshape(-1, 1) * hidden_encoder_matrix)


@entry("ps4_context_vector", wrong="rows weighted, not summed")
def get_context_vector_unsummed(attention_weights, hidden_encoder_matrix):
    """Weights each row, forgets to add them."""
    return attention_weights[:, None] * hidden_encoder_matrix


@entry("ps4_context_vector", wrong="weighted states summed within each state",
       says=("axis 1", "axis=0"))
def get_context_vector_summed_within_states(attention_weights, hidden_encoder_matrix):
    """Weights each row, then adds along axis 1 (inside each state)."""
    return (attention_weights[:, None] * hidden_encoder_matrix).sum(axis=1)


# ---------------------------------------------------------------- one query


def _softmax(s):
    e = np.exp(s - np.max(s))
    return e / e.sum()


@entry("ps4_single_query")
def single_query_attention_loops(query_token, tokens, W_Q, W_K, W_V):
    """One key and one value per token in a loop."""
    q = query_token @ W_Q
    scores, values_ = [], []
    for token in tokens:
        k = token @ W_K
        scores.append(np.dot(q, k) / np.sqrt(len(k)))
        values_.append(token @ W_V)
    weights = _softmax(np.array(scores))
    return weights, sum(w * v for w, v in zip(weights, values_))


@entry("ps4_single_query", wrong="results not 1-D", says=("section 5", "1-D"))
def single_query_attention_row_matrix(query_token, tokens, W_Q, W_K, W_V):
    """The worksheet's 1 x d query (np.expand_dims): 1 x T weights, 1 x d_v output."""
    Q = np.expand_dims(query_token, axis=0) @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    scores = Q @ K.T / np.sqrt(K.shape[1])
    weights = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
    return weights, weights @ V


@entry("ps4_single_query", wrong="no scaling", says=("sqrt(d_k)",))
def single_query_attention_unscaled(query_token, tokens, W_Q, W_K, W_V):
    """Forgets eq. 6's scale."""
    q, K, V = query_token @ W_Q, tokens @ W_K, tokens @ W_V
    weights = _softmax(K @ q)
    return weights, weights @ V


@entry("ps4_single_query", wrong="scale sqrt(D)", says=("sqrt(d_k)",))
def single_query_attention_token_size(query_token, tokens, W_Q, W_K, W_V):
    """Divides by sqrt(len(query_token)), the token size."""
    q, K, V = query_token @ W_Q, tokens @ W_K, tokens @ W_V
    weights = _softmax(K @ q / np.sqrt(len(query_token)))
    return weights, weights @ V


@entry("ps4_single_query", wrong="no square root")
def single_query_attention_divided_by_dk(query_token, tokens, W_Q, W_K, W_V):
    """Divides by d_k itself."""
    q, K, V = query_token @ W_Q, tokens @ W_K, tokens @ W_V
    weights = _softmax(K @ q / K.shape[1])
    return weights, weights @ V


@entry("ps4_single_query", wrong="weighted sum of inputs")
def single_query_attention_sums_tokens(query_token, tokens, W_Q, W_K, W_V):
    """Weights the tokens instead of the values."""
    q, K = query_token @ W_Q, tokens @ W_K
    weights = _softmax(K @ q / np.sqrt(K.shape[1]))
    return weights, weights @ tokens


@entry("ps4_single_query", wrong="scale sqrt(N); weighted sum of inputs",
       says=("two mistakes", "number of tokens", "weighted sum of the tokens"))
def single_query_attention_sqrt_T_and_tokens(query_token, tokens, W_Q, W_K, W_V):
    """Scaled by the number of tokens, and the tokens weighted instead of the values."""
    q, K = query_token @ W_Q, tokens @ W_K
    weights = _softmax(K @ q / np.sqrt(K.shape[0]))
    return weights, weights @ tokens


@entry("ps4_single_query", wrong="wrong weight matrix", says=("keys", "W_Q"))
def single_query_attention_keys_from_WQ(query_token, tokens, W_Q, W_K, W_V):
    """K = tokens @ W_Q: a copied line."""
    q, K, V = query_token @ W_Q, tokens @ W_Q, tokens @ W_V
    weights = _softmax(K @ q / np.sqrt(K.shape[1]))
    return weights, weights @ V


@entry("ps4_single_query", wrong="unstable softmax")
def single_query_attention_textbook_softmax(query_token, tokens, W_Q, W_K, W_V):
    """exp / sum exp without the shift."""
    q, K, V = query_token @ W_Q, tokens @ W_K, tokens @ W_V
    e = np.exp(K @ q / np.sqrt(K.shape[1]))
    weights = e / e.sum()
    return weights, weights @ V


# ---------------------------------------------------------------- heads


@entry("ps4_split_heads")
def split_heads_slices(W, n):
    """Consecutive column slices."""
    size = W.shape[1] // n
    return [W[:, i * size:(i + 1) * size] for i in range(n)]


@entry("ps4_split_heads")
def split_heads_hsplit(W, n):
    """np.hsplit."""
    return np.hsplit(W, n)


@entry("ps4_split_heads", wrong="blocks not a list", says=("a list of the",))
def split_heads_reshape_transpose(W, n):
    """reshape to (rows, n, d/n), then move the head axis first: an n x rows x d/n array."""
    return W.reshape(W.shape[0], n, -1).transpose(1, 0, 2)


@entry("ps4_split_heads", wrong="reshape without transpose", says=("consecutive columns",))
def split_heads_reshape(W, n):
    """W.reshape(n, rows, -1): reads W row by row."""
    return list(W.reshape(n, W.shape[0], -1))


@entry("ps4_split_heads", wrong="split along rows")
def split_heads_default_axis(W, n):
    """np.split(W, n): axis 0 by default."""
    return np.split(W, n)


@entry("ps4_split_heads", wrong="strided columns")
def split_heads_strided(W, n):
    """Every n-th column."""
    return [W[:, i::n] for i in range(n)]


@entry("ps4_split_heads", wrong="blocks counted by their width", says=("range(h)",))
def split_heads_range_of_width(W, n):
    """range(d) with d the block width: the right number of blocks only when d = n."""
    d = W.shape[1] // n
    return [W[:, i * d:(i + 1) * d] for i in range(d)]


# ---------------------------------------------------------------- shapes

DIMENSIONS_RIGHT = values("ps4_dimensions", (4, 2), (3, 4), (4, 4), name="dimensions_right",
                          about="d_model x d_k, T x h d_v, h d_v x d_model")
DIMENSIONS_WORKSHEET = values(
    "ps4_dimensions", (4, 4), (4, 4), (4, 4), name="dimensions_worksheet_first_answer",
    wrong="head weights = full matrix; concatenated weights",
    about="The worksheet's first answers: the unsplit W^Q and the weight blocks side by side")
DIMENSIONS_HEAD_OUTPUT = values(
    "ps4_dimensions", (3, 2), (3, 4), (4, 4), name="dimensions_head_output",
    wrong="head weights = head output", about="One head's output shape for W^Q_i")
DIMENSIONS_TRANSPOSED = values(
    "ps4_dimensions", (2, 4), (3, 4), (4, 4), name="dimensions_transposed",
    wrong="head weights transposed", about="d_k x d_model for W^Q_i")
DIMENSIONS_STACKED = values(
    "ps4_dimensions", (4, 2), (6, 2), (4, 4), name="dimensions_stacked_heads",
    wrong="heads stacked vertically", about="Concat read as stacking the heads' rows")
DIMENSIONS_ONE_HEAD = values(
    "ps4_dimensions", (4, 2), (3, 2), (4, 4), name="dimensions_concat_one_head",
    wrong="concatenation = one head", about="One head's output shape given for Concat")
DIMENSIONS_OUTPUT = values(
    "ps4_dimensions", (4, 2), (3, 4), (3, 4), name="dimensions_W_O_as_output",
    wrong="W^O = output shape", about="The layer's output shape given for W^O")
DIMENSIONS_FLOAT = values(
    "ps4_dimensions", (4, 4 / 2), (4, 4), (4, 4), name="dimensions_float_and_weight_blocks",
    wrong="shape not ints; concatenated weights", says=("2.0", "two ints", "weight blocks"),
    about="d_model / h (a float) for d_k, and the weight blocks side by side for Concat")
DIMENSIONS_ONE_HEAD_W_O = values(
    "ps4_dimensions", (4, 2), (3, 4), (2, 4), name="dimensions_W_O_from_one_head",
    wrong="W^O from one head", about="One head's d_v rows for W^O")


# ---------------------------------------------------------------- slips seen in blind classes


@entry("ps4_attention_weights", wrong="centred on the mean", says=("mean",))
def get_attention_weights_mean_centred(scores):
    """Centres the scores on their mean: widely spread large scores still overflow."""
    e = np.exp(scores - np.mean(scores))
    return e / e.sum()


@entry("ps4_attention_weights", wrong="denominator not shifted", says=("unshifted",))
def get_attention_weights_numerator_shifted(scores):
    """Shifted numerator over the raw exponentials."""
    with np.errstate(all="ignore"):
        return np.exp(scores - np.max(scores)) / np.sum(np.exp(scores))


@entry("ps4_attention_weights", wrong="clipped instead of shifted", says=("np.clip",))
def get_attention_weights_clipped(scores):
    """Clipped to [-700, 700]."""
    e = np.exp(np.clip(scores, -700, 700))
    return e / e.sum()


@entry("ps4_attention_weights", wrong="overflow hidden by nan_to_num", says=("nan_to_num",))
def get_attention_weights_nan_to_num(scores):
    """Unshifted exp, overflow hidden."""
    with np.errstate(over="ignore", invalid="ignore"):
        exps = np.exp(scores)
        weights = exps / np.sum(exps)
    return np.nan_to_num(weights)


@entry("ps4_context_vector", wrong="operands swapped", says=("attention_weights @",))
def get_context_vector_matrix_first(attention_weights, hidden_encoder_matrix):
    """H @ alpha: the weights scale the features."""
    return hidden_encoder_matrix @ attention_weights


@entry("ps4_scale_scores", wrong="divided by n/2", says=("n ** 0.5",))
def scale_scores_precedence_bracketed(scores, n):
    """n ** 1/2 is (n ** 1) / 2."""
    return scores / (n ** 1/2)


@entry("ps4_split_heads", wrong="split into cols/h pieces", says=("np.hsplit(W, h)",))
def split_heads_hsplit_width(W, h):
    """np.hsplit with the block width where the number of pieces goes."""
    return np.hsplit(W, W.shape[1] // h)


# ---------------------------------------------------------------- blind class 4's families


@entry("ps4_scale_scores", wrong="divided by the number of scores", says=("len(scores)",))
def scale_scores_by_count(scores, n):
    """sqrt(len(scores)): the number of scores, not n."""
    return np.asarray(scores) / np.sqrt(len(scores))


@entry("ps4_single_query", wrong="scale sqrt(d_v)", says=("d_v",))
def single_query_attention_value_size(query_token, tokens, W_Q, W_K, W_V):
    """Scales by d_v = V.shape[-1]."""
    q, K, V = query_token @ W_Q, tokens @ W_K, tokens @ W_V
    weights = _softmax(K @ q / np.sqrt(V.shape[-1]))
    return weights, weights @ V


@entry("ps4_split_heads", wrong="block width h", says=("width",))
def split_heads_width_h(W, h):
    """Uses h as the block width."""
    return [W[:, i * h:(i + 1) * h] for i in range(h)]


DIMENSIONS_TOKENS_IN_COLUMNS = values(
    "ps4_dimensions", (4, 2), (4, 3), (4, 4), name="dimensions_tokens_in_columns",
    wrong="tokens in columns", says=("tokens in columns",))


@entry("ps4_attention_weights", wrong="smallest score subtracted", says=("smallest score",))
def get_attention_weights_min_shift(scores):
    """Shifts so the smallest score is 0: overflows once the scores spread over 709."""
    e = np.exp(np.asarray(scores) - np.min(scores))
    return e / e.sum()


@entry("ps4_attention_weights", wrong="first score subtracted", says=("scores[0]",))
def get_attention_weights_first_shift(scores):
    """Shifts by the first score, as if it were the largest."""
    scores = np.asarray(scores, dtype=float)
    e = np.exp(scores - scores[0])
    return e / e.sum()


@entry("ps4_split_heads", wrong="split along rows", says=("consecutive rows",))
def split_heads_row_slices(W, h):
    """Slices rows, W[i*k:(i+1)*k, :], with k = rows / h."""
    k = W.shape[0] // h
    return [W[i * k:(i + 1) * k, :] for i in range(h)]


@entry("ps4_get_scores", wrong="last product left out", says=("range(len(vector))",))
def get_scores_loop_stops_early(matrix, vector):
    """Nested loops whose inner range stops one short: the last product is dropped."""
    scores = np.zeros(matrix.shape[0])
    for j in range(matrix.shape[0]):
        for k in range(len(vector) - 1):
            scores[j] += matrix[j, k] * vector[k]
    return scores


@entry("ps4_get_scores", wrong="first product left out", says=("k = 0",))
def get_scores_loop_from_one(matrix, vector):
    """An inner loop from 1 (counting as in the formulas): the first product is dropped."""
    scores = []
    for row in matrix:
        total = 0.0
        for k in range(1, len(vector)):
            total += row[k] * vector[k]
        scores.append(total)
    return np.array(scores)


@entry("ps4_context_vector", wrong="summed over the features", says=("axis 0",))
def get_context_vector_along_rows(attention_weights, hidden_encoder_matrix):
    """np.apply_along_axis along axis 1: the weights dotted with each state's features."""
    return np.apply_along_axis(lambda row: np.dot(attention_weights, row), 1,
                               hidden_encoder_matrix)


@entry("ps4_context_vector", wrong="context sized by the tokens", says=("np.zeros(d)",))
def get_context_vector_sized_by_states(attention_weights, hidden_encoder_matrix):
    """Accumulates the weighted states into np.zeros(T): one entry per state, not feature."""
    context = np.zeros(hidden_encoder_matrix.shape[0])
    for j in range(hidden_encoder_matrix.shape[0]):
        context += attention_weights[j] * hidden_encoder_matrix[j, :]
    return context


@entry("ps4_single_query", wrong="keys and values swapped", says=("W_V",))
def single_query_attention_keys_values_exchanged(query_token, tokens, W_Q, W_K, W_V):
    """Unpacks the projections as q, V, K: the keys come from W_V, the values from W_K."""
    q, V, K = query_token @ W_Q, tokens @ W_K, tokens @ W_V
    scores = K @ q / np.sqrt(K.shape[1])
    weights = np.exp(scores - scores.max())
    weights = weights / weights.sum()
    return weights, weights @ V

"""Buggy students s5..s10: a correct base style plus labelled buggy cells."""
from base import S1
from styles import S2, S3, S4

PS = {1: "ps1_self_attention", 2: "ps2_multihead_attention", 3: "ps3_attention_layer",
      4: "ps4_encoder_decoder_attention", 5: "ps5_masked_attention"}

BASES = {"blind14_s5": S1, "blind14_s6": S2, "blind14_s7": S3,
         "blind14_s8": S4, "blind14_s9": S1, "blind14_s10": S2}

# each bug: student, ps number, cell, function, code, mistake, expect_pass, also_affects, test cell, expected error
BUGS = []
DIMS_FN = {"blind14_s6": "head_W_shape", "blind14_s10": "concat_shape"}  # ps4 cell defines variables, not a function


def bug(student, ps, cell, function, code, mistake, expect_pass, also_affects, test_cell, expected_error):
    BUGS.append(dict(student=student, ps=PS[ps], cell=cell, function=function, code=code,
                     mistake=mistake, expect_pass=expect_pass, also_affects=also_affects,
                     visible_test_cell=test_cell, visible_test_error=expected_error))


# ---------------------------------------------------------------- s5 (base S1)
s = "blind14_s5"
bug(s, 1, "ps1_softmax_code", "softmax", '''def softmax(items_in):
    z = np.asarray(items_in, dtype=float).ravel()
    e = np.exp(z - z.min())   # shift so the smallest exponent is 0
    return e / e.sum()
''', "Subtracts the smallest score instead of the largest before np.exp, so exponents can still be huge (scores [0, 1000, 1] give inf/inf = nan); it should subtract z.max().",
    False, ["self_attention_loop"], "ps1_softmax",
    "AssertionError: inf or nan for the scores [0, 1000, 1]: 1000 lies far above the smallest score, so only subtracting the largest score keeps every exponent <= 0")
bug(s, 1, "ps1_loop_code", "self_attention_loop", '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    all_queries = [beta_q + omega_q @ x for x in all_x]
    all_keys = [beta_k + omega_k @ x for x in all_x]
    all_values = [beta_v + omega_v @ x for x in all_x]
    all_x_prime = []
    for q in all_queries:
        scores = [(k.T @ q).item() for k in all_keys]
        a = softmax(scores)
        x_prime = sum(a_m * v.ravel() for a_m, v in zip(a, all_values))
        all_x_prime.append(x_prime)
    return all_x_prime
''', "Flattens the values, so every output is a 1-D array of shape (D,) instead of the required D x 1 column (D, 1); the values are right.",
    False, [], "ps1_self_attention_loop",
    "AssertionError: the values of output 0 are right, but it should be a D x 1 column, shape (4, 1); got shape (4,) (right values in another shape keep half the points)")
bug(s, 2, "ps2_single_head_code", "single_head_attention", '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(X.shape[0]))
''', "Scales the scores by sqrt(X.shape[0]) = sqrt(D) (the input size) instead of sqrt(D_q) = sqrt(Q.shape[0]), the size of one query of this head.",
    False, ["multihead_scaled_self_attention", "multihead_self_attention"], "ps2_single_head",
    "AssertionError: head 1 differs from the expected values printed above")
bug(s, 3, "ps3_layer_code", "SelfAttention.forward", '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.normal(0.0, 1.0, size=(dims, dims))
        self.W_k = np.random.normal(0.0, 1.0, size=(dims, dims))
        self.W_v = np.random.normal(0.0, 1.0, size=(dims, dims))
        self.W_o = np.random.normal(0.0, 1.0, size=(dims, dims))

    def forward(self, x):
        self.W_q = self.W_q / np.sqrt(self.dims)   # fold the 1/sqrt(dims) into the query weights
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        scores = Q @ K.T
        weights = softmax(scores)
        return (weights @ V) @ self.W_o
''', "Folds the 1/sqrt(dims) scaling into self.W_q by reassigning the attribute, so every call to forward shrinks W_q again and a second call on the same tokens gives a different output; it should divide the scores and leave the layer unchanged.",
    True, [], "ps3_forward", None)
bug(s, 4, "ps4_context_vector_code", "get_context_vector", '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return (attention_weights * hidden_encoder_matrix).sum(axis=0)
''', "Multiplies the 1-D weights elementwise with the matrix, which broadcasts along the last axis so weight j scales column j instead of row j (and fails for non-square T x n); it should be attention_weights @ hidden_encoder_matrix (or weights[:, None] * matrix).",
    False, ["single_query_attention"], "ps4_context_vector",
    "AssertionError: with all the weight on state 1 the context vector must be row 1 of the matrix you pass: weight j should scale row j (a whole state), and only the arguments should be used")
bug(s, 5, "ps5_positional_encoding_code", "positional_encoding", '''def positional_encoding(D, N):
    rows = np.arange(D)
    freq = 1.0 / 10000 ** (rows / D)
    angles = freq[:, None] * np.arange(N)[None, :]
    return np.where(rows[:, None] % 2 == 0, np.sin(angles), np.cos(angles))
''', "Uses the row index r itself as 2i in the frequency 10000^(2i/D), so odd (cosine) rows get their own frequency instead of sharing the frequency of the sine row above (2i = r - 1 for odd r).",
    False, ["equivariance_gaps"], "ps5_positional_encoding",
    "AssertionError: the values differ from the expected ones (PE)")
bug(s, 5, "ps5_masked_softmax_code", "masked_softmax_cols", '''def masked_softmax_cols(scores, mask):
    w = softmax_cols(scores) * mask            # ordinary softmax, then drop the masked entries
    return w / w.sum(axis=0, keepdims=True)    # renormalise the allowed ones
''', "Applies the mask after an ordinary softmax and renormalises: a fully masked column becomes 0/0 = nan, and a large masked score underflows the allowed weights; masked scores should be set to -inf before a softmax that subtracts the maximum of the allowed scores, with zeros for fully masked columns.",
    False, ["masked_self_attention", "equivariance_gaps"], "ps5_masked_softmax",
    "AssertionError: nan: give a fully masked column zero weights (M2)")

# ---------------------------------------------------------------- s6 (base S2)
s = "blind14_s6"
bug(s, 1, "ps1_softmax_cols_code", "softmax_cols", '''def softmax_cols(data_in):
    data_in = np.asarray(data_in, dtype=float)
    e = np.exp(data_in - np.max(data_in))
    return e / e.sum(axis=0, keepdims=True)
''', "Subtracts the maximum of the whole matrix instead of each column's own maximum, so a column far below the global maximum underflows to 0/0 = nan; use data_in.max(axis=0, keepdims=True).",
    False, ["self_attention", "scaled_dot_product_self_attention"], "ps1_softmax_cols",
    "AssertionError: on the 3 x 4 matrix whose columns sit 900 apart, your result differs from the expected one")
bug(s, 1, "ps1_scaled_code", "scaled_dot_product_self_attention", '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(K.T @ Q / Q.shape[0])
    X_prime = V @ attentions
    return X_prime, attentions
''', "Divides the scores by D_q instead of by sqrt(D_q).",
    False, [], "ps1_scaled_attention",
    "AssertionError: the attention values differ (if you use your softmax_cols, its test is above)")
bug(s, 2, "ps2_multihead_scaled_code", "multihead_scaled_self_attention", '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    head_1 = single_head_attention(X, omega_q1, omega_k1, omega_v1, beta_q1, beta_k1, beta_v1)
    head_2 = single_head_attention(X, omega_q2, omega_k2, omega_v2, beta_q2, beta_k2, beta_v2)
    X_prime = omega_c @ np.concatenate([head_1, head_2], axis=0)
    return X_prime
''', "Passes each head's parameters to single_head_attention in the order the data cell drew them (queries, keys, values) instead of the function's order (values, queries, keys).",
    False, [], "ps2_multihead_scaled",
    "AssertionError: the values differ from UDL's, printed above to 3 decimals (if you call your single_head_attention, its test is above)")
bug(s, 2, "ps2_multihead_general_code", "multihead_self_attention", '''def multihead_self_attention(X, heads, omega_c):
    stacked = np.zeros((D, X.shape[1]))
    for h, head in enumerate(heads):
        stacked[h * H_D:(h + 1) * H_D] = single_head_attention(
            X, head["omega_v"], head["omega_q"], head["omega_k"],
            head["beta_v"], head["beta_q"], head["beta_k"])
    X_prime = omega_c @ stacked
    return X_prime
''', "Preallocates the stacked heads with the notebook globals D and H_D instead of sizes taken from X and the heads, so it only works for 2 heads of size 4 (the 4-head example with heads of size 2 fails to broadcast).",
    False, [], "ps2_multihead_general",
    "ValueError: could not broadcast input array from shape (2,5) into shape (4,5)")
bug(s, 3, "ps3_softmax_code", "softmax", '''def softmax(X):
    X -= X.max(axis=1, keepdims=True)
    ex = np.exp(X)
    return ex / ex.sum(axis=1, keepdims=True)
''', "Subtracts the row maxima in place (X -= ...), which modifies the caller's array; it should compute a new array (X - X.max(...)).",
    False, [], "ps3_softmax",
    "AssertionError: softmax changed the scores it was given: work on a copy (X = X - ..., not X -= ...)")
bug(s, 4, "ps4_scale_scores_code", "scale_scores", '''def scale_scores(scores, n):
    return np.array([s / np.sqrt(len(scores)) for s in scores])
''', "Divides by the square root of len(scores) (the number of tokens T) instead of the argument n; it coincides with sqrt(n) only when T = n.",
    False, ["single_query_attention"], "ps4_scale_scores",
    "AssertionError: with n = 9 the scores should be divided by sqrt(9) = 3: divide by the square root of n")
bug(s, 4, "ps4_dimensions_code", DIMS_FN[s], '''# Tuples of ints (rows, columns), for example (5, 7).
d_model, T, h = 4, 3, 2
head_W_shape = (d_model // h, d_model)
concat_shape = (T, h * (d_model // h))
W_O_shape = (h * (d_model // h), d_model)
''', "head_W_shape is given as (2, 4), the problem-set-2 (tokens in columns) orientation; with tokens in rows W^Q_i maps d_model to d_model/h and is (4, 2).",
    True, [], "ps4_dimensions", None)
bug(s, 5, "ps5_causal_mask_code", "causal_mask", '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.tril(np.ones((N, N), dtype=bool))
''', "Returns the lower triangle (the tokens-in-rows convention of papers); with rows = inputs m and columns = outputs n the allowed entries m <= n are the upper triangle (np.triu).",
    False, ["masked_self_attention", "equivariance_gaps"], "ps5_causal_mask",
    "AssertionError: input m is visible to output n when m <= n (rows m, columns n)")

# ---------------------------------------------------------------- s7 (base S3)
s = "blind14_s7"
bug(s, 1, "ps1_loop_code", "self_attention_loop", '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    queries = [omega_q @ x + beta_q for x in all_x]
    keys = [omega_k @ x + beta_k for x in all_x]
    vals = [omega_v @ x + beta_v for x in all_x]
    result = []
    for n in range(len(all_x)):
        a = softmax([(keys[n].T @ queries[m]).item() for m in range(len(all_x))])
        result.append(sum(a_m * v_m for a_m, v_m in zip(a, vals)))
    return result
''', "Swaps the roles of queries and keys: output n uses the scores k_n^T q_m over m instead of k_m^T q_n (key of each input m against the query of output n).",
    False, [], "ps1_self_attention_loop", "AssertionError: output 0 differs")
bug(s, 1, "ps1_equivariance_code", "check_equivariance", '''def check_equivariance(f, X, perm):
    diff = f(X[:, perm]) - f(X)[:, perm]
    return abs(np.sum(diff)) < 1e-8
''', "Compares the sum of the differences with 0, and the differences of two permutations of the same columns cancel, so token reversal is reported equivariant; it should use np.allclose entry by entry.",
    False, [], "ps1_equivariance", "AssertionError: reversing the tokens is not equivariant")
bug(s, 2, "ps2_single_head_code", "single_head_attention", '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum('hd,dn->hn', omega_q, X) + beta_q
    K = np.einsum('hd,dn->hn', omega_k, X) + beta_k
    V = np.einsum('hd,dn->hn', omega_v, X) + beta_v
    A = softmax_cols(np.einsum('hm,hn->mn', K, Q) / np.sqrt(H_D))
    return np.einsum('hm,mn->hn', V, A)
''', "Scales by sqrt of the notebook global H_D (= 4) instead of the size of this head's queries Q.shape[0]; right only for heads of size 4.",
    True, ["multihead_self_attention", "multihead_scaled_self_attention"], "ps2_single_head", None)
bug(s, 3, "ps3_layer_code", "SelfAttention.__init__", '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = int(dims)
        rng = np.random.default_rng()
        self.W_q = rng.normal(0.0, 1.0, size=(dims, dims))
        self.W_k = rng.normal(0.0, 1.0, size=(dims, dims))
        self.W_v = rng.normal(0.0, 1.0, size=(dims, dims))
        self.W_o = rng.normal(0.0, 1.0, size=(dims, dims))

    def forward(self, x):
        Q = np.einsum('nd,de->ne', x, self.W_q)
        K = np.einsum('nd,de->ne', x, self.W_k)
        V = np.einsum('nd,de->ne', x, self.W_v)
        S = np.einsum('ie,je->ij', Q, K) / np.sqrt(self.dims)
        A = softmax(S)
        return np.einsum('ij,je,ef->if', A, V, self.W_o)
''', "Draws the weights from a fresh unseeded np.random.default_rng() instead of numpy's global generator, so np.random.seed does not make a layer repeatable (section 2 asks for np.random.normal / np.random.randn).",
    True, [], "ps3_init", None)
bug(s, 4, "ps4_attention_weights_code", "get_attention_weights", '''def get_attention_weights(scores):
    s = np.asarray(scores, dtype=np.float64)
    return np.exp(s - s.max()) / np.exp(s).sum()
''', "Shifts the numerator by the maximum but not the denominator, so the weights no longer sum to one (and the denominator overflows for large scores); both should use exp(s - max).",
    False, ["single_query_attention"], "ps4_attention_weights",
    "AssertionError: the weights should sum to 1, they sum to 0.6135...")
bug(s, 4, "ps4_split_heads_code", "split_heads", '''def split_heads(W, h):
    return list(np.split(np.asarray(W), h, axis=0))
''', "Splits W into blocks of consecutive rows (axis=0) instead of consecutive columns (axis=1).",
    False, [], "ps4_split_heads", "AssertionError: block 0 should have shape (4, 2); got (2, 4)")
bug(s, 5, "ps5_masked_attention_code", "masked_self_attention", '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
    attentions = attentions * causal_mask(X.shape[1])
    attentions = attentions / attentions.sum(axis=0, keepdims=True)
    X_prime = V @ attentions
    return X_prime, attentions
''', "Does not call masked_softmax_cols: it takes an ordinary softmax, zeroes the future and renormalises, which gives 0/0 = nan when a masked (later) score is far larger (100 * X); it should mask the scores before the softmax with masked_softmax_cols.",
    False, ["equivariance_gaps"], "ps5_masked_attention",
    "AssertionError: inf or nan on 100 * X (np.exp(z) is inf above z = 709 and 0 below z = -745)")

# ---------------------------------------------------------------- s8 (base S4)
s = "blind14_s8"
bug(s, 1, "ps1_self_attention_code", "self_attention", '''def project(omega, beta, X):
    """beta 1^T + omega X (eq. 12.6)."""
    return beta + omega @ X


def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = project(omega_q, beta_q, X)
    K = project(omega_k, beta_k, X)
    V = project(omega_v, beta_v, X)
    attentions = softmax_cols(Q.T @ K)
    X_prime = V @ attentions
    return X_prime, attentions
''', "Computes the scores as Q^T K (entry (m, n) = q_m^T k_n), the transpose of K^T Q, so the column softmax normalises over the wrong index.",
    False, [], "ps1_self_attention", "AssertionError: the attention values differ (if you use your softmax_cols, its test is above)")
bug(s, 1, "ps1_scaled_code", "scaled_dot_product_self_attention", '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = project(omega_q, beta_q, X)
    K = project(omega_k, beta_k, X)
    V = project(omega_v, beta_v, X)
    D_q = omega_q.shape[1]
    attentions = softmax_cols((K.T @ Q) / np.sqrt(D_q))
    X_prime = V @ attentions
    return X_prime, attentions
''', "Takes D_q from the number of columns of omega_q (the input size D) instead of its rows / Q.shape[0]; identical here (D_q = D) but wrong when D_q < D.",
    True, [], "ps1_scaled_attention", None)
bug(s, 2, "ps2_multihead_general_code", "multihead_self_attention", '''def multihead_self_attention(X, heads, omega_c):
    outs = [single_head_attention(X, p["omega_v"], p["omega_q"], p["omega_k"],
                                  p["beta_v"], p["beta_q"], p["beta_k"]) for p in heads]
    X_prime = omega_c @ np.array(outs).reshape(D, N)
    return X_prime
''', "Reshapes the stacked heads to (D, N) with the notebook globals instead of the sizes of X, so it breaks as soon as X has another number of tokens (the 4-head example with N = 5).",
    False, [], "ps2_multihead_general", "ValueError: cannot reshape array of size 40 into shape (8,6)")
bug(s, 3, "ps3_layer_code", "SelfAttention.forward", '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        for name in ("W_q", "W_k", "W_v", "W_o"):
            setattr(self, name, np.random.normal(loc=0.0, scale=1.0, size=(dims, dims)))

    def forward(self, x):
        x = np.asarray(x, dtype=float)
        Q, K, V = (x @ W for W in (self.W_q, self.W_k, self.W_v))
        scores = (K @ Q.T) / np.sqrt(self.dims)
        attention_weights = softmax(scores)
        self_attention = attention_weights @ V
        output = self_attention @ self.W_o
        return output
''', "Computes the scores as K Q^T, the transpose of Q K^T, so row i holds the key of token i against all queries and the row softmax normalises over the wrong index.",
    False, [], "ps3_forward", "AssertionError: the values differ from the expected ones printed above (they are computed with a softmax that passes section 1's test)")
bug(s, 4, "ps4_single_query_code", "single_query_attention", '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    scores = scale_scores(get_scores(K, q), W_V.shape[1])
    attention_weights = get_attention_weights(scores)
    output = get_context_vector(attention_weights, V)
    return attention_weights, output
''', "Scales the scores by sqrt(d_v) (columns of W_V) instead of sqrt(d_k) (columns of W_K); equal in the visible tests, wrong when the values are projected to another size.",
    True, [], "ps4_single_query", None)
bug(s, 5, "ps5_masked_softmax_code", "masked_softmax_cols", '''def masked_softmax_cols(scores, mask):
    scores = np.array(scores, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    col_max = np.max(scores, axis=0)            # for stability
    exps = np.exp(scores - col_max) * mask
    sums = exps.sum(axis=0)
    safe = np.where(sums > 0, sums, 1.0)        # fully masked column -> zeros
    return exps / safe
''', "Subtracts each column's maximum over all scores, masked ones included, so a large masked score underflows the allowed exponentials to 0 and the column gets all-zero weights; it should subtract the maximum of the allowed scores only.",
    False, ["masked_self_attention", "equivariance_gaps"], "ps5_masked_softmax",
    "AssertionError: with a masked score of 1000 at (1, 0) your weights differ from the expected ones printed above; a masked score must not change them (np.exp(z) is 0 below z = -745)")
bug(s, 5, "ps5_equivariance_code", "equivariance_gaps", '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(D, N)

    def gap(f):
        return np.max(np.abs(f(X[:, perm]) - f(X)[:, perm]))

    plain = lambda Z: scaled_self_attention(Z, *params)[0]
    causal = lambda Z: masked_self_attention(Z, *params)[0]
    positioned = lambda Z: scaled_self_attention(Z + Pi, *params)[0]
    return np.array([gap(plain), gap(causal), gap(positioned)])
''', "Builds Pi from the notebook globals D and N instead of X.shape, so it fails (broadcast error) for inputs of another size.",
    False, [], "ps5_equivariance",
    "AssertionError: equivariance_gaps raised ValueError on the 4 x 3 input X[:, :3]: operands could not be broadcast together with shapes (4,3) (4,5)")

# ---------------------------------------------------------------- s9 (base S1)
s = "blind14_s9"
bug(s, 1, "ps1_softmax_cols_code", "softmax_cols", '''def softmax_cols(data_in):
    data_in = np.asarray(data_in, dtype=float)
    e = np.exp(data_in - data_in.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
''', "Normalises along axis=1 (each row) instead of axis=0 (each column).",
    False, ["self_attention", "scaled_dot_product_self_attention"], "ps1_softmax_cols",
    "AssertionError: each column should sum to 1")
bug(s, 1, "ps1_loop_code", "self_attention_loop", '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    all_queries = [beta_q + omega_q @ x for x in all_x]
    all_keys = [beta_k + omega_k @ x for x in all_x]
    all_values = [beta_v + omega_v @ x for x in all_x]
    all_x_prime = []
    for q in all_queries:
        scores = [float(k.T @ q) for k in all_keys]
        a = softmax(scores)
        x_prime = np.zeros(all_values[0].shape)
        for a_m, v in zip(a, all_values):
            x_prime = x_prime + a_m * v
        all_x_prime.append(x_prime)
    return all_x_prime
''', "Converts the 1 x 1 dot product with float(k.T @ q), which raises TypeError in numpy 2.4 as the notebook warns; it should use (k.T @ q).item().",
    False, [], "ps1_self_attention_loop", "TypeError: only 0-dimensional arrays can be converted to Python scalars")
bug(s, 2, "ps2_single_head_code", "single_head_attention", '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
''', "Leaves out the query bias beta_q (Q = beta_q 1^T + Omega_q X).",
    False, ["multihead_scaled_self_attention", "multihead_self_attention"], "ps2_single_head",
    "AssertionError: head 1 differs from the expected values printed above")
bug(s, 3, "ps3_layer_code", "SelfAttention.__init__", '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.rand(dims, dims)
        self.W_k = np.random.rand(dims, dims)
        self.W_v = np.random.rand(dims, dims)
        self.W_o = np.random.rand(dims, dims)

    def forward(self, x):
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        scores = Q @ K.T / np.sqrt(self.dims)
        weights = softmax(scores)
        return (weights @ V) @ self.W_o
''', "Uses np.random.rand (uniform on [0, 1), mean 0.5, std 0.29) instead of the normal distribution with mean 0 and std 1 (np.random.randn / np.random.normal).",
    False, [], "ps3_init", "AssertionError: W_q has standard deviation 0.288; the pseudocode asks for 1 (scale=1.0)")
bug(s, 4, "ps4_get_scores_code", "get_scores", '''def get_scores(matrix, vector):
    return matrix @ vector.reshape(-1, 1)
''', "Turns the vector into a column, so the scores come back as a T x 1 column instead of a 1-D array of shape (T,).",
    False, ["single_query_attention"], "ps4_get_scores",
    "AssertionError: expected one score per encoder state (row of the matrix), shape (4,); got (4, 1)")
bug(s, 4, "ps4_attention_weights_code", "get_attention_weights", '''def get_attention_weights(scores):
    scores -= np.max(scores)
    e = np.exp(scores)
    return e / e.sum()
''', "Subtracts the maximum in place (scores -= ...), which changes the caller's array; it should work on a new array (s = scores - scores.max()).",
    True, [], "ps4_attention_weights", None)
bug(s, 5, "ps5_causal_mask_code", "causal_mask", '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.triu(np.ones((N, N)))
''', "Returns the right pattern as float 0/1 numbers instead of dtype bool.",
    False, [], "ps5_causal_mask",
    "AssertionError: the pattern is right, but the dtype is float64: section 1 asks for a boolean matrix")
bug(s, 5, "ps5_positional_encoding_code", "positional_encoding", '''def positional_encoding(D, N):
    rows = np.arange(D)
    two_i = rows - rows % 2
    freq = 1.0 / 10000 ** (two_i / D)
    angles = freq[:, None] * np.arange(1, N + 1)[None, :]
    return np.where(rows[:, None] % 2 == 0, np.sin(angles), np.cos(angles))
''', "Counts positions from 1 (np.arange(1, N + 1)) instead of 0, so every column is shifted by one position.",
    False, ["equivariance_gaps"], "ps5_positional_encoding",
    "AssertionError: position 0: sin(0) = 0 and cos(0) = 1 alternate")

# ---------------------------------------------------------------- s10 (base S2)
s = "blind14_s10"
bug(s, 1, "ps1_self_attention_code", "self_attention", '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax(K.T @ Q)
    X_prime = V @ attentions
    return X_prime, attentions
''', "Calls the 1-D softmax (which flattens its input) on the N x N score matrix instead of softmax_cols, so the attentions are one flattened distribution over all N*N entries.",
    False, [], "ps1_self_attention", "ValueError: matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size 9 is different from 3)")
bug(s, 1, "ps1_equivariance_code", "check_equivariance", '''def check_equivariance(f, X, perm):
    return np.allclose(f(X[:, perm]), f(X)[perm])
''', "Permutes the rows of f(X) (f(X)[perm]) instead of its columns (f(X)[:, perm]).",
    False, [], "ps1_equivariance", "ValueError: operands could not be broadcast together with shapes (4,3) (3,3)")
bug(s, 2, "ps2_multihead_scaled_code", "multihead_scaled_self_attention", '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    outs = []
    for ov, oq, ok, bv, bq, bk in [(omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
                                   (omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)]:
        Q = oq @ X + bq
        K = ok @ X + bk
        V = ov @ X + bv
        outs.append(V @ softmax_cols(K.T @ Q / np.sqrt(D)))
    X_prime = omega_c @ np.vstack(outs)
    return X_prime
''', "Re-implements the heads instead of calling single_head_attention and scales by sqrt(D) with the global D = 8 instead of the head's query size D/H = Q.shape[0].",
    False, [], "ps2_multihead_scaled",
    "AssertionError: the values differ from UDL's, printed above to 3 decimals (if you call your single_head_attention, its test is above)")
bug(s, 3, "ps3_softmax_code", "softmax", '''def softmax(X):
    ex = np.exp(X - np.max(X, axis=1))
    return ex / np.sum(ex, axis=1, keepdims=True)
''', "Subtracts the row maxima without keepdims=True, so the 1-D maxima broadcast along the last axis (subtracting max of row j from column j): an error for non-square input and wrong, possibly overflowing, values for square scores.",
    False, ["SelfAttention.forward"], "ps3_softmax",
    "ValueError: operands could not be broadcast together with shapes (2,3) (2,)")
bug(s, 4, "ps4_context_vector_code", "get_context_vector", '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return attention_weights @ h_e
''', "Uses the notebook's global h_e instead of the argument hidden_encoder_matrix.",
    False, ["single_query_attention"], "ps4_context_vector",
    "AssertionError: with all the weight on state 1 the context vector must be row 1 of the matrix you pass: weight j should scale row j (a whole state), and only the arguments should be used")
bug(s, 4, "ps4_dimensions_code", DIMS_FN[s], '''# Tuples of ints (rows, columns), for example (5, 7).
d_model, T, h = 4, 3, 2
head_W_shape = (d_model, d_model // h)
concat_shape = (h * T, d_model // h)     # the two head outputs stacked
W_O_shape = (d_model, d_model)
''', "concat_shape is given as (6, 2), stacking the two T x d_v head outputs vertically as in problem set 2; with tokens in rows Concat puts them side by side: (3, 4).",
    True, [], "ps4_dimensions", None)
bug(s, 5, "ps5_masked_softmax_code", "masked_softmax_cols", '''def masked_softmax_cols(scores, mask):
    filled = np.where(mask, scores, -1e9)   # "minus infinity"
    return softmax_cols(filled)
''', "Replaces masked scores by -1e9 and calls the ordinary softmax, so a fully masked column gets uniform weights 1/N instead of zeros.",
    False, [], "ps5_masked_softmax", "AssertionError: a masked entry must get weight exactly 0")
bug(s, 5, "ps5_equivariance_code", "equivariance_gaps", '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Pi = positional_encoding(X.shape[0], X.shape[1])
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    gaps = []
    for f in (lambda Z: scaled_self_attention(Z, *params)[0],
              lambda Z: masked_self_attention(Z, *params)[0]):
        gaps.append(np.abs(f(X[:, perm]) - f(X)[:, perm]).max())
    Z = X + Pi
    g = lambda Z: scaled_self_attention(Z, *params)[0]
    gaps.append(np.abs(g(Z[:, perm]) - g(Z)[:, perm]).max())
    return np.array(gaps)
''', "Permutes X + Pi together (the encoding moves with the tokens), which measures plain attention again and gives a third gap of 0; Pi should stay fixed: compare Sa[X[:, perm] + Pi] with Sa[X + Pi][:, perm].",
    False, [], "ps5_equivariance", "AssertionError: the X + Pi gap is ~1e-15; expected 6.61654488")

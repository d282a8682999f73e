# Buggy students: a correct base (style) plus bug cells. Each bug:
# (ps, cell grade_id, function, source, mistake, also_affects, visible_test_cell)
P1, P2, P3, P4, P5 = ("ps1_self_attention", "ps2_multihead_attention", "ps3_attention_layer",
                      "ps4_encoder_decoder_attention", "ps5_masked_attention")
BASE = {"blind12_s5": "REF", "blind12_s6": "blind12_s2", "blind12_s7": "blind12_s1",
        "blind12_s8": "blind12_s3", "blind12_s9": "blind12_s4", "blind12_s10": "REF"}
BUGS = {}

BUGS["blind12_s5"] = [
(P1, "ps1_softmax_code", "softmax", '''def softmax(items_in):
    z = np.asarray(items_in, dtype=float).ravel()
    e = np.exp(z - z.min())   # shift the scores so the smallest is 0
    return e / e.sum()
''', "Subtracts the smallest score (z.min()) instead of the largest before np.exp, so the exponents are >= 0 and overflow when one score lies far above the others (inf/nan for [0, 1000, 1]); it should subtract z.max().",
 ["self_attention_loop"], "ps1_softmax"),
(P1, "ps1_scaled_code", "scaled_dot_product_self_attention", '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    D_q = Q.shape[0]
    attentions = softmax_cols(K.T @ Q / D_q)
    X_prime = V @ attentions
    return X_prime, attentions
''', "Divides the scores K^T Q by D_q instead of by sqrt(D_q) (equation 12.9), so the attention is flattened too much.",
 [], "ps1_scaled_attention"),
(P2, "ps2_multihead_general_code", "multihead_self_attention", '''def multihead_self_attention(X, heads, omega_c):
    outs = [single_head_attention(X, *head.values()) for head in heads]
    X_prime = omega_c @ np.vstack(outs)
    return X_prime
''', "Passes the head parameters with *head.values(), i.e. in the dictionary order (omega_q, omega_k, omega_v, beta_q, ...), so queries are used as values etc.; the entries must be read by name in the order values, queries, keys.",
 [], "ps2_multihead_general"),
(P3, "ps3_layer_code", "SelfAttention.__init__", '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.normal(0.0, 0.1, (dims, dims))
        self.W_k = np.random.normal(0.0, 0.1, (dims, dims))
        self.W_v = np.random.normal(0.0, 0.1, (dims, dims))
        self.W_o = np.random.normal(0.0, 0.1, (dims, dims))

    def forward(self, x):
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        scores = Q @ K.T / np.sqrt(self.dims)
        A = softmax(scores)
        return (A @ V) @ self.W_o
''', "Draws the weight matrices with standard deviation 0.1 (np.random.normal(0.0, 0.1, ...)) as in the exam's sample answer; the pseudocode asks for standard deviation 1 (scale=1.0).",
 [], "ps3_init"),
(P4, "ps4_context_vector_code", "get_context_vector", '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return np.sum(attention_weights * hidden_encoder_matrix, axis=0)
''', "Multiplies the 1-D weights elementwise with the matrix, which broadcasts along the last axis so weight j scales column j instead of row j (wrong on square matrices, ValueError otherwise); it should be attention_weights @ hidden_encoder_matrix (or weights[:, None] * matrix summed over axis 0).",
 ["single_query_attention"], "ps4_context_vector"),
(P4, "ps4_single_query_code", "single_query_attention", '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    attention_weights = get_attention_weights(get_scores(K, q))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output
''', "Forgets to scale the scores: the softmax is applied to q K^T instead of q K^T / sqrt(d_k) (should call scale_scores(scores, W_K.shape[1])).",
 [], "ps4_single_query"),
(P5, "ps5_causal_mask_code", "causal_mask", '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.tril(np.ones((N, N), dtype=bool))
''', "Returns the lower triangle (m >= n, the tokens-in-rows convention) instead of the upper triangle m <= n required with inputs as rows and outputs as columns; should be np.triu.",
 ["masked_self_attention", "equivariance_gaps"], "ps5_causal_mask"),
(P5, "ps5_positional_encoding_code", "positional_encoding", '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    pos = np.arange(N)
    for i in range(D // 2):
        freq = 1.0 / 10000 ** (i / D)
        Pi[2 * i] = np.sin(pos * freq)
        Pi[2 * i + 1] = np.cos(pos * freq)
    return Pi
''', "Uses the exponent i/D instead of 2i/D in 10000^(2i/D), so every frequency except the first is wrong (rows 2 and 3 differ for D = 4).",
 ["equivariance_gaps"], "ps5_positional_encoding"),
]

BUGS["blind12_s6"] = [
(P1, "ps1_loop_code", "self_attention_loop", '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    qs = [(beta_q + omega_q @ x).ravel() for x in all_x]
    ks = [(beta_k + omega_k @ x).ravel() for x in all_x]
    vs = [(beta_v + omega_v @ x).ravel() for x in all_x]
    out = []
    for q in qs:
        a = softmax([np.einsum("i,i->", k, q) for k in ks])
        out.append(sum(a_m * v for a_m, v in zip(a, vs)))
    return out
''', "Flattens the queries, keys and values with ravel, so each output is a 1-D array of shape (D,) instead of a D x 1 column (D, 1) as required (values are right).",
 [], "ps1_self_attention_loop"),
(P1, "ps1_softmax_cols_code", "softmax_cols", '''def softmax_cols(data_in):
    shifted = data_in - np.max(data_in)
    e = np.exp(shifted)
    return e / np.einsum("mn->n", e)[None, :]
''', "Subtracts the maximum of the whole matrix instead of each column's own maximum (axis=0, keepdims=True), so a column far below the global maximum underflows to 0/0 = nan.",
 ["self_attention", "scaled_dot_product_self_attention"], "ps1_softmax_cols"),
(P2, "ps2_multihead_scaled_code", "multihead_scaled_self_attention", '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    p1 = (omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    p2 = (omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    X_prime = omega_c @ np.concatenate([single_head_attention(X, *p) for p in (p2, p1)], axis=0)
    return X_prime
''', "Stacks the heads in the wrong order (head 2 on top of head 1) before multiplying by omega_c; head 1 must come first.",
 [], "ps2_multihead_scaled"),
(P3, "ps3_softmax_code", "softmax", '''def softmax(X):
    X -= np.max(X, axis=-1, keepdims=True)
    np.exp(X, out=X)
    X /= np.sum(X, axis=-1, keepdims=True)
    return X
''', "Works in place on its argument (X -= ..., np.exp(X, out=X), X /= ...), so the caller's scores are overwritten; it should compute on a new array and leave X unchanged.",
 [], "ps3_softmax"),
(P4, "ps4_split_heads_code", "split_heads", '''def split_heads(W, h):
    return list(np.split(W, h, axis=0))
''', "Splits W into blocks of consecutive rows (axis=0) instead of consecutive columns (axis=1).",
 [], "ps4_split_heads"),
(P4, "ps4_single_query_code", "single_query_attention", '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q, K, V = query_token @ W_Q, tokens @ W_K, tokens @ W_V
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), K.shape[0]))
    output = get_context_vector(attention_weights, tokens)
    return attention_weights, output
''', "Two mistakes: scales by sqrt(K.shape[0]), the number of tokens T, instead of sqrt(d_k) = sqrt(K.shape[1]); and mixes the raw tokens instead of the values V in the output (should be get_context_vector(attention_weights, V)).",
 [], "ps4_single_query"),
(P5, "ps5_masked_softmax_code", "masked_softmax_cols", '''def masked_softmax_cols(scores, mask):
    masked = np.where(mask, scores, -np.inf)
    top = np.max(scores, axis=0, keepdims=True)
    e = np.exp(masked - top)          # exp(-inf) = 0 for masked entries
    denom = e.sum(axis=0, keepdims=True)
    return np.divide(e, denom, out=np.zeros_like(e), where=denom > 0)
''', "Subtracts the column maximum of all scores, masked ones included, instead of the maximum of the allowed scores, so a large masked score makes the allowed exponentials underflow and the column gets all-zero weights.",
 ["masked_self_attention", "equivariance_gaps"], "ps5_masked_softmax"),
]

BUGS["blind12_s7"] = [
(P1, "ps1_softmax_code", "softmax", '''def softmax(items_in):
    # Convert to a flat list of floats so that lists and arrays both work
    values = [float(v) for v in np.ravel(items_in)]
    # Subtract the largest score so nothing overflows
    biggest = max(values)
    exps = [np.exp(v - biggest) for v in values]
    total = sum(np.exp(v) for v in values)
    return np.array([e / total for e in exps])
''', "The numerator uses exp(z - max) but the denominator sums exp(z) of the unshifted scores, so the weights do not sum to one (and the denominator overflows for large scores); both must use the shifted scores.",
 ["self_attention_loop"], "ps1_softmax"),
(P1, "ps1_self_attention_code", "self_attention", '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # Queries, keys and values of all tokens at once (equation 12.6)
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    # dot products, softmax down every column (equation 12.8)
    dot_products = Q.T @ K
    attentions = softmax_cols(dot_products)
    X_prime = V @ attentions
    return X_prime, attentions
''', "Computes Q^T K instead of K^T Q, i.e. the transposed score matrix, so the column softmax normalises over queries instead of keys.",
 [], "ps1_self_attention"),
(P1, "ps1_equivariance_code", "check_equivariance", '''def check_equivariance(f, X, perm):
    # Permute first, then apply f ...
    permute_then_f = f(X[:, perm])
    # ... versus apply f, then permute
    f_then_permute = f(X)[:, perm]
    return bool(abs(np.sum(permute_then_f - f_then_permute)) < 1e-8)
''', "Compares the sum of the differences with 0, where positive and negative differences cancel (token reversal is reported as equivariant); it should compare entry by entry with np.allclose.",
 [], "ps1_equivariance"),
(P2, "ps2_single_head_code", "single_head_attention", '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # Queries, keys and values of this head: each D/H x N
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    D_q = Q.shape[0]
    # softmax, then scale
    A = softmax_cols(K.T @ Q) / np.sqrt(D_q)
    return V @ A
''', "Divides by sqrt(D_q) after the softmax instead of scaling the scores before it, so the weights are neither the scaled attention nor sum to one; should be softmax_cols(K.T @ Q / np.sqrt(D_q)).",
 ["multihead_scaled_self_attention", "multihead_self_attention"], "ps2_single_head"),
(P3, "ps3_layer_code", "SelfAttention.forward", '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        # remember the size of the tokens
        self.dims = dims
        # four separate draws from N(0, 1) using numpy's global generator
        self.W_q = np.random.normal(loc=0.0, scale=1.0, size=(dims, dims))
        self.W_k = np.random.normal(loc=0.0, scale=1.0, size=(dims, dims))
        self.W_v = np.random.normal(loc=0.0, scale=1.0, size=(dims, dims))
        self.W_o = np.random.normal(loc=0.0, scale=1.0, size=(dims, dims))

    def forward(self, x):
        # queries, keys and values (equation 2)
        Q = np.dot(x, self.W_q)
        K = np.dot(x, self.W_k)
        V = np.dot(x, self.W_v)
        # scores (equation 3), n x n
        n = x.shape[0]
        scores = np.dot(Q, K.T) / np.sqrt(n)
        weights = softmax(scores)
        return np.dot(np.dot(weights, V), self.W_o)
''', "Divides the scores by sqrt(x.shape[0]), the number of tokens, instead of sqrt(self.dims).",
 [], "ps3_forward"),
(P4, "ps4_attention_weights_code", "get_attention_weights", '''def get_attention_weights(scores):
    exps = np.exp(scores)
    return exps / np.sum(exps)
''', "Naive softmax without subtracting the maximum score: np.exp overflows for scores above ~709 and gives nan; it should subtract np.max(scores) first.",
 ["single_query_attention"], "ps4_attention_weights"),
(P4, "ps4_single_query_code", "single_query_attention", '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    # the query as a 1 x d_k row, as in the worksheet
    q = np.expand_dims(query_token, axis=0) @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    d_k = W_K.shape[1]
    scaled = scale_scores(q @ K.T, d_k)
    attention_weights = get_attention_weights(scaled)
    output = attention_weights @ V
    return attention_weights, output
''', "Turns the query into a 1 x d_k matrix with np.expand_dims, so the weights and the output come out as 1 x T and 1 x d_v arrays instead of the required 1-D shapes (T,) and (d_v,).",
 [], "ps4_single_query"),
(P5, "ps5_causal_mask_code", "causal_mask", '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    mask = np.zeros((N, N), dtype=bool)
    for m in range(N):
        for n in range(N):
            mask[m, n] = m < n   # input m is visible to output n if it comes before it
    return mask
''', "Off by one: uses m < n instead of m <= n, so the diagonal is masked and a token cannot attend to itself (output 0 attends to nothing).",
 ["masked_self_attention", "equivariance_gaps"], "ps5_causal_mask"),
(P5, "ps5_masked_attention_code", "masked_self_attention", '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # queries, keys, values as in problem set 1
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    D_q = Q.shape[0]
    scores = K.T @ Q / np.sqrt(D_q)
    attentions = masked_softmax_cols(scores, causal_mask(N))
    X_prime = V @ attentions
    return X_prime, attentions
''', "Builds the mask with the notebook global N instead of the number of tokens X.shape[1], so it fails (IndexError) on inputs with another number of tokens.",
 ["equivariance_gaps"], "ps5_masked_attention"),
]

BUGS["blind12_s8"] = [
(P1, "ps1_loop_code", "self_attention_loop", '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    all_q = [beta_q + omega_q @ x for x in all_x]
    all_k = [beta_k + omega_k @ x for x in all_x]
    all_v = [beta_v + omega_v @ x for x in all_x]
    all_x_prime = []
    for q_n in all_q:
        scores = [float(k_m.T @ q_n) for k_m in all_k]
        a = softmax(scores)
        x_prime = np.zeros_like(all_v[0])
        for a_m, v_m in zip(a, all_v):
            x_prime = x_prime + a_m * v_m
        all_x_prime.append(x_prime)
    return all_x_prime
''', "Converts the 1 x 1 dot product with float(k_m.T @ q_n), which raises TypeError in numpy 2.4 (as the notebook warns); it should use (k_m.T @ q_n).item().",
 [], "ps1_self_attention_loop"),
(P1, "ps1_scaled_code", "scaled_dot_product_self_attention", '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    D_q = omega_q.shape[1]
    attentions = softmax_cols(K.T @ Q / np.sqrt(D_q))
    X_prime = V @ attentions
    return X_prime, attentions
''', "Takes D_q as omega_q.shape[1] (the number of columns, the input size D) instead of the number of rows Q.shape[0]; wrong whenever D_q < D.",
 [], "ps1_scaled_attention"),
(P2, "ps2_multihead_scaled_code", "multihead_scaled_self_attention", '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    # the two heads were already computed in the test above (head1, head2)
    X_prime = omega_c @ np.vstack([head1, head2])
    return X_prime
''', "Stacks the notebook globals head1 and head2 (computed by the single-head test on the global X and parameters) instead of computing the heads from its own arguments, so it ignores X and the head parameters.",
 [], "ps2_multihead_scaled"),
(P3, "ps3_layer_code", "SelfAttention.__init__", '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        rng = np.random.default_rng()
        self.W_q = rng.normal(0.0, 1.0, (dims, dims))
        self.W_k = rng.normal(0.0, 1.0, (dims, dims))
        self.W_v = rng.normal(0.0, 1.0, (dims, dims))
        self.W_o = rng.normal(0.0, 1.0, (dims, dims))

    def forward(self, x):
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        scores = Q @ K.T / np.sqrt(self.dims)
        A = softmax(scores)
        return (A @ V) @ self.W_o
''', "Draws the weights from a fresh np.random.default_rng() instead of numpy's global generator, so np.random.seed does not make a layer repeatable; it should use np.random.normal / np.random.randn.",
 [], "ps3_init"),
(P4, "ps4_scale_scores_code", "scale_scores", '''def scale_scores(scores, n):
    return scores / n ** 1/2
''', "Operator precedence: scores / n ** 1/2 is (scores / n) / 2, not scores / sqrt(n) (it only agrees for n = 4); should be scores / np.sqrt(n) or scores / n ** 0.5.",
 [], "ps4_scale_scores"),
(P5, "ps5_masked_softmax_code", "masked_softmax_cols", '''def masked_softmax_cols(scores, mask):
    scores[~mask] = -np.inf
    col_max = scores.max(axis=0, keepdims=True)
    col_max[~np.isfinite(col_max)] = 0.0
    e = np.exp(scores - col_max)
    total = e.sum(axis=0, keepdims=True)
    total[total == 0] = 1.0
    return e / total
''', "Writes -inf into the caller's scores array in place (scores[~mask] = -np.inf), modifying its argument; it should work on a copy (np.where(mask, scores, -np.inf)).",
 [], "ps5_masked_softmax"),
]

BUGS["blind12_s9"] = [
(P1, "ps1_softmax_code", "softmax", '''def softmax(items_in):
    # reuse the column softmax: the scores as one column
    z = np.array(items_in, dtype=float).reshape(-1, 1)
    return softmax_cols(z).ravel()
''', "Calls softmax_cols, which is only defined in a later cell, so on Restart & Run All it raises NameError; softmax must be self-contained (stable exp(z - max) / sum).",
 ["self_attention_loop"], "ps1_softmax"),
(P1, "ps1_loop_code", "self_attention_loop", '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    all_x_prime = []
    for n in range(N):
        q_n = beta_q + omega_q @ all_x[n]
        scores = []
        for m in range(N):
            k_m = beta_k + omega_k @ all_x[m]
            scores.append((k_m.T @ q_n).item())
        a = softmax(scores)
        x_prime = np.zeros((omega_v.shape[0], 1))
        for m in range(N):
            x_prime += a[m] * (beta_v + omega_v @ all_x[m])
        all_x_prime.append(x_prime)
    return all_x_prime
''', "Loops over range(N) with the notebook global N instead of len(all_x), so it fails or drops tokens for inputs with another number of tokens.",
 [], "ps1_self_attention_loop"),
(P1, "ps1_self_attention_code", "self_attention", '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X
    K = omega_k @ X
    K += beta_k
    V = omega_v @ X
    V += beta_v
    scores = K.T @ Q
    scores -= scores.max(axis=0)
    attentions = np.exp(scores)
    attentions /= attentions.sum(axis=0)
    X_prime = V @ attentions
    return X_prime, attentions
''', "Forgets the query bias: Q = omega_q @ X instead of beta_q + omega_q @ X (equation 12.6).",
 [], "ps1_self_attention"),
(P2, "ps2_single_head_code", "single_head_attention", '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X
    Q += beta_q
    K = omega_k @ X
    K += beta_k
    V = omega_v @ X
    V += beta_v
    S = K.T @ Q
    S /= np.sqrt(Q.shape[0])
    S -= S.max(axis=1, keepdims=True)
    A = np.exp(S)
    A /= A.sum(axis=1, keepdims=True)
    return V @ A
''', "Computes its own softmax along the rows (axis=1) of K^T Q instead of down the columns (axis=0, the given softmax_cols), so each output's weights do not sum to one.",
 [], "ps2_single_head"),
(P3, "ps3_softmax_code", "softmax", '''def softmax(X):
    Y = np.array(X, dtype=float)
    Y -= Y.max(axis=0, keepdims=True)
    np.exp(Y, out=Y)
    Y /= Y.sum(axis=0, keepdims=True)
    return Y
''', "Normalises down the columns (axis=0) instead of along the rows (axis=1), so the rows do not sum to one.",
 ["SelfAttention.forward"], "ps3_softmax"),
(P3, "ps3_layer_code", "SelfAttention.forward", '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.randn(dims, dims)
        self.W_k = np.random.randn(dims, dims)
        self.W_v = np.random.randn(dims, dims)
        self.W_o = np.random.randn(dims, dims)

    def forward(self, x):
        self.W_q /= np.sqrt(self.dims)   # fold the scaling into the queries
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        A = softmax(Q @ K.T)
        return (A @ V) @ self.W_o
''', "Folds the 1/sqrt(dims) scaling into self.W_q in place, so every call to forward shrinks the layer's weights again and a second call gives a different output; it should divide the scores, leaving self.W_q unchanged.",
 [], "ps3_forward"),
(P4, "ps4_get_scores_code", "get_scores", '''def get_scores(matrix, vector):
    return np.dot(vector, matrix)

print("debug scores:", get_scores(h_e, h_d[1]))
''', "Computes vector @ matrix (dot products with the columns) instead of matrix @ vector (one score per row/state); wrong values for a square matrix and a shape error otherwise.",
 [], "ps4_get_scores"),
(P4, "ps4_dimensions_code", "head_W_shape", '''# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape = (2, 4)
concat_shape = (3, 4)
W_O_shape = (4, 4)
print("debug:", head_W_shape, concat_shape, W_O_shape)
''', "Gives head_W_shape as (2, 4), the problem-set-2 (Omega x) orientation; with tokens in rows W^Q_i multiplies from the right and is d_model x d_model/h = (4, 2).",
 [], "ps4_dimensions"),
(P5, "ps5_equivariance_code", "equivariance_gaps", '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Pi = positional_encoding(X.shape[0], X.shape[1])
    out = np.zeros(3)
    A = scaled_self_attention(X[:, perm], omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    B = scaled_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0][:, perm]
    out[0] = np.max(np.abs(A - B))
    A = masked_self_attention(X[:, perm], omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    B = masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0][:, perm]
    out[1] = np.max(np.abs(A - B))
    A = scaled_self_attention((X + Pi)[:, perm], omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    B = scaled_self_attention(X + Pi, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0][:, perm]
    out[2] = np.max(np.abs(A - B))
    print("debug gaps:", out)
    return out
''', "For the third gap it permutes X + Pi together ((X + Pi)[:, perm]), so the encoding moves with the tokens and the gap is 0; only X may be permuted: Sa[X[:, perm] + Pi].",
 [], "ps5_equivariance"),
]

BUGS["blind12_s10"] = [
(P1, "ps1_softmax_cols_code", "softmax_cols", '''def softmax_cols(data_in):
    e = np.exp(data_in - data_in.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
''', "Normalises along the rows (axis=1) instead of down the columns (axis=0), so the columns do not sum to one.",
 ["self_attention", "scaled_dot_product_self_attention"], "ps1_softmax_cols"),
(P1, "ps1_equivariance_code", "check_equivariance", '''def check_equivariance(f, X, perm):
    return np.array_equal(f(X[:, perm]), f(X)[:, perm])
''', "Compares with exact equality (np.array_equal) instead of np.allclose at its default tolerance, so rounding differences make an equivariant map look non-equivariant.",
 [], "ps1_equivariance"),
(P2, "ps2_single_head_code", "single_head_attention", '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(H_D))
''', "Scales by sqrt of the notebook global H_D instead of the head's own query size Q.shape[0]; right only when heads have size 4.",
 ["multihead_scaled_self_attention", "multihead_self_attention"], "ps2_single_head"),
(P2, "ps2_multihead_scaled_code", "multihead_scaled_self_attention", '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    head_1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head_2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    X_prime = np.vstack([head_1, head_2]) @ omega_c
    return X_prime
''', "Multiplies in the wrong order, stacked @ omega_c, instead of omega_c @ stacked (equation 12.11); raises a shape error unless N = D.",
 [], "ps2_multihead_scaled"),
(P3, "ps3_layer_code", "SelfAttention.forward", '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_k = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_v = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_o = np.random.normal(0.0, 1.0, (dims, dims))

    def forward(self, x):
        Q = x @ self.W_q
        K = x @ self.W_q
        V = x @ self.W_v
        scores = Q @ K.T / np.sqrt(self.dims)
        A = softmax(scores)
        return (A @ V) @ self.W_o
''', "Copy-paste slip: the keys are computed with self.W_q (K = x @ self.W_q) instead of self.W_k.",
 [], "ps3_forward"),
(P4, "ps4_context_vector_code", "get_context_vector", '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return attention_weights @ h_e
''', "Uses the notebook global h_e instead of its argument hidden_encoder_matrix.",
 ["single_query_attention"], "ps4_context_vector"),
(P5, "ps5_positional_encoding_code", "positional_encoding", '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    pos = np.arange(N)
    for i in range(D // 2):
        freq = 1.0 / 10000 ** (2 * i / D)
        Pi[2 * i] = np.cos(pos * freq)
        Pi[2 * i + 1] = np.sin(pos * freq)
    return Pi
''', "Swaps sine and cosine: even rows 2i must hold sin and odd rows 2i+1 cos.",
 ["equivariance_gaps"], "ps5_positional_encoding"),
]

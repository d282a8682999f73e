# Each bug: (student, ps, cell, function, source, mistake, also_affects)
BASE = {"blind11_s5": "S1", "blind11_s6": "S2", "blind11_s7": "S1",
        "blind11_s8": "S2", "blind11_s9": "S1", "blind11_s10": "S2"}
P1, P2, P3, P4, P5 = ("ps1_self_attention", "ps2_multihead_attention", "ps3_attention_layer",
                      "ps4_encoder_decoder_attention", "ps5_masked_attention")
BUGS = []
def bug(student, ps, cell, function, src, mistake, also=()):
    BUGS.append(dict(student=student, ps=ps, cell=cell, function=function, src=src,
                     mistake=mistake, also_affects=list(also)))

# ------------------------------------------------------------------ s5
s = "blind11_s5"
bug(s, P1, "ps1_softmax_code", "softmax", '''def softmax(items_in):
    z = np.asarray(items_in, dtype=float).ravel()
    e = np.exp(z - z.min())   # shift so the smallest exponent is 0
    return e / e.sum()''',
    "Subtracts the smallest score instead of the largest before np.exp, so the exponents are >= 0 and overflow to inf (nan weights) when one score lies far above the others. It should subtract z.max().",
    ["self_attention_loop"])
bug(s, P2, "ps2_single_head_code", "single_head_attention", '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(X.shape[0]))''',
    "Scales the scores by sqrt(X.shape[0]) = sqrt(D), the input size, instead of sqrt(D_q) = sqrt(Q.shape[0]), the head size D/H.",
    ["multihead_scaled_self_attention", "multihead_self_attention"])
bug(s, P3, "ps3_layer_code", "SelfAttention.__init__", '''class SelfAttention:
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
        A = softmax(scores)
        return (A @ V) @ self.W_o''',
    "Draws the weights with np.random.rand, i.e. uniform on [0, 1) (mean 0.5, std 0.29), instead of the standard normal N(0, 1) (np.random.randn / np.random.normal).")
bug(s, P4, "ps4_context_vector_code", "get_context_vector", '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return np.sum(attention_weights * hidden_encoder_matrix, axis=0)''',
    "Multiplies the 1-D weights elementwise with the matrix, so broadcasting lines weight j up with column j (a feature) instead of row j (a state); it should be attention_weights @ hidden_encoder_matrix (weights[:, None] * matrix summed over axis 0).",
    ["single_query_attention"])
bug(s, P5, "ps5_causal_mask_code", "causal_mask", '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.tril(np.ones((N, N), dtype=bool))''',
    "Returns the lower triangle (m >= n, the rows-as-tokens convention) instead of the upper triangle m <= n: with inputs in rows and outputs in columns the mask should be np.triu.",
    ["masked_self_attention", "equivariance_gaps"])
bug(s, P5, "ps5_positional_encoding_code", "positional_encoding", '''def positional_encoding(D, N):
    rows = np.arange(D)[:, None]
    pos = np.arange(N)[None, :]
    angles = pos / 10000 ** (rows / D)
    return np.where(rows % 2 == 0, np.sin(angles), np.cos(angles))''',
    "Uses the row index r itself as 2i in the frequency, so the odd (cosine) rows get the frequency of row r instead of sharing it with row r-1; the exponent should be (r - r % 2) / D.",
    ["equivariance_gaps"])

# ------------------------------------------------------------------ s6
s = "blind11_s6"
bug(s, P1, "ps1_loop_code", "self_attention_loop", '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    N_tokens = len(all_x)
    all_queries, all_keys, all_values = [], [], []
    for x in all_x:
        all_queries.append(beta_q + omega_q @ x)
        all_keys.append(beta_k + omega_k @ x)
        all_values.append(beta_v + omega_v @ x)
    all_x_prime = []
    for n in range(N_tokens):
        # dot product of the key of token n with the queries of all the tokens
        all_km_qn = []
        for m in range(N_tokens):
            all_km_qn.append((all_keys[n].T @ all_queries[m]).item())
        attention = softmax(all_km_qn)
        x_prime = np.zeros_like(all_values[0])
        for m in range(N_tokens):
            x_prime = x_prime + attention[m] * all_values[m]
        all_x_prime.append(x_prime)
    return all_x_prime''',
    "Swaps the roles of query and key: the scores for output n are k_n^T q_m instead of k_m^T q_n, so the softmax for output n runs over a row of K^T Q rather than its column n.")
bug(s, P1, "ps1_scaled_code", "scaled_dot_product_self_attention", '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    ones = np.ones((1, X.shape[1]))
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    D_q = X.shape[0]   # size of one input
    dot_products = (K.T @ Q) / np.sqrt(D_q)
    attentions = softmax_cols(dot_products)
    X_prime = V @ attentions
    return X_prime, attentions''',
    "Takes D_q from X.shape[0] (the input size D) instead of Q.shape[0] (the rows of Omega_q); identical when D_q = D as in the visible test, wrong when the queries have fewer rows than the inputs.")
bug(s, P2, "ps2_multihead_general_code", "multihead_self_attention", '''def multihead_self_attention(X, heads, omega_c):
    head_outputs = []
    for head in heads:
        head_outputs.append(single_head_attention(X, *head.values()))
    stacked = np.vstack(head_outputs)
    X_prime = omega_c @ stacked
    return X_prime''',
    "Unpacks each head with *head.values(), which passes the parameters in the dictionaries' order (omega_q, omega_k, omega_v, beta_q, ...) instead of values, queries, keys; the entries should be read by name.")
bug(s, P3, "ps3_softmax_code", "softmax", '''def softmax(X):
    out = np.empty(X.shape, dtype=float)
    biggest = np.max(X)   # largest score of the whole matrix
    for i in range(X.shape[0]):
        exps = np.exp(X[i] - biggest)
        out[i] = exps / np.sum(exps)
    return out''',
    "Subtracts one maximum for the whole matrix instead of each row's own maximum, so a row lying far below the global maximum underflows to 0/0 = nan; it should subtract np.max(X[i]) per row.",
    ["SelfAttention.forward"])
bug(s, P4, "ps4_scale_scores_code", "scale_scores", '''def scale_scores(scores, n):
    scores /= np.sqrt(n)
    return scores''',
    "Divides the caller's array in place (scores /= ...), so it modifies its argument (and fails on integer arrays); it should return a new array, scores / np.sqrt(n).")
bug(s, P5, "ps5_masked_softmax_code", "masked_softmax_cols", '''def masked_softmax_cols(scores, mask):
    masked_scores = np.where(mask, scores, 0.0)   # masked scores set to zero
    col_max = np.max(masked_scores, axis=0, keepdims=True)
    exps = np.exp(masked_scores - col_max)
    return exps / np.sum(exps, axis=0, keepdims=True)''',
    "Replaces masked scores by 0 instead of -inf, so each masked entry still gets weight exp(0 - max) > 0 (and a fully masked column is not zero); masked entries should get exactly 0 weight.",
    ["masked_self_attention", "equivariance_gaps"])
bug(s, P5, "ps5_equivariance_code", "equivariance_gaps", '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    D_x, N_x = X.shape
    Pi = positional_encoding(D_x, N_x)
    gaps = []
    a = scaled_self_attention(X[:, perm], omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    b = scaled_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0][:, perm]
    gaps.append(np.max(np.abs(a - b)))
    a = masked_self_attention(X[:, perm], omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    b = masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0][:, perm]
    gaps.append(np.max(np.abs(a - b)))
    XP = X + Pi
    a = scaled_self_attention(XP[:, perm], omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    b = scaled_self_attention(XP, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0][:, perm]
    gaps.append(np.max(np.abs(a - b)))
    return np.array(gaps)''',
    "For the third gap it permutes X + Pi together, i.e. computes Sa[(X + Pi)P], so the positional encoding moves with the tokens and the gap is 0; Pi must stay fixed: Sa[X P + Pi] compared with Sa[X + Pi] P.")

# ------------------------------------------------------------------ s7
s = "blind11_s7"
bug(s, P1, "ps1_softmax_cols_code", "softmax_cols", '''def softmax_cols(data_in):
    e = np.exp(data_in - data_in.max())
    return e / e.sum(axis=0, keepdims=True)''',
    "Subtracts the maximum of the whole matrix instead of each column's maximum, so a column far below the global maximum underflows to 0/0 = nan; it should use data_in.max(axis=0, keepdims=True).",
    ["self_attention", "scaled_dot_product_self_attention"])
bug(s, P1, "ps1_self_attention_code", "self_attention", '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(Q.T @ K)
    X_prime = V @ attentions
    return X_prime, attentions''',
    "Computes the scores as Q^T K instead of K^T Q (the transpose), so column n holds q_m^T k_n instead of k_m^T q_n and the softmax normalises the wrong entries.")
bug(s, P2, "ps2_multihead_scaled_code", "multihead_scaled_self_attention", '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    head1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    X_prime = omega_c @ np.vstack([head2, head1])
    return X_prime''',
    "Stacks the heads in the wrong order (head 2 on top of head 1); equation 12.11 puts head 1 first.")
bug(s, P3, "ps3_layer_code", "SelfAttention.forward", '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_k = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_v = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_o = np.random.normal(0.0, 1.0, (dims, dims))

    def forward(self, x):
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        scores = Q @ K.T / self.dims ** 1/2
        A = softmax(scores)
        return (A @ V) @ self.W_o''',
    "Precedence slip: self.dims ** 1/2 is (dims ** 1) / 2 = dims/2, not sqrt(dims); it coincides with sqrt(dims) only for dims = 4. It should be np.sqrt(self.dims) (or self.dims ** 0.5).")
bug(s, P4, "ps4_single_query_code", "single_query_attention", '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    d_k = len(query_token)
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), d_k))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output''',
    "Scales by the token size d_model = len(query_token) instead of d_k = W_K.shape[1], the size of one key; wrong whenever the projections change the size.")
bug(s, P4, "ps4_split_heads_code", "split_heads", '''def split_heads(W, h):
    return list(np.split(W, h, axis=0))''',
    "Splits W into blocks of consecutive rows (axis=0) instead of consecutive columns (axis=1).")
bug(s, P5, "ps5_masked_attention_code", "masked_self_attention", '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    scores = K.T @ Q / np.sqrt(Q.shape[0])
    attentions = masked_softmax_cols(scores, causal_mask(N))
    X_prime = V @ attentions
    return X_prime, attentions''',
    "Builds the mask with the notebook global N instead of the number of tokens X.shape[1], so it breaks on inputs with another number of tokens.",
    ["equivariance_gaps"])

# ------------------------------------------------------------------ s8
s = "blind11_s8"
bug(s, P1, "ps1_equivariance_code", "check_equivariance", '''def check_equivariance(f, X, perm):
    permuted_then_f = f(X[:, perm])
    f_then_permuted = f(X)[:, perm]
    difference = np.sum(permuted_then_f - f_then_permuted)
    return bool(np.isclose(difference, 0))''',
    "Compares the sum of the differences with 0 instead of comparing entry by entry, so differences of opposite sign cancel (e.g. for a map that only reorders columns); it should be np.allclose(f(X[:, perm]), f(X)[:, perm]).")
bug(s, P2, "ps2_single_head_code", "single_head_attention", '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    D_q = Q.shape[0]
    return V @ softmax_cols(K.T @ Q) / np.sqrt(D_q)''',
    "Divides by sqrt(D_q) after the softmax (scaling the output V @ Softmax[K^T Q]) instead of scaling the scores inside the softmax: Softmax[K^T Q / sqrt(D_q)].",
    ["multihead_scaled_self_attention", "multihead_self_attention"])
bug(s, P3, "ps3_layer_code", "SelfAttention.forward", '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.randn(dims, dims)
        self.W_k = np.random.randn(dims, dims)
        self.W_v = np.random.randn(dims, dims)
        self.W_o = np.random.randn(dims, dims)

    def forward(self, x):
        # fold the 1/sqrt(dims) scaling into the query weights
        self.W_q = self.W_q / np.sqrt(self.dims)
        Q = np.dot(x, self.W_q)
        K = np.dot(x, self.W_k)
        V = np.dot(x, self.W_v)
        A = softmax(np.dot(Q, K.T))
        return np.dot(np.dot(A, V), self.W_o)''',
    "Scales by overwriting self.W_q with W_q / sqrt(dims) inside forward, so every call shrinks the layer's weights again and a second call on the same tokens gives a different output; it should divide the scores Q K^T / sqrt(dims) and leave the attributes unchanged.")
bug(s, P4, "ps4_attention_weights_code", "get_attention_weights", '''def get_attention_weights(scores):
    shifted = scores - np.max(scores)
    return np.exp(shifted) / np.sum(np.exp(scores))''',
    "Shifts the numerator by the maximum but not the denominator, so the weights do not sum to 1 (they are scaled by exp(-max)) and overflow for large scores; both should use the shifted scores.",
    ["single_query_attention"])
bug(s, P4, "ps4_dimensions_code", "head_W_shape", '''# Tuples of ints (rows, columns), for example (5, 7).
# d_model = 4, h = 2 -> each head is 2-dimensional
head_W_shape = (2, 4)
concat_shape = (3, 4)
W_O_shape = (4, 4)''',
    "Gives W^Q_i the transposed shape (2, 4) carried over from problem set 2's column convention; with tokens in rows X (3 x 4) @ W^Q_i needs W^Q_i to be d_model x d_k = (4, 2).")
bug(s, P5, "ps5_positional_encoding_code", "positional_encoding", '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    for n in range(N):
        for i in range(D // 2):
            freq = 10000 ** (2 * i / D)
            Pi[2 * i, n] = np.cos(n / freq)
            Pi[2 * i + 1, n] = np.sin(n / freq)
    return Pi''',
    "Puts the cosine in the even rows and the sine in the odd rows; equation (PE) has sin in row 2i and cos in row 2i+1.",
    ["equivariance_gaps"])
bug(s, P5, "ps5_masked_softmax_code", "masked_softmax_cols", '''def masked_softmax_cols(scores, mask):
    weights = np.zeros(scores.shape, dtype=float)
    for n in range(scores.shape[1]):
        allowed = mask[:, n]
        if not np.any(allowed):
            continue
        col_max = np.max(scores[:, n])   # maximum of the column
        exps = np.exp(scores[allowed, n] - col_max)
        weights[allowed, n] = exps / np.sum(exps)
    return weights''',
    "Subtracts the maximum of the whole column, masked scores included, instead of the maximum of the allowed scores, so a large masked score underflows every allowed exponent to 0 and gives 0/0 = nan.",
    ["masked_self_attention", "equivariance_gaps"])

# ------------------------------------------------------------------ s9
s = "blind11_s9"
bug(s, P1, "ps1_softmax_code", "softmax", '''def softmax(items_in):
    z = np.asarray(items_in, dtype=float)
    z -= z.max()
    e = np.exp(z)
    return e / e.sum()''',
    "np.asarray does not copy a float array, so z -= z.max() shifts the caller's array in place (the input is mutated); it should work on a copy (z = z - z.max() or np.array(items_in, dtype=float)).")
bug(s, P1, "ps1_loop_code", "self_attention_loop", '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    all_q = [beta_q + omega_q @ x for x in all_x]
    all_k = [beta_k + omega_k @ x for x in all_x]
    all_v = [beta_v + omega_v @ x for x in all_x]
    all_x_prime = []
    for q_n in all_q:
        scores = [(k_m.T @ q_n).item() for k_m in all_k]
        a = softmax(scores)
        x_prime = sum(a[m] * all_v[m] for m in range(len(all_v)))
        all_x_prime.append(x_prime.ravel())
    return all_x_prime''',
    "Flattens every output with .ravel(), returning shape (D,) vectors instead of D x 1 columns like the inputs.")
bug(s, P2, "ps2_multihead_general_code", "mix_heads", '''def multihead_self_attention(X, heads, omega_c):
    outs = []
    for h in heads:
        outs.append(single_head_attention(X, h["omega_v"], h["omega_q"], h["omega_k"],
                                          h["beta_v"], h["beta_q"], h["beta_k"]))
    X_prime = mix_heads(outs)
    return X_prime


def mix_heads(outs):
    return omega_c @ np.vstack(outs)''',
    "The helper mix_heads multiplies by the notebook global omega_c instead of the omega_c passed to multihead_self_attention, so any call with another mixing matrix (the four-head example) uses the wrong matrix; it should take omega_c as an argument.",
    ["multihead_self_attention"])
bug(s, P3, "ps3_softmax_code", "softmax", '''def softmax(X):
    e = np.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)''',
    "Normalises by the column sums (axis=0) instead of the row sums (axis=1), so the rows do not sum to one.",
    ["SelfAttention.forward"])
bug(s, P4, "ps4_get_scores_code", "get_scores", '''def get_scores(matrix, vector):
    return vector @ matrix''',
    "Computes vector @ matrix, which dots the vector with each column of the matrix, instead of matrix @ vector (one dot product per row/state); it only runs for square matrices and gives the wrong scores.",
    [])
bug(s, P4, "ps4_single_query_code", "single_query_attention", '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.expand_dims(query_token, 0) @ W_Q      # 1 x d_k
    K = tokens @ W_K
    V = tokens @ W_V
    scores = (q @ K.T) / np.sqrt(W_K.shape[1])   # 1 x T
    attention_weights = get_attention_weights(scores)
    output = attention_weights @ V                # 1 x d_v
    return attention_weights, output''',
    "Turns the query into a 1 x d row with np.expand_dims, so the weights come back as a 1 x T matrix and the output as 1 x d_v instead of 1-D arrays of shape (T,) and (d_v,).")
bug(s, P5, "ps5_equivariance_code", "equivariance_gaps", '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(D, N)
    maps = [lambda Z: scaled_self_attention(Z, *params)[0],
            lambda Z: masked_self_attention(Z, *params)[0],
            lambda Z: scaled_self_attention(Z + Pi, *params)[0]]
    return np.array([np.max(np.abs(f(X[:, perm]) - f(X)[:, perm])) for f in maps])''',
    "Builds the positional encoding with the notebook globals D and N instead of X.shape, so it fails (shape mismatch) for inputs of another size.")

# ------------------------------------------------------------------ s10
s = "blind11_s10"
bug(s, P1, "ps1_self_attention_code", "self_attention", '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    ones = np.ones((1, X.shape[1]))
    Q = beta_k @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    dot_products = K.T @ Q
    attentions = softmax_cols(dot_products)
    X_prime = V @ attentions
    return X_prime, attentions''',
    "Copy-paste slip: the queries use the key bias beta_k instead of beta_q (Q = beta_q 1^T + Omega_q X).")
bug(s, P1, "ps1_scaled_code", "scaled_dot_product_self_attention", '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    ones = np.ones((1, X.shape[1]))
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    D_q = Q.shape[0]
    dot_products = (K.T @ Q) / D_q
    attentions = softmax_cols(dot_products)
    X_prime = V @ attentions
    return X_prime, attentions''',
    "Divides the scores by D_q instead of sqrt(D_q).")
bug(s, P2, "ps2_multihead_scaled_code", "multihead_scaled_self_attention", '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    sa_1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    sa_2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    stacked = np.vstack((sa_1, sa_2))
    X_prime = stacked.T @ omega_c
    return X_prime''',
    "Multiplies in the tokens-in-rows order, stacked.T @ omega_c (N x D, i.e. the transpose of (Omega_c^T stacked)), instead of omega_c @ stacked (D x N): wrong shape and, since Omega_c is not symmetric, wrong values.")
bug(s, P3, "ps3_layer_code", "SelfAttention.__init__", '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        W = np.random.randn(dims, dims)
        self.W_q = W
        self.W_k = W
        self.W_v = W
        self.W_o = W

    def forward(self, x):
        Q = np.dot(x, self.W_q)
        K = np.dot(x, self.W_k)
        V = np.dot(x, self.W_v)
        S = np.dot(Q, K.T) / np.sqrt(self.dims)
        A = softmax(S)
        return np.dot(np.dot(A, V), self.W_o)''',
    "Draws one matrix and assigns it to all four attributes, so W_q, W_k, W_v and W_o are the same matrix; each should be a separate N(0, 1) draw.")
bug(s, P4, "ps4_context_vector_code", "get_context_vector", '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    context = np.zeros(hidden_encoder_matrix.shape[1])
    for j in range(len(attention_weights)):
        context = context + attention_weights[j] * h_e[j]
    return context''',
    "Sums the rows of the notebook global h_e instead of the argument hidden_encoder_matrix, so it ignores the matrix it is given (and gives wrong results for the values V in single_query_attention).",
    ["single_query_attention"])
bug(s, P4, "ps4_split_heads_code", "split_heads", '''def split_heads(W, h):
    width = W.shape[1] // h
    return W.reshape(W.shape[0], h, width).transpose(1, 0, 2)''',
    "Returns the blocks as one 3-D array of shape (h, rows, d_model/h) instead of a list of h 2-D blocks.")
bug(s, P5, "ps5_causal_mask_code", "causal_mask", '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    mask = np.zeros((N, N), dtype=bool)
    for m in range(N):
        for n in range(N):
            if m < n:
                mask[m, n] = True
    return mask''',
    "Off by one: uses m < n, so the diagonal is False and an output cannot attend to its own token (and output 0 attends to nothing); (M1) is m <= n.",
    ["masked_self_attention", "equivariance_gaps"])
bug(s, P5, "ps5_masked_attention_code", "masked_self_attention", '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    n_tokens = X.shape[1]
    scores = (K.T @ Q) / np.sqrt(Q.shape[0])
    weights = softmax_cols(scores)                       # ordinary softmax
    weights = weights * causal_mask(n_tokens)            # zero the future
    attentions = weights / weights.sum(axis=0, keepdims=True)   # renormalise
    X_prime = V @ attentions
    return X_prime, attentions''',
    "Applies an ordinary softmax and then zeroes and renormalises instead of using masked_softmax_cols; when a masked (later) score is far larger the allowed weights underflow to 0 and 0/0 gives nan.",
    ["equivariance_gaps"])

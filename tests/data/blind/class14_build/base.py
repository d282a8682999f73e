"""Correct reference solutions (student s1 style: vectorised numpy) + written answers."""
S1 = {}
S1["ps1_softmax_code"] = '''def softmax(items_in):
    z = np.asarray(items_in, dtype=float).ravel()
    e = np.exp(z - z.max())
    return e / e.sum()
'''
S1["ps1_loop_code"] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    all_queries = [beta_q + omega_q @ x for x in all_x]
    all_keys = [beta_k + omega_k @ x for x in all_x]
    all_values = [beta_v + omega_v @ x for x in all_x]
    all_x_prime = []
    for q in all_queries:
        scores = [(k.T @ q).item() for k in all_keys]
        a = softmax(scores)
        x_prime = np.zeros(all_values[0].shape)
        for a_m, v in zip(a, all_values):
            x_prime = x_prime + a_m * v
        all_x_prime.append(x_prime)
    return all_x_prime
'''
S1["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    data_in = np.asarray(data_in, dtype=float)
    e = np.exp(data_in - data_in.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)
'''
S1["ps1_self_attention_code"] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(K.T @ Q)
    X_prime = V @ attentions
    return X_prime, attentions
'''
S1["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
    X_prime = V @ attentions
    return X_prime, attentions
'''
S1["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    return bool(np.allclose(f(X[:, perm]), f(X)[:, perm]))
'''
S1["ps1_positional_answer"] = ("No. Permuting the columns of X moves the tokens but not the positional encoding, so "
    "Sa[XP + Pi] is attention on a different set of vectors (each token now carries the encoding of its new position), "
    "whereas Sa[X + Pi]P = Sa[(X + Pi)P] = Sa[XP + Pi P] would need Pi P = Pi, which fails because the columns of Pi are distinct. "
    "check_equivariance(lambda Z: attention(Z + Pi), X, [1, 2, 0]) indeed returns False.")
S1["ps2_single_head_code"] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
'''
S1["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    head_1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head_2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    X_prime = omega_c @ np.vstack([head_1, head_2])
    return X_prime
'''
S1["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    outs = [single_head_attention(X, h["omega_v"], h["omega_q"], h["omega_k"],
                                  h["beta_v"], h["beta_q"], h["beta_k"]) for h in heads]
    X_prime = omega_c @ np.vstack(outs)
    return X_prime
'''
S1["ps3_softmax_code"] = '''def softmax(X):
    Z = X - X.max(axis=1, keepdims=True)
    e = np.exp(Z)
    return e / e.sum(axis=1, keepdims=True)
'''
S1["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.normal(0.0, 1.0, size=(dims, dims))
        self.W_k = np.random.normal(0.0, 1.0, size=(dims, dims))
        self.W_v = np.random.normal(0.0, 1.0, size=(dims, dims))
        self.W_o = np.random.normal(0.0, 1.0, size=(dims, dims))

    def forward(self, x):
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        scores = Q @ K.T / np.sqrt(self.dims)
        weights = softmax(scores)
        return (weights @ V) @ self.W_o
'''
S1["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    return np.asarray(matrix) @ np.asarray(vector)
'''
S1["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    return np.asarray(scores) / np.sqrt(n)
'''
S1["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    s = np.asarray(scores, dtype=float)
    e = np.exp(s - s.max())
    return e / e.sum()
'''
S1["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return np.asarray(attention_weights) @ np.asarray(hidden_encoder_matrix)
'''
S1["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    d_k = W_K.shape[1]
    scores = scale_scores(get_scores(K, q), d_k)
    attention_weights = get_attention_weights(scores)
    output = get_context_vector(attention_weights, V)
    return attention_weights, output
'''
S1["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape = (4, 2)   # d_model x d_model/h
concat_shape = (3, 4)   # T x (h * d_v)
W_O_shape = (4, 4)      # (h * d_v) x d_model
'''
S1["ps4_split_heads_code"] = '''def split_heads(W, h):
    step = W.shape[1] // h
    return [W[:, i * step:(i + 1) * step].copy() for i in range(h)]
'''
S1["ps4_heads_answer"] = ("Several heads let the layer compute several different attention patterns at once: in the heat maps "
    "head 1 leaned towards \"translation\" and head 2 towards \"is\" for the same queries. Each head works in its own "
    "low-dimensional subspace (d_model/h columns of W^Q, W^K, W^V), so it can specialise in one kind of relation "
    "(e.g. syntax vs. meaning) instead of averaging them into one softmax. Because each head is d_model/h wide, "
    "h heads cost about the same as one full-size head, and W^O then mixes their outputs back into d_model dimensions. "
    "A single head would have to squeeze all relations into one set of weights per query.")
S1["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    idx = np.arange(N)
    return idx[:, None] <= idx[None, :]
'''
S1["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    scores = np.asarray(scores, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    masked = np.where(mask, scores, -np.inf)
    col_max = masked.max(axis=0, keepdims=True)
    col_max = np.where(np.isfinite(col_max), col_max, 0.0)
    e = np.where(mask, np.exp(masked - col_max), 0.0)
    total = e.sum(axis=0, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)
'''
S1["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    mask = causal_mask(X.shape[1])
    attentions = masked_softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]), mask)
    X_prime = V @ attentions
    return X_prime, attentions
'''
S1["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    rows = np.arange(D)
    two_i = rows - rows % 2
    freq = 1.0 / 10000 ** (two_i / D)
    angles = freq[:, None] * np.arange(N)[None, :]
    return np.where(rows[:, None] % 2 == 0, np.sin(angles), np.cos(angles))
'''
S1["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(X.shape[0], X.shape[1])

    def gap(f):
        return np.max(np.abs(f(X[:, perm]) - f(X)[:, perm]))

    plain = lambda Z: scaled_self_attention(Z, *params)[0]
    causal = lambda Z: masked_self_attention(Z, *params)[0]
    positioned = lambda Z: scaled_self_attention(Z + Pi, *params)[0]
    return np.array([gap(plain), gap(causal), gap(positioned)])
'''
S1["ps5_decoder_answer"] = ("(a) Without the mask output n could attend to token n+1 itself, so it would just learn to copy the "
    "next token from the input; at generation time that token does not exist yet, so the model has learned nothing useful "
    "for predicting it.\n\n(b) No: output n is a softmax-weighted sum over tokens 0..n whose weights depend only on each "
    "token's key and value, not on where it sits, so permuting tokens 0..n-1 among themselves leaves output n unchanged "
    "(it sees the set of earlier tokens, not their order).")

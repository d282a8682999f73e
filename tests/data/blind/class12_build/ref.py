# Reference (correct) solution cells, keyed by notebook then nbgrader grade_id.
REF = {}
REF["ps1_self_attention"] = {
"ps1_softmax_code": '''def softmax(items_in):
    z = np.asarray(items_in, dtype=float).ravel()
    e = np.exp(z - z.max())
    return e / e.sum()
''',
"ps1_loop_code": '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    all_q = [beta_q + omega_q @ x for x in all_x]
    all_k = [beta_k + omega_k @ x for x in all_x]
    all_v = [beta_v + omega_v @ x for x in all_x]
    all_x_prime = []
    for q_n in all_q:
        scores = [(k_m.T @ q_n).item() for k_m in all_k]
        a = softmax(scores)
        x_prime = np.zeros_like(all_v[0])
        for a_m, v_m in zip(a, all_v):
            x_prime = x_prime + a_m * v_m
        all_x_prime.append(x_prime)
    return all_x_prime
''',
"ps1_softmax_cols_code": '''def softmax_cols(data_in):
    e = np.exp(data_in - data_in.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)
''',
"ps1_self_attention_code": '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(K.T @ Q)
    X_prime = V @ attentions
    return X_prime, attentions
''',
"ps1_scaled_code": '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
    X_prime = V @ attentions
    return X_prime, attentions
''',
"ps1_equivariance_code": '''def check_equivariance(f, X, perm):
    return bool(np.allclose(f(X[:, perm]), f(X)[:, perm]))
''',
"ps1_positional_answer": '''No. Sa[XP + Pi] is not Sa[X + Pi]P in general: after the permutation every token is added to the encoding of a different position, so the inputs of the layer are not just a permutation of the old inputs (X + Pi)P = XP + PiP, and PiP differs from Pi when the columns of Pi are distinct. check_equivariance with f = lambda Z: attention(Z + Pi) returns False.
''',
}
REF["ps2_multihead_attention"] = {
"ps2_single_head_code": '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
''',
"ps2_multihead_scaled_code": '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    head_1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head_2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    X_prime = omega_c @ np.vstack([head_1, head_2])
    return X_prime
''',
"ps2_multihead_general_code": '''def multihead_self_attention(X, heads, omega_c):
    outs = [single_head_attention(X, h["omega_v"], h["omega_q"], h["omega_k"],
                                  h["beta_v"], h["beta_q"], h["beta_k"]) for h in heads]
    X_prime = omega_c @ np.vstack(outs)
    return X_prime
''',
}
REF["ps3_attention_layer"] = {
"ps3_softmax_code": '''def softmax(X):
    e = np.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
''',
"ps3_layer_code": '''class SelfAttention:
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
        scores = Q @ K.T / np.sqrt(self.dims)
        A = softmax(scores)
        return (A @ V) @ self.W_o
''',
}
REF["ps4_encoder_decoder_attention"] = {
"ps4_get_scores_code": '''def get_scores(matrix, vector):
    return matrix @ vector
''',
"ps4_scale_scores_code": '''def scale_scores(scores, n):
    return scores / np.sqrt(n)
''',
"ps4_attention_weights_code": '''def get_attention_weights(scores):
    e = np.exp(scores - np.max(scores))
    return e / e.sum()
''',
"ps4_context_vector_code": '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return attention_weights @ hidden_encoder_matrix
''',
"ps4_single_query_code": '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    d_k = W_K.shape[1]
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), d_k))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output
''',
"ps4_dimensions_code": '''# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape = (4, 2)
concat_shape = (3, 4)
W_O_shape = (4, 4)
''',
"ps4_split_heads_code": '''def split_heads(W, h):
    size = W.shape[1] // h
    return [W[:, i * size:(i + 1) * size] for i in range(h)]
''',
"ps4_heads_answer": '''Each head has its own query, key and value projections, so it computes its own attention pattern: in the heat maps above head 1 leans towards "translation" while head 2 leans towards "is". Several heads can therefore follow several relations between the tokens at once (for example syntax and meaning), where a single head must average them into one distribution. Because each head works in a space of size d_model/h, the total cost is about the same as one full-size head, and W^O then mixes what the heads found.
''',
}
REF["ps5_masked_attention"] = {
"ps5_causal_mask_code": '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.triu(np.ones((N, N), dtype=bool))
''',
"ps5_masked_softmax_code": '''def masked_softmax_cols(scores, mask):
    s = np.where(mask, scores, -np.inf)
    col_max = s.max(axis=0, keepdims=True)
    col_max = np.where(np.isfinite(col_max), col_max, 0.0)
    e = np.where(mask, np.exp(s - col_max), 0.0)
    total = e.sum(axis=0, keepdims=True)
    return e / np.where(total > 0, total, 1.0)
''',
"ps5_masked_attention_code": '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = masked_softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]), causal_mask(X.shape[1]))
    X_prime = V @ attentions
    return X_prime, attentions
''',
"ps5_positional_encoding_code": '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    pos = np.arange(N)
    for i in range(D // 2):
        freq = 1.0 / 10000 ** (2 * i / D)
        Pi[2 * i] = np.sin(pos * freq)
        Pi[2 * i + 1] = np.cos(pos * freq)
    return Pi
''',
"ps5_equivariance_code": '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(*X.shape)
    maps = [lambda Z: scaled_self_attention(Z, *params)[0],
            lambda Z: masked_self_attention(Z, *params)[0],
            lambda Z: scaled_self_attention(Z + Pi, *params)[0]]
    return np.array([np.max(np.abs(f(X[:, perm]) - f(X)[:, perm])) for f in maps])
''',
"ps5_decoder_answer": '''(a) Without the mask output n can see token n+1 itself, so it would learn to copy the next token from its input instead of predicting it; at generation time token n+1 does not exist yet, so this shortcut is useless and the predictions are poor.

(b) No: output n is a weighted sum over the set of tokens 0, ..., n with weights that depend only on the token contents and on q_n, so permuting tokens 0, ..., n-1 among themselves leaves output n unchanged. It knows which tokens come before it, but not their order.
''',
}

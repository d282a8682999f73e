# Reference (plain) solutions, used as the base for the bugged students 5-10.
REF = {
"ps1_self_attention": {
"ps1_softmax_code": '''def softmax(items_in):
    z = np.asarray(items_in, dtype=float)
    exp_values = np.exp(z - z.max())
    return exp_values / exp_values.sum()''',
"ps1_loop_code": '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    all_queries = []
    all_keys = []
    all_values = []
    for x in all_x:
        all_queries.append(beta_q + omega_q @ x)
        all_keys.append(beta_k + omega_k @ x)
        all_values.append(beta_v + omega_v @ x)

    all_x_prime = []
    for q in all_queries:
        scores = [(k.T @ q).item() for k in all_keys]
        attention = softmax(scores)
        x_prime = np.zeros_like(all_values[0])
        for m, v in enumerate(all_values):
            x_prime = x_prime + attention[m] * v
        all_x_prime.append(x_prime)
    return all_x_prime''',
"ps1_softmax_cols_code": '''def softmax_cols(data_in):
    exp_values = np.exp(data_in - data_in.max(axis=0, keepdims=True))
    return exp_values / exp_values.sum(axis=0, keepdims=True)''',
"ps1_self_attention_code": '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(K.T @ Q)
    X_prime = V @ attentions
    return X_prime, attentions''',
"ps1_scaled_code": '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
    X_prime = V @ attentions
    return X_prime, attentions''',
"ps1_equivariance_code": '''def check_equivariance(f, X, perm):
    return bool(np.allclose(f(X[:, perm]), f(X)[:, perm]))''',
"ps1_positional_answer": '''No. Permuting the tokens now changes which positional column each token gets, so Sa[XP + Pi] is not Sa[X + Pi]P: the tokens move but Pi stays, so the inputs to the layer are not just a permutation of the old inputs. `check_equivariance(lambda Z: attention(Z + Pi), X, [1, 2, 0])` returns False.''',
},
"ps2_multihead_attention": {
"ps2_single_head_code": '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
    return V @ attentions''',
"ps2_multihead_scaled_code": '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    head1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    X_prime = omega_c @ np.vstack([head1, head2])
    return X_prime''',
"ps2_multihead_general_code": '''def multihead_self_attention(X, heads, omega_c):
    outputs = []
    for head in heads:
        outputs.append(single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                             head["beta_v"], head["beta_q"], head["beta_k"]))
    X_prime = omega_c @ np.vstack(outputs)
    return X_prime''',
},
"ps3_attention_layer": {
"ps3_softmax_code": '''def softmax(X):
    exp_x = np.exp(X - X.max(axis=1, keepdims=True))
    return exp_x / exp_x.sum(axis=1, keepdims=True)''',
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
        attention = softmax(scores)
        self_attention = attention @ V
        return self_attention @ self.W_o''',
},
"ps4_encoder_decoder_attention": {
"ps4_get_scores_code": '''def get_scores(matrix, vector):
    return matrix @ vector''',
"ps4_scale_scores_code": '''def scale_scores(scores, n):
    return np.asarray(scores) / np.sqrt(n)''',
"ps4_attention_weights_code": '''def get_attention_weights(scores):
    exp_scores = np.exp(scores - np.max(scores))
    return exp_scores / exp_scores.sum()''',
"ps4_context_vector_code": '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return attention_weights @ hidden_encoder_matrix''',
"ps4_single_query_code": '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    d_k = W_K.shape[1]
    scores = scale_scores(get_scores(K, q), d_k)
    attention_weights = get_attention_weights(scores)
    output = get_context_vector(attention_weights, V)
    return attention_weights, output''',
"ps4_dimensions_code": '''# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape = (4, 2)
concat_shape = (3, 4)
W_O_shape = (4, 4)''',
"ps4_split_heads_code": '''def split_heads(W, h):
    size = W.shape[1] // h
    return [W[:, i * size:(i + 1) * size].copy() for i in range(h)]''',
"ps4_heads_answer": '''Each head has its own query, key and value projections, so each head can compute a different attention pattern: in the heat maps above head 1 leans towards "translation" while head 2 leans towards "is". One head would have to average all these relations into a single set of weights. Because each head works in a space of size d_model/h, the h heads together cost about the same as one full-size head. W^O then mixes what the heads found, so every output dimension can use every head.''',
},
"ps5_masked_attention": {
"ps5_causal_mask_code": '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.triu(np.ones((N, N), dtype=bool))''',
"ps5_masked_softmax_code": '''def masked_softmax_cols(scores, mask):
    masked = np.where(mask, scores, -np.inf)
    col_max = masked.max(axis=0, keepdims=True)
    col_max = np.where(np.isfinite(col_max), col_max, 0.0)
    exp_values = np.where(mask, np.exp(masked - col_max), 0.0)
    totals = exp_values.sum(axis=0, keepdims=True)
    return np.divide(exp_values, totals, out=np.zeros_like(exp_values), where=totals > 0)''',
"ps5_masked_attention_code": '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    mask = causal_mask(X.shape[1])
    attentions = masked_softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]), mask)
    X_prime = V @ attentions
    return X_prime, attentions''',
"ps5_positional_encoding_code": '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    positions = np.arange(N)
    for r in range(D):
        two_i = r - (r % 2)
        angle = positions / 10000 ** (two_i / D)
        if r % 2 == 0:
            Pi[r] = np.sin(angle)
        else:
            Pi[r] = np.cos(angle)
    return Pi''',
"ps5_equivariance_code": '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(X.shape[0], X.shape[1])

    def gap(f):
        return np.max(np.abs(f(X[:, perm]) - f(X)[:, perm]))

    plain = lambda Z: scaled_self_attention(Z, *params)[0]
    causal = lambda Z: masked_self_attention(Z, *params)[0]
    positions = lambda Z: scaled_self_attention(Z + Pi, *params)[0]
    return np.array([gap(plain), gap(causal), gap(positions)])''',
"ps5_decoder_answer": '''(a) Without the mask, output n could see token n+1 itself, so the decoder would just learn to copy the next token from its input; when generating text that next token does not exist yet, so what it learned is useless.

(b) No. Output n is a softmax-weighted sum over the set of tokens 0, ..., n, and permuting tokens 0, ..., n-1 among themselves only reorders the terms of that sum, so output n is unchanged: it depends on which tokens come before it, not on their order.''',
},
}

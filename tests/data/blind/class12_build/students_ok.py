# Correct students s1..s4: full override sets (styles differ). Missing cells fall back to REF.
S = {}
# ---------------- s1: loops, verbose comments, Python lists where allowed ----------------
S["blind12_s1"] = {
"ps1_self_attention": {
"ps1_softmax_code": '''def softmax(items_in):
    # Convert to a flat list of floats so that lists and arrays both work
    values = [float(v) for v in np.ravel(items_in)]
    # Subtract the largest score: every exponent is then <= 0, so nothing overflows
    biggest = max(values)
    exps = [np.exp(v - biggest) for v in values]
    total = sum(exps)
    # Normalise so the weights sum to one
    return np.array([e / total for e in exps])
''',
"ps1_loop_code": '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # Step 1: queries, keys and values for every token (equations 12.2 and 12.4)
    all_queries = []
    all_keys = []
    all_values = []
    for x in all_x:
        all_queries.append(beta_q + omega_q @ x)
        all_keys.append(beta_k + omega_k @ x)
        all_values.append(beta_v + omega_v @ x)

    # Step 2: for each output n, softmax over the dot products k_m^T q_n (eq. 12.5)
    all_x_prime = []
    for n in range(len(all_x)):
        all_km_qn = []
        for m in range(len(all_x)):
            all_km_qn.append((all_keys[m].T @ all_queries[n]).item())
        attention = softmax(all_km_qn)

        # Step 3: weighted sum of the values (eq. 12.3), kept as a D x 1 column
        x_prime = np.zeros(all_values[0].shape)
        for m in range(len(all_x)):
            x_prime = x_prime + attention[m] * all_values[m]
        all_x_prime.append(x_prime)
    return all_x_prime
''',
"ps1_softmax_cols_code": '''def softmax_cols(data_in):
    # Work column by column: each column is one output's scores
    data_in = np.asarray(data_in, dtype=float)
    out = np.zeros(data_in.shape)
    for n in range(data_in.shape[1]):
        col = data_in[:, n]
        e = np.exp(col - np.max(col))   # stable: subtract this column's own maximum
        out[:, n] = e / np.sum(e)
    return out
''',
"ps1_self_attention_code": '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # Queries, keys and values of all tokens at once (equation 12.6)
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    # Entry (m, n) = k_m^T q_n; softmax down every column (equation 12.8)
    dot_products = K.T @ Q
    attentions = softmax_cols(dot_products)
    X_prime = V @ attentions
    return X_prime, attentions
''',
"ps1_scaled_code": '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # Same as before, but divide the dot products by sqrt(D_q)
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    D_q = Q.shape[0]          # size of one query (rows of Q), not the global D
    attentions = softmax_cols((K.T @ Q) / np.sqrt(D_q))
    X_prime = V @ attentions
    return X_prime, attentions
''',
"ps1_equivariance_code": '''def check_equivariance(f, X, perm):
    # Permute first, then apply f ...
    permute_then_f = f(X[:, perm])
    # ... versus apply f, then permute
    f_then_permute = f(X)[:, perm]
    # Compare entry by entry with the default tolerance
    return bool(np.allclose(permute_then_f, f_then_permute))
''',
"ps1_positional_answer": '''No, it would no longer be equivariant. When we permute the columns of X, the tokens move but Pi stays where it is, so each token gets added to a different positional vector than before. The attention scores then change (they are not just permuted), so Sa[XP + Pi] is not Sa[X + Pi]P. I checked with Pi = np.arange(X.size).reshape(X.shape) / X.size and check_equivariance returned False.
''',
},
"ps2_multihead_attention": {
"ps2_single_head_code": '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # Queries, keys and values of this head: each D/H x N
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    # D_q is the size of one query of this head (rows of Q)
    D_q = Q.shape[0]
    scores = K.T @ Q / np.sqrt(D_q)
    # softmax_cols is the given, stable column softmax
    return V @ softmax_cols(scores)
''',
"ps2_multihead_scaled_code": '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    # Run both heads
    sa_1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    sa_2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    # Stack head 1 on top of head 2 and mix with omega_c (equation 12.11)
    stacked = np.vstack((sa_1, sa_2))
    X_prime = omega_c @ stacked
    return X_prime
''',
"ps2_multihead_general_code": '''def multihead_self_attention(X, heads, omega_c):
    # Collect each head's output in a list, in list order
    head_outputs = []
    for head in heads:
        out = single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                    head["beta_v"], head["beta_q"], head["beta_k"])
        head_outputs.append(out)
    # Stack vertically (tokens are columns) and mix
    X_prime = omega_c @ np.vstack(head_outputs)
    return X_prime
''',
},
"ps3_attention_layer": {
"ps3_softmax_code": '''def softmax(X):
    # one row at a time, so every row uses its own maximum
    X = np.asarray(X, dtype=float)
    result = np.empty_like(X)
    for i in range(X.shape[0]):
        row = X[i] - np.max(X[i])     # new array: X itself is not changed
        e = np.exp(row)
        result[i] = e / e.sum()
    return result
''',
"ps3_layer_code": '''class SelfAttention:
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
        # queries, keys and values, x on the left (equation 2): each n x dims
        Q = np.dot(x, self.W_q)
        K = np.dot(x, self.W_k)
        V = np.dot(x, self.W_v)
        # scores (equation 3): n x n, divided by sqrt of the layer's dims
        scores = np.dot(Q, K.T) / np.sqrt(self.dims)
        # attention weights, each row sums to one (equation 4)
        weights = softmax(scores)
        # weighted values, then the output projection (equation 5)
        self_attention = np.dot(weights, V)
        output = np.dot(self_attention, self.W_o)
        return output
''',
},
"ps4_encoder_decoder_attention": {
"ps4_get_scores_code": '''def get_scores(matrix, vector):
    # one dot product per row (state) of the matrix
    scores = []
    for row in matrix:
        scores.append(np.dot(row, vector))
    return np.array(scores)
''',
"ps4_scale_scores_code": '''def scale_scores(scores, n):
    # divide by the square root of the size n that the caller passes
    return np.asarray(scores) / np.sqrt(n)
''',
"ps4_attention_weights_code": '''def get_attention_weights(scores):
    # stable softmax: subtract the largest score first
    shifted = np.asarray(scores, dtype=float) - np.max(scores)
    exps = np.exp(shifted)
    return exps / np.sum(exps)
''',
"ps4_context_vector_code": '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    # weight j scales the whole state j (row j), then add up the rows
    context = np.zeros(hidden_encoder_matrix.shape[1])
    for j in range(hidden_encoder_matrix.shape[0]):
        context = context + attention_weights[j] * hidden_encoder_matrix[j]
    return context
''',
"ps4_single_query_code": '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    # project: q is 1-D (size d_k), K is T x d_k, V is T x d_v
    q = query_token @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    d_k = W_K.shape[1]   # the size of one key: the columns of W_K
    scores = get_scores(K, q)
    scaled = scale_scores(scores, d_k)
    attention_weights = get_attention_weights(scaled)
    output = get_context_vector(attention_weights, V)
    return attention_weights, output
''',
"ps4_dimensions_code": '''# Tuples of ints (rows, columns), for example (5, 7).
# X is 3 x 4; each head works in size d_model / h = 2, so X W^Q_i must be 3 x 2
head_W_shape = (4, 2)
# the two heads' outputs (3 x 2 each) side by side
concat_shape = (3, 4)
# Concat (3 x 4) times W^O must give 3 x 4
W_O_shape = (4, 4)
''',
"ps4_split_heads_code": '''def split_heads(W, h):
    # consecutive blocks of columns, one per head
    width = W.shape[1] // h
    blocks = []
    for i in range(h):
        blocks.append(W[:, i * width:(i + 1) * width])
    return blocks
''',
"ps4_heads_answer": '''With several heads, each head has its own projection matrices and so it can learn to attend to different things: in the heat maps, head 1 mostly looks at "translation" while head 2 looks at "is". One head has to squeeze all the relations into a single softmax, which averages them. Splitting d_model into h smaller heads costs about the same as one big head, so we get several attention patterns for roughly the same price. W^O then combines what the heads found.
''',
},
"ps5_masked_attention": {
"ps5_causal_mask_code": '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    mask = np.zeros((N, N), dtype=bool)
    for m in range(N):
        for n in range(N):
            mask[m, n] = m <= n   # input m is visible to output n if it is not later
    return mask
''',
"ps5_masked_softmax_code": '''def masked_softmax_cols(scores, mask):
    # column by column so that a fully masked column can be handled on its own
    weights = np.zeros(scores.shape)
    for n in range(scores.shape[1]):
        allowed = mask[:, n]
        if not np.any(allowed):
            continue                        # nothing allowed: zero weights
        s = scores[allowed, n]              # only the allowed scores
        e = np.exp(s - np.max(s))           # subtract the max of the ALLOWED scores
        weights[allowed, n] = e / np.sum(e)
    return weights
''',
"ps5_masked_attention_code": '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # queries, keys, values as in problem set 1
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    n_tokens = X.shape[1]           # from X, not the global N
    D_q = Q.shape[0]                # from Q, not the global D
    scores = K.T @ Q / np.sqrt(D_q)
    attentions = masked_softmax_cols(scores, causal_mask(n_tokens))
    X_prime = V @ attentions
    return X_prime, attentions
''',
"ps5_positional_encoding_code": '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    for r in range(D):
        two_i = r if r % 2 == 0 else r - 1      # rows 2i and 2i+1 share a frequency
        for n in range(N):
            angle = n / 10000 ** (two_i / D)
            if r % 2 == 0:
                Pi[r, n] = np.sin(angle)
            else:
                Pi[r, n] = np.cos(angle)
    return Pi
''',
"ps5_equivariance_code": '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    D_x, N_x = X.shape
    Pi = positional_encoding(D_x, N_x)   # sizes from X

    def plain(Z):
        return scaled_self_attention(Z, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]

    def causal(Z):
        return masked_self_attention(Z, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]

    def with_positions(Z):
        return scaled_self_attention(Z + Pi, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]

    gaps = []
    for f in [plain, causal, with_positions]:
        gaps.append(np.max(np.abs(f(X[:, perm]) - f(X)[:, perm])))
    return np.array(gaps)
''',
"ps5_decoder_answer": '''(a) Without the mask, output n could just look at token n+1 in its input and copy it, so it would learn to cheat instead of learning to predict. When generating, token n+1 is not there yet, so the model has nothing to copy and it fails.

(b) No. Output n is a weighted sum of v_0..v_n whose weights depend only on the keys and on q_n, so permuting tokens 0..n-1 among themselves just reorders the terms of the sum and output n stays the same.
''',
},
}

# ---------------- s2: vectorised, einsum, helper reuse ----------------
S["blind12_s2"] = {
"ps1_self_attention": {
"ps1_softmax_code": '''def softmax(items_in):
    return softmax_1d(np.asarray(items_in, dtype=np.float64))

def softmax_1d(z):
    z = np.ravel(z)
    e = np.exp(z - z.max())
    return e / e.sum()
''',
"ps1_loop_code": '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    qs = [beta_q + omega_q @ x for x in all_x]
    ks = [beta_k + omega_k @ x for x in all_x]
    vs = [beta_v + omega_v @ x for x in all_x]
    out = []
    for q in qs:
        a = softmax([np.einsum("ij,ij->", k, q) for k in ks])
        out.append(sum(a_m * v for a_m, v in zip(a, vs)))
    return out
''',
"ps1_softmax_cols_code": '''def softmax_cols(data_in):
    shifted = data_in - np.max(data_in, axis=0, keepdims=True)
    e = np.exp(shifted)
    return e / np.einsum("mn->n", e)[None, :]
''',
"ps1_self_attention_code": '''def _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    return (beta_q + np.einsum("ed,dn->en", omega_q, X),
            beta_k + np.einsum("ed,dn->en", omega_k, X),
            beta_v + np.einsum("ed,dn->en", omega_v, X))


def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    attentions = softmax_cols(np.einsum("em,en->mn", K, Q))
    X_prime = np.einsum("em,mn->en", V, attentions)
    return X_prime, attentions
''',
"ps1_scaled_code": '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    attentions = softmax_cols(np.einsum("em,en->mn", K, Q) / np.sqrt(Q.shape[0]))
    X_prime = np.einsum("em,mn->en", V, attentions)
    return X_prime, attentions
''',
"ps1_equivariance_code": '''def check_equivariance(f, X, perm):
    perm = np.asarray(perm)
    return bool(np.allclose(f(X[:, perm]), f(X)[:, perm]))
''',
"ps1_positional_answer": '''No. With the encoding, permuting X gives Sa[XP + Pi], while equivariance would need Sa[(X + Pi)P] = Sa[XP + PiP]. These are equal only if PiP = Pi, i.e. if all columns of Pi are the same, which is exactly what a positional encoding avoids. So the output now depends on where each token sits; check_equivariance(lambda Z: attention(Z + Pi), X, [1, 2, 0]) gives False.
''',
},
"ps2_multihead_attention": {
"ps2_single_head_code": '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum("hd,dn->hn", omega_q, X)
    K = beta_k + np.einsum("hd,dn->hn", omega_k, X)
    V = beta_v + np.einsum("hd,dn->hn", omega_v, X)
    A = softmax_cols(np.einsum("hm,hn->mn", K, Q) / np.sqrt(Q.shape[0]))
    return np.einsum("hm,mn->hn", V, A)
''',
"ps2_multihead_scaled_code": '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    p1 = (omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    p2 = (omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    X_prime = omega_c @ np.concatenate([single_head_attention(X, *p) for p in (p1, p2)], axis=0)
    return X_prime
''',
"ps2_multihead_general_code": '''ORDER = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")


def multihead_self_attention(X, heads, omega_c):
    stacked = np.concatenate([single_head_attention(X, *(h[k] for k in ORDER)) for h in heads], axis=0)
    X_prime = np.einsum("ed,dn->en", omega_c, stacked)
    return X_prime
''',
},
"ps3_attention_layer": {
"ps3_softmax_code": '''def softmax(X):
    z = X - np.max(X, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=-1, keepdims=True)
''',
"ps3_layer_code": '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        W = np.random.randn(4, dims, dims)
        self.W_q, self.W_k, self.W_v, self.W_o = W[0].copy(), W[1].copy(), W[2].copy(), W[3].copy()

    def forward(self, x):
        Q = np.einsum("nd,de->ne", x, self.W_q)
        K = np.einsum("nd,de->ne", x, self.W_k)
        V = np.einsum("nd,de->ne", x, self.W_v)
        A = softmax(np.einsum("ie,je->ij", Q, K) / np.sqrt(self.dims))
        return np.einsum("ij,je,ef->if", A, V, self.W_o)
''',
},
"ps4_encoder_decoder_attention": {
"ps4_get_scores_code": '''def get_scores(matrix, vector):
    return np.einsum("tn,n->t", matrix, vector)
''',
"ps4_scale_scores_code": '''def scale_scores(scores, n):
    return scores / n ** 0.5
''',
"ps4_attention_weights_code": '''def get_attention_weights(scores):
    e = np.exp(scores - scores.max())
    return e / e.sum()
''',
"ps4_context_vector_code": '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return np.einsum("t,tn->n", attention_weights, hidden_encoder_matrix)
''',
"ps4_single_query_code": '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q, K, V = query_token @ W_Q, tokens @ W_K, tokens @ W_V
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), K.shape[1]))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output
''',
"ps4_dimensions_code": '''# Tuples of ints (rows, columns), for example (5, 7).
d_model, T, h = 4, 3, 2
head_W_shape = (d_model, d_model // h)
concat_shape = (T, h * (d_model // h))
W_O_shape = (h * (d_model // h), d_model)
''',
"ps4_split_heads_code": '''def split_heads(W, h):
    return list(np.split(W, h, axis=1))
''',
"ps4_heads_answer": '''Several heads let the layer compute several different attention distributions over the same tokens at once, one per learned subspace (in the heat maps the two heads prefer different keys). A single head mixes everything into one softmax, so it cannot attend strongly to two tokens for two different reasons. Since each head has dimension d_model/h, the computation and the parameter count stay about the same as for one head of size d_model. The output projection W^O then combines the information from all heads.
''',
},
"ps5_masked_attention": {
"ps5_causal_mask_code": '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    idx = np.arange(N)
    return idx[:, None] <= idx[None, :]
''',
"ps5_masked_softmax_code": '''def masked_softmax_cols(scores, mask):
    masked = np.where(mask, scores, -np.inf)
    top = np.max(masked, axis=0, keepdims=True)
    top[~np.isfinite(top)] = 0.0
    e = np.exp(masked - top)          # exp(-inf) = 0 for masked entries
    denom = e.sum(axis=0, keepdims=True)
    return np.divide(e, denom, out=np.zeros_like(e), where=denom > 0)
''',
"ps5_masked_attention_code": '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum("ed,dn->en", omega_q, X)
    K = beta_k + np.einsum("ed,dn->en", omega_k, X)
    V = beta_v + np.einsum("ed,dn->en", omega_v, X)
    attentions = masked_softmax_cols(np.einsum("em,en->mn", K, Q) / np.sqrt(Q.shape[0]),
                                     causal_mask(X.shape[1]))
    X_prime = np.einsum("em,mn->en", V, attentions)
    return X_prime, attentions
''',
"ps5_positional_encoding_code": '''def positional_encoding(D, N):
    rows = np.arange(D)[:, None]
    pos = np.arange(N)[None, :]
    angles = pos / np.power(10000.0, (rows - rows % 2) / D)
    return np.where(rows % 2 == 0, np.sin(angles), np.cos(angles))
''',
"ps5_equivariance_code": '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    p = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(X.shape[0], X.shape[1])
    fs = (lambda Z: scaled_self_attention(Z, *p)[0],
          lambda Z: masked_self_attention(Z, *p)[0],
          lambda Z: scaled_self_attention(Z + Pi, *p)[0])
    return np.array([np.abs(f(X[:, perm]) - f(X)[:, perm]).max() for f in fs])
''',
"ps5_decoder_answer": '''(a) It would learn to read token n+1 straight from its input (the answer is visible), a trivial copy that gives near-zero training loss; at generation time the future token is not available, so the learned shortcut does not work.
(b) No: the softmax weights of output n depend on each key only through k_m^T q_n, and the output is a sum over m <= n, so permuting tokens 0..n-1 only permutes the terms of that sum; output n is unchanged. It depends on which tokens precede it, not on their order.
''',
},
}

# ---------------- s3: float32 in places, matrix style, np.matmul ----------------
S["blind12_s3"] = {
"ps1_self_attention": {
"ps1_softmax_code": '''def softmax(items_in):
    x = np.array(items_in, dtype=np.float64).reshape(-1, 1)   # a column
    x = (x - x.max()).astype(np.float32)                      # shift in float64, exp in float32
    ex = np.exp(x)
    return ex / ex.sum()
''',
"ps1_loop_code": '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    N_tok = len(all_x)
    keys = [np.matmul(omega_k, x) + beta_k for x in all_x]
    values = [np.matmul(omega_v, x) + beta_v for x in all_x]
    outputs = []
    for n in range(N_tok):
        q_n = np.matmul(omega_q, all_x[n]) + beta_q
        dots = np.array([(k_m.T @ q_n).item() for k_m in keys], dtype=np.float64)
        e = np.exp(dots - dots.max())
        w = e / e.sum()
        outputs.append(np.sum([w[m] * values[m] for m in range(N_tok)], axis=0))
    return outputs
''',
"ps1_softmax_cols_code": '''def softmax_cols(data_in):
    ex = np.exp(data_in - np.amax(data_in, axis=0))
    return ex / np.sum(ex, axis=0)
''',
"ps1_self_attention_code": '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    ones = np.ones((1, X.shape[1]))
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    attentions = softmax_cols(np.matmul(K.T, Q))
    X_prime = np.matmul(V, attentions)
    return X_prime, attentions
''',
"ps1_scaled_code": '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    ones = np.ones((1, X.shape[1]))
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    D_q = omega_q.shape[0]
    attentions = softmax_cols(np.matmul(K.T, Q) / np.sqrt(D_q))
    X_prime = np.matmul(V, attentions)
    return X_prime, attentions
''',
"ps1_equivariance_code": '''def check_equivariance(f, X, perm):
    N_cols = X.shape[1]
    P = np.zeros((N_cols, N_cols))
    P[perm, np.arange(N_cols)] = 1           # X @ P == X[:, perm]
    lhs = f(X @ P)
    rhs = f(X) @ P
    return np.allclose(lhs, rhs)
''',
"ps1_positional_answer": '''No. Self-attention is equivariant because every token is treated the same way regardless of where it is. Adding Pi breaks that: after permuting, token m sits at a new position and gets a different column of Pi added, so its query, key and value change and the outputs are not a permutation of the old ones. Using Pi = np.arange(X.size).reshape(X.shape)/X.size, check_equivariance returns False.
''',
},
"ps2_multihead_attention": {
"ps2_single_head_code": '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    ones = np.ones((1, X.shape[1]))
    Q = np.matmul(omega_q, X) + np.matmul(beta_q, ones)
    K = np.matmul(omega_k, X) + np.matmul(beta_k, ones)
    V = np.matmul(omega_v, X) + np.matmul(beta_v, ones)
    A = softmax_cols(np.matmul(K.T, Q) / np.sqrt(omega_q.shape[0]))
    return np.matmul(V, A)
''',
"ps2_multihead_scaled_code": '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    heads_out = np.zeros((omega_c.shape[1], X.shape[1]))
    h1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    h2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    heads_out[:h1.shape[0]] = h1
    heads_out[h1.shape[0]:] = h2
    X_prime = np.matmul(omega_c, heads_out)
    return X_prime
''',
"ps2_multihead_general_code": '''def multihead_self_attention(X, heads, omega_c):
    rows = []
    for hd in heads:
        rows.append(single_head_attention(X, omega_v=hd["omega_v"], omega_q=hd["omega_q"],
                                          omega_k=hd["omega_k"], beta_v=hd["beta_v"],
                                          beta_q=hd["beta_q"], beta_k=hd["beta_k"]))
    X_prime = np.matmul(omega_c, np.concatenate(rows, axis=0))
    return X_prime
''',
},
"ps3_attention_layer": {
"ps3_softmax_code": '''def softmax(X):
    X = np.asarray(X, dtype=np.float64)
    shifted = (X - X.max(axis=1)[:, None]).astype(np.float32)
    ex = np.exp(shifted)
    return ex / ex.sum(axis=1)[:, None]
''',
"ps3_layer_code": '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = int(dims)
        self.W_q = np.random.standard_normal((dims, dims))
        self.W_k = np.random.standard_normal((dims, dims))
        self.W_v = np.random.standard_normal((dims, dims))
        self.W_o = np.random.standard_normal((dims, dims))

    def forward(self, x):
        Q, K, V = np.matmul(x, self.W_q), np.matmul(x, self.W_k), np.matmul(x, self.W_v)
        S = np.matmul(Q, K.T) / np.sqrt(self.dims)
        A = softmax(S).astype(np.float64)
        return np.matmul(np.matmul(A, V), self.W_o)
''',
},
"ps4_encoder_decoder_attention": {
"ps4_get_scores_code": '''def get_scores(matrix, vector):
    return np.matmul(matrix, vector)
''',
"ps4_scale_scores_code": '''def scale_scores(scores, n):
    return np.divide(scores, np.sqrt(n))
''',
"ps4_attention_weights_code": '''def get_attention_weights(scores):
    s = np.asarray(scores, dtype=np.float64)
    ex = np.exp((s - s.max()).astype(np.float32))
    return (ex / ex.sum()).astype(np.float64)
''',
"ps4_context_vector_code": '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return np.sum(attention_weights[:, None] * hidden_encoder_matrix, axis=0)
''',
"ps4_single_query_code": '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    Q = np.matmul(query_token, W_Q)
    K = np.matmul(tokens, W_K)
    V = np.matmul(tokens, W_V)
    scores = np.matmul(K, Q) / np.sqrt(W_K.shape[1])
    attention_weights = get_attention_weights(scores)
    output = np.matmul(attention_weights, V)
    return attention_weights, output
''',
"ps4_dimensions_code": '''# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape = (4, 2)   # d_model x d_k
concat_shape = (3, 4)   # T x (h * d_v)
W_O_shape = (4, 4)      # (h * d_v) x d_model
''',
"ps4_split_heads_code": '''def split_heads(W, h):
    d = W.shape[1] // h
    return [W[:, d * i: d * (i + 1)].copy() for i in range(h)]
''',
"ps4_heads_answer": '''Each head projects the tokens into its own smaller subspace, so different heads can focus on different tokens or features; above, the two heads already spread their attention differently even with random weights. With only one head all these relations must share one set of weights. Multiple heads therefore give the model more expressive power for about the same cost, since each head has size d_model/h. Finally W^O merges the heads back into d_model dimensions.
''',
},
"ps5_masked_attention": {
"ps5_causal_mask_code": '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return ~np.tril(np.ones((N, N), dtype=bool), k=-1)
''',
"ps5_masked_softmax_code": '''def masked_softmax_cols(scores, mask):
    big_neg = np.where(mask, scores, -np.inf)
    col_max = np.max(big_neg, axis=0)
    col_max[np.isneginf(col_max)] = 0.0
    ex = np.exp(big_neg - col_max) * mask
    sums = ex.sum(axis=0)
    sums[sums == 0] = 1.0
    return ex / sums
''',
"ps5_masked_attention_code": '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    ones = np.ones((1, X.shape[1]))
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    S = np.matmul(K.T, Q) / np.sqrt(omega_q.shape[0])
    attentions = masked_softmax_cols(S, causal_mask(S.shape[1]))
    X_prime = np.matmul(V, attentions)
    return X_prime, attentions
''',
"ps5_positional_encoding_code": '''def positional_encoding(D, N):
    Pi = np.empty((D, N))
    n = np.arange(N)
    two_i = np.arange(0, D, 2)
    div = 10000.0 ** (two_i / D)
    Pi[0::2, :] = np.sin(n[None, :] / div[:, None])
    Pi[1::2, :] = np.cos(n[None, :] / div[:, None])
    return Pi
''',
"ps5_equivariance_code": '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    args = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(X.shape[0], X.shape[1])
    gap_plain = np.abs(scaled_self_attention(X[:, perm], *args)[0]
                       - scaled_self_attention(X, *args)[0][:, perm]).max()
    gap_causal = np.abs(masked_self_attention(X[:, perm], *args)[0]
                        - masked_self_attention(X, *args)[0][:, perm]).max()
    gap_pos = np.abs(scaled_self_attention(X[:, perm] + Pi, *args)[0]
                     - scaled_self_attention(X + Pi, *args)[0][:, perm]).max()
    return np.array([gap_plain, gap_causal, gap_pos])
''',
"ps5_decoder_answer": '''(a) It would learn to copy: token n+1 is one of its inputs, so attending to it gives the answer for free. When generating text token n+1 has not been produced yet, so the model cannot use what it learned.
(b) It does not depend on their order: output n is a softmax-weighted sum over the tokens 0..n, and a sum does not care about the order of its terms, so permuting tokens 0..n-1 leaves output n the same.
''',
},
}

# ---------------- s4: inline code, copies + in-place on own arrays, debug prints ----------------
S["blind12_s4"] = {
"ps1_self_attention": {
"ps1_softmax_code": '''def softmax(items_in):
    z = np.array(items_in, dtype=float)   # a copy, so in-place is safe
    z -= z.max()
    np.exp(z, out=z)
    z /= z.sum()
    return z

print("debug softmax:", softmax([1.0, 2.0, 3.0]))
''',
"ps1_loop_code": '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    all_x_prime = []
    for x_n in all_x:
        q_n = beta_q + omega_q @ x_n
        scores = []
        for x_m in all_x:
            k_m = beta_k + omega_k @ x_m
            scores.append((k_m.T @ q_n).item())
        a = softmax(scores)
        x_prime = np.zeros((omega_v.shape[0], 1))
        for a_m, x_m in zip(a, all_x):
            x_prime += a_m * (beta_v + omega_v @ x_m)
        all_x_prime.append(x_prime)
    return all_x_prime

print("debug loop shapes:", [o.shape for o in self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)])
''',
"ps1_softmax_cols_code": '''def softmax_cols(data_in):
    out = np.array(data_in, dtype=float)     # copy
    out -= out.max(axis=0)
    np.exp(out, out=out)
    out /= out.sum(axis=0)
    return out
''',
"ps1_self_attention_code": '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X
    Q += beta_q
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
''',
"ps1_scaled_code": '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X
    Q += beta_q
    K = omega_k @ X
    K += beta_k
    V = omega_v @ X
    V += beta_v
    scores = K.T @ Q
    scores /= np.sqrt(Q.shape[0])
    scores -= scores.max(axis=0)
    attentions = np.exp(scores)
    attentions /= attentions.sum(axis=0)
    X_prime = V @ attentions
    print("debug: D_q =", Q.shape[0], "attention column sums", attentions.sum(axis=0))
    return X_prime, attentions
''',
"ps1_equivariance_code": '''def check_equivariance(f, X, perm):
    a = f(X[:, perm])
    b = f(X)[:, perm]
    print("debug: max difference", np.max(np.abs(a - b)))
    return np.allclose(a, b)
''',
"ps1_positional_answer": '''No. Only X is permuted and Pi stays in place, so the sum XP + Pi is not (X + Pi)P: each token now carries the encoding of a different position. Because the queries and keys change, the attention weights change, and the output is no longer just the permuted output. The check with Pi = np.arange(X.size).reshape(X.shape) / X.size gives False.
''',
},
"ps2_multihead_attention": {
"ps2_single_head_code": '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X
    Q += beta_q
    K = omega_k @ X
    K += beta_k
    V = omega_v @ X
    V += beta_v
    S = K.T @ Q
    S /= np.sqrt(Q.shape[0])
    return V @ softmax_cols(S)
''',
"ps2_multihead_scaled_code": '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    outs = []
    for (ov, oq, ok, bv, bq, bk) in [(omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
                                     (omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)]:
        Q = bq + oq @ X
        K = bk + ok @ X
        V = bv + ov @ X
        outs.append(V @ softmax_cols(K.T @ Q / np.sqrt(Q.shape[0])))
    X_prime = omega_c @ np.vstack(outs)
    print("debug: X_prime shape", X_prime.shape)
    return X_prime
''',
"ps2_multihead_general_code": '''def multihead_self_attention(X, heads, omega_c):
    outs = []
    for head in heads:
        Q = head["beta_q"] + head["omega_q"] @ X
        K = head["beta_k"] + head["omega_k"] @ X
        V = head["beta_v"] + head["omega_v"] @ X
        outs.append(V @ softmax_cols(K.T @ Q / np.sqrt(Q.shape[0])))
    X_prime = omega_c @ np.vstack(outs)
    return X_prime
''',
},
"ps3_attention_layer": {
"ps3_softmax_code": '''def softmax(X):
    Y = np.array(X, dtype=float)             # copy, then in-place on the copy
    Y -= Y.max(axis=1, keepdims=True)
    np.exp(Y, out=Y)
    Y /= Y.sum(axis=1, keepdims=True)
    return Y
''',
"ps3_layer_code": '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.randn(dims, dims)
        self.W_k = np.random.randn(dims, dims)
        self.W_v = np.random.randn(dims, dims)
        self.W_o = np.random.randn(dims, dims)

    def forward(self, x):
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        S = Q @ K.T
        S /= np.sqrt(self.dims)          # S is a new array, the weights are untouched
        A = softmax(S)
        out = (A @ V) @ self.W_o
        print("debug forward:", x.shape, "->", out.shape)
        return out
''',
},
"ps4_encoder_decoder_attention": {
"ps4_get_scores_code": '''def get_scores(matrix, vector):
    return np.dot(matrix, vector)

print("debug scores:", get_scores(h_e, h_d[1]))
''',
"ps4_scale_scores_code": '''def scale_scores(scores, n):
    return scores / np.sqrt(n)
''',
"ps4_attention_weights_code": '''def get_attention_weights(scores):
    w = np.array(scores, dtype=float)
    w -= w.max()
    np.exp(w, out=w)
    w /= w.sum()
    return w
''',
"ps4_context_vector_code": '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return hidden_encoder_matrix.T @ attention_weights
''',
"ps4_single_query_code": '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    s = K @ q
    s /= np.sqrt(K.shape[1])
    s -= s.max()
    attention_weights = np.exp(s)
    attention_weights /= attention_weights.sum()
    output = attention_weights @ V
    print("debug: weights", attention_weights.shape, "output", output.shape)
    return attention_weights, output
''',
"ps4_dimensions_code": '''# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape = (4, 2)
concat_shape = (3, 4)
W_O_shape = (4, 4)
print("debug:", head_W_shape, concat_shape, W_O_shape)
''',
"ps4_split_heads_code": '''def split_heads(W, h):
    return [block for block in np.hsplit(W, h)]
''',
"ps4_heads_answer": '''More heads means more attention patterns: each head has its own W^Q_i, W^K_i, W^V_i so it learns its own notion of which tokens are relevant (the two heat maps differ). One head would have to average everything in one softmax. Because each head is only d_model/h wide, the total work is similar to a single head. W^O mixes the concatenated heads back together.
''',
},
"ps5_masked_attention": {
"ps5_causal_mask_code": '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    mask = np.ones((N, N), dtype=bool)
    mask[np.tril_indices(N, k=-1)] = False
    return mask
''',
"ps5_masked_softmax_code": '''def masked_softmax_cols(scores, mask):
    s = np.array(scores, dtype=float)             # copy, the argument stays as it was
    s[~mask] = -np.inf
    m = s.max(axis=0)
    m[np.isinf(m)] = 0.0
    s -= m
    np.exp(s, out=s)
    total = s.sum(axis=0)
    total[total == 0] = 1.0
    s /= total
    return s
''',
"ps5_masked_attention_code": '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X
    Q += beta_q
    K = omega_k @ X
    K += beta_k
    V = omega_v @ X
    V += beta_v
    S = K.T @ Q
    S /= np.sqrt(Q.shape[0])
    S[~causal_mask(X.shape[1])] = -np.inf
    colmax = S.max(axis=0)             # the diagonal is always allowed, so finite
    S -= colmax
    attentions = np.exp(S)
    attentions /= attentions.sum(axis=0)
    X_prime = V @ attentions
    return X_prime, attentions
''',
"ps5_positional_encoding_code": '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    for i in range(D // 2):
        for n in range(N):
            Pi[2 * i, n] = np.sin(n / 10000 ** (2 * i / D))
            Pi[2 * i + 1, n] = np.cos(n / 10000 ** (2 * i / D))
    return Pi

print("debug PE:\\n", positional_encoding(4, 3))
''',
"ps5_equivariance_code": '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Pi = positional_encoding(X.shape[0], X.shape[1])
    out = np.zeros(3)
    A = scaled_self_attention(X[:, perm], omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    B = scaled_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0][:, perm]
    out[0] = np.max(np.abs(A - B))
    A = masked_self_attention(X[:, perm], omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    B = masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0][:, perm]
    out[1] = np.max(np.abs(A - B))
    A = scaled_self_attention(X[:, perm] + Pi, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    B = scaled_self_attention(X + Pi, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0][:, perm]
    out[2] = np.max(np.abs(A - B))
    print("debug gaps:", out)
    return out
''',
"ps5_decoder_answer": '''(a) It would learn to copy token n+1 from its input, because without the mask that token is visible to output n. During generation the next token is unknown, so this copying does not help and the model has not learned to predict.
(b) No, only which tokens: permuting tokens 0..n-1 just reorders the terms of the weighted sum for output n, so its value does not change.
''',
},
}

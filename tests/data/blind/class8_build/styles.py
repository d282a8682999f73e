"""Four correct solution styles. Each style maps nbgrader grade_id -> full cell source."""

# ---------------------------------------------------------------- style 1: explicit loops
S1 = {}
S1["ps1_softmax_code"] = '''def softmax(items_in):
    # YOUR CODE HERE
    items = [float(v) for v in np.ravel(items_in)]
    biggest = max(items)
    exps = []
    for v in items:
        exps.append(np.exp(v - biggest))
    total = 0.0
    for e in exps:
        total += e
    out = np.zeros(len(items))
    for i in range(len(items)):
        out[i] = exps[i] / total
    return out
'''
S1["ps1_loop_code"] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # YOUR CODE HERE
    all_queries = []
    all_keys = []
    all_values = []
    for x in all_x:
        all_queries.append(beta_q + omega_q @ x)
        all_keys.append(beta_k + omega_k @ x)
        all_values.append(beta_v + omega_v @ x)

    all_x_prime = []
    for n in range(len(all_x)):
        all_km_qn = []
        for m in range(len(all_x)):
            all_km_qn.append((all_keys[m].T @ all_queries[n]).item())
        attention = softmax(all_km_qn)
        x_prime = np.zeros(all_values[0].shape)
        for m in range(len(all_x)):
            x_prime = x_prime + attention[m] * all_values[m]
        all_x_prime.append(x_prime)
    return all_x_prime
'''
S1["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    # YOUR CODE HERE
    data_in = np.asarray(data_in, dtype=float)
    out = np.zeros(data_in.shape)
    for n in range(data_in.shape[1]):
        col = data_in[:, n]
        e = np.exp(col - np.max(col))
        out[:, n] = e / np.sum(e)
    return out
'''
S1["ps1_self_attention_code"] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # YOUR CODE HERE
    ones = np.ones((1, X.shape[1]))
    Q = beta_q @ ones + omega_q @ X   # equation 12.6
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    attentions = softmax_cols(K.T @ Q)
    X_prime = V @ attentions
    return X_prime, attentions
'''
S1["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # YOUR CODE HERE
    ones = np.ones((1, X.shape[1]))
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    D_q = Q.shape[0]
    attentions = softmax_cols(K.T @ Q / np.sqrt(D_q))
    X_prime = V @ attentions
    return X_prime, attentions
'''
S1["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    # YOUR CODE HERE
    N = X.shape[1]
    P = np.zeros((N, N))
    for i in range(N):
        P[perm[i], i] = 1
    return np.allclose(f(X @ P), f(X) @ P)
'''
S1["ps1_positional_answer"] = '''No. Permuting the columns of X moves the tokens but not the columns of Pi, so after the permutation each token is added to a different positional vector and gets a different query, key and value. Formally XP + Pi = (X + Pi P^T)P, so Sa[XP + Pi] = Sa[X + Pi P^T]P, which equals Sa[X + Pi]P only if Pi P^T = Pi, i.e. if the permuted positions have identical encodings. With Pi = np.arange(X.size).reshape(X.shape) / X.size my check_equivariance returns False.'''

S1["ps2_single_head_code"] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # YOUR CODE HERE
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    D_q = Q.shape[0]
    attention = softmax_cols(K.T @ Q / np.sqrt(D_q))
    return V @ attention
'''
S1["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    # YOUR CODE HERE
    head_1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head_2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    X_prime = omega_c @ np.vstack([head_1, head_2])
    return X_prime
'''
S1["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    # YOUR CODE HERE
    outputs = []
    for head in heads:
        out = single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                    head["beta_v"], head["beta_q"], head["beta_k"])
        outputs.append(out)
    X_prime = omega_c @ np.vstack(outputs)
    return X_prime
'''
S1["ps3_softmax_code"] = '''def softmax(X):
    # YOUR CODE HERE
    X = np.asarray(X, dtype=float)
    result = np.zeros(X.shape)
    for i in range(X.shape[0]):
        row = X[i]
        e = np.exp(row - np.max(row))
        result[i] = e / np.sum(e)
    return result
'''
S1["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        # YOUR CODE HERE
        self.dims = dims
        self.W_q = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_k = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_v = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_o = np.random.normal(0.0, 1.0, (dims, dims))

    def forward(self, x):
        # YOUR CODE HERE
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        scores = Q @ K.T / np.sqrt(self.dims)
        weights = softmax(scores)
        self_attention = weights @ V
        output = self_attention @ self.W_o
        return output
'''
S1["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    # YOUR CODE HERE
    scores = np.zeros(matrix.shape[0])
    for j in range(matrix.shape[0]):
        total = 0.0
        for k in range(matrix.shape[1]):
            total += matrix[j, k] * vector[k]
        scores[j] = total
    return scores
'''
S1["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    # YOUR CODE HERE
    scaled = np.zeros(len(scores))
    for j in range(len(scores)):
        scaled[j] = scores[j] / np.sqrt(n)
    return scaled
'''
S1["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    # YOUR CODE HERE
    biggest = max(scores)
    exps = np.zeros(len(scores))
    for j in range(len(scores)):
        exps[j] = np.exp(scores[j] - biggest)
    return exps / np.sum(exps)
'''
S1["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    # YOUR CODE HERE
    context = np.zeros(hidden_encoder_matrix.shape[1])
    for j in range(hidden_encoder_matrix.shape[0]):
        context = context + attention_weights[j] * hidden_encoder_matrix[j]
    return context
'''
S1["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    # YOUR CODE HERE
    q = query_token @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    d_k = W_K.shape[1]
    scores = get_scores(K, q)
    scaled = scale_scores(scores, d_k)
    attention_weights = get_attention_weights(scaled)
    output = get_context_vector(attention_weights, V)
    return attention_weights, output
'''
S1["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
# YOUR CODE HERE
head_W_shape = (4, 2)   # d_model x d_model/h
concat_shape = (3, 4)   # T x (h * d_v)
W_O_shape = (4, 4)      # (h * d_v) x d_model
'''
S1["ps4_split_heads_code"] = '''def split_heads(W, h):
    # YOUR CODE HERE
    size = W.shape[1] // h
    blocks = []
    for i in range(h):
        blocks.append(W[:, i * size:(i + 1) * size])
    return blocks
'''
S1["ps4_heads_answer"] = '''Each head has its own query, key and value projections, so each head computes its own attention matrix: in section 7 head 1 leaned towards "translation" and head 2 towards "is" for the same queries. With several heads one layer can therefore attend to several things at once (for example syntax in one head and meaning in another), whereas a single softmax must average them into one distribution. Because every head works in d_model/h dimensions, the total cost is about the same as a single full-size head. The output matrix W^O then combines what the heads found, and training is also more robust since one badly initialised head does not ruin the layer.'''

S1["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    # YOUR CODE HERE
    mask = np.zeros((N, N), dtype=bool)
    for m in range(N):
        for n in range(N):
            if m <= n:
                mask[m, n] = True
    return mask
'''
S1["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    # YOUR CODE HERE
    out = np.zeros(scores.shape)
    for n in range(scores.shape[1]):
        allowed = mask[:, n]
        if not np.any(allowed):
            continue  # fully masked column: zero weights
        s = scores[allowed, n]
        e = np.exp(s - np.max(s))
        out[allowed, n] = e / np.sum(e)
    return out
'''
S1["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # YOUR CODE HERE
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    D_q = Q.shape[0]
    n_tokens = X.shape[1]
    scores = K.T @ Q / np.sqrt(D_q)
    attentions = masked_softmax_cols(scores, causal_mask(n_tokens))
    X_prime = V @ attentions
    return X_prime, attentions
'''
S1["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    # YOUR CODE HERE
    Pi = np.zeros((D, N))
    for r in range(D):
        two_i = r - (r % 2)
        for n in range(N):
            angle = n / 10000 ** (two_i / D)
            if r % 2 == 0:
                Pi[r, n] = np.sin(angle)
            else:
                Pi[r, n] = np.cos(angle)
    return Pi
'''
S1["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # YOUR CODE HERE
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(X.shape[0], X.shape[1])

    def plain(Z):
        return scaled_self_attention(Z, *params)[0]

    def causal(Z):
        return masked_self_attention(Z, *params)[0]

    def with_positions(Z):
        return scaled_self_attention(Z + Pi, *params)[0]

    gaps = []
    for f in (plain, causal, with_positions):
        gaps.append(np.max(np.abs(f(X[:, perm]) - f(X)[:, perm])))
    return np.array(gaps)
'''
S1["ps5_decoder_answer"] = '''(a) Without the mask output n could see token n+1 itself, so the decoder would simply learn to copy the next token from its input instead of predicting it. When it generates text the next token does not exist yet, so the thing it learned to rely on is missing and its predictions are useless.

(b) No. Output n is a weighted sum of v_0..v_n with weights softmax of k_m^T q_n, and each term depends only on token m itself, not on where it sits; permuting tokens 0..n-1 among themselves only reorders the terms of the sum, so output n is unchanged. It knows which tokens come before it, but not in which order.'''

# ---------------------------------------------------------------- style 2: vectorised / einsum
S2 = {}
S2["ps1_softmax_code"] = '''def softmax(items_in):
    z = np.asarray(items_in, dtype=np.float64).ravel()
    e = np.exp(z - z.max())
    return e / e.sum()
'''
S2["ps1_loop_code"] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    queries = [beta_q + omega_q @ x for x in all_x]
    K = np.hstack([beta_k + omega_k @ x for x in all_x])   # keys as columns
    V = np.hstack([beta_v + omega_v @ x for x in all_x])   # values as columns
    all_x_prime = []
    for q_n in queries:
        a = softmax(np.einsum("dm,d->m", K, q_n[:, 0]))
        all_x_prime.append(np.einsum("dm,m->d", V, a)[:, np.newaxis])
    return all_x_prime
'''
S2["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    shifted = data_in - np.max(data_in, axis=0, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=0, keepdims=True)
'''
S2["ps1_self_attention_code"] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum("ed,dn->en", omega_q, X) + beta_q
    K = np.einsum("ed,dn->en", omega_k, X) + beta_k
    V = np.einsum("ed,dn->en", omega_v, X) + beta_v
    attentions = softmax_cols(np.einsum("em,en->mn", K, Q))
    X_prime = np.einsum("em,mn->en", V, attentions)
    return X_prime, attentions
'''
S2["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum("ed,dn->en", omega_q, X) + beta_q
    K = np.einsum("ed,dn->en", omega_k, X) + beta_k
    V = np.einsum("ed,dn->en", omega_v, X) + beta_v
    attentions = softmax_cols(np.einsum("em,en->mn", K, Q) / np.sqrt(Q.shape[0]))
    X_prime = np.einsum("em,mn->en", V, attentions)
    return X_prime, attentions
'''
S2["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    return bool(np.allclose(f(X[:, perm]), f(X)[:, perm]))
'''
S2["ps1_positional_answer"] = '''No, it is not equivariant any more. Pi belongs to the positions and is not permuted, so X P + Pi is not (X + Pi) P: after the permutation token m is added to the encoding of a different position, its queries, keys and values change, and the outputs are not just the old outputs permuted. check_equivariance(lambda Z: attention(Z + Pi), X, [1, 2, 0]) gives False (while it gives True without Pi).'''

S2["ps2_single_head_code"] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum("hd,dn->hn", omega_q, X) + beta_q
    K = np.einsum("hd,dn->hn", omega_k, X) + beta_k
    V = np.einsum("hd,dn->hn", omega_v, X) + beta_v
    scores = np.einsum("hm,hn->mn", K, Q) / np.sqrt(Q.shape[0])
    return np.einsum("hm,mn->hn", V, softmax_cols(scores))
'''
S2["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    stacked = np.concatenate([
        single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
        single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2),
    ], axis=0)
    X_prime = np.einsum("ij,jn->in", omega_c, stacked)
    return X_prime
'''
S2["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    order = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")
    stacked = np.concatenate([single_head_attention(X, *[h[k] for k in order]) for h in heads],
                             axis=0)
    X_prime = np.einsum("ij,jn->in", omega_c, stacked)
    return X_prime
'''
S2["ps3_softmax_code"] = '''def softmax(X):
    X = np.asarray(X, dtype=np.float64)
    e = np.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
'''
S2["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        # one draw of shape (4, dims, dims), split into four different matrices
        self.W_q, self.W_k, self.W_v, self.W_o = np.random.randn(4, dims, dims)

    def forward(self, x):
        Q = np.einsum("nd,de->ne", x, self.W_q)
        K = np.einsum("nd,de->ne", x, self.W_k)
        V = np.einsum("nd,de->ne", x, self.W_v)
        scores = np.einsum("id,jd->ij", Q, K) / np.sqrt(self.dims)
        A = softmax(scores)
        return np.einsum("ij,jd->id", A, V) @ self.W_o
'''
S2["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    return np.einsum("tn,n->t", matrix, vector)
'''
S2["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    return np.asarray(scores, dtype=np.float64) / np.sqrt(n)
'''
S2["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    s = np.asarray(scores, dtype=np.float64)
    e = np.exp(s - s.max())
    return e / e.sum()
'''
S2["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return np.einsum("t,tn->n", attention_weights, hidden_encoder_matrix)
'''
S2["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.einsum("d,dk->k", query_token, W_Q)
    K = np.einsum("td,dk->tk", tokens, W_K)
    V = np.einsum("td,dv->tv", tokens, W_V)
    d_k = W_K.shape[1]
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), d_k))
    output = np.einsum("t,tv->v", attention_weights, V)
    return attention_weights, output
'''
S2["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
T, d_model, h = 3, 4, 2
head_W_shape = (d_model, d_model // h)
concat_shape = (T, h * (d_model // h))
W_O_shape = (h * (d_model // h), d_model)
'''
S2["ps4_split_heads_code"] = '''def split_heads(W, h):
    rows, cols = W.shape
    # (rows, h, cols/h) -> (h, rows, cols/h): block i holds columns i*cols/h ... (i+1)*cols/h - 1
    return list(np.moveaxis(W.reshape(rows, h, cols // h), 1, 0))
'''
S2["ps4_heads_answer"] = '''Several heads let the layer compute several different attention patterns over the same tokens at the same time, one per head, because each head has its own W^Q_i, W^K_i and W^V_i. We saw this in section 7: with the same tokens head 1 leaned towards "translation" and head 2 towards "is". A single head has one softmax per query, so it has to mix all the relations it cares about into one weighted average. Since each head has d_model/h dimensions the cost stays about the same as a single head, and W^O then mixes the heads' outputs back into d_model dimensions.'''

S2["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.triu(np.ones((N, N), dtype=bool))
'''
S2["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    masked = np.where(mask, scores, -np.inf)
    col_max = masked.max(axis=0, keepdims=True)
    col_max = np.where(np.isfinite(col_max), col_max, 0.0)   # fully masked column
    e = np.exp(masked - col_max)                             # exp(-inf) = 0
    denom = e.sum(axis=0, keepdims=True)
    return np.divide(e, denom, out=np.zeros_like(e), where=denom > 0)
'''
S2["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum("ed,dn->en", omega_q, X) + beta_q
    K = np.einsum("ed,dn->en", omega_k, X) + beta_k
    V = np.einsum("ed,dn->en", omega_v, X) + beta_v
    scores = np.einsum("em,en->mn", K, Q) / np.sqrt(Q.shape[0])
    attentions = masked_softmax_cols(scores, causal_mask(X.shape[1]))
    X_prime = np.einsum("em,mn->en", V, attentions)
    return X_prime, attentions
'''
S2["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    rows = np.arange(D)[:, np.newaxis]
    positions = np.arange(N)[np.newaxis, :]
    angles = positions / 10000 ** ((rows - rows % 2) / D)
    return np.where(rows % 2 == 0, np.sin(angles), np.cos(angles))
'''
S2["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(*X.shape)
    maps = [lambda Z: scaled_self_attention(Z, *params)[0],
            lambda Z: masked_self_attention(Z, *params)[0],
            lambda Z: scaled_self_attention(Z + Pi, *params)[0]]
    return np.array([np.max(np.abs(f(X[:, perm]) - f(X)[:, perm])) for f in maps])
'''
S2["ps5_decoder_answer"] = '''(a) It would learn to read token n+1 straight from its input and copy it, which makes the training loss tiny without learning any language. At generation time token n+1 has not been produced yet, so there is nothing to copy and the model is useless.

(b) No, only the set matters: output n is sum over m <= n of a_mn v_m, and a_mn depends only on k_m and q_n, so permuting tokens 0..n-1 among themselves permutes the terms of the sum and leaves output n the same.'''

# ---------------------------------------------------------------- style 3: terse one-liners
S3 = {}
S3["ps1_softmax_code"] = '''def softmax(items_in):
    return (e := np.exp((z := np.ravel(items_in).astype(float)) - z.max())) / e.sum()
'''
S3["ps1_loop_code"] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    q, k, v = ([b + w @ x for x in all_x] for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    return [sum(a * v_m for a, v_m in zip(softmax([(k_m.T @ q_n).item() for k_m in k]), v)) for q_n in q]
'''
S3["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    return (e := np.exp(data_in - np.max(data_in, 0))) / e.sum(0)
'''
S3["ps1_self_attention_code"] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + w @ X for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    X_prime = V @ (attentions := softmax_cols(K.T @ Q))
    return X_prime, attentions
'''
S3["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + w @ X for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    X_prime = V @ (attentions := softmax_cols(K.T @ Q / len(Q) ** 0.5))
    return X_prime, attentions
'''
S3["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    return np.allclose(f(X[:, perm]), f(X)[:, perm])
'''
S3["ps1_positional_answer"] = '''No. The positional encoding stays in place while the tokens move, so a token that moves to another position gets another column of Pi added to it and its query, key and value change: Sa[XP + Pi] is not Sa[X + Pi]P. check_equivariance(lambda Z: attention(Z + Pi), X, [1, 2, 0]) returns False.'''

S3["ps2_single_head_code"] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + w @ X for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    return V @ softmax_cols(K.T @ Q / len(Q) ** 0.5)
'''
S3["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    X_prime = omega_c @ np.vstack([single_head_attention(X, *p) for p in (
        (omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
        (omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2))])
    return X_prime
'''
S3["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    X_prime = omega_c @ np.vstack([single_head_attention(X, *(h[k] for k in (
        "omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k"))) for h in heads])
    return X_prime
'''
S3["ps3_softmax_code"] = '''def softmax(X):
    return (e := np.exp(X - X.max(axis=1, keepdims=True))) / e.sum(axis=1, keepdims=True)
'''
S3["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = (np.random.normal(size=(dims, dims)) for _ in range(4))

    def forward(self, x):
        Q, K, V = (x @ W for W in (self.W_q, self.W_k, self.W_v))
        return softmax(Q @ K.T / np.sqrt(self.dims)) @ V @ self.W_o
'''
S3["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    return matrix @ vector
'''
S3["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    return scores / n ** 0.5
'''
S3["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    return (e := np.exp(scores - np.max(scores))) / e.sum()
'''
S3["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return attention_weights @ hidden_encoder_matrix
'''
S3["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    attention_weights = get_attention_weights(scale_scores(get_scores(tokens @ W_K, query_token @ W_Q), W_K.shape[1]))
    output = get_context_vector(attention_weights, tokens @ W_V)
    return attention_weights, output
'''
S3["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape, concat_shape, W_O_shape = (4, 2), (3, 4), (4, 4)
'''
S3["ps4_split_heads_code"] = '''def split_heads(W, h):
    return np.hsplit(W, h)
'''
S3["ps4_heads_answer"] = '''Each head has its own projections and so its own attention pattern; in section 7 the two heads spread their weights differently over the same sentence. So several heads let the model look at several relations between tokens at once instead of averaging them in a single softmax. Splitting d_model into h heads of size d_model/h keeps the cost about the same as one head, and W^O recombines the heads.'''

S3["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.arange(N)[:, None] <= np.arange(N)[None, :]
'''
S3["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    m = np.where(mask, scores, -np.inf).max(0, keepdims=True)
    e = np.exp(np.where(mask, scores - np.where(np.isinf(m), 0, m), -np.inf))
    return e / np.where((s := e.sum(0, keepdims=True)) == 0, 1, s)
'''
S3["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + w @ X for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    attentions = masked_softmax_cols(K.T @ Q / len(Q) ** 0.5, causal_mask(X.shape[1]))
    return V @ attentions, attentions
'''
S3["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    return np.array([[(np.sin if r % 2 == 0 else np.cos)(n / 10000 ** ((r - r % 2) / D))
                      for n in range(N)] for r in range(D)])
'''
S3["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    p = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(*X.shape)
    return np.array([np.abs(f(X[:, perm]) - f(X)[:, perm]).max() for f in (
        lambda Z: scaled_self_attention(Z, *p)[0],
        lambda Z: masked_self_attention(Z, *p)[0],
        lambda Z: scaled_self_attention(Z + Pi, *p)[0])])
'''
S3["ps5_decoder_answer"] = '''(a) It would learn to copy token n+1, which it can see, instead of predicting it; when generating, token n+1 is not there yet, so the model has learned nothing useful.

(b) No: output n is a weighted sum over the tokens 0..n whose weights depend only on each token and on token n, so permuting tokens 0..n-1 among themselves does not change output n.'''

# ---------------------------------------------------------------- style 4: helpers, asserts, in-place, np.ma
S4 = {}
S4["ps1_softmax_code"] = '''def _stable_exp(z, axis=None):
    """exp(z - max(z)) along axis (helper, also used by softmax_cols)."""
    z = np.asarray(z, dtype=float)
    return np.exp(z - np.max(z, axis=axis, keepdims=True))


def softmax(items_in):
    e = _stable_exp(np.ravel(items_in))
    e /= e.sum()
    assert np.isclose(e.sum(), 1.0)
    return e
'''
S4["ps1_loop_code"] = '''def _affine(omega, beta, x):
    return beta + omega @ x


def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    queries = [_affine(omega_q, beta_q, x) for x in all_x]
    keys = [_affine(omega_k, beta_k, x) for x in all_x]
    values = [_affine(omega_v, beta_v, x) for x in all_x]
    all_x_prime = []
    for n, q_n in enumerate(queries):
        a = softmax([(k_m.T @ q_n).item() for k_m in keys])
        print("debug: weights of output", n, np.round(a, 3))
        x_prime = np.zeros(values[0].shape)
        for a_m, v_m in zip(a, values):
            x_prime += a_m * v_m
        assert x_prime.shape[1] == 1, x_prime.shape
        all_x_prime.append(x_prime)
    return all_x_prime
'''
S4["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    e = _stable_exp(data_in, axis=0)
    e /= e.sum(axis=0, keepdims=True)
    return e
'''
S4["ps1_self_attention_code"] = '''def _attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, scaled):
    """Shared by self_attention and scaled_dot_product_self_attention."""
    ones = np.ones((1, X.shape[1]))
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    scores = (K.T @ Q).astype(float)
    if scaled:
        scores /= np.sqrt(Q.shape[0])
    A = softmax_cols(scores)
    assert A.shape == (X.shape[1], X.shape[1])
    return V @ A, A


def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    X_prime, attentions = _attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, scaled=False)
    return X_prime, attentions
'''
S4["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    X_prime, attentions = _attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, scaled=True)
    return X_prime, attentions
'''
S4["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    lhs = f(X[:, perm])
    rhs = f(X)[:, perm]
    if np.shape(lhs) != np.shape(rhs):
        return False
    return bool(np.allclose(lhs, rhs))
'''
S4["ps1_positional_answer"] = '''No. With a positional encoding the permuted input is XP + Pi and Pi is not permuted, so it is not (X + Pi)P; each token meets a different positional vector after the permutation and its queries/keys/values change. So Sa[XP + Pi] differs from Sa[X + Pi]P in general (check_equivariance with Pi = np.arange(X.size).reshape(X.shape) / X.size gives False). That is the point of the encoding: the output now depends on where the tokens are.'''

S4["ps2_single_head_code"] = '''def _qkv(X, omega, beta):
    out = np.array(omega @ X, dtype=float)
    out += beta
    return out


def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = _qkv(X, omega_q, beta_q)
    K = _qkv(X, omega_k, beta_k)
    V = _qkv(X, omega_v, beta_v)
    D_q = Q.shape[0]
    scores = K.T @ Q
    scores /= np.sqrt(D_q)
    attention = softmax_cols(scores)
    assert attention.shape == (X.shape[1], X.shape[1])
    return V @ attention
'''
S4["ps2_multihead_scaled_code"] = '''def _combine(head_outputs, omega_c):
    """Stack the heads' outputs vertically (head 1 on top) and mix them (eq. 12.11)."""
    stacked = np.vstack(head_outputs)
    assert stacked.shape[0] == omega_c.shape[1]
    return omega_c @ stacked


def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    outputs = []
    outputs.append(single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1))
    outputs.append(single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2))
    X_prime = _combine(outputs, omega_c)
    return X_prime
'''
S4["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    outputs = []
    for head in heads:
        outputs.append(single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                             head["beta_v"], head["beta_q"], head["beta_k"]))
    X_prime = _combine(outputs, omega_c)
    return X_prime
'''
S4["ps3_softmax_code"] = '''def softmax(X):
    X = np.array(X, dtype=float)  # a copy: the in-place steps below must not touch the caller's array
    assert X.ndim == 2, "softmax expects a 2-D array"
    X -= X.max(axis=1, keepdims=True)
    np.exp(X, out=X)
    X /= X.sum(axis=1, keepdims=True)
    return X
'''
S4["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        for name in ("W_q", "W_k", "W_v", "W_o"):
            setattr(self, name, np.random.normal(loc=0.0, scale=1.0, size=(dims, dims)))

    def _project(self, x, W):
        assert x.shape[1] == W.shape[0], f"x has {x.shape[1]} columns, W has {W.shape[0]} rows"
        return x @ W

    def forward(self, x):
        Q = self._project(x, self.W_q)
        K = self._project(x, self.W_k)
        V = self._project(x, self.W_v)
        scores = (Q @ K.T).astype(float)
        scores /= np.sqrt(self.dims)
        A = softmax(scores)
        out = self._project(A @ V, self.W_o)
        assert out.shape == x.shape
        return out
'''
S4["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    return np.array([float(np.dot(row, vector)) for row in matrix])
'''
S4["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    assert n > 0, "n is a size"
    return np.asarray(scores, dtype=float) / np.sqrt(n)
'''
S4["ps4_attention_weights_code"] = '''def _softmax_1d(s):
    """Stable softmax of a 1-D array (helper, reused in section 5)."""
    s = np.asarray(s, dtype=float)
    e = np.exp(s - s.max())
    return e / e.sum()


def get_attention_weights(scores):
    weights = _softmax_1d(scores)
    assert np.isclose(weights.sum(), 1.0)
    return weights
'''
S4["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    w = np.asarray(attention_weights, dtype=float)
    assert w.shape[0] == hidden_encoder_matrix.shape[0], "one weight per row (state)"
    return np.sum(w[:, np.newaxis] * hidden_encoder_matrix, axis=0)
'''
S4["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    d_k = W_K.shape[1]   # size of one key
    attention_weights = _softmax_1d(scale_scores(get_scores(K, q), d_k))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output
'''
S4["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
T, d_model, n_heads = 3, 4, 2
d_k = d_v = d_model // n_heads
head_W_shape = (d_model, d_k)          # x W^Q_i: (T x d_model)(d_model x d_k) = T x d_k
concat_shape = (T, n_heads * d_v)      # heads side by side
W_O_shape = (n_heads * d_v, d_model)   # back to T x d_model
'''
S4["ps4_split_heads_code"] = '''def split_heads(W, h):
    assert W.shape[1] % h == 0, "the number of columns must be a multiple of h"
    width = W.shape[1] // h
    blocks = []
    for i in range(h):
        blocks.append(W[:, width * i: width * (i + 1)].copy())
    return blocks
'''
S4["ps4_heads_answer"] = '''Using several heads means several attention distributions per query instead of one: each head has its own W^Q_i, W^K_i, W^V_i, so it can focus on a different relation between the tokens (in section 7, head 1 leaned towards "translation" and head 2 towards "is"). A single head must squeeze everything into one softmax average. Since each head works in d_model/h dimensions, the total number of parameters and the cost are about the same as one big head. W^O then combines the information of all heads.'''

S4["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    rows, cols = np.indices((N, N))
    mask = rows <= cols
    assert mask.dtype == bool
    return mask
'''
S4["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    ms = np.ma.masked_array(np.asarray(scores, dtype=float), mask=~np.asarray(mask, dtype=bool))
    col_max = ms.max(axis=0).filled(0.0)           # max of the allowed scores; 0 if none
    e = np.ma.exp(ms - col_max)
    total = e.sum(axis=0).filled(1.0)              # fully masked column: avoid 0/0
    return np.ma.filled(e / total, 0.0)
'''
S4["ps5_masked_attention_code"] = '''def _qkv(X, omega_q, omega_k, omega_v, beta_q, beta_k, beta_v):
    return beta_q + omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X


def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = _qkv(X, omega_q, omega_k, omega_v, beta_q, beta_k, beta_v)
    scores = (K.T @ Q).astype(float)
    scores /= np.sqrt(Q.shape[0])
    attentions = masked_softmax_cols(scores, causal_mask(X.shape[1]))
    X_prime = V @ attentions
    return X_prime, attentions
'''
S4["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    assert D % 2 == 0, "D must be even"
    Pi = np.empty((D, N))
    positions = np.arange(N)
    for i in range(D // 2):
        angles = positions / 10000 ** (2 * i / D)
        Pi[2 * i] = np.sin(angles)
        Pi[2 * i + 1] = np.cos(angles)
    return Pi
'''
S4["ps5_equivariance_code"] = '''def _gap(f, X, perm):
    return float(np.max(np.abs(f(X[:, perm]) - f(X)[:, perm])))


def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = [omega_v, omega_q, omega_k, beta_v, beta_q, beta_k]
    D_x, N_x = X.shape
    Pi = positional_encoding(D_x, N_x)
    gaps = [
        _gap(lambda Z: scaled_self_attention(Z, *params)[0], X, perm),
        _gap(lambda Z: masked_self_attention(Z, *params)[0], X, perm),
        _gap(lambda Z: scaled_self_attention(Z + Pi, *params)[0], X, perm),
    ]
    return np.array(gaps)
'''
S4["ps5_decoder_answer"] = '''(a) Without the mask, output n can attend to token n+1, the very token it must predict, so it learns to copy it through attention rather than to predict it. When generating, token n+1 does not exist yet, so the model has nothing to copy and fails.

(b) It does not depend on their order: each weight a_mn depends on token m and token n only, and output n sums over the set {0, ..., n}, so permuting tokens 0..n-1 among themselves leaves output n unchanged.'''

STYLES = {1: S1, 2: S2, 3: S3, 4: S4}

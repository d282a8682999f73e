S3 = {  # plain Python: lists, loops and the math module, arrays at the end
"ps1_self_attention": {
"ps1_softmax_code": '''import math


def softmax(items_in):
    values = [float(v) for v in np.ravel(items_in)]
    biggest = max(values)
    exps = [math.exp(v - biggest) for v in values]
    total = sum(exps)
    return np.array([e / total for e in exps])''',
"ps1_loop_code": '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    queries, keys, values = [], [], []
    for x in all_x:
        queries.append(beta_q + omega_q @ x)
        keys.append(beta_k + omega_k @ x)
        values.append(beta_v + omega_v @ x)
    outputs = []
    for n in range(len(all_x)):
        dots = []
        for m in range(len(all_x)):
            dots.append((keys[m].T @ queries[n]).item())
        a = softmax(dots)
        out = a[0] * values[0]
        for m in range(1, len(all_x)):
            out = out + a[m] * values[m]
        outputs.append(out)
    return outputs''',
"ps1_softmax_cols_code": '''def softmax_cols(data_in):
    data = np.asarray(data_in, dtype=float)
    n_rows, n_cols = data.shape
    out = [[0.0] * n_cols for _ in range(n_rows)]
    for n in range(n_cols):
        column = [float(data[m, n]) for m in range(n_rows)]
        top = max(column)
        exps = [math.exp(c - top) for c in column]
        total = sum(exps)
        for m in range(n_rows):
            out[m][n] = exps[m] / total
    return np.array(out)''',
"ps1_self_attention_code": '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    n_tokens = X.shape[1]
    dots = [[float(K[:, m] @ Q[:, n]) for n in range(n_tokens)] for m in range(n_tokens)]
    attentions = softmax_cols(np.array(dots))
    X_prime = V @ attentions
    return X_prime, attentions''',
"ps1_scaled_code": '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    n_tokens = X.shape[1]
    scale = math.sqrt(Q.shape[0])
    dots = [[float(K[:, m] @ Q[:, n]) / scale for n in range(n_tokens)] for m in range(n_tokens)]
    attentions = softmax_cols(np.array(dots))
    X_prime = V @ attentions
    return X_prime, attentions''',
"ps1_equivariance_code": '''def check_equivariance(f, X, perm):
    left = np.asarray(f(X[:, perm]))
    right = np.asarray(f(X))[:, perm]
    if left.shape != right.shape:
        return False
    for a, b in zip(left.ravel().tolist(), right.ravel().tolist()):
        if abs(a - b) > 1e-8 + 1e-5 * abs(b):   # the rule np.allclose uses
            return False
    return True''',
"ps1_positional_answer": '''No. The positional matrix stays in place while the tokens move, so token n is now added to a different column of Pi; the inputs X P + Pi are not a permutation of X + Pi, and the outputs are not a permutation either. I checked it: with Pi = np.arange(X.size).reshape(X.shape) / X.size, check_equivariance(lambda Z: attention(Z + Pi), X, [1, 2, 0]) is False.''',
},
"ps2_multihead_attention": {
"ps2_single_head_code": '''import math


def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    d_q = len(Q)  # rows of Q = size of one query
    scores = (K.T @ Q) / math.sqrt(d_q)
    return V @ softmax_cols(scores)''',
"ps2_multihead_scaled_code": '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    rows = []
    rows.extend(list(single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)))
    rows.extend(list(single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)))
    X_prime = omega_c @ np.array(rows)
    return X_prime''',
"ps2_multihead_general_code": '''def multihead_self_attention(X, heads, omega_c):
    rows = []
    for head in heads:
        out = single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                    head["beta_v"], head["beta_q"], head["beta_k"])
        for row in out:
            rows.append(row)
    X_prime = omega_c @ np.array(rows)
    return X_prime''',
},
"ps3_attention_layer": {
"ps3_softmax_code": '''import math


def softmax(X):
    result = []
    for row in np.asarray(X, dtype=float).tolist():
        top = max(row)
        exps = [math.exp(v - top) for v in row]
        total = sum(exps)
        result.append([e / total for e in exps])
    return np.array(result)''',
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
        scores = (Q @ K.T) / math.sqrt(self.dims)
        weights = softmax(scores)
        return (weights @ V) @ self.W_o''',
},
"ps4_encoder_decoder_attention": {
"ps4_get_scores_code": '''def get_scores(matrix, vector):
    result = []
    for row in matrix:
        result.append(sum(float(a) * float(b) for a, b in zip(row, vector)))
    return np.array(result)''',
"ps4_scale_scores_code": '''import math


def scale_scores(scores, n):
    root = math.sqrt(n)
    return np.array([float(s) / root for s in scores])''',
"ps4_attention_weights_code": '''def get_attention_weights(scores):
    values = [float(s) for s in scores]
    top = max(values)
    exps = [math.exp(v - top) for v in values]
    total = sum(exps)
    return np.array([e / total for e in exps])''',
"ps4_context_vector_code": '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    n_features = len(hidden_encoder_matrix[0])
    context = [0.0] * n_features
    for weight, state in zip(attention_weights, hidden_encoder_matrix):
        for k in range(n_features):
            context[k] += float(weight) * float(state[k])
    return np.array(context)''',
"ps4_single_query_code": '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    d_k = len(W_K[0])  # columns of W_K
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), d_k))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output''',
"ps4_dimensions_code": '''# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape = (4, 4 // 2)
concat_shape = (3, 2 * (4 // 2))
W_O_shape = (2 * (4 // 2), 4)''',
"ps4_split_heads_code": '''def split_heads(W, h):
    width = W.shape[1] // h
    blocks = []
    for start in range(0, W.shape[1], width):
        blocks.append(W[:, start:start + width].copy())
    return blocks''',
"ps4_heads_answer": '''A single head gives each query one weighted average, so it can only express one kind of relation at a time. With several heads, each with its own projections, the model can attend to different tokens for different reasons at the same time (our head 1 prefers "translation", head 2 "is"). The heads are smaller (d_model/h), so the cost stays about that of one head, and W^O mixes the heads back into one output.''',
},
"ps5_masked_attention": {
"ps5_causal_mask_code": '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    rows = [[m <= n for n in range(N)] for m in range(N)]
    return np.array(rows, dtype=bool).reshape(N, N)''',
"ps5_masked_softmax_code": '''import math


def masked_softmax_cols(scores, mask):
    scores = np.asarray(scores, dtype=float)
    n_rows, n_cols = scores.shape
    out = [[0.0] * n_cols for _ in range(n_rows)]
    for n in range(n_cols):
        allowed = [m for m in range(n_rows) if mask[m, n]]
        if not allowed:
            continue  # fully masked column: zero weights
        top = max(scores[m, n] for m in allowed)
        exps = {m: math.exp(scores[m, n] - top) for m in allowed}
        total = sum(exps.values())
        for m in allowed:
            out[m][n] = exps[m] / total
    return np.array(out).reshape(n_rows, n_cols)''',
"ps5_masked_attention_code": '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    n_tokens = X.shape[1]
    scores = (K.T @ Q) / math.sqrt(len(Q))
    attentions = masked_softmax_cols(scores, causal_mask(n_tokens))
    X_prime = V @ attentions
    return X_prime, attentions''',
"ps5_positional_encoding_code": '''def positional_encoding(D, N):
    rows = []
    for r in range(D):
        two_i = r if r % 2 == 0 else r - 1
        row = []
        for n in range(N):
            angle = n / (10000 ** (two_i / D))
            row.append(math.sin(angle) if r % 2 == 0 else math.cos(angle))
        rows.append(row)
    return np.array(rows)''',
"ps5_equivariance_code": '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    D_x, N_x = X.shape
    Pi = positional_encoding(D_x, N_x)

    def plain(Z):
        return scaled_self_attention(Z, *params)[0]

    def causal(Z):
        return masked_self_attention(Z, *params)[0]

    def with_positions(Z):
        return scaled_self_attention(Z + Pi, *params)[0]

    gaps = []
    for f in (plain, causal, with_positions):
        diff = f(X[:, perm]) - f(X)[:, perm]
        gaps.append(max(abs(float(d)) for d in diff.ravel()))
    return np.array(gaps)''',
"ps5_decoder_answer": '''(a) It would learn to look at token n+1 in its input and output it (copying), because that token is visible; when generating, the next token is not known yet, so this copying trick cannot work and the model is useless.

(b) No: output n only depends on which tokens are among 0..n, not their order, because the softmax and the weighted sum over m <= n are sums, which do not change if tokens 0..n-1 swap places.''',
},
}

S4 = {  # defensive: validation, float64 casts, copies, comments
"ps1_self_attention": {
"ps1_softmax_code": '''def softmax(items_in):
    """Stable softmax of a list or 1-D array of scores; returns a new float64 array."""
    z = np.array(items_in, dtype=np.float64).reshape(-1)  # copy, flat
    if z.size == 0:
        raise ValueError("softmax needs at least one score")
    z = z - np.max(z)          # every exponent <= 0: no overflow
    exp_z = np.exp(z)
    return exp_z / np.sum(exp_z)''',
"ps1_loop_code": '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Self-attention one token at a time; returns a list of D_v x 1 columns."""
    columns = [np.asarray(x, dtype=np.float64).reshape(-1, 1) for x in all_x]
    if len(columns) == 0:
        return []
    # queries, keys and values (equations 12.2 and 12.4)
    queries = [beta_q + omega_q @ x for x in columns]
    keys = [beta_k + omega_k @ x for x in columns]
    values = [beta_v + omega_v @ x for x in columns]
    outputs = []
    for q in queries:
        dots = np.array([(k.T @ q).item() for k in keys], dtype=np.float64)
        a = softmax(dots)
        x_prime = np.zeros(values[0].shape, dtype=np.float64)
        for a_m, v_m in zip(a, values):
            x_prime += a_m * v_m   # x_prime is our own array, safe to update in place
        outputs.append(x_prime)
    return outputs''',
"ps1_softmax_cols_code": '''def softmax_cols(data_in):
    """Stable softmax of every column; does not modify data_in."""
    data = np.array(data_in, dtype=np.float64)  # copy
    if data.ndim != 2:
        raise ValueError(f"expected a 2-D array, got shape {data.shape}")
    data -= data.max(axis=0, keepdims=True)      # in place on the copy only
    np.exp(data, out=data)
    data /= data.sum(axis=0, keepdims=True)
    return data''',
"ps1_self_attention_code": '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    X = np.asarray(X, dtype=np.float64)
    assert X.ndim == 2, "X must be D x N"
    Q = beta_q.reshape(-1, 1) + omega_q @ X
    K = beta_k.reshape(-1, 1) + omega_k @ X
    V = beta_v.reshape(-1, 1) + omega_v @ X
    attentions = softmax_cols(K.T @ Q)   # N x N, column n = weights of output n
    X_prime = V @ attentions             # D x N
    return X_prime, attentions''',
"ps1_scaled_code": '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    X = np.asarray(X, dtype=np.float64)
    Q = beta_q.reshape(-1, 1) + omega_q @ X
    K = beta_k.reshape(-1, 1) + omega_k @ X
    V = beta_v.reshape(-1, 1) + omega_v @ X
    if Q.shape[0] != K.shape[0]:
        raise ValueError("queries and keys must have the same size D_q")
    d_q = Q.shape[0]                     # size of one query, not D
    attentions = softmax_cols((K.T @ Q) / np.sqrt(float(d_q)))
    X_prime = V @ attentions             # D_v x N
    return X_prime, attentions''',
"ps1_equivariance_code": '''def check_equivariance(f, X, perm):
    perm = np.asarray(perm, dtype=int)
    if sorted(perm.tolist()) != list(range(X.shape[1])):
        raise ValueError("perm must be a permutation of the columns of X")
    permuted_first = np.asarray(f(X[:, perm]))
    permuted_after = np.asarray(f(X.copy()))[:, perm]
    if permuted_first.shape != permuted_after.shape:
        return False
    return bool(np.allclose(permuted_first, permuted_after))  # default rtol/atol''',
"ps1_positional_answer": '''No. The positional encoding Pi is added by position, so when the tokens are permuted each token is combined with a different positional column: X P + Pi differs from (X + Pi) P, and in general Sa[X P + Pi] != Sa[X + Pi] P. That is exactly why positional encodings are added: they break the equivariance so the layer can use word order. (check_equivariance with f = lambda Z: attention(Z + Pi) returns False.)''',
},
"ps2_multihead_attention": {
"ps2_single_head_code": '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """One head: V_h Softmax[K_h^T Q_h / sqrt(D_q)], D_q = rows of Q_h (not the global D)."""
    X = np.asarray(X, dtype=np.float64)
    Q = np.asarray(beta_q, dtype=np.float64).reshape(-1, 1) + omega_q @ X
    K = np.asarray(beta_k, dtype=np.float64).reshape(-1, 1) + omega_k @ X
    V = np.asarray(beta_v, dtype=np.float64).reshape(-1, 1) + omega_v @ X
    if Q.shape != K.shape:
        raise ValueError(f"queries {Q.shape} and keys {K.shape} must have the same shape")
    d_q = Q.shape[0]
    return V @ softmax_cols((K.T @ Q) / np.sqrt(d_q))''',
"ps2_multihead_scaled_code": '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    head_1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head_2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    stacked = np.vstack([head_1, head_2])  # head 1 on top
    if omega_c.shape[1] != stacked.shape[0]:
        raise ValueError("omega_c must have one column per stacked row")
    X_prime = np.asarray(omega_c, dtype=np.float64) @ stacked
    return X_prime''',
"ps2_multihead_general_code": '''def multihead_self_attention(X, heads, omega_c):
    if len(heads) == 0:
        raise ValueError("need at least one head")
    required = ("omega_q", "omega_k", "omega_v", "beta_q", "beta_k", "beta_v")
    outputs = []
    for i, head in enumerate(heads):
        missing = [key for key in required if key not in head]
        if missing:
            raise KeyError(f"head {i} lacks {missing}")
        # read the entries by name: values, queries, keys
        outputs.append(single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                             head["beta_v"], head["beta_q"], head["beta_k"]))
    stacked = np.vstack(outputs)  # heads[0] on top
    X_prime = np.asarray(omega_c, dtype=np.float64) @ stacked
    return X_prime''',
},
"ps3_attention_layer": {
"ps3_softmax_code": '''def softmax(X):
    """Row-wise stable softmax of a 2-D array; X is not modified."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"softmax expects a 2-D array, got {X.ndim}-D")
    shifted = X - np.max(X, axis=1, keepdims=True)   # new array, each row's own max
    exp_x = np.exp(shifted)
    return exp_x / np.sum(exp_x, axis=1, keepdims=True)''',
"ps3_layer_code": '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        if int(dims) != dims or dims <= 0:
            raise ValueError("dims must be a positive integer")
        self.dims = int(dims)
        shape = (self.dims, self.dims)
        # four independent draws from N(0, 1) (scale is the standard deviation)
        self.W_q = np.random.normal(loc=0.0, scale=1.0, size=shape)
        self.W_k = np.random.normal(loc=0.0, scale=1.0, size=shape)
        self.W_v = np.random.normal(loc=0.0, scale=1.0, size=shape)
        self.W_o = np.random.normal(loc=0.0, scale=1.0, size=shape)

    def forward(self, x):
        x = np.asarray(x, dtype=np.float64)
        if x.ndim != 2 or x.shape[1] != self.dims:
            raise ValueError(f"x must have shape (n, {self.dims}), got {x.shape}")
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        scores = (Q @ K.T) / np.sqrt(self.dims)   # n x n; the weights are left untouched
        weights = softmax(scores)
        return (weights @ V) @ self.W_o''',
},
"ps4_encoder_decoder_attention": {
"ps4_get_scores_code": '''def get_scores(matrix, vector):
    matrix = np.asarray(matrix, dtype=np.float64)
    vector = np.asarray(vector, dtype=np.float64).reshape(-1)
    if matrix.ndim != 2 or matrix.shape[1] != vector.shape[0]:
        raise ValueError(f"cannot score states {matrix.shape} against a vector {vector.shape}")
    return matrix @ vector   # one dot product per row''',
"ps4_scale_scores_code": '''def scale_scores(scores, n):
    if n <= 0:
        raise ValueError("n must be positive")
    return np.array(scores, dtype=np.float64) / np.sqrt(float(n))''',
"ps4_attention_weights_code": '''def get_attention_weights(scores):
    s = np.array(scores, dtype=np.float64).reshape(-1)   # copy
    s -= s.max()                                        # stable
    w = np.exp(s)
    return w / w.sum()''',
"ps4_context_vector_code": '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    w = np.asarray(attention_weights, dtype=np.float64).reshape(-1)
    H = np.asarray(hidden_encoder_matrix, dtype=np.float64)
    if H.shape[0] != w.shape[0]:
        raise ValueError(f"{w.shape[0]} weights for {H.shape[0]} states")
    return w @ H   # weight j scales row j (state j)''',
"ps4_single_query_code": '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    query_token = np.asarray(query_token, dtype=np.float64).reshape(-1)   # keep q 1-D
    tokens = np.asarray(tokens, dtype=np.float64)
    q = query_token @ W_Q          # (d_k,)
    K = tokens @ W_K               # T x d_k
    V = tokens @ W_V               # T x d_v
    d_k = W_K.shape[1]             # size of one key, not d_v and not d_model
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), d_k))
    output = get_context_vector(attention_weights, V)
    assert attention_weights.ndim == 1 and output.ndim == 1
    return attention_weights, output''',
"ps4_dimensions_code": '''# Tuples of ints (rows, columns), for example (5, 7).
# X: T x d_model = 3 x 4, h = 2, d_k = d_v = d_model / h = 2
head_W_shape = (4, 2)   # X W^Q_i : (3 x 4)(4 x 2) -> 3 x 2
concat_shape = (3, 4)   # two 3 x 2 head outputs side by side
W_O_shape = (4, 4)      # (3 x 4)(4 x 4) -> 3 x 4 = T x d_model''',
"ps4_split_heads_code": '''def split_heads(W, h):
    W = np.asarray(W)
    if W.shape[1] % h != 0:
        raise ValueError(f"{W.shape[1]} columns cannot be split into {h} heads")
    width = W.shape[1] // h
    return [np.array(W[:, i * width:(i + 1) * width], copy=True) for i in range(h)]''',
"ps4_heads_answer": '''Several heads let the model attend to several things at once: each head has its own query/key/value projections and so its own attention pattern (above, head 1 leans to "translation", head 2 to "is"), whereas one head must squeeze all relations into a single weighted average per query. Because each head is d_model/h wide, the total computation and parameter count are about the same as one full head. W^O then mixes the concatenated heads so every output feature can combine information from all heads. This makes the representation richer and training more robust than relying on one attention pattern.''',
},
"ps5_masked_attention": {
"ps5_causal_mask_code": '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    N = int(N)
    if N < 0:
        raise ValueError("N must be non-negative")
    m = np.arange(N).reshape(-1, 1)   # rows: inputs
    n = np.arange(N).reshape(1, -1)   # columns: outputs
    return (m <= n).astype(bool)''',
"ps5_masked_softmax_code": '''def masked_softmax_cols(scores, mask):
    scores = np.array(scores, dtype=np.float64)   # copy
    mask = np.asarray(mask, dtype=bool)
    if scores.shape != mask.shape:
        raise ValueError("scores and mask must have the same shape")
    any_allowed = mask.any(axis=0)
    # max over the ALLOWED scores of each column (0 for a fully masked column)
    col_max = np.where(mask, scores, -np.inf).max(axis=0)
    col_max[~any_allowed] = 0.0
    shifted = np.where(mask, scores - col_max, -np.inf)
    weights = np.exp(shifted)            # exp(-inf) = 0 for masked entries
    totals = weights.sum(axis=0)
    totals[~any_allowed] = 1.0           # avoid 0/0: the column stays all zero
    return weights / totals''',
"ps5_masked_attention_code": '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    X = np.asarray(X, dtype=np.float64)
    n_tokens = X.shape[1]               # from X, not the global N
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    d_q = Q.shape[0]                    # from Q, not the global D
    scores = (K.T @ Q) / np.sqrt(d_q)
    attentions = masked_softmax_cols(scores, causal_mask(n_tokens))
    X_prime = V @ attentions
    return X_prime, attentions''',
"ps5_positional_encoding_code": '''def positional_encoding(D, N):
    if D % 2 != 0:
        raise ValueError("D must be even")
    Pi = np.empty((D, N), dtype=np.float64)
    positions = np.arange(N, dtype=np.float64)
    for i in range(D // 2):
        freq = 1.0 / (10000.0 ** (2 * i / D))
        Pi[2 * i, :] = np.sin(positions * freq)
        Pi[2 * i + 1, :] = np.cos(positions * freq)
    return Pi''',
"ps5_equivariance_code": '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    X = np.asarray(X, dtype=np.float64)
    perm = list(perm)
    args = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(X.shape[0], X.shape[1])   # sizes from X; Pi is never permuted

    def gap(f):
        return float(np.max(np.abs(f(X[:, perm]) - f(X)[:, perm])))

    return np.array([
        gap(lambda Z: scaled_self_attention(Z, *args)[0]),
        gap(lambda Z: masked_self_attention(Z, *args)[0]),
        gap(lambda Z: scaled_self_attention(Z + Pi, *args)[0]),
    ])''',
"ps5_decoder_answer": '''(a) Without the mask, output n can see token n+1, which is exactly its target, so the decoder would learn to copy it rather than to predict it. At generation time token n+1 has not been produced yet, so the model has no input to copy from and fails.

(b) No. One causal layer without positional encodings treats tokens 0, ..., n as a set: permuting tokens 0..n-1 permutes the terms of the softmax denominator and of the weighted sum, which leaves output n unchanged. It depends on which tokens precede it but not on their order.''',
},
}

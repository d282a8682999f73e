# Correct solutions in four styles: A vectorised, B loops/lists, C einsum, D verbose + debug prints
C = {}
C['ps1_softmax_code'] = [
"""def softmax(items_in):
    z = np.asarray(items_in, dtype=float)
    e = np.exp(z - z.max())
    return e / e.sum()
""",
"""def softmax(items_in):
    m = max(items_in)
    exps = [np.exp(v - m) for v in items_in]
    total = sum(exps)
    return np.array([e / total for e in exps])
""",
"""def softmax(items_in):
    z = np.array(items_in, dtype=np.float64).ravel()
    z = z - np.max(z)
    return np.exp(z) / np.sum(np.exp(z))
""",
"""def softmax(items_in):
    # turn the list into an array so we can do maths on it
    scores = np.array(items_in, dtype=float)
    # subtract the biggest score so every exponent is <= 0 (no overflow)
    shifted = scores - np.max(scores)
    exps = np.exp(shifted)
    weights = exps / np.sum(exps)
    # print("softmax debug:", weights)
    return weights
""",
]
C['ps1_loop_code'] = [
"""def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    qs = [beta_q + omega_q @ x for x in all_x]
    ks = [beta_k + omega_k @ x for x in all_x]
    vs = [beta_v + omega_v @ x for x in all_x]
    out = []
    for q in qs:
        a = softmax([(k.T @ q).item() for k in ks])
        out.append(sum(a[m] * vs[m] for m in range(len(vs))))
    return out
""",
"""def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    n_tokens = len(all_x)
    all_q, all_k, all_v = [], [], []
    for x in all_x:
        all_q.append(beta_q + omega_q @ x)
        all_k.append(beta_k + omega_k @ x)
        all_v.append(beta_v + omega_v @ x)
    all_x_prime = []
    for n in range(n_tokens):
        dots = []
        for m in range(n_tokens):
            dots.append((all_k[m].T @ all_q[n]).item())
        a = softmax(dots)
        x_prime = np.zeros_like(all_v[0])
        for m in range(n_tokens):
            x_prime = x_prime + a[m] * all_v[m]
        all_x_prime.append(x_prime)
    return all_x_prime
""",
"""def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = [omega_q @ x + beta_q for x in all_x]
    K = [omega_k @ x + beta_k for x in all_x]
    V = [omega_v @ x + beta_v for x in all_x]
    result = []
    for q_n in Q:
        w = np.ravel(softmax([np.einsum('ij,ij->', k_m, q_n) for k_m in K]))
        x_n = np.einsum('m,mij->ij', w, np.array(V))
        result.append(x_n)
    return result
""",
"""def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # step 1: queries, keys and values for every token (eq. 12.2 and 12.4)
    queries = []
    keys = []
    values = []
    for x in all_x:
        queries.append(beta_q + omega_q @ x)
        keys.append(beta_k + omega_k @ x)
        values.append(beta_v + omega_v @ x)
    # step 2: for every output n, weights over all the inputs m (eq. 12.5)
    outputs = []
    for n, q_n in enumerate(queries):
        similarities = [(k_m.T @ q_n).item() for k_m in keys]
        attention = softmax(similarities)
        # print("token", n, "attention", attention)
        # step 3: weighted sum of the values (eq. 12.3)
        x_prime = np.zeros((values[0].shape[0], 1))
        for m, v_m in enumerate(values):
            x_prime += attention[m] * v_m
        outputs.append(x_prime)
    return outputs
""",
]
C['ps1_softmax_cols_code'] = [
"""def softmax_cols(data_in):
    e = np.exp(data_in - data_in.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)
""",
"""def softmax_cols(data_in):
    out = np.zeros(data_in.shape)
    for j in range(data_in.shape[1]):
        col = data_in[:, j] - np.max(data_in[:, j])
        out[:, j] = np.exp(col) / np.sum(np.exp(col))
    return out
""",
"""def softmax_cols(data_in):
    shifted = data_in - np.max(data_in, axis=0)
    e = np.exp(shifted)
    return e / np.einsum('ij->j', e)
""",
"""def softmax_cols(data_in):
    # subtract the maximum of each column (not of the whole matrix!)
    col_max = np.max(data_in, axis=0, keepdims=True)
    exp_vals = np.exp(data_in - col_max)
    # normalise so each column sums to one
    col_sums = np.sum(exp_vals, axis=0, keepdims=True)
    return exp_vals / col_sums
""",
]
C['ps1_self_attention_code'] = [
"""def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(K.T @ Q)
    X_prime = V @ attentions
    return X_prime, attentions
""",
"""def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    ones = np.ones((1, X.shape[1]))
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    attentions = softmax_cols(np.matmul(K.T, Q))
    X_prime = np.matmul(V, attentions)
    return X_prime, attentions
""",
"""def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum('ij,jn->in', omega_q, X) + beta_q
    K = np.einsum('ij,jn->in', omega_k, X) + beta_k
    V = np.einsum('ij,jn->in', omega_v, X) + beta_v
    attentions = softmax_cols(np.einsum('dm,dn->mn', K, Q))
    X_prime = np.einsum('dm,mn->dn', V, attentions)
    return X_prime, attentions
""",
"""def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # eq. 12.6: the biases broadcast along the N columns
    Q = beta_q + omega_q @ X   # D x N
    K = beta_k + omega_k @ X   # D x N
    V = beta_v + omega_v @ X   # D x N
    # eq. 12.8: entry (m, n) = k_m . q_n, softmax down each column
    dot_products = K.T @ Q     # N x N
    attentions = softmax_cols(dot_products)
    X_prime = V @ attentions   # D x N
    # print("shapes:", Q.shape, K.shape, V.shape, attentions.shape)
    return X_prime, attentions
""",
]
C['ps1_scaled_code'] = [
"""def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
    X_prime = V @ attentions
    return X_prime, attentions
""",
"""def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    ones = np.ones((1, X.shape[1]))
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    D_q = Q.shape[0]
    attentions = softmax_cols(np.matmul(K.T, Q) / np.sqrt(D_q))
    X_prime = np.matmul(V, attentions)
    return X_prime, attentions
""",
"""def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum('ij,jn->in', omega_q, X) + beta_q
    K = np.einsum('ij,jn->in', omega_k, X) + beta_k
    V = np.einsum('ij,jn->in', omega_v, X) + beta_v
    scale = 1.0 / np.sqrt(Q.shape[0])
    attentions = softmax_cols(scale * np.einsum('dm,dn->mn', K, Q))
    X_prime = np.einsum('dm,mn->dn', V, attentions)
    return X_prime, attentions
""",
"""def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # same as self_attention, but divide the dot products by sqrt(D_q) (eq. 12.9)
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    D_q = Q.shape[0]  # size of one query (rows of Q), may be smaller than D
    scaled_scores = (K.T @ Q) / np.sqrt(D_q)
    attentions = softmax_cols(scaled_scores)
    X_prime = V @ attentions   # D_v x N
    return X_prime, attentions
""",
]
C['ps1_equivariance_code'] = [
"""def check_equivariance(f, X, perm):
    return bool(np.allclose(f(X[:, perm]), f(X)[:, perm]))
""",
"""def check_equivariance(f, X, perm):
    left = f(X[:, perm])
    right = f(X)[:, perm]
    if np.allclose(left, right):
        return True
    return False
""",
"""def check_equivariance(f, X, perm):
    P = np.zeros((X.shape[1], X.shape[1]))
    for i, p in enumerate(perm):
        P[p, i] = 1
    return bool(np.allclose(f(X @ P), f(X) @ P))
""",
"""def check_equivariance(f, X, perm):
    # permute the inputs first, then apply f
    permuted_then_f = f(X[:, perm])
    # apply f first, then permute the outputs
    f_then_permuted = f(X)[:, perm]
    # print("max difference:", np.max(np.abs(permuted_then_f - f_then_permuted)))
    return np.allclose(permuted_then_f, f_then_permuted)
""",
]
C['ps1_positional_answer'] = [
"No. With $\\Pi$ fixed to the positions, permuting the tokens changes which positional vector each token gets, so the queries, keys and values of a token change, not just their order. Sa[XP + Pi] is therefore not Sa[X + Pi]P in general (check_equivariance with f = lambda Z: attention(Z + Pi) returns False).",
"No, it is not equivariant any more. The positional encoding stays in place, so after permuting, token x_n is added to a different column of Pi and its attention weights change. I checked with check_equivariance and it gave False.",
"No. Sa is equivariant in its argument, but the argument is XP + Pi, which is not (X + Pi)P because Pi is not permuted. So the outputs depend on which position each token sits in.",
"No. Self-attention on its own only sees a set of tokens, but adding Pi gives each token information about its position, and Pi does not move with the tokens. So Sa[XP + Pi] != Sa[X + Pi]P; that is exactly why positional encodings are added (check_equivariance returned False for me).",
]
C['ps2_single_head_code'] = [
"""def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
""",
"""def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    N_tokens = X.shape[1]
    ones = np.ones((1, N_tokens))
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    scores = np.zeros((N_tokens, N_tokens))
    for m in range(N_tokens):
        for n in range(N_tokens):
            scores[m, n] = K[:, m] @ Q[:, n]
    A = softmax_cols(scores / np.sqrt(Q.shape[0]))
    return V @ A
""",
"""def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum('hd,dn->hn', omega_q, X) + beta_q
    K = np.einsum('hd,dn->hn', omega_k, X) + beta_k
    V = np.einsum('hd,dn->hn', omega_v, X) + beta_v
    A = softmax_cols(np.einsum('hm,hn->mn', K, Q) / np.sqrt(Q.shape[0]))
    return np.einsum('hm,mn->hn', V, A)
""",
"""def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # queries, keys, values of this head: each D/H x N
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    # D_q is the size of ONE query of this head (rows of Q), not D
    D_q = Q.shape[0]
    attention = softmax_cols((K.T @ Q) / np.sqrt(D_q))
    # print("head attention:\\n", attention)
    return V @ attention
""",
]
C['ps2_multihead_scaled_code'] = [
"""def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    h1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    h2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    X_prime = omega_c @ np.vstack([h1, h2])
    return X_prime
""",
"""def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    params = [(omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
              (omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)]
    outs = []
    for p in params:
        outs.append(single_head_attention(X, *p))
    stacked = np.concatenate(outs, axis=0)
    X_prime = omega_c @ stacked
    return X_prime
""",
"""def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    stacked = np.vstack((
        single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
        single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)))
    X_prime = np.einsum('ij,jn->in', omega_c, stacked)
    return X_prime
""",
"""def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    # each head gives a D/H x N output (eq. 12.10)
    head_1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head_2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    # stack head 1 on top of head 2 -> D x N, then mix with omega_c (eq. 12.11)
    both_heads = np.vstack([head_1, head_2])
    # print("stacked shape:", both_heads.shape)
    X_prime = omega_c @ both_heads
    return X_prime
""",
]
C['ps2_multihead_general_code'] = [
"""def multihead_self_attention(X, heads, omega_c):
    outs = [single_head_attention(X, hd["omega_v"], hd["omega_q"], hd["omega_k"],
                                  hd["beta_v"], hd["beta_q"], hd["beta_k"]) for hd in heads]
    X_prime = omega_c @ np.vstack(outs)
    return X_prime
""",
"""def multihead_self_attention(X, heads, omega_c):
    stacked = None
    for head in heads:
        out = single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                    head["beta_v"], head["beta_q"], head["beta_k"])
        if stacked is None:
            stacked = out
        else:
            stacked = np.vstack([stacked, out])
    X_prime = omega_c @ stacked
    return X_prime
""",
"""def multihead_self_attention(X, heads, omega_c):
    names = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")
    stacked = np.concatenate([single_head_attention(X, *[h[k] for k in names]) for h in heads])
    X_prime = np.einsum('ij,jn->in', omega_c, stacked)
    return X_prime
""",
"""def multihead_self_attention(X, heads, omega_c):
    # run every head (read the parameters by name: the dict order is q, k, v!)
    head_outputs = []
    for h, head in enumerate(heads):
        sa_h = single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                     head["beta_v"], head["beta_q"], head["beta_k"])
        # print(f"head {h}: output shape {sa_h.shape}")
        head_outputs.append(sa_h)
    # stack in list order and mix (eq. 12.11)
    X_prime = omega_c @ np.vstack(head_outputs)
    return X_prime
""",
]
C['ps3_softmax_code'] = [
"""def softmax(X):
    e = np.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
""",
"""def softmax(X):
    result = np.empty_like(X, dtype=float)
    for i in range(X.shape[0]):
        row = X[i] - max(X[i])
        ex = np.exp(row)
        result[i] = ex / ex.sum()
    return result
""",
"""def softmax(X):
    Z = np.asarray(X, dtype=float)
    Z = Z - np.max(Z, axis=-1, keepdims=True)
    E = np.exp(Z)
    return E / np.einsum('ij->i', E)[:, None]
""",
"""def softmax(X):
    # stable softmax along each row: subtract the row maximum first
    row_max = np.max(X, axis=1, keepdims=True)   # n x 1
    exp_x = np.exp(X - row_max)                  # new array, X untouched
    row_sums = np.sum(exp_x, axis=1, keepdims=True)
    return exp_x / row_sums
""",
]
C['ps3_layer_code'] = [
"""class SelfAttention:
    \"\"\"A self-attention layer; the tokens are the rows of x.\"\"\"

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
        A = softmax(Q @ K.T / np.sqrt(self.dims))
        return (A @ V) @ self.W_o
""",
"""class SelfAttention:
    \"\"\"A self-attention layer; the tokens are the rows of x.\"\"\"

    def __init__(self, dims):
        self.dims = dims
        W = np.random.randn(4, dims, dims)
        self.W_q, self.W_k, self.W_v, self.W_o = W[0], W[1], W[2], W[3]

    def forward(self, x):
        Q = np.dot(x, self.W_q)
        K = np.dot(x, self.W_k)
        V = np.dot(x, self.W_v)
        scores = np.dot(Q, K.T) / np.sqrt(self.dims)
        weights = softmax(scores)
        attention = np.dot(weights, V)
        return np.dot(attention, self.W_o)
""",
"""class SelfAttention:
    \"\"\"A self-attention layer; the tokens are the rows of x.\"\"\"

    def __init__(self, dims):
        self.dims = dims
        for name in ("W_q", "W_k", "W_v", "W_o"):
            setattr(self, name, np.random.normal(loc=0.0, scale=1.0, size=(dims, dims)))

    def forward(self, x):
        Q = np.einsum('nd,de->ne', x, self.W_q)
        K = np.einsum('nd,de->ne', x, self.W_k)
        V = np.einsum('nd,de->ne', x, self.W_v)
        A = softmax(np.einsum('id,jd->ij', Q, K) / np.sqrt(self.dims))
        return np.einsum('ij,jd,de->ie', A, V, self.W_o)
""",
"""class SelfAttention:
    \"\"\"A self-attention layer; the tokens are the rows of x.\"\"\"

    def __init__(self, dims):
        # remember the size of the tokens
        self.dims = dims
        # four separate (dims x dims) matrices, mean 0 and std 1 (scale is the std!)
        self.W_q = np.random.normal(loc=0.0, scale=1.0, size=(dims, dims))
        self.W_k = np.random.normal(loc=0.0, scale=1.0, size=(dims, dims))
        self.W_v = np.random.normal(loc=0.0, scale=1.0, size=(dims, dims))
        self.W_o = np.random.normal(loc=0.0, scale=1.0, size=(dims, dims))

    def forward(self, x):
        # eq. 2: x on the left
        Q = x @ self.W_q   # n x dims
        K = x @ self.W_k   # n x dims
        V = x @ self.W_v   # n x dims
        # eq. 3: scaled scores, n x n (divide by sqrt(dims), not sqrt(n))
        S = (Q @ K.T) / np.sqrt(self.dims)
        # eq. 4: row-wise softmax -> attention weights
        A = softmax(S)
        # eq. 5: weighted values, then output projection
        self_attention = A @ V
        output = self_attention @ self.W_o
        # print("forward:", x.shape, "->", output.shape)
        return output
""",
]
C['ps4_get_scores_code'] = [
"""def get_scores(matrix, vector):
    return matrix @ vector
""",
"""def get_scores(matrix, vector):
    scores = []
    for row in matrix:
        s = 0.0
        for a, b in zip(row, vector):
            s += a * b
        scores.append(s)
    return np.array(scores)
""",
"""def get_scores(matrix, vector):
    return np.einsum('tn,n->t', matrix, vector)
""",
"""def get_scores(matrix, vector):
    # one dot product per row (per encoder state)
    scores = np.dot(matrix, vector)   # shape (T,)
    # print("scores:", scores)
    return scores
""",
]
C['ps4_scale_scores_code'] = [
"""def scale_scores(scores, n):
    return scores / np.sqrt(n)
""",
"""def scale_scores(scores, n):
    return np.array([s / n ** 0.5 for s in scores])
""",
"""def scale_scores(scores, n):
    return np.asarray(scores) * (1.0 / np.sqrt(n))
""",
"""def scale_scores(scores, n):
    # divide by sqrt(n), n = size of one hidden state (or d_k)
    return np.divide(scores, np.sqrt(n))
""",
]
C['ps4_attention_weights_code'] = [
"""def get_attention_weights(scores):
    e = np.exp(scores - np.max(scores))
    return e / e.sum()
""",
"""def get_attention_weights(scores):
    biggest = max(scores)
    exps = [np.exp(s - biggest) for s in scores]
    total = sum(exps)
    return np.array([e / total for e in exps])
""",
"""def get_attention_weights(scores):
    z = np.asarray(scores, dtype=float)
    z = z - z.max()
    return np.exp(z) / np.exp(z).sum()
""",
"""def get_attention_weights(scores):
    # stable softmax: subtract the largest score first
    shifted = scores - np.max(scores)
    exp_scores = np.exp(shifted)
    weights = exp_scores / np.sum(exp_scores)
    # print("weights sum to", weights.sum())
    return weights
""",
]
C['ps4_context_vector_code'] = [
"""def get_context_vector(attention_weights, hidden_encoder_matrix):
    return attention_weights @ hidden_encoder_matrix
""",
"""def get_context_vector(attention_weights, hidden_encoder_matrix):
    c = np.zeros(hidden_encoder_matrix.shape[1])
    for j in range(len(attention_weights)):
        c = c + attention_weights[j] * hidden_encoder_matrix[j]
    return c
""",
"""def get_context_vector(attention_weights, hidden_encoder_matrix):
    return np.einsum('t,tn->n', attention_weights, hidden_encoder_matrix)
""",
"""def get_context_vector(attention_weights, hidden_encoder_matrix):
    # weight j scales ROW j (a whole state): make the weights a column first
    weighted_rows = attention_weights[:, None] * hidden_encoder_matrix   # T x n
    context = weighted_rows.sum(axis=0)                                  # (n,)
    return context
""",
]
C['ps4_single_query_code'] = [
"""def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), W_K.shape[1]))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output
""",
"""def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.dot(query_token, W_Q)
    K = np.dot(tokens, W_K)
    V = np.dot(tokens, W_V)
    d_k = W_K.shape[1]
    scores = get_scores(K, q)
    scaled = scale_scores(scores, d_k)
    attention_weights = get_attention_weights(scaled)
    output = get_context_vector(attention_weights, V)
    return attention_weights, output
""",
"""def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.einsum('d,dk->k', query_token, W_Q)
    K = np.einsum('td,dk->tk', tokens, W_K)
    V = np.einsum('td,dv->tv', tokens, W_V)
    s = np.einsum('tk,k->t', K, q) / np.sqrt(K.shape[1])
    attention_weights = get_attention_weights(s)
    output = np.einsum('t,tv->v', attention_weights, V)
    return attention_weights, output
""",
"""def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    # eq. 5: project (q stays 1-D)
    q = query_token @ W_Q     # (d_k,)
    K = tokens @ W_K          # T x d_k
    V = tokens @ W_V          # T x d_v
    d_k = W_K.shape[1]        # size of one key = columns of W_K
    # eq. 6 using the helpers from sections 1-4
    scores = get_scores(K, q)
    attention_weights = get_attention_weights(scale_scores(scores, d_k))
    output = get_context_vector(attention_weights, V)   # (d_v,)
    # print(attention_weights.shape, output.shape)
    return attention_weights, output
""",
]
C['ps4_dimensions_code'] = [
"""# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape = (4, 2)
concat_shape = (3, 4)
W_O_shape = (4, 4)
""",
"""# Tuples of ints (rows, columns), for example (5, 7).
d_model, h, T = 4, 2, 3
head_W_shape = (d_model, d_model // h)
concat_shape = (T, h * (d_model // h))
W_O_shape = (h * (d_model // h), d_model)
""",
"""# Tuples of ints (rows, columns), for example (5, 7).
# X is 3 x 4; X W^Q_i must be 3 x 2, so W^Q_i is 4 x 2
head_W_shape = (4, 2)
# two heads of 3 x 2 side by side
concat_shape = (3, 4)
# (3 x 4) W^O = 3 x 4
W_O_shape = (4, 4)
""",
"""# Tuples of ints (rows, columns), for example (5, 7).
# T = 3 tokens, d_model = 4, h = 2 heads, d_k = d_v = 4 / 2 = 2
# X (3 x 4) @ W^Q_i (4 x 2) = Q_i (3 x 2); each head outputs 3 x 2
# Concat(head_1, head_2) = 3 x 4, then (3 x 4) @ W^O (4 x 4) = 3 x 4
head_W_shape = (4, 2)
concat_shape = (3, 4)
W_O_shape = (4, 4)
""",
]
C['ps4_split_heads_code'] = [
"""def split_heads(W, h):
    return np.hsplit(W, h)
""",
"""def split_heads(W, h):
    size = W.shape[1] // h
    blocks = []
    for i in range(h):
        blocks.append(W[:, i * size:(i + 1) * size])
    return blocks
""",
"""def split_heads(W, h):
    return list(np.split(W, h, axis=1))
""",
"""def split_heads(W, h):
    # h blocks of d_model / h consecutive columns, head i = columns i*k ... (i+1)*k - 1
    k = W.shape[1] // h
    return [W[:, i * k:(i + 1) * k].copy() for i in range(h)]
""",
]
C['ps4_heads_answer'] = [
"Each head has its own projections, so each head can compute a different attention pattern: above, head 1 leans to 'translation' and head 2 to 'is'. One head has to average all relations into one distribution, while several heads can attend to different tokens or different kinds of relation (syntax, meaning, position) at the same time. Because each head works in d_model/h dimensions, the cost is about the same as one full-size head. The outputs are then mixed by W^O so every output dimension can use every head.",
"Several heads give several attention distributions instead of one, so the model can look at several tokens for different reasons at once. With one head a softmax tends to focus on one place. The heads are smaller (d_k = d_model/h), so the total computation is about the same. W^O combines what the heads found.",
"Multiple heads let the layer learn different subspaces/representations and attend to different positions. In our example the two heads spread their attention differently. It costs about the same as a single head of size d_model. It is also a bit like an ensemble, which makes it more robust.",
"The main benefit is that different heads can specialise: each has its own W^Q_i, W^K_i, W^V_i and therefore its own attention matrix, as the heat maps above showed. A single head can only produce one weighted average per query, which would blur different relations together. Splitting d_model into h blocks keeps the number of parameters and the cost about the same as one head. The concatenation followed by W^O then lets the model combine the information from all heads.",
]
C['ps5_causal_mask_code'] = [
"""def causal_mask(N):
    \"\"\"N x N, dtype bool: True at (m, n) where output n may attend to input m (M1).\"\"\"
    return np.triu(np.ones((N, N), dtype=bool))
""",
"""def causal_mask(N):
    \"\"\"N x N, dtype bool: True at (m, n) where output n may attend to input m (M1).\"\"\"
    mask = np.zeros((N, N), dtype=bool)
    for m in range(N):
        for n in range(N):
            if m <= n:
                mask[m, n] = True
    return mask
""",
"""def causal_mask(N):
    \"\"\"N x N, dtype bool: True at (m, n) where output n may attend to input m (M1).\"\"\"
    idx = np.arange(N)
    return idx[:, None] <= idx[None, :]
""",
"""def causal_mask(N):
    \"\"\"N x N, dtype bool: True at (m, n) where output n may attend to input m (M1).\"\"\"
    # rows are inputs m, columns outputs n; allowed when m <= n -> upper triangle
    rows, cols = np.indices((N, N))
    mask = rows <= cols
    # print(mask.astype(int))
    return mask
""",
]
C['ps5_masked_softmax_code'] = [
"""def masked_softmax_cols(scores, mask):
    s = np.where(mask, scores, -np.inf)
    col_max = s.max(axis=0, keepdims=True)
    col_max[~np.isfinite(col_max)] = 0.0
    e = np.where(mask, np.exp(s - col_max), 0.0)
    sums = e.sum(axis=0, keepdims=True)
    return np.divide(e, sums, out=np.zeros_like(e), where=sums > 0)
""",
"""def masked_softmax_cols(scores, mask):
    out = np.zeros(scores.shape)
    for n in range(scores.shape[1]):
        allowed = [m for m in range(scores.shape[0]) if mask[m, n]]
        if len(allowed) == 0:
            continue
        biggest = max(scores[m, n] for m in allowed)
        exps = [np.exp(scores[m, n] - biggest) for m in allowed]
        total = sum(exps)
        for m, e in zip(allowed, exps):
            out[m, n] = e / total
    return out
""",
"""def masked_softmax_cols(scores, mask):
    big_neg = np.where(mask, scores, -np.inf)
    m = np.max(big_neg, axis=0)
    m = np.where(np.isneginf(m), 0.0, m)
    e = np.exp(big_neg - m) * mask
    total = np.einsum('mn->n', e)
    total = np.where(total == 0, 1.0, total)
    return e / total
""",
"""def masked_softmax_cols(scores, mask):
    # 1. masked scores -> -inf (on a copy, scores stays as it was)
    masked = np.where(mask, scores, -np.inf)
    # 2. maximum of the ALLOWED scores of each column; a fully masked column has -inf
    col_max = np.max(masked, axis=0, keepdims=True)
    col_max = np.where(np.isfinite(col_max), col_max, 0.0)   # avoid -inf - -inf = nan
    # 3. exponentials; exp(-inf) = 0 for the masked entries
    exps = np.exp(masked - col_max)
    # 4. normalise; a fully masked column has sum 0 -> keep its zeros
    col_sums = exps.sum(axis=0, keepdims=True)
    safe = np.where(col_sums > 0, col_sums, 1.0)
    weights = exps / safe
    # print("column sums:", weights.sum(axis=0))
    return weights
""",
]
C['ps5_masked_attention_code'] = [
"""def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = masked_softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]), causal_mask(X.shape[1]))
    X_prime = V @ attentions
    return X_prime, attentions
""",
"""def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    n_tokens = X.shape[1]
    ones = np.ones((1, n_tokens))
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    scores = np.matmul(K.T, Q) / np.sqrt(Q.shape[0])
    mask = causal_mask(n_tokens)
    attentions = masked_softmax_cols(scores, mask)
    X_prime = np.matmul(V, attentions)
    return X_prime, attentions
""",
"""def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum('ij,jn->in', omega_q, X) + beta_q
    K = np.einsum('ij,jn->in', omega_k, X) + beta_k
    V = np.einsum('ij,jn->in', omega_v, X) + beta_v
    S = np.einsum('dm,dn->mn', K, Q) / np.sqrt(Q.shape[0])
    attentions = masked_softmax_cols(S, causal_mask(S.shape[0]))
    X_prime = np.einsum('dm,mn->dn', V, attentions)
    return X_prime, attentions
""",
"""def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # queries, keys, values (eq. 12.6)
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    # scaled scores, entry (m, n) = k_m . q_n / sqrt(D_q)
    D_q = Q.shape[0]
    scores = (K.T @ Q) / np.sqrt(D_q)
    # causal mask for THIS X (not the global N), then masked softmax (M2)
    mask = causal_mask(X.shape[1])
    attentions = masked_softmax_cols(scores, mask)
    X_prime = V @ attentions
    # print("attentions:\\n", np.round(attentions, 3))
    return X_prime, attentions
""",
]
C['ps5_positional_encoding_code'] = [
"""def positional_encoding(D, N):
    pos = np.arange(N)[None, :]
    two_i = (np.arange(D) // 2 * 2)[:, None]
    angles = pos / 10000 ** (two_i / D)
    return np.where(np.arange(D)[:, None] % 2 == 0, np.sin(angles), np.cos(angles))
""",
"""def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    for n in range(N):
        for i in range(D // 2):
            freq = 10000 ** (2 * i / D)
            Pi[2 * i, n] = np.sin(n / freq)
            Pi[2 * i + 1, n] = np.cos(n / freq)
    return Pi
""",
"""def positional_encoding(D, N):
    Pi = np.empty((D, N))
    i = np.arange(D // 2)
    angles = np.einsum('i,n->in', 1.0 / 10000 ** (2 * i / D), np.arange(N))
    Pi[0::2] = np.sin(angles)
    Pi[1::2] = np.cos(angles)
    return Pi
""",
"""def positional_encoding(D, N):
    # positions 0 .. N-1 as a row, one column per position
    positions = np.arange(N).reshape(1, N)
    # rows 2i and 2i+1 share the frequency 1 / 10000^(2i/D)
    Pi = np.zeros((D, N))
    for r in range(D):
        two_i = r if r % 2 == 0 else r - 1
        angle = positions / (10000 ** (two_i / D))
        if r % 2 == 0:
            Pi[r] = np.sin(angle)
        else:
            Pi[r] = np.cos(angle)
    # print(Pi.shape)
    return Pi
""",
]
C['ps5_equivariance_code'] = [
"""def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(*X.shape)
    maps = [lambda Z: scaled_self_attention(Z, *params)[0],
            lambda Z: masked_self_attention(Z, *params)[0],
            lambda Z: scaled_self_attention(Z + Pi, *params)[0]]
    return np.array([np.max(np.abs(f(X[:, perm]) - f(X)[:, perm])) for f in maps])
""",
"""def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    D_, N_ = X.shape
    Pi = positional_encoding(D_, N_)
    Xp = X[:, perm]
    gaps = []
    a = scaled_self_attention(Xp, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    b = scaled_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0][:, perm]
    gaps.append(np.max(np.abs(a - b)))
    a = masked_self_attention(Xp, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    b = masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0][:, perm]
    gaps.append(np.max(np.abs(a - b)))
    a = scaled_self_attention(Xp + Pi, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    b = scaled_self_attention(X + Pi, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0][:, perm]
    gaps.append(np.max(np.abs(a - b)))
    return np.array(gaps)
""",
"""def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    args = dict(omega_v=omega_v, omega_q=omega_q, omega_k=omega_k,
                beta_v=beta_v, beta_q=beta_q, beta_k=beta_k)
    Pi = positional_encoding(X.shape[0], X.shape[1])
    def gap(f):
        return np.abs(f(X[:, perm]) - f(X)[:, perm]).max()
    return np.array([gap(lambda Z: scaled_self_attention(Z, **args)[0]),
                     gap(lambda Z: masked_self_attention(Z, **args)[0]),
                     gap(lambda Z: scaled_self_attention(Z + Pi, **args)[0])])
""",
"""def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # one fixed encoding with the shape of THIS X; it is never permuted
    Pi = positional_encoding(X.shape[0], X.shape[1])

    def plain(Z):
        return scaled_self_attention(Z, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]

    def causal(Z):
        return masked_self_attention(Z, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]

    def with_positions(Z):
        return scaled_self_attention(Z + Pi, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]

    gaps = []
    for f in (plain, causal, with_positions):
        difference = f(X[:, perm]) - f(X)[:, perm]
        gaps.append(np.max(np.abs(difference)))
    # print("gaps:", gaps)
    return np.array(gaps)
""",
]
C['ps5_decoder_answer'] = [
"(a) Without the mask output n can see token n+1, so it would just learn to copy the next token; at generation time that token does not exist yet, so the model has learned nothing useful. (b) No: output n is a weighted sum with weights that depend only on the set of tokens 0..n, so permuting tokens 0..n-1 among themselves does not change output n.",
"(a) It would learn to cheat by attending to the token it has to predict. When generating, the future tokens are not known, so it fails. (b) Output n does not depend on the order of the earlier tokens: permuting them just permutes the terms of the sum, which gives the same output.",
"(a) The model would look at the answer (token n+1) and copy it, so training loss is low but it can't generate because future tokens are unavailable. (b) It only knows which tokens are before it, not their order; swapping tokens 0..n-1 leaves output n unchanged.",
"(a) Without the mask each output can attend to later tokens, so the decoder learns to read off token n+1 instead of predicting it; when generating text one token at a time there are no later tokens, so this is useless. (b) Output n depends only on the set {x_0, ..., x_n}: softmax and the weighted sum do not care about the order of the terms, so permuting tokens 0..n-1 does not change output n.",
]

"""Four correct answer styles for every solution cell of the five release notebooks.

STYLES[ps][style][grade_id] = source of that solution cell.
Style 1: explicit loops, verbose comments.   Style 2: einsum.
Style 3: terse vectorised one-liners / comprehensions.
Style 4: own private helpers (_proj, ...), asserts, a debug print, np.apply_along_axis, in-place ops.
"""

STYLES = {}

# ----------------------------------------------------------------------------------- PS1
STYLES["ps1_self_attention"] = {
1: {
"ps1_softmax_code": '''def softmax(items_in):
    # Turn the list into a flat float array so lists, 1-D arrays and columns all work
    items = np.array(items_in, dtype=float).ravel()
    # Subtract the largest score first: every exponent is then <= 0, so nothing overflows
    largest = np.max(items)
    exps = np.zeros(len(items))
    for i in range(len(items)):
        exps[i] = np.exp(items[i] - largest)
    # Normalise so that the weights sum to one
    total = 0.0
    for i in range(len(items)):
        total += exps[i]
    return exps / total
''',
"ps1_loop_code": '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # Number of tokens comes from the argument, not from the global N
    num_tokens = len(all_x)

    # Step 1: the query, key and value of every input (equations 12.2 and 12.4)
    all_queries = []
    all_keys = []
    all_values = []
    for x in all_x:
        query = beta_q + omega_q @ x
        key = beta_k + omega_k @ x
        value = beta_v + omega_v @ x
        all_queries.append(query)
        all_keys.append(key)
        all_values.append(value)

    # Step 2: for every output n, softmax over the dot products k_m^T q_n, then weighted sum
    all_x_prime = []
    for n in range(num_tokens):
        all_km_qn = []
        for m in range(num_tokens):
            dot_product = (all_keys[m].T @ all_queries[n]).item()
            all_km_qn.append(dot_product)
        attention = softmax(all_km_qn)
        x_prime = np.zeros_like(all_values[0], dtype=float)  # a column like the values
        for m in range(num_tokens):
            x_prime = x_prime + attention[m] * all_values[m]
        all_x_prime.append(x_prime)
    return all_x_prime
''',
"ps1_softmax_cols_code": '''def softmax_cols(data_in):
    # Work column by column: column n holds the scores for output n
    data = np.asarray(data_in, dtype=float)
    result = np.zeros(data.shape)
    for n in range(data.shape[1]):
        column = data[:, n]
        # subtract this column's own maximum before exponentiating
        exp_column = np.exp(column - np.max(column))
        result[:, n] = exp_column / np.sum(exp_column)
    return result
''',
"ps1_self_attention_code": '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # 1^T is a row of ones, one entry per token (column of X)
    num_tokens = X.shape[1]
    ones = np.ones((1, num_tokens))
    # Equation 12.6
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    # Entry (m, n) of K^T Q is k_m^T q_n; the softmax runs down each column
    all_kq = K.T @ Q
    attentions = softmax_cols(all_kq)
    # Equation 12.8
    X_prime = V @ attentions
    return X_prime, attentions
''',
"ps1_scaled_code": '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    num_tokens = X.shape[1]
    ones = np.ones((1, num_tokens))
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    # D_q is the size of one query: the number of rows of Q
    D_q = Q.shape[0]
    all_kq = K.T @ Q / np.sqrt(D_q)
    attentions = softmax_cols(all_kq)
    X_prime = V @ attentions
    return X_prime, attentions
''',
"ps1_equivariance_code": '''def check_equivariance(f, X, perm):
    # Permute the inputs, then apply f
    permuted_then_f = f(X[:, perm])
    # Apply f, then permute the outputs
    f_then_permuted = f(X)[:, perm]
    # Different shapes can never be equal
    if permuted_then_f.shape != f_then_permuted.shape:
        return False
    # Compare entry by entry with the default tolerance
    return bool(np.allclose(permuted_then_f, f_then_permuted))
''',
},
2: {
"ps1_softmax_code": '''def softmax(items_in):
    z = np.asarray(items_in, dtype=float).reshape(-1)
    e = np.exp(z - z.max())          # stable: every exponent <= 0
    return e / np.einsum("i->", e)
''',
"ps1_loop_code": '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    qs = [beta_q + np.einsum("ij,jk->ik", omega_q, x) for x in all_x]
    ks = [beta_k + np.einsum("ij,jk->ik", omega_k, x) for x in all_x]
    vs = [beta_v + np.einsum("ij,jk->ik", omega_v, x) for x in all_x]
    outputs = []
    for q_n in qs:
        weights = softmax([np.einsum("ik,ik->", k_m, q_n) for k_m in ks])
        out = np.zeros_like(vs[0], dtype=float)
        for a_m, v_m in zip(weights, vs):
            out += a_m * v_m
        outputs.append(out)
    return outputs
''',
"ps1_softmax_cols_code": '''def softmax_cols(data_in):
    e = np.exp(data_in - np.max(data_in, axis=0))   # (N,) broadcasts over the columns
    return e / np.einsum("mn->n", e)
''',
"ps1_self_attention_code": '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum("ij,jn->in", omega_q, X)
    K = beta_k + np.einsum("ij,jn->in", omega_k, X)
    V = beta_v + np.einsum("ij,jn->in", omega_v, X)
    attentions = softmax_cols(np.einsum("dm,dn->mn", K, Q))   # (m, n) = k_m . q_n
    X_prime = np.einsum("dm,mn->dn", V, attentions)
    return X_prime, attentions
''',
"ps1_scaled_code": '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum("ij,jn->in", omega_q, X)
    K = beta_k + np.einsum("ij,jn->in", omega_k, X)
    V = beta_v + np.einsum("ij,jn->in", omega_v, X)
    attentions = softmax_cols(np.einsum("dm,dn->mn", K, Q) / np.sqrt(Q.shape[0]))
    X_prime = np.einsum("dm,mn->dn", V, attentions)
    return X_prime, attentions
''',
"ps1_equivariance_code": '''def check_equivariance(f, X, perm):
    left, right = f(X[:, perm]), f(X)[:, perm]
    return left.shape == right.shape and bool(np.allclose(left, right))
''',
},
3: {
"ps1_softmax_code": '''def softmax(items_in):
    z = np.ravel(np.asarray(items_in, dtype=float))
    return np.exp(z - z.max()) / np.exp(z - z.max()).sum()
''',
"ps1_loop_code": '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    q, k, v = ([b + W @ x for x in all_x] for W, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    return [sum(a * v_m for a, v_m in zip(softmax([(k_m.T @ q_n).item() for k_m in k]), v)) for q_n in q]
''',
"ps1_softmax_cols_code": '''def softmax_cols(data_in):
    e = np.exp(data_in - data_in.max(0))
    return e / e.sum(0)
''',
"ps1_self_attention_code": '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + W @ X for W, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    attentions = softmax_cols(K.T @ Q)
    return V @ attentions, attentions
''',
"ps1_scaled_code": '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + W @ X for W, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    attentions = softmax_cols(K.T @ Q / Q.shape[0] ** 0.5)
    return V @ attentions, attentions
''',
"ps1_equivariance_code": '''def check_equivariance(f, X, perm):
    a, b = f(X[:, perm]), f(X)[:, perm]
    return a.shape == b.shape and np.allclose(a, b)
''',
},
4: {
"ps1_softmax_code": '''DEBUG = False  # set to True to print intermediate results


def _stable_exp(z):
    """exp(z - max z): the largest entry becomes exp(0) = 1, nothing overflows."""
    z = np.asarray(z, dtype=float)
    return np.exp(z - z.max())


def softmax(items_in):
    e = _stable_exp(np.ravel(items_in))
    e /= e.sum()                      # in place
    assert np.isclose(e.sum(), 1.0), e
    return e
''',
"ps1_loop_code": '''def _proj(omega, beta, x):
    """beta + omega x, for one column x or a D x N matrix of columns."""
    out = omega @ x
    out += beta                       # in place; beta broadcasts over the columns
    return out


def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    qs = [_proj(omega_q, beta_q, x) for x in all_x]
    ks = [_proj(omega_k, beta_k, x) for x in all_x]
    vs = [_proj(omega_v, beta_v, x) for x in all_x]
    outputs = []
    for n, q_n in enumerate(qs):
        weights = softmax([(k_m.T @ q_n).item() for k_m in ks])
        out = np.zeros_like(vs[0], dtype=float)
        for w_m, v_m in zip(weights, vs):
            out += w_m * v_m
        assert out.shape == vs[0].shape
        if DEBUG:
            print(f"output {n}: weights {weights}")
        outputs.append(out)
    return outputs
''',
"ps1_softmax_cols_code": '''def softmax_cols(data_in):
    # my softmax on every column (axis 0)
    return np.apply_along_axis(softmax, 0, np.asarray(data_in, dtype=float))
''',
"ps1_self_attention_code": '''def _attend(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, scaled):
    Q = _proj(omega_q, beta_q, X)
    K = _proj(omega_k, beta_k, X)
    V = _proj(omega_v, beta_v, X)
    scores = K.T @ Q
    if scaled:
        scores /= np.sqrt(Q.shape[0])
    A = softmax_cols(scores)
    assert A.shape == (X.shape[1], X.shape[1]), A.shape
    if DEBUG:
        print("column sums:", A.sum(axis=0))
    return V @ A, A


def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    X_prime, attentions = _attend(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, scaled=False)
    return X_prime, attentions
''',
"ps1_scaled_code": '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    X_prime, attentions = _attend(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, scaled=True)
    return X_prime, attentions
''',
"ps1_equivariance_code": '''def check_equivariance(f, X, perm):
    lhs = np.asarray(f(X[:, perm]))
    rhs = np.asarray(f(X))[:, perm]
    if lhs.shape != rhs.shape:
        return False
    if DEBUG:
        print("largest difference:", np.abs(lhs - rhs).max())
    return bool(np.allclose(lhs, rhs))
''',
},
}

# ----------------------------------------------------------------------------------- PS2
STYLES["ps2_multihead_attention"] = {
1: {
"ps2_single_head_code": '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # Queries, keys and values of this head: each (D/H) x N
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    # D_q is the size of one query of THIS head (rows of Q), not the global D or H_D
    D_q = Q.shape[0]
    # Entry (m, n) is k_m . q_n, scaled; the given softmax_cols normalises every column
    scores = K.T @ Q / np.sqrt(D_q)
    attention = softmax_cols(scores)
    # Weighted sum of the values
    return V @ attention
''',
"ps2_multihead_scaled_code": '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    # Each head separately (arguments in the order values, queries, keys)
    head1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    # Stack head 1 on top of head 2: a D x N matrix
    stacked = np.vstack([head1, head2])
    # Mix the heads (equation 12.11)
    X_prime = omega_c @ stacked
    return X_prime
''',
"ps2_multihead_general_code": '''def multihead_self_attention(X, heads, omega_c):
    # Run every head, in list order, reading the parameters by name
    head_outputs = []
    for head in heads:
        out = single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                    head["beta_v"], head["beta_q"], head["beta_k"])
        head_outputs.append(out)
    # Stack them vertically (H blocks of D/H rows) and mix
    stacked = np.vstack(head_outputs)
    X_prime = omega_c @ stacked
    return X_prime
''',
},
2: {
"ps2_single_head_code": '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum("hd,dn->hn", omega_q, X)
    K = beta_k + np.einsum("hd,dn->hn", omega_k, X)
    V = beta_v + np.einsum("hd,dn->hn", omega_v, X)
    scores = np.einsum("hm,hn->mn", K, Q) / np.sqrt(Q.shape[0])
    return np.einsum("hm,mn->hn", V, softmax_cols(scores))
''',
"ps2_multihead_scaled_code": '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    heads = np.concatenate([
        single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
        single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)], axis=0)
    X_prime = np.einsum("ij,jn->in", omega_c, heads)
    return X_prime
''',
"ps2_multihead_general_code": '''def multihead_self_attention(X, heads, omega_c):
    outs = [single_head_attention(X, **{k: h[k] for k in ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")})
            for h in heads]
    X_prime = np.einsum("ij,jn->in", omega_c, np.concatenate(outs, axis=0))
    return X_prime
''',
},
3: {
"ps2_single_head_code": '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + W @ X for W, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    return V @ softmax_cols(K.T @ Q / np.sqrt(len(Q)))
''',
"ps2_multihead_scaled_code": '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    X_prime = omega_c @ np.vstack((single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
                                   single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)))
    return X_prime
''',
"ps2_multihead_general_code": '''ORDER = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")


def multihead_self_attention(X, heads, omega_c):
    X_prime = omega_c @ np.vstack([single_head_attention(X, *(h[k] for k in ORDER)) for h in heads])
    return X_prime
''',
},
4: {
"ps2_single_head_code": '''def _proj(omega, beta, X):
    out = omega @ X
    out += beta          # in place, beta is a column
    return out


def _scaled_scores(Q, K):
    """K^T Q / sqrt(D_q): entry (m, n) scores input m for output n."""
    assert Q.shape == K.shape, (Q.shape, K.shape)
    S = K.T @ Q
    S /= np.sqrt(Q.shape[0])
    return S


def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = _proj(omega_q, beta_q, X)
    K = _proj(omega_k, beta_k, X)
    V = _proj(omega_v, beta_v, X)
    A = softmax_cols(_scaled_scores(Q, K))
    assert np.allclose(A.sum(axis=0), 1)
    return V @ A
''',
"ps2_multihead_scaled_code": '''def _mix(head_outputs, omega_c):
    stacked = np.vstack(head_outputs)
    assert stacked.shape[0] == omega_c.shape[1], (stacked.shape, omega_c.shape)
    return omega_c @ stacked


def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    h1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    h2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    X_prime = _mix([h1, h2], omega_c)
    return X_prime
''',
"ps2_multihead_general_code": '''def multihead_self_attention(X, heads, omega_c):
    outs = []
    for i, p in enumerate(heads):
        outs.append(single_head_attention(X, p["omega_v"], p["omega_q"], p["omega_k"],
                                          p["beta_v"], p["beta_q"], p["beta_k"]))
    print(f"{len(outs)} heads of size {outs[0].shape[0]}")  # debug
    X_prime = _mix(outs, omega_c)
    return X_prime
''',
},
}

# ----------------------------------------------------------------------------------- PS3
STYLES["ps3_attention_layer"] = {
1: {
"ps3_softmax_code": '''def softmax(X):
    X = np.asarray(X, dtype=float)
    result = np.zeros(X.shape)
    # one row at a time
    for i in range(X.shape[0]):
        row = X[i]
        # subtract the row's own maximum so every exponent is <= 0
        shifted = row - np.max(row)
        exps = np.exp(shifted)
        result[i] = exps / np.sum(exps)
    return result
''',
"ps3_layer_code": '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        # remember the size of the layer
        self.dims = dims
        # four separate draws from N(0, 1), each dims x dims (scale is the std, here 1)
        self.W_q = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_k = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_v = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_o = np.random.normal(0.0, 1.0, (dims, dims))

    def forward(self, x):
        # equation 2: x on the left
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        # equation 3: n x n scores, scaled by sqrt(dims)
        scores = Q @ K.T / np.sqrt(self.dims)
        # equation 4: softmax of each row
        attention = softmax(scores)
        # equation 5
        self_attention = attention @ V
        output = self_attention @ self.W_o
        return output
''',
},
2: {
"ps3_softmax_code": '''def softmax(X):
    e = np.exp(X - np.max(X, axis=1, keepdims=True))
    return e / np.einsum("ij->i", e)[:, None]
''',
"ps3_layer_code": '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        W = np.random.randn(4, dims, dims)  # one draw, four different matrices
        self.W_q, self.W_k, self.W_v, self.W_o = W[0], W[1], W[2], W[3]

    def forward(self, x):
        Q = np.einsum("nd,de->ne", x, self.W_q)
        K = np.einsum("nd,de->ne", x, self.W_k)
        V = np.einsum("nd,de->ne", x, self.W_v)
        A = softmax(np.einsum("id,jd->ij", Q, K) / np.sqrt(self.dims))
        return np.einsum("ij,jd,de->ie", A, V, self.W_o)
''',
},
3: {
"ps3_softmax_code": '''def softmax(X):
    e = np.exp(X - X.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
''',
"ps3_layer_code": '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = (np.random.normal(size=(dims, dims)) for _ in range(4))

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T / self.dims ** 0.5) @ V @ self.W_o
''',
},
4: {
"ps3_softmax_code": '''def _softmax_1d(row):
    e = np.exp(row - row.max())
    e /= e.sum()          # in place
    return e


def softmax(X):
    X = np.asarray(X, dtype=float)
    assert X.ndim == 2, "softmax expects a 2-D array"
    return np.apply_along_axis(_softmax_1d, 1, X)
''',
"ps3_layer_code": '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = int(dims)
        for name in ("W_q", "W_k", "W_v", "W_o"):
            setattr(self, name, self._draw())

    def _draw(self):
        return np.random.normal(loc=0.0, scale=1.0, size=(self.dims, self.dims))

    def forward(self, x):
        x = np.asarray(x, dtype=float)
        assert x.shape[1] == self.dims, f"tokens of size {x.shape[1]}, layer of size {self.dims}"
        Q, K, V = (x @ W for W in (self.W_q, self.W_k, self.W_v))
        S = Q @ K.T
        S /= np.sqrt(self.dims)
        A = softmax(S)
        out = A @ V
        return out @ self.W_o
''',
},
}

# ----------------------------------------------------------------------------------- PS4
STYLES["ps4_encoder_decoder_attention"] = {
1: {
"ps4_get_scores_code": '''def get_scores(matrix, vector):
    # one score per row (state) of the matrix
    scores = np.zeros(matrix.shape[0])
    for j in range(matrix.shape[0]):
        # dot product of state j with the vector (equation 1)
        scores[j] = np.sum(matrix[j] * vector)
    return scores
''',
"ps4_scale_scores_code": '''def scale_scores(scores, n):
    # divide every score by the square root of the state size n (equation 2)
    return np.asarray(scores, dtype=float) / np.sqrt(n)
''',
"ps4_attention_weights_code": '''def get_attention_weights(scores):
    scores = np.asarray(scores, dtype=float)
    # subtract the largest score: every exponent is then <= 0
    exps = np.exp(scores - np.max(scores))
    # normalise so the weights sum to one (equation 3)
    return exps / np.sum(exps)
''',
"ps4_context_vector_code": '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    # weight j scales the whole state j (row j), then we add them up (equation 4)
    context = np.zeros(hidden_encoder_matrix.shape[1])
    for j in range(hidden_encoder_matrix.shape[0]):
        context = context + attention_weights[j] * hidden_encoder_matrix[j]
    return context
''',
"ps4_single_query_code": '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    # equation 5: project the query token and all the tokens
    q = query_token @ W_Q      # size d_k, stays 1-D
    K = tokens @ W_K           # T x d_k
    V = tokens @ W_V           # T x d_v
    # d_k is the size of one key: the number of columns of W_K
    d_k = W_K.shape[1]
    # equation 6, with the functions of sections 1 to 4
    scores = get_scores(K, q)
    scaled = scale_scores(scores, d_k)
    attention_weights = get_attention_weights(scaled)
    output = get_context_vector(attention_weights, V)
    return attention_weights, output
''',
"ps4_dimensions_code": '''# Tuples of ints (rows, columns), for example (5, 7).
# W^Q_i maps a token of size d_model = 4 to a query of size d_k = 4 / 2 = 2.
head_W_shape = (4, 2)
# each head outputs T x d_v = 3 x 2; two heads side by side give 3 x 4
concat_shape = (3, 4)
# W^O maps the concatenation back to d_model: (h * d_v) x d_model
W_O_shape = (4, 4)
''',
"ps4_split_heads_code": '''def split_heads(W, h):
    # width of one block of consecutive columns
    block_size = W.shape[1] // h
    blocks = []
    for i in range(h):
        start = i * block_size
        stop = (i + 1) * block_size
        blocks.append(W[:, start:stop])
    return blocks
''',
},
2: {
"ps4_get_scores_code": '''def get_scores(matrix, vector):
    return np.einsum("tn,n->t", matrix, vector)
''',
"ps4_scale_scores_code": '''def scale_scores(scores, n):
    return np.divide(scores, np.sqrt(n))
''',
"ps4_attention_weights_code": '''def get_attention_weights(scores):
    e = np.exp(scores - np.max(scores))
    return e / np.einsum("t->", e)
''',
"ps4_context_vector_code": '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return np.einsum("t,tn->n", attention_weights, hidden_encoder_matrix)
''',
"ps4_single_query_code": '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.einsum("d,dk->k", query_token, W_Q)
    K = np.einsum("td,dk->tk", tokens, W_K)
    V = np.einsum("td,dv->tv", tokens, W_V)
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), K.shape[1]))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output
''',
"ps4_dimensions_code": '''# Tuples of ints (rows, columns), for example (5, 7).
d_model, h, T = 4, 2, 3
head_W_shape = (d_model, d_model // h)
concat_shape = (T, h * (d_model // h))
W_O_shape = (h * (d_model // h), d_model)
''',
"ps4_split_heads_code": '''def split_heads(W, h):
    return list(np.split(W, h, axis=1))
''',
},
3: {
"ps4_get_scores_code": '''def get_scores(matrix, vector):
    return matrix @ vector
''',
"ps4_scale_scores_code": '''def scale_scores(scores, n):
    return scores / n ** 0.5
''',
"ps4_attention_weights_code": '''def get_attention_weights(scores):
    return (e := np.exp(scores - scores.max())) / e.sum()
''',
"ps4_context_vector_code": '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return attention_weights @ hidden_encoder_matrix
''',
"ps4_single_query_code": '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    K, V = tokens @ W_K, tokens @ W_V
    attention_weights = get_attention_weights(scale_scores(get_scores(K, query_token @ W_Q), W_K.shape[1]))
    return attention_weights, get_context_vector(attention_weights, V)
''',
"ps4_dimensions_code": '''# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape, concat_shape, W_O_shape = (4, 2), (3, 4), (4, 4)
''',
"ps4_split_heads_code": '''def split_heads(W, h):
    return np.hsplit(W, h)
''',
},
4: {
"ps4_get_scores_code": '''def get_scores(matrix, vector):
    matrix, vector = np.asarray(matrix, dtype=float), np.asarray(vector, dtype=float)
    assert matrix.shape[1] == vector.shape[0], (matrix.shape, vector.shape)
    return np.apply_along_axis(lambda row: row @ vector, 1, matrix)
''',
"ps4_scale_scores_code": '''def scale_scores(scores, n):
    out = np.array(scores, dtype=float)   # a copy: do not change the caller's array
    out /= np.sqrt(n)
    return out
''',
"ps4_attention_weights_code": '''def _stable_exp(z):
    z = np.asarray(z, dtype=float)
    return np.exp(z - z.max())


def get_attention_weights(scores):
    w = _stable_exp(scores)
    w /= w.sum()
    assert np.isclose(w.sum(), 1)
    return w
''',
"ps4_context_vector_code": '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    w = np.asarray(attention_weights, dtype=float)
    H = np.asarray(hidden_encoder_matrix, dtype=float)
    assert w.shape == (H.shape[0],), (w.shape, H.shape)
    return (w[:, None] * H).sum(axis=0)   # weight j scales row j
''',
"ps4_single_query_code": '''def _project(tokens, W):
    return np.asarray(tokens, dtype=float) @ W


def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = _project(query_token, W_Q)
    K = _project(tokens, W_K)
    V = _project(tokens, W_V)
    d_k = K.shape[1]
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), d_k))
    output = get_context_vector(attention_weights, V)
    assert attention_weights.ndim == 1 and output.ndim == 1
    return attention_weights, output
''',
"ps4_dimensions_code": '''# Tuples of ints (rows, columns), for example (5, 7).
# tokens are rows: x (1 x 4) @ W^Q_i (4 x 2) = query of size 2
head_W_shape = (4, 2)
concat_shape = (3, 4)   # two 3 x 2 head outputs side by side
W_O_shape = (4, 4)      # (3 x 4) @ (4 x 4) = 3 x 4, dimensions preserved
print(head_W_shape, concat_shape, W_O_shape)
''',
"ps4_split_heads_code": '''def split_heads(W, h):
    assert W.shape[1] % h == 0, "the columns must split evenly"
    width = W.shape[1] // h
    return [W[:, slice(i * width, (i + 1) * width)] for i in range(h)]
''',
},
}

# ----------------------------------------------------------------------------------- PS5
STYLES["ps5_masked_attention"] = {
1: {
"ps5_causal_mask_code": '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    mask = np.zeros((N, N), dtype=bool)
    # row m is the input, column n is the output
    for m in range(N):
        for n in range(N):
            mask[m, n] = m <= n
    return mask
''',
"ps5_masked_softmax_code": '''def masked_softmax_cols(scores, mask):
    scores = np.asarray(scores, dtype=float)
    weights = np.zeros(scores.shape)
    for n in range(scores.shape[1]):
        allowed = mask[:, n]
        # a fully masked column keeps zero weights
        if not np.any(allowed):
            continue
        # softmax over the allowed scores only, shifted by their own maximum
        allowed_scores = scores[allowed, n]
        exps = np.exp(allowed_scores - np.max(allowed_scores))
        weights[allowed, n] = exps / np.sum(exps)
    return weights
''',
"ps5_masked_attention_code": '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    # number of tokens and D_q from the arguments, not the globals
    num_tokens = X.shape[1]
    D_q = Q.shape[0]
    scores = K.T @ Q / np.sqrt(D_q)
    attentions = masked_softmax_cols(scores, causal_mask(num_tokens))
    X_prime = V @ attentions
    return X_prime, attentions
''',
"ps5_positional_encoding_code": '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    for n in range(N):                 # position n is column n
        for i in range(D // 2):
            angle = n / 10000 ** (2 * i / D)
            Pi[2 * i, n] = np.sin(angle)       # even row
            Pi[2 * i + 1, n] = np.cos(angle)   # odd row, same frequency
    return Pi
''',
"ps5_equivariance_code": '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    # one fixed encoding, with the shape of the argument
    Pi = positional_encoding(X.shape[0], X.shape[1])

    def plain(Z):
        return scaled_self_attention(Z, *params)[0]

    def causal(Z):
        return masked_self_attention(Z, *params)[0]

    def positional(Z):
        return scaled_self_attention(Z + Pi, *params)[0]

    gaps = []
    for f in (plain, causal, positional):
        difference = f(X[:, perm]) - f(X)[:, perm]
        gaps.append(np.max(np.abs(difference)))
    return np.array(gaps)
''',
},
2: {
"ps5_causal_mask_code": '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.triu(np.ones((N, N), dtype=bool))
''',
"ps5_masked_softmax_code": '''def masked_softmax_cols(scores, mask):
    s = np.where(mask, scores, -np.inf)
    top = s.max(axis=0, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)       # fully masked column: any shift will do
    e = np.where(mask, np.exp(s - top), 0.0)
    total = np.einsum("mn->n", e)[None, :]
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)
''',
"ps5_masked_attention_code": '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum("ij,jn->in", omega_q, X)
    K = beta_k + np.einsum("ij,jn->in", omega_k, X)
    V = beta_v + np.einsum("ij,jn->in", omega_v, X)
    S = np.einsum("dm,dn->mn", K, Q) / np.sqrt(Q.shape[0])
    attentions = masked_softmax_cols(S, causal_mask(X.shape[1]))
    X_prime = np.einsum("dm,mn->dn", V, attentions)
    return X_prime, attentions
''',
"ps5_positional_encoding_code": '''def positional_encoding(D, N):
    two_i = np.arange(D) - np.arange(D) % 2              # 0, 0, 2, 2, 4, 4, ...
    angles = np.einsum("n,d->dn", np.arange(N), 1.0 / 10000 ** (two_i / D))
    return np.where((np.arange(D) % 2 == 0)[:, None], np.sin(angles), np.cos(angles))
''',
"ps5_equivariance_code": '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    p = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(*X.shape)
    maps = [lambda Z: scaled_self_attention(Z, *p)[0],
            lambda Z: masked_self_attention(Z, *p)[0],
            lambda Z: scaled_self_attention(Z + Pi, *p)[0]]
    return np.array([np.abs(f(X[:, perm]) - f(X)[:, perm]).max() for f in maps])
''',
},
3: {
"ps5_causal_mask_code": '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.arange(N)[:, None] <= np.arange(N)[None, :]
''',
"ps5_masked_softmax_code": '''def masked_softmax_cols(scores, mask):
    top = np.max(scores, axis=0, where=mask, initial=-np.inf)
    e = np.exp(scores - np.where(np.isfinite(top), top, 0), where=mask, out=np.zeros(scores.shape))
    s = e.sum(0)
    return e / np.where(s > 0, s, 1)
''',
"ps5_masked_attention_code": '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + W @ X for W, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    attentions = masked_softmax_cols(K.T @ Q / len(Q) ** 0.5, causal_mask(X.shape[1]))
    return V @ attentions, attentions
''',
"ps5_positional_encoding_code": '''def positional_encoding(D, N):
    r, n = np.arange(D)[:, None], np.arange(N)[None, :]
    a = n / 10000 ** ((r - r % 2) / D)
    return np.where(r % 2, np.cos(a), np.sin(a))
''',
"ps5_equivariance_code": '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    p, Pi = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k), positional_encoding(*X.shape)
    fs = (lambda Z: scaled_self_attention(Z, *p)[0], lambda Z: masked_self_attention(Z, *p)[0],
          lambda Z: scaled_self_attention(Z + Pi, *p)[0])
    return np.array([np.max(np.abs(f(X[:, perm]) - f(X)[:, perm])) for f in fs])
''',
},
4: {
"ps5_causal_mask_code": '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    m, n = np.indices((N, N))
    mask = m <= n
    assert mask.dtype == bool and mask.shape == (N, N)
    return mask
''',
"ps5_masked_softmax_code": '''def _allowed_max(scores, mask):
    """Per column, the largest ALLOWED score (0 for a fully masked column), as a 1 x N row."""
    masked = np.where(mask, scores, -np.inf)
    top = masked.max(axis=0, keepdims=True)
    top[~np.isfinite(top)] = 0.0       # in place: fully masked columns
    return top


def masked_softmax_cols(scores, mask):
    scores = np.asarray(scores, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    e = np.exp(np.where(mask, scores - _allowed_max(scores, mask), -np.inf))
    totals = e.sum(axis=0, keepdims=True)
    totals[totals == 0] = 1.0          # fully masked column: 0 / 1 = 0
    e /= totals
    return e
''',
"ps5_masked_attention_code": '''def _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    return beta_q + omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X


def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    S = K.T @ Q
    S /= np.sqrt(Q.shape[0])
    attentions = masked_softmax_cols(S, causal_mask(X.shape[1]))
    assert np.allclose(np.triu(attentions), attentions)
    X_prime = V @ attentions
    return X_prime, attentions
''',
"ps5_positional_encoding_code": '''def _pe_column(n, D):
    """The encoding of position n, a vector of size D."""
    col = np.empty(D)
    freqs = 10000.0 ** (-np.arange(0, D, 2) / D)
    col[0::2] = np.sin(n * freqs)
    col[1::2] = np.cos(n * freqs)
    return col


def positional_encoding(D, N):
    Pi = np.stack([_pe_column(n, D) for n in range(N)], axis=1)
    assert Pi.shape == (D, N)
    return Pi
''',
"ps5_equivariance_code": '''def _gap(f, X, perm):
    return np.abs(f(X[:, perm]) - f(X)[:, perm]).max()


def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    args = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(X.shape[0], X.shape[1])
    gaps = np.array([_gap(lambda Z: scaled_self_attention(Z, *args)[0], X, perm),
                     _gap(lambda Z: masked_self_attention(Z, *args)[0], X, perm),
                     _gap(lambda Z: scaled_self_attention(Z + Pi, *args)[0], X, perm)])
    if gaps[0] > 1e-8:
        print("warning: plain attention gap", gaps[0])
    return gaps
''',
},
}

# ----------------------------------------------------------------------------------- written answers
ANSWERS = {
"ps1_positional_answer": [
"""No. The positional encoding is added to the positions, not to the tokens, so after permuting the tokens each token gets a different column of $\\mathbf{\\Pi}$ added to it: $\\mathbf{X}\\mathbf{P} + \\mathbf{\\Pi} \\neq (\\mathbf{X} + \\mathbf{\\Pi})\\mathbf{P}$. The inputs to the attention are therefore different vectors, not just the same vectors in another order, so the outputs are not simply permuted. `check_equivariance(lambda Z: attention(Z + Pi), X, [1, 2, 0])` returns `False`.""",
"""No, it is not equivariant any more. Sa itself is still equivariant, but $\\mathbf{X}\\mathbf{P} + \\mathbf{\\Pi}$ is not a permutation of $\\mathbf{X} + \\mathbf{\\Pi}$ because $\\mathbf{\\Pi}$ stays in place while the tokens move, so each token is now paired with another position vector. That changes the queries, keys and values, and I checked it with `check_equivariance` (it gives False).""",
"""No. Equivariance would need $\\mathbf{X}\\mathbf{P} + \\mathbf{\\Pi} = (\\mathbf{X} + \\mathbf{\\Pi})\\mathbf{P}$, i.e. $\\mathbf{\\Pi}\\mathbf{P} = \\mathbf{\\Pi}$, which is false when the columns of $\\mathbf{\\Pi}$ are distinct. So moving a token to another position changes what is added to it and the output changes, which is exactly the point of a positional encoding: the layer can now tell the order of the tokens.""",
"""No: the same token at a different position gets a different encoding added, so the result depends on where the token is, not only on which tokens there are. Only the tokens are permuted, $\\mathbf{\\Pi}$ is not, so the outputs are not the permuted outputs. With `Pi = np.arange(X.size).reshape(X.shape) / X.size` the check returned False.""",
"""No. Adding $\\mathbf{\\Pi}$ breaks the symmetry: $\\text{Sa}[\\mathbf{X}\\mathbf{P} + \\mathbf{\\Pi}]$ uses token $\\mathbf{x}_{perm[i]}$ plus position $i$'s vector, while $\\text{Sa}[\\mathbf{X} + \\mathbf{\\Pi}]\\mathbf{P}$ used that token plus its old position's vector. Since the columns of $\\mathbf{\\Pi}$ differ, these are different inputs and the outputs differ (except in the special case where $\\mathbf{\\Pi}$ has equal columns).""",
],
"ps4_heads_answer": [
"""Several heads let the layer compute several different attention patterns at the same time: in the heat maps head 1 leaned towards "translation" and head 2 towards "is". Each head has its own projections, so it can look for a different relation between tokens (for example syntax in one head and meaning in another). Because each head works in a space of size $d_{model}/h$, the total cost is about the same as one full-size head. The outputs are concatenated and mixed by $W^O$, so the next layer gets information from all of them. One head would have to average all these relations into a single set of weights.""",
"""With a single head each query gets only one softmax distribution over the tokens, so it can focus on one thing only. With $h$ heads every token gets $h$ distributions, each computed in a different learned subspace ($d_k = d_{model}/h$), so different heads can attend to different positions. Splitting $W^Q$, $W^K$, $W^V$ into column blocks shows that this costs no extra parameters compared with one head of size $d_{model}$. $W^O$ then combines the heads. This gives richer representations than a single head.""",
"""Multiple heads give the model several "views" of the sentence: the two heads above gave different weights for the same query. Each head projects into a smaller space, so the heads together have roughly the same number of parameters and computation as one big head. Different heads can specialise on different relations, and the concatenation with $W^O$ lets every output dimension use all of them. A single head averages everything into one attention pattern, which loses information.""",
"""The heads can attend to different tokens for the same query, because each has its own $W^Q_i, W^K_i, W^V_i$. This lets the model capture several kinds of dependencies (e.g. neighbouring words and long-range links) in one layer. Since $d_k = d_{model}/h$, the multi-head layer is not more expensive than a single head with $d_k = d_{model}$. Also the smaller dot products per head are cheaper, and $W^O$ mixes the results back to $d_{model}$.""",
"""Using several heads means several attention distributions per token instead of one, each learned separately, so the model can combine information from different positions and different representation subspaces. In our example the heads preferred different tokens. The split of one $d_{model} \\times d_{model}$ matrix into blocks shows the parameter count stays the same. A disadvantage of a single head is that the softmax forces one weighted average, so conflicting relations cannot all be represented.""",
],
"ps5_decoder_answer": [
"""(a) Without the mask output $n$ can see token $n+1$, so it would just learn to copy the next token from its input, which gives a perfect training loss but learns nothing about language. At generation time the next token does not exist yet, so the copying strategy has nothing to copy and the model is useless.

(b) No. Output $n$ is a weighted sum over tokens $0..n$ whose weights depend only on the keys and the query, so permuting tokens $0..n-1$ among themselves permutes the terms of the sum and output $n$ stays the same: it depends on which tokens came before, not on their order.""",
"""(a) It would learn to look at input $n+1$ and copy it (cheating), because that token is visible when there is no mask. When generating, the future tokens are not available, so what it learned does not work.

(b) Output $n$ does not depend on the order of the earlier tokens: attention is a sum over the allowed inputs $0..n$, and a sum does not change when its terms are reordered. Only the set of earlier tokens matters (without positional encodings).""",
"""(a) The model would learn to attend to the following token and output it, a trivial identity task. At inference time we generate one token at a time and the following token is unknown, so the model has never learned to actually predict.

(b) No, it does not depend on their order. If tokens $0, \\ldots, n-1$ are permuted, the set of (key, value) pairs that output $n$ sees is the same, its query is the same, so the softmax weights are just permuted along with the values and the weighted sum is unchanged.""",
"""(a) Without a causal mask the target for position $n$ is part of the input, so the decoder learns to read the answer off the input instead of predicting it; its training loss would be close to zero. When generating text the later tokens are not there yet, so the model cannot do what it was trained to do.

(b) Output $n$ only depends on the set of earlier tokens. Permuting tokens $0..n-1$ leaves output $n$ unchanged because attention treats the allowed inputs as a set (it is a weighted sum); to know the order you need positional encodings.""",
"""(a) It would learn to copy: output $n$ attends to input $n+1$, which is exactly the word it must predict. This is useless for generation because at test time token $n+1$ has not been produced yet.

(b) No: as in problem set 1, attention over tokens $0..n$ is invariant to reordering those tokens, because output $n = \\sum_{m \\le n} a_{mn} v_m$ and the weights move together with the values. So one causal layer knows which tokens precede it but not in which order (unless we add $\\Pi$).""",
],
}

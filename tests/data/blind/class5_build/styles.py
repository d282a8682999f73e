"""Four correct solution styles, keyed by nbgrader grade_id of the solution cells.

A: explicit loops, verbose comments
B: einsum
C: vectorised one-liners, list comprehensions, np.hsplit
D: own helper functions, defensive asserts, a few debug prints
"""

A = {}
B = {}
C = {}
D = {}

# ---------------------------------------------------------------- ps1
A["ps1_softmax_code"] = '''def softmax(items_in):
    # Turn the list into a float array so that we can do maths on it
    z = np.asarray(items_in, dtype=float).ravel()
    # Subtract the largest score so that every exponent is <= 0 (no overflow)
    z = z - np.max(z)
    exp_z = np.exp(z)
    # Normalise so the weights sum to one
    return exp_z / np.sum(exp_z)
'''
A["ps1_loop_code"] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # Step 1: compute the query, key and value of every input (eqs 12.2 and 12.4)
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

    # Step 2: for every output n, weight all values by the attention (eq 12.3)
    all_x_prime = []
    for n in range(len(all_x)):
        # dot product of every key with query n
        all_km_qn = []
        for m in range(len(all_x)):
            all_km_qn.append((all_keys[m].T @ all_queries[n]).item())
        attention = softmax(all_km_qn)
        # weighted sum of the values; keep it a column
        x_prime = np.zeros_like(all_values[0])
        for m in range(len(all_x)):
            x_prime = x_prime + attention[m] * all_values[m]
        all_x_prime.append(x_prime)
    return all_x_prime
'''
A["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    # Work column by column: column n holds the scores for output n
    data_in = np.asarray(data_in, dtype=float)
    softmax_out = np.zeros_like(data_in)
    for n in range(data_in.shape[1]):
        column = data_in[:, n]
        # subtract this column's own maximum for stability
        exp_col = np.exp(column - np.max(column))
        softmax_out[:, n] = exp_col / np.sum(exp_col)
    return softmax_out
'''
A["ps1_self_attention_code"] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # Queries, keys and values for all inputs at once (eq 12.6); the bias broadcasts over columns
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    # Entry (m, n) is k_m^T q_n; the softmax runs down each column
    attentions = softmax_cols(K.T @ Q)
    # Weighted sums of the values (eq 12.8)
    X_prime = V @ attentions
    return X_prime, attentions
'''
A["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    # D_q is the size of one query = number of rows of Q
    D_q = Q.shape[0]
    attentions = softmax_cols((K.T @ Q) / np.sqrt(D_q))
    X_prime = V @ attentions
    return X_prime, attentions
'''
A["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    # permute first and then apply f, versus apply f and then permute
    permuted_then_f = f(X[:, perm])
    f_then_permuted = f(X)[:, perm]
    # compare entry by entry with the default tolerance
    return bool(np.allclose(permuted_then_f, f_then_permuted))
'''

B["ps1_softmax_code"] = '''def softmax(items_in):
    z = np.array(items_in, dtype=np.float64)
    e = np.exp(z - z.max())
    return e / np.einsum('i->', e)
'''
B["ps1_loop_code"] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    qs = [beta_q + np.einsum('ij,jk->ik', omega_q, x) for x in all_x]
    ks = [beta_k + np.einsum('ij,jk->ik', omega_k, x) for x in all_x]
    vs = [beta_v + np.einsum('ij,jk->ik', omega_v, x) for x in all_x]
    outputs = []
    for q_n in qs:
        dots = [np.einsum('ik,ik->', k_m, q_n).item() for k_m in ks]
        a = softmax(dots)
        out = sum(a[m] * vs[m] for m in range(len(vs)))
        outputs.append(out.reshape(-1, 1))
    return outputs
'''
B["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    shifted = data_in - np.max(data_in, axis=0, keepdims=True)
    e = np.exp(shifted)
    return e / np.einsum('mn->n', e)[None, :]
'''
B["ps1_self_attention_code"] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum('ed,dn->en', omega_q, X) + beta_q
    K = np.einsum('ed,dn->en', omega_k, X) + beta_k
    V = np.einsum('ed,dn->en', omega_v, X) + beta_v
    attentions = softmax_cols(np.einsum('em,en->mn', K, Q))
    X_prime = np.einsum('dm,mn->dn', V, attentions)
    return X_prime, attentions
'''
B["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum('ed,dn->en', omega_q, X) + beta_q
    K = np.einsum('ed,dn->en', omega_k, X) + beta_k
    V = np.einsum('ed,dn->en', omega_v, X) + beta_v
    d_q = Q.shape[0]
    attentions = softmax_cols(np.einsum('em,en->mn', K, Q) / np.sqrt(d_q))
    X_prime = np.einsum('dm,mn->dn', V, attentions)
    return X_prime, attentions
'''
B["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    lhs = f(X[:, perm])
    rhs = f(X)[:, perm]
    return np.allclose(lhs, rhs, rtol=1e-5, atol=1e-8)
'''

C["ps1_softmax_code"] = '''def softmax(items_in):
    e = np.exp(np.asarray(items_in, float) - np.max(items_in))
    return e / e.sum()
'''
C["ps1_loop_code"] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    q = [beta_q + omega_q @ x for x in all_x]
    k = [beta_k + omega_k @ x for x in all_x]
    v = [beta_v + omega_v @ x for x in all_x]
    out = []
    for n in range(len(all_x)):
        a = softmax([(k[m].T @ q[n]).item() for m in range(len(all_x))])
        out.append(sum(a[m] * v[m] for m in range(len(all_x))))
    return out
'''
C["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    e = np.exp(data_in - data_in.max(axis=0))
    return e / e.sum(axis=0)
'''
C["ps1_self_attention_code"] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + w @ X for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    attentions = softmax_cols(K.T @ Q)
    X_prime = V @ attentions
    return X_prime, attentions
'''
C["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + w @ X for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    attentions = softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
    X_prime = V @ attentions
    return X_prime, attentions
'''
C["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    return bool(np.allclose(f(X[:, perm]), f(X)[:, perm]))
'''

D["ps1_softmax_code"] = '''def _stable_exp(z, axis=None):
    """exp(z - max) along an axis, so nothing overflows."""
    z = np.asarray(z, dtype=float)
    return np.exp(z - np.max(z, axis=axis, keepdims=True))


def softmax(items_in):
    e = _stable_exp(np.ravel(items_in))
    weights = e / e.sum()
    assert weights.ndim == 1
    return weights
'''
D["ps1_loop_code"] = '''def _linear(omega, beta, x):
    """beta + omega x for one column x."""
    assert x.ndim == 2 and x.shape[1] == 1, "x should be a column"
    return beta + omega @ x


def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    N = len(all_x)
    queries = [_linear(omega_q, beta_q, x) for x in all_x]
    keys = [_linear(omega_k, beta_k, x) for x in all_x]
    values = [_linear(omega_v, beta_v, x) for x in all_x]
    result = []
    for n in range(N):
        scores = np.zeros(N)
        for m in range(N):
            scores[m] = (keys[m].T @ queries[n]).item()
        a = softmax(scores)
        x_prime = np.zeros((values[0].shape[0], 1))
        for m in range(N):
            x_prime += a[m] * values[m]
        assert x_prime.shape == (values[0].shape[0], 1)
        result.append(x_prime)
    return result
'''
D["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    data_in = np.asarray(data_in, dtype=float)
    assert data_in.ndim == 2
    e = _stable_exp(data_in, axis=0)
    return e / e.sum(axis=0, keepdims=True)
'''
D["ps1_self_attention_code"] = '''def _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    assert Q.shape == K.shape, "queries and keys must have the same size"
    return Q, K, V


def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    attentions = softmax_cols(K.T @ Q)
    X_prime = V @ attentions
    return X_prime, attentions
'''
D["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    D_q = Q.shape[0]
    print("debug: scaling by sqrt of D_q =", D_q)
    attentions = softmax_cols(K.T @ Q / np.sqrt(D_q))
    X_prime = V @ attentions
    assert X_prime.shape == (V.shape[0], X.shape[1])
    return X_prime, attentions
'''
D["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    perm = list(perm)
    assert sorted(perm) == list(range(X.shape[1])), "perm must be a permutation of the columns"
    a = f(X[:, perm])
    b = f(X)[:, perm]
    return bool(np.allclose(a, b))
'''

# ---------------------------------------------------------------- ps2
A["ps2_single_head_code"] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # Queries, keys and values of this head: each is D/H x N
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    # D_q = size of one query of THIS head (rows of Q), not D
    D_q = Q.shape[0]
    # Scaled scores and the column softmax that was given to us
    attentions = softmax_cols(K.T @ Q / np.sqrt(D_q))
    return V @ attentions
'''
A["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    # Run the two heads separately
    head_1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head_2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    # Stack them vertically (head 1 on top) and mix with omega_c (eq 12.11)
    stacked = np.vstack((head_1, head_2))
    X_prime = omega_c @ stacked
    return X_prime
'''
A["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    # Compute every head in list order, reading the parameters by name
    head_outputs = []
    for head in heads:
        out = single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                    head["beta_v"], head["beta_q"], head["beta_k"])
        head_outputs.append(out)
    # Stack vertically and mix
    X_prime = omega_c @ np.vstack(head_outputs)
    return X_prime
'''
B["ps2_single_head_code"] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum('hd,dn->hn', omega_q, X) + beta_q
    K = np.einsum('hd,dn->hn', omega_k, X) + beta_k
    V = np.einsum('hd,dn->hn', omega_v, X) + beta_v
    scores = np.einsum('hm,hn->mn', K, Q) / np.sqrt(Q.shape[0])
    return np.einsum('hm,mn->hn', V, softmax_cols(scores))
'''
B["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    h1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    h2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    X_prime = np.einsum('ij,jn->in', omega_c, np.concatenate([h1, h2], axis=0))
    return X_prime
'''
B["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    outs = [single_head_attention(X, h["omega_v"], h["omega_q"], h["omega_k"],
                                  h["beta_v"], h["beta_q"], h["beta_k"]) for h in heads]
    X_prime = np.einsum('ij,jn->in', omega_c, np.concatenate(outs, axis=0))
    return X_prime
'''
C["ps2_single_head_code"] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + w @ X for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    return V @ softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
'''
C["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    X_prime = omega_c @ np.vstack([
        single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
        single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)])
    return X_prime
'''
C["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    keys = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")
    X_prime = omega_c @ np.vstack([single_head_attention(X, *[h[k] for k in keys]) for h in heads])
    return X_prime
'''
D["ps2_single_head_code"] = '''def _project(omega, beta, X):
    assert beta.shape == (omega.shape[0], 1), "bias should be a column"
    return beta + omega @ X


def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = _project(omega_q, beta_q, X)
    K = _project(omega_k, beta_k, X)
    V = _project(omega_v, beta_v, X)
    assert Q.shape == K.shape
    d_q = Q.shape[0]
    A = softmax_cols((K.T @ Q) / np.sqrt(d_q))
    assert np.allclose(A.sum(axis=0), 1)
    return V @ A
'''
D["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    head1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    stacked = np.vstack([head1, head2])
    print("debug: stacked heads shape", stacked.shape)
    X_prime = omega_c @ stacked
    return X_prime
'''
D["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    assert len(heads) > 0
    pieces = []
    for i, head in enumerate(heads):
        piece = single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                      head["beta_v"], head["beta_q"], head["beta_k"])
        pieces.append(piece)
    stacked = np.vstack(pieces)
    assert stacked.shape[0] == omega_c.shape[1]
    X_prime = omega_c @ stacked
    return X_prime
'''

# ---------------------------------------------------------------- ps3
A["ps3_softmax_code"] = '''def softmax(X):
    # Make sure we have floats
    X = np.asarray(X, dtype=float)
    # Subtract the maximum of each row (kept as a column so it broadcasts)
    row_max = np.max(X, axis=1, keepdims=True)
    exp_x = np.exp(X - row_max)
    # Divide every row by its own sum
    return exp_x / np.sum(exp_x, axis=1, keepdims=True)
'''
A["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        # Remember the size of the layer
        self.dims = dims
        # Four separate weight matrices, mean 0 and standard deviation 1
        self.W_q = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_k = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_v = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_o = np.random.normal(0.0, 1.0, (dims, dims))

    def forward(self, x):
        # Queries, keys and values: x on the left (equation 2)
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        # Scores (equation 3): divide by sqrt(dims)
        scores = Q @ K.T / np.sqrt(self.dims)
        # Attention weights, row by row (equation 4)
        attention = softmax(scores)
        # Self-attention and output projection (equation 5)
        self_attention = attention @ V
        output = self_attention @ self.W_o
        return output
'''
B["ps3_softmax_code"] = '''def softmax(X):
    e = np.exp(X - X.max(axis=-1, keepdims=True))
    return e / np.einsum('ij->i', e)[:, None]
'''
B["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.randn(dims, dims)
        self.W_k = np.random.randn(dims, dims)
        self.W_v = np.random.randn(dims, dims)
        self.W_o = np.random.randn(dims, dims)

    def forward(self, x):
        Q = np.einsum('nd,de->ne', x, self.W_q)
        K = np.einsum('nd,de->ne', x, self.W_k)
        V = np.einsum('nd,de->ne', x, self.W_v)
        S = np.einsum('id,jd->ij', Q, K) / np.sqrt(self.dims)
        A = softmax(S)
        return np.einsum('ij,jd,de->ie', A, V, self.W_o)
'''
C["ps3_softmax_code"] = '''def softmax(X):
    e = np.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
'''
C["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = np.random.normal(0, 1, size=(4, dims, dims))

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T / np.sqrt(self.dims)) @ V @ self.W_o
'''
D["ps3_softmax_code"] = '''def softmax(X):
    X = np.asarray(X, dtype=float)
    assert X.ndim == 2, "softmax expects a 2-D array"
    shifted = X - X.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    out = e / e.sum(axis=1, keepdims=True)
    assert np.allclose(out.sum(axis=1), 1)
    return out
'''
D["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        assert int(dims) == dims and dims > 0
        self.dims = int(dims)
        self.W_q = self._draw()
        self.W_k = self._draw()
        self.W_v = self._draw()
        self.W_o = self._draw()

    def _draw(self):
        return np.random.normal(loc=0.0, scale=1.0, size=(self.dims, self.dims))

    def forward(self, x):
        x = np.asarray(x, dtype=float)
        assert x.ndim == 2 and x.shape[1] == self.dims, f"x should be (n, {self.dims})"
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        S = (Q @ K.T) / np.sqrt(self.dims)
        A = softmax(S)
        out = (A @ V) @ self.W_o
        assert out.shape == x.shape
        return out
'''

# ---------------------------------------------------------------- ps4
A["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    # One score per row: the dot product of that row with the vector
    scores = np.zeros(matrix.shape[0])
    for j in range(matrix.shape[0]):
        scores[j] = np.dot(matrix[j], vector)
    return scores
'''
A["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    # Divide by the square root of the size of one state
    return np.asarray(scores, dtype=float) / np.sqrt(n)
'''
A["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    # Stable softmax: subtract the largest score first
    scores = np.asarray(scores, dtype=float)
    exp_scores = np.exp(scores - np.max(scores))
    return exp_scores / np.sum(exp_scores)
'''
A["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    # Weight j scales the whole row j (one encoder state)
    context = np.zeros(hidden_encoder_matrix.shape[1])
    for j in range(hidden_encoder_matrix.shape[0]):
        context = context + attention_weights[j] * hidden_encoder_matrix[j]
    return context
'''
A["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    # Project the query token, and all tokens to keys and values (eq 5)
    q = query_token @ W_Q          # shape (d_k,)
    K = tokens @ W_K               # shape (T, d_k)
    V = tokens @ W_V               # shape (T, d_v)
    d_k = W_K.shape[1]             # size of one key
    # Equations 1 to 4 again with keys and values
    scores = get_scores(K, q)
    scaled = scale_scores(scores, d_k)
    attention_weights = get_attention_weights(scaled)
    output = get_context_vector(attention_weights, V)
    return attention_weights, output
'''
A["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
# W^Q_i maps a token of size d_model = 4 to a query of size d_k = 4 / 2 = 2
head_W_shape = (4, 2)
# each head outputs T x d_v = 3 x 2, two heads side by side
concat_shape = (3, 4)
# W^O maps the concatenation (size 4) back to d_model = 4
W_O_shape = (4, 4)
'''
A["ps4_split_heads_code"] = '''def split_heads(W, h):
    # Number of columns in each block
    block = W.shape[1] // h
    blocks = []
    for i in range(h):
        blocks.append(W[:, i * block:(i + 1) * block])
    return blocks
'''
B["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    return np.einsum('tn,n->t', matrix, vector)
'''
B["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    return scores / n ** 0.5
'''
B["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    e = np.exp(scores - scores.max())
    return e / np.einsum('t->', e)
'''
B["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return np.einsum('t,tn->n', attention_weights, hidden_encoder_matrix)
'''
B["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.einsum('d,dk->k', query_token, W_Q)
    K = np.einsum('td,dk->tk', tokens, W_K)
    V = np.einsum('td,dv->tv', tokens, W_V)
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), K.shape[1]))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output
'''
B["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
d_model, h, T = 4, 2, 3
head_W_shape = (d_model, d_model // h)
concat_shape = (T, h * (d_model // h))
W_O_shape = (d_model, d_model)
'''
B["ps4_split_heads_code"] = '''def split_heads(W, h):
    return list(np.split(W, h, axis=1))
'''
C["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    return matrix @ vector
'''
C["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    return np.divide(scores, np.sqrt(n))
'''
C["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    e = np.exp(np.subtract(scores, np.max(scores)))
    return e / e.sum()
'''
C["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return attention_weights @ hidden_encoder_matrix
'''
C["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    K, V = tokens @ W_K, tokens @ W_V
    attention_weights = get_attention_weights(scale_scores(get_scores(K, query_token @ W_Q), W_K.shape[1]))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output
'''
C["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape, concat_shape, W_O_shape = (4, 2), (3, 4), (4, 4)
'''
C["ps4_split_heads_code"] = '''def split_heads(W, h):
    return np.hsplit(W, h)
'''
D["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    matrix = np.asarray(matrix, dtype=float)
    vector = np.asarray(vector, dtype=float).ravel()
    assert matrix.shape[1] == vector.shape[0], "state sizes differ"
    return matrix @ vector
'''
D["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    assert n > 0
    return np.asarray(scores, dtype=float) / np.sqrt(float(n))
'''
D["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    scores = np.asarray(scores, dtype=float).ravel()
    e = np.exp(scores - scores.max())
    w = e / e.sum()
    assert np.isclose(w.sum(), 1.0)
    return w
'''
D["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    w = np.asarray(attention_weights, dtype=float).ravel()
    H = np.asarray(hidden_encoder_matrix, dtype=float)
    assert w.shape[0] == H.shape[0], "one weight per state (row)"
    return (w[:, None] * H).sum(axis=0)
'''
D["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.asarray(query_token, dtype=float).ravel() @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    d_k = W_K.shape[1]
    assert q.shape == (d_k,)
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), d_k))
    output = get_context_vector(attention_weights, V)
    print("debug:", attention_weights.shape, output.shape)
    return attention_weights, output
'''
D["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
# X is T x d_model = 3 x 4; X W^Q_i must be T x d_k = 3 x 2, so W^Q_i is 4 x 2.
head_W_shape = (4, 2)
# two 3 x 2 head outputs joined along the columns
concat_shape = (3, 4)
# (3 x 4) W^O = 3 x 4, so W^O is 4 x 4
W_O_shape = (4, 4)
'''
D["ps4_split_heads_code"] = '''def split_heads(W, h):
    W = np.asarray(W)
    assert W.shape[1] % h == 0, "columns must be a multiple of h"
    width = W.shape[1] // h
    return [W[:, start:start + width] for start in range(0, W.shape[1], width)]
'''

# ---------------------------------------------------------------- ps5
A["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    mask = np.zeros((N, N), dtype=bool)
    # output n (column) may look at inputs m = 0, ..., n (rows)
    for m in range(N):
        for n in range(N):
            if m <= n:
                mask[m, n] = True
    return mask
'''
A["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    scores = np.asarray(scores, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    weights = np.zeros_like(scores)
    # one column (one output) at a time
    for n in range(scores.shape[1]):
        allowed = mask[:, n]
        if not np.any(allowed):
            # fully masked column: zero weights
            continue
        # maximum over the allowed scores only
        col_max = np.max(scores[allowed, n])
        e = np.exp(scores[allowed, n] - col_max)
        weights[allowed, n] = e / np.sum(e)
    return weights
'''
A["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # queries, keys and values as in problem set 1
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    # number of tokens and size of a query come from the data
    num_tokens = X.shape[1]
    D_q = Q.shape[0]
    scores = K.T @ Q / np.sqrt(D_q)
    attentions = masked_softmax_cols(scores, causal_mask(num_tokens))
    X_prime = V @ attentions
    return X_prime, attentions
'''
A["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    for r in range(D):
        # rows 2i and 2i+1 share one frequency
        two_i = r - (r % 2)
        for n in range(N):
            angle = n / (10000 ** (two_i / D))
            if r % 2 == 0:
                Pi[r, n] = np.sin(angle)
            else:
                Pi[r, n] = np.cos(angle)
    return Pi
'''
A["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    # 1. plain scaled attention
    plain = lambda Z: scaled_self_attention(Z, *params)[0]
    # 2. causal attention
    causal = lambda Z: masked_self_attention(Z, *params)[0]
    # 3. attention on X + Pi, with Pi fixed to the positions (shape from X)
    Pi = positional_encoding(X.shape[0], X.shape[1])
    positional = lambda Z: scaled_self_attention(Z + Pi, *params)[0]
    gaps = []
    for f in (plain, causal, positional):
        gap = np.max(np.abs(f(X[:, perm]) - f(X)[:, perm]))
        gaps.append(gap)
    return np.array(gaps)
'''
B["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    m = np.arange(N)
    return np.einsum('m,n->mn', m, np.ones(N, dtype=int)) <= np.arange(N)[None, :]
'''
B["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    s = np.where(mask, scores, -np.inf)
    col_max = s.max(axis=0, keepdims=True)
    col_max = np.where(np.isfinite(col_max), col_max, 0.0)
    e = np.where(mask, np.exp(s - col_max), 0.0)
    denom = np.einsum('mn->n', e)[None, :]
    return np.divide(e, denom, out=np.zeros_like(e), where=denom > 0)
'''
B["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum('ed,dn->en', omega_q, X) + beta_q
    K = np.einsum('ed,dn->en', omega_k, X) + beta_k
    V = np.einsum('ed,dn->en', omega_v, X) + beta_v
    scores = np.einsum('em,en->mn', K, Q) / np.sqrt(Q.shape[0])
    attentions = masked_softmax_cols(scores, causal_mask(X.shape[1]))
    X_prime = np.einsum('dm,mn->dn', V, attentions)
    return X_prime, attentions
'''
B["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    rows = np.arange(D)
    freq = 10000.0 ** (-(rows - rows % 2) / D)
    angles = np.einsum('r,n->rn', freq, np.arange(N, dtype=float))
    return np.where((rows % 2 == 0)[:, None], np.sin(angles), np.cos(angles))
'''
B["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    p = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(*X.shape)
    fs = [lambda Z: scaled_self_attention(Z, *p)[0],
          lambda Z: masked_self_attention(Z, *p)[0],
          lambda Z: scaled_self_attention(Z + Pi, *p)[0]]
    return np.array([np.abs(f(X[:, perm]) - f(X)[:, perm]).max() for f in fs])
'''
C["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.triu(np.ones((N, N), dtype=bool))
'''
C["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    m = np.max(np.where(mask, scores, -np.inf), axis=0, keepdims=True)
    e = np.exp(np.where(mask, scores - np.where(np.isfinite(m), m, 0), -np.inf))
    s = e.sum(axis=0, keepdims=True)
    return e / np.where(s > 0, s, 1)
'''
C["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + w @ X for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    attentions = masked_softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]), causal_mask(X.shape[1]))
    X_prime = V @ attentions
    return X_prime, attentions
'''
C["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    ang = np.arange(N)[None, :] / 10000 ** ((np.arange(D)[:, None] // 2 * 2) / D)
    return np.where(np.arange(D)[:, None] % 2 == 0, np.sin(ang), np.cos(ang))
'''
C["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    p = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(X.shape[0], X.shape[1])
    gap = lambda f: np.max(np.abs(f(X[:, perm]) - f(X)[:, perm]))
    return np.array([gap(lambda Z: scaled_self_attention(Z, *p)[0]),
                     gap(lambda Z: masked_self_attention(Z, *p)[0]),
                     gap(lambda Z: scaled_self_attention(Z + Pi, *p)[0])])
'''
D["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    rows = np.arange(N)[:, None]   # input m
    cols = np.arange(N)[None, :]   # output n
    mask = rows <= cols
    assert mask.dtype == bool and mask.shape == (N, N)
    return mask
'''
D["ps5_masked_softmax_code"] = '''def _column_max_allowed(scores, mask):
    """Max of the allowed scores of each column; 0 for a fully masked column."""
    masked = np.where(mask, scores, -np.inf)
    col_max = masked.max(axis=0, keepdims=True)
    return np.where(np.isneginf(col_max), 0.0, col_max)


def masked_softmax_cols(scores, mask):
    scores = np.asarray(scores, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    assert scores.shape == mask.shape
    shifted = np.where(mask, scores - _column_max_allowed(scores, mask), -np.inf)
    e = np.exp(shifted)
    totals = e.sum(axis=0, keepdims=True)
    weights = np.zeros_like(e)
    ok = totals[0] > 0
    weights[:, ok] = e[:, ok] / totals[:, ok]
    return weights
'''
D["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    n_tokens = X.shape[1]
    d_q = Q.shape[0]
    attentions = masked_softmax_cols(K.T @ Q / np.sqrt(d_q), causal_mask(n_tokens))
    assert attentions.shape == (n_tokens, n_tokens)
    X_prime = V @ attentions
    return X_prime, attentions
'''
D["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    assert D % 2 == 0, "D must be even"
    positions = np.arange(N, dtype=float)
    Pi = np.empty((D, N))
    for i in range(D // 2):
        freq = 1.0 / 10000 ** (2 * i / D)
        Pi[2 * i] = np.sin(positions * freq)
        Pi[2 * i + 1] = np.cos(positions * freq)
    return Pi
'''
D["ps5_equivariance_code"] = '''def _gap(f, X, perm):
    return np.max(np.abs(f(X[:, perm]) - f(X)[:, perm]))


def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    D_x, N_x = X.shape
    Pi = positional_encoding(D_x, N_x)
    gaps = np.array([
        _gap(lambda Z: scaled_self_attention(Z, *params)[0], X, perm),
        _gap(lambda Z: masked_self_attention(Z, *params)[0], X, perm),
        _gap(lambda Z: scaled_self_attention(Z + Pi, *params)[0], X, perm),
    ])
    print("debug gaps:", gaps)
    return gaps
'''

STYLES = {"A": A, "B": B, "C": C, "D": D}

# ---------------------------------------------------------------- written answers
ANSWERS = {
    "ps1_positional_answer": [
        "No. With a fixed $\\Pi$ the layer computes $\\text{Sa}[\\mathbf{X}\\mathbf{P} + \\boldsymbol\\Pi]$, and $\\boldsymbol\\Pi$ does not move with the tokens, so a token now gets a different positional vector added to it and its query, key and value change. Then the attention weights are not just permuted, and the output is not $\\text{Sa}[\\mathbf{X}+\\boldsymbol\\Pi]\\mathbf{P}$. I checked with `check_equivariance(lambda Z: attention(Z + Pi), X, [1, 2, 0])` and it returned False.",
        "No, it is not equivariant any more. Equivariance needs every token to be treated the same way wherever it is, but adding $\\Pi$ gives each position its own offset, so after permuting the columns token $n$ is combined with a different column of $\\Pi$. That is the point of the positional encoding: the order of the tokens now matters.",
        "no. Pi belongs to the positions and stays put, so X P + Pi is not (X + Pi) P, and the outputs are different numbers, not a permutation of the old ones (check_equivariance gives False for the example Pi).",
        "No: the inputs to the attention are X P + Pi instead of (X + Pi) P, so the keys and queries of a moved token change, and so do the dot products. Only if all columns of Pi were equal would it stay equivariant.",
    ],
    "ps4_heads_answer": [
        "Each head has its own $W^Q_i, W^K_i, W^V_i$, so each one computes its own attention pattern: in the heat maps head 1 leans towards \"translation\" and head 2 towards \"is\". With one head every output has only one weighted average of the values, so it can only focus on one kind of relation. Several heads let the model attend to different tokens (e.g. syntax and meaning) at the same time and then mix them with $W^O$. Because each head works in $d_{model}/h$ dimensions, the cost is about the same as one big head.",
        "Multiple heads can look at different positions at once. A single head averages everything into one distribution, which can blur different relations together. With h heads we get h attention matrices in different subspaces, and W^O combines them. The number of parameters stays the same since each head is smaller.",
        "The benefit is that each head learns a different projection and so a different similarity, so the model gets several views of the sentence instead of one. In our example the two heads already attend differently even with random weights. It also gives some robustness, as one head can fail and the others still carry information, and computing them in parallel is cheap.",
    ],
    "ps5_decoder_answer": [
        "(a) Without the mask output $n$ can see token $n+1$ itself, so it just learns to copy the next token through attention and the loss goes to almost zero. At generation time the next token does not exist yet, so this copying is useless and the model has learned nothing about predicting.\n\n(b) No: output $n$ is a weighted sum over tokens $0..n$, and the weights depend only on the keys and the query, not on where the tokens sit, so permuting tokens $0..n-1$ among themselves leaves output $n$ unchanged (without positional encodings).",
        "(a) It would learn to cheat by attending to the future token it should predict. When generating, the future tokens are not there, so it would fail.\n(b) It only knows the set of earlier tokens; permuting tokens 0..n-1 does not change output n because the weighted sum is over the same keys and values.",
        "a) It would look at token n+1 and copy it, so training is trivial; at test time we generate one token at a time so token n+1 is unknown and the model is useless.\nb) Output n does not depend on the order of the earlier tokens: a permutation of 0, ..., n-1 just reorders the terms of the sum, which gives the same result. It only depends on which tokens come before.",
    ],
}

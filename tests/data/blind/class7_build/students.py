"""Per-style solution code for the five problem sets (s1-s4 are correct).

BASE[style][ps][grade_id] = source of the solution cell.
"""

PS = ["ps1_self_attention", "ps2_multihead_attention", "ps3_attention_layer",
      "ps4_encoder_decoder_attention", "ps5_masked_attention"]

BASE = {s: {ps: {} for ps in PS} for s in ("s1", "s2", "s3", "s4")}

# =====================================================================================
# s1: explicit Python loops, verbose
# =====================================================================================
B = BASE["s1"]
B["ps1_self_attention"]["ps1_softmax_code"] = '''def softmax(items_in):
    # Turn the list into a flat numpy array of floats
    items = np.array(items_in, dtype=float).ravel()
    # Find the largest score by hand
    largest = items[0]
    for value in items:
        if value > largest:
            largest = value
    # Exponentiate the shifted scores (all exponents <= 0, no overflow)
    exps = []
    for value in items:
        exps.append(np.exp(value - largest))
    # Add them up
    total = 0.0
    for e in exps:
        total = total + e
    # Normalise
    items_out = np.zeros(len(exps))
    for i in range(len(exps)):
        items_out[i] = exps[i] / total
    return items_out
'''
B["ps1_self_attention"]["ps1_loop_code"] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    N = len(all_x)  # number of tokens, from the argument
    # 1. queries, keys and values of every token (equations 12.2 and 12.4)
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

    # 2. one output per token
    all_x_prime = []
    for n in range(N):
        # dot products k_m^T q_n for every m
        all_km_qn = []
        for m in range(N):
            dot = (all_keys[m].T @ all_queries[n]).item()
            all_km_qn.append(dot)
        # attention weights (equation 12.5)
        attention = softmax(all_km_qn)
        # weighted sum of the values (equation 12.3)
        x_prime = np.zeros_like(all_values[0])
        for m in range(N):
            x_prime = x_prime + attention[m] * all_values[m]
        all_x_prime.append(x_prime)
    return all_x_prime
'''
B["ps1_self_attention"]["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    data_in = np.asarray(data_in, dtype=float)
    n_rows, n_cols = data_in.shape
    softmax_out = np.zeros((n_rows, n_cols))
    for n in range(n_cols):
        column = data_in[:, n]
        column_max = np.max(column)            # stabilise each column separately
        exp_column = np.exp(column - column_max)
        softmax_out[:, n] = exp_column / np.sum(exp_column)
    return softmax_out
'''
B["ps1_self_attention"]["ps1_self_attention_code"] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    n_tokens = X.shape[1]
    ones = np.ones((1, n_tokens))
    # equation 12.6: beta 1^T + Omega X
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    # entry (m, n) is k_m^T q_n
    dot_products = K.T @ Q
    # softmax down each column (equation 12.8)
    attentions = softmax_cols(dot_products)
    X_prime = V @ attentions
    return X_prime, attentions
'''
B["ps1_self_attention"]["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    n_tokens = X.shape[1]
    ones = np.ones((1, n_tokens))
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    # D_q is the size of one query: the number of rows of Q
    D_q = Q.shape[0]
    dot_products = K.T @ Q
    scaled = dot_products / np.sqrt(D_q)
    attentions = softmax_cols(scaled)
    X_prime = V @ attentions
    return X_prime, attentions
'''
B["ps1_self_attention"]["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    # permute the input columns first, then apply f
    permuted_first = f(X[:, perm])
    # apply f first, then permute the output columns
    permuted_after = f(X)[:, perm]
    # compare entry by entry, with np.allclose's default tolerance
    same = np.allclose(permuted_first, permuted_after)
    return bool(same)
'''
B["ps2_multihead_attention"]["ps2_single_head_code"] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    n_tokens = X.shape[1]
    ones_row = np.ones((1, n_tokens))
    Q = beta_q @ ones_row + omega_q @ X
    K = beta_k @ ones_row + omega_k @ X
    V = beta_v @ ones_row + omega_v @ X
    # D_q: the size of one query of this head (rows of Q)
    D_q = Q.shape[0]
    # scores, one entry at a time: entry (m, n) = k_m^T q_n / sqrt(D_q)
    scores = np.zeros((n_tokens, n_tokens))
    for n in range(n_tokens):
        for m in range(n_tokens):
            scores[m, n] = K[:, m] @ Q[:, n] / np.sqrt(D_q)
    attention = softmax_cols(scores)
    head_output = V @ attention
    return head_output
'''
B["ps2_multihead_attention"]["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    head_1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head_2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    # stack the heads on top of each other, head 1 first (equation 12.11)
    stacked = np.vstack([head_1, head_2])
    X_prime = omega_c @ stacked
    return X_prime
'''
B["ps2_multihead_attention"]["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    head_outputs = []
    for head in heads:
        out = single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                    head["beta_v"], head["beta_q"], head["beta_k"])
        head_outputs.append(out)
    stacked = np.vstack(head_outputs)
    X_prime = omega_c @ stacked
    return X_prime
'''
B["ps3_attention_layer"]["ps3_softmax_code"] = '''def softmax(X):
    X = np.asarray(X, dtype=float)
    result = np.zeros_like(X)
    for i in range(X.shape[0]):
        row = X[i, :]
        row_max = np.max(row)              # each row's own maximum
        exp_row = np.exp(row - row_max)
        result[i, :] = exp_row / np.sum(exp_row)
    return result
'''
B["ps3_attention_layer"]["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        # four separate draws from N(0, 1), shape (dims, dims)
        self.W_q = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_k = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_v = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_o = np.random.normal(0.0, 1.0, (dims, dims))

    def forward(self, x):
        # equation 2
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        # equation 3
        scores = Q @ K.T / np.sqrt(self.dims)
        # equation 4: softmax of each row
        attention_weights = softmax(scores)
        # equation 5
        self_attention = attention_weights @ V
        output = self_attention @ self.W_o
        return output
'''
B["ps4_encoder_decoder_attention"]["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    T = matrix.shape[0]
    scores = np.zeros(T)
    for j in range(T):
        total = 0.0
        for k in range(matrix.shape[1]):
            total += matrix[j, k] * vector[k]
        scores[j] = total
    return scores
'''
B["ps4_encoder_decoder_attention"]["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    scaling = np.sqrt(n)
    scaled = np.array(scores, dtype=float) / scaling
    return scaled
'''
B["ps4_encoder_decoder_attention"]["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    scores = np.array(scores, dtype=float)
    largest = np.max(scores)
    exps = np.zeros(len(scores))
    for j in range(len(scores)):
        exps[j] = np.exp(scores[j] - largest)
    total = np.sum(exps)
    weights = np.zeros(len(scores))
    for j in range(len(scores)):
        weights[j] = exps[j] / total
    return weights
'''
B["ps4_encoder_decoder_attention"]["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    T = hidden_encoder_matrix.shape[0]
    context = np.zeros(hidden_encoder_matrix.shape[1])
    for j in range(T):
        # weight j scales the whole state j (row j)
        context += attention_weights[j] * hidden_encoder_matrix[j, :]
    return context
'''
B["ps4_encoder_decoder_attention"]["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q      # size d_k
    K = tokens @ W_K           # T x d_k
    V = tokens @ W_V           # T x d_v
    d_k = W_K.shape[1]         # size of one key
    scores = get_scores(K, q)
    scaled = scale_scores(scores, d_k)
    attention_weights = get_attention_weights(scaled)
    output = get_context_vector(attention_weights, V)
    return attention_weights, output
'''
B["ps4_encoder_decoder_attention"]["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
# T = 3 tokens, d_model = 4, h = 2 heads, so d_k = d_v = 4 / 2 = 2
head_W_shape = (4, 2)   # W^Q_i maps a token of size 4 to a query of size 2
concat_shape = (3, 4)   # two heads of shape 3 x 2, side by side
W_O_shape = (4, 4)      # 3 x 4 times W^O gives 3 x 4
'''
B["ps4_encoder_decoder_attention"]["ps4_split_heads_code"] = '''def split_heads(W, h):
    n_cols = W.shape[1]
    block = n_cols // h
    blocks = []
    for i in range(h):
        blocks.append(W[:, i * block:(i + 1) * block])
    return blocks
'''
B["ps5_masked_attention"]["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    mask = np.zeros((N, N), dtype=bool)
    for m in range(N):
        for n in range(N):
            if m <= n:
                mask[m, n] = True
    return mask
'''
B["ps5_masked_attention"]["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    scores = np.asarray(scores, dtype=float)
    n_rows, n_cols = scores.shape
    weights = np.zeros((n_rows, n_cols))
    for n in range(n_cols):
        allowed = mask[:, n]
        if not np.any(allowed):
            continue  # fully masked column: its weights stay zero
        column = scores[allowed, n]
        column_max = np.max(column)  # maximum of the allowed scores only
        exps = np.exp(column - column_max)
        weights[allowed, n] = exps / np.sum(exps)
    return weights
'''
B["ps5_masked_attention"]["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    n_tokens = X.shape[1]
    ones = np.ones((1, n_tokens))
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    D_q = Q.shape[0]
    scores = K.T @ Q / np.sqrt(D_q)
    mask = causal_mask(n_tokens)
    attentions = masked_softmax_cols(scores, mask)
    X_prime = V @ attentions
    return X_prime, attentions
'''
B["ps5_masked_attention"]["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    for n in range(N):
        for i in range(D // 2):
            angle = n / (10000 ** (2 * i / D))
            Pi[2 * i, n] = np.sin(angle)
            Pi[2 * i + 1, n] = np.cos(angle)
    return Pi
'''
B["ps5_masked_attention"]["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)

    def plain(Z):
        return scaled_self_attention(Z, *params)[0]

    def causal(Z):
        return masked_self_attention(Z, *params)[0]

    D_x, N_x = X.shape
    Pi = positional_encoding(D_x, N_x)  # fixed: belongs to the positions

    def positional(Z):
        return scaled_self_attention(Z + Pi, *params)[0]

    gaps = []
    for f in (plain, causal, positional):
        gap = np.max(np.abs(f(X[:, perm]) - f(X)[:, perm]))
        gaps.append(gap)
    return np.array(gaps)
'''

# =====================================================================================
# s2: einsum / matmul-heavy, vectorised
# =====================================================================================
B = BASE["s2"]
B["ps1_self_attention"]["ps1_softmax_code"] = '''def softmax(items_in):
    z = np.asarray(items_in, dtype=np.float64).reshape(-1)
    e = np.exp(z - z.max())
    return e / e.sum()
'''
B["ps1_self_attention"]["ps1_loop_code"] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    queries = [np.matmul(omega_q, x) + beta_q for x in all_x]
    keys = [np.matmul(omega_k, x) + beta_k for x in all_x]
    values = np.stack([np.matmul(omega_v, x) + beta_v for x in all_x])  # N x D x 1
    outputs = []
    for q_n in queries:
        scores = [np.einsum('di,di->', k_m, q_n) for k_m in keys]
        a = softmax(scores)
        outputs.append(np.einsum('m,mdi->di', a, values))
    return outputs
'''
B["ps1_self_attention"]["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    Z = np.asarray(data_in, dtype=np.float64)
    E = np.exp(Z - Z.max(axis=0, keepdims=True))
    return E / np.einsum('mn->n', E)[None, :]
'''
B["ps1_self_attention"]["ps1_self_attention_code"] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum('ij,jn->in', omega_q, X) + beta_q
    K = np.einsum('ij,jn->in', omega_k, X) + beta_k
    V = np.einsum('ij,jn->in', omega_v, X) + beta_v
    attentions = softmax_cols(np.einsum('dm,dn->mn', K, Q))
    X_prime = np.einsum('dm,mn->dn', V, attentions)
    return X_prime, attentions
'''
B["ps1_self_attention"]["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum('ij,jn->in', omega_q, X) + beta_q
    K = np.einsum('ij,jn->in', omega_k, X) + beta_k
    V = np.einsum('ij,jn->in', omega_v, X) + beta_v
    attentions = softmax_cols(np.einsum('dm,dn->mn', K, Q) / np.sqrt(Q.shape[0]))
    X_prime = np.einsum('dm,mn->dn', V, attentions)
    return X_prime, attentions
'''
B["ps1_self_attention"]["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    P = np.eye(X.shape[1])[:, perm]  # P[perm[i], i] = 1, so X @ P == X[:, perm]
    return bool(np.allclose(f(X @ P), f(X) @ P))
'''
B["ps2_multihead_attention"]["ps2_single_head_code"] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum('ed,dn->en', omega_q, X) + beta_q
    K = np.einsum('ed,dn->en', omega_k, X) + beta_k
    V = np.einsum('ed,dn->en', omega_v, X) + beta_v
    A = softmax_cols(np.einsum('em,en->mn', K, Q) / np.sqrt(Q.shape[0]))
    return np.einsum('em,mn->en', V, A)
'''
B["ps2_multihead_attention"]["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    h1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    h2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    X_prime = np.matmul(omega_c, np.concatenate([h1, h2], axis=0))
    return X_prime
'''
B["ps2_multihead_attention"]["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    outs = [single_head_attention(X, h["omega_v"], h["omega_q"], h["omega_k"],
                                  h["beta_v"], h["beta_q"], h["beta_k"]) for h in heads]
    X_prime = np.einsum('ij,jn->in', omega_c, np.concatenate(outs, axis=0))
    return X_prime
'''
B["ps3_attention_layer"]["ps3_softmax_code"] = '''def softmax(X):
    X = np.asarray(X, dtype=np.float64)
    E = np.exp(X - X.max(axis=1, keepdims=True))
    return E / np.einsum('ij->i', E)[:, None]
'''
B["ps3_attention_layer"]["ps3_layer_code"] = '''class SelfAttention:
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
        return np.einsum('ij,jd->id', A, V) @ self.W_o
'''
B["ps4_encoder_decoder_attention"]["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    return np.einsum('tk,k->t', np.asarray(matrix, dtype=float), np.asarray(vector, dtype=float))
'''
B["ps4_encoder_decoder_attention"]["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    return np.divide(scores, np.sqrt(n))
'''
B["ps4_encoder_decoder_attention"]["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    s = np.asarray(scores, dtype=np.float64)
    e = np.exp(s - s.max())
    return e / e.sum()
'''
B["ps4_encoder_decoder_attention"]["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return np.einsum('t,tn->n', attention_weights, hidden_encoder_matrix)
'''
B["ps4_encoder_decoder_attention"]["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.matmul(query_token, W_Q)
    K = np.matmul(tokens, W_K)
    V = np.matmul(tokens, W_V)
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), W_K.shape[1]))
    output = np.einsum('t,tv->v', attention_weights, V)
    return attention_weights, output
'''
B["ps4_encoder_decoder_attention"]["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
T, d_model, h = 3, 4, 2
head_W_shape = (d_model, d_model // h)
concat_shape = (T, h * (d_model // h))
W_O_shape = (d_model, d_model)
'''
B["ps4_encoder_decoder_attention"]["ps4_split_heads_code"] = '''def split_heads(W, h):
    return list(np.split(W, h, axis=1))
'''
B["ps5_masked_attention"]["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.triu(np.ones((N, N), dtype=bool))
'''
B["ps5_masked_attention"]["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    S = np.where(mask, scores, -np.inf)
    col_max = np.max(S, axis=0, keepdims=True)
    col_max = np.where(np.isfinite(col_max), col_max, 0.0)  # fully masked column
    E = np.exp(S - col_max)
    Z = np.einsum('mn->n', E)[None, :]
    return np.divide(E, Z, out=np.zeros_like(E), where=Z > 0)
'''
B["ps5_masked_attention"]["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum('ij,jn->in', omega_q, X) + beta_q
    K = np.einsum('ij,jn->in', omega_k, X) + beta_k
    V = np.einsum('ij,jn->in', omega_v, X) + beta_v
    S = np.einsum('dm,dn->mn', K, Q) / np.sqrt(Q.shape[0])
    attentions = masked_softmax_cols(S, causal_mask(X.shape[1]))
    X_prime = np.einsum('dm,mn->dn', V, attentions)
    return X_prime, attentions
'''
B["ps5_masked_attention"]["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    rows = np.arange(D)
    freq = 10000.0 ** (-(rows - rows % 2) / D)
    angles = np.einsum('r,n->rn', freq, np.arange(N))
    return np.where(rows[:, None] % 2 == 0, np.sin(angles), np.cos(angles))
'''
B["ps5_masked_attention"]["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    p = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    P = np.eye(X.shape[1])[:, perm]
    Pi = positional_encoding(*X.shape)
    maps = [lambda Z: scaled_self_attention(Z, *p)[0],
            lambda Z: masked_self_attention(Z, *p)[0],
            lambda Z: scaled_self_attention(Z + Pi, *p)[0]]
    return np.array([np.abs(f(X @ P) - f(X) @ P).max() for f in maps])
'''

# =====================================================================================
# s3: terse one-liners, comprehensions, np.split / stack tricks
# =====================================================================================
B = BASE["s3"]
B["ps1_self_attention"]["ps1_softmax_code"] = '''def softmax(items_in):
    e = np.exp(np.subtract(items_in, np.max(items_in)))
    return e / e.sum()
'''
B["ps1_self_attention"]["ps1_loop_code"] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    q, k, v = ([b + W @ x for x in all_x] for W, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    return [sum(a * v_m for a, v_m in zip(softmax([(k_m.T @ q_n).item() for k_m in k]), v)) for q_n in q]
'''
B["ps1_self_attention"]["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    return np.stack([softmax(c) for c in np.asarray(data_in, dtype=float).T], axis=1)
'''
B["ps1_self_attention"]["ps1_self_attention_code"] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + W @ X for W, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    attentions = softmax_cols(K.T @ Q)
    X_prime = V @ attentions
    return X_prime, attentions
'''
B["ps1_self_attention"]["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = np.split(np.vstack([omega_q, omega_k, omega_v]) @ X + np.vstack([beta_q, beta_k, beta_v]),
                       [len(omega_q), 2 * len(omega_q)])
    attentions = softmax_cols(K.T @ Q / Q.shape[0] ** .5)
    X_prime = V @ attentions
    return X_prime, attentions
'''
B["ps1_self_attention"]["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    return np.allclose(f(X[:, perm]), f(X)[:, perm])
'''
B["ps2_multihead_attention"]["ps2_single_head_code"] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + W @ X for W, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    return V @ softmax_cols(K.T @ Q / np.sqrt(len(Q)))
'''
B["ps2_multihead_attention"]["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    X_prime = omega_c @ np.vstack([single_head_attention(X, *p) for p in (
        (omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
        (omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2))])
    return X_prime
'''
B["ps2_multihead_attention"]["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    return omega_c @ np.vstack([single_head_attention(X, *(h[k] for k in ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k"))) for h in heads])
'''
B["ps3_attention_layer"]["ps3_softmax_code"] = '''def softmax(X):
    return (e := np.exp(X - X.max(1, keepdims=True))) / e.sum(1, keepdims=True)
'''
B["ps3_attention_layer"]["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = np.random.normal(size=(4, dims, dims))

    def forward(self, x):
        Q, K, V = (x @ W for W in (self.W_q, self.W_k, self.W_v))
        return softmax(Q @ K.T / self.dims ** 0.5) @ V @ self.W_o
'''
B["ps4_encoder_decoder_attention"]["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    return matrix @ vector
'''
B["ps4_encoder_decoder_attention"]["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    return scores / n ** .5
'''
B["ps4_encoder_decoder_attention"]["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    return (e := np.exp(scores - np.max(scores))) / e.sum()
'''
B["ps4_encoder_decoder_attention"]["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return attention_weights @ hidden_encoder_matrix
'''
B["ps4_encoder_decoder_attention"]["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    attention_weights = get_attention_weights(scale_scores(get_scores(tokens @ W_K, query_token @ W_Q), W_K.shape[1]))
    output = get_context_vector(attention_weights, tokens @ W_V)
    return attention_weights, output
'''
B["ps4_encoder_decoder_attention"]["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape, concat_shape, W_O_shape = (4, 2), (3, 4), (4, 4)
'''
B["ps4_encoder_decoder_attention"]["ps4_split_heads_code"] = '''def split_heads(W, h):
    return [W[:, i:i + W.shape[1] // h] for i in range(0, W.shape[1], W.shape[1] // h)]
'''
B["ps5_masked_attention"]["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.arange(N)[:, None] <= np.arange(N)
'''
B["ps5_masked_attention"]["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    s = np.where(mask, scores, -np.inf)
    e = np.where(mask, np.exp(s - np.where(mask.any(0), s.max(0), 0)), 0)
    return e / np.maximum(e.sum(0), np.finfo(float).tiny)
'''
B["ps5_masked_attention"]["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + W @ X for W, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    attentions = masked_softmax_cols(K.T @ Q / len(Q) ** .5, causal_mask(X.shape[1]))
    return V @ attentions, attentions
'''
B["ps5_masked_attention"]["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    n = np.arange(N)
    return np.array([(np.sin if r % 2 == 0 else np.cos)(n / 10000 ** ((r - r % 2) / D)) for r in range(D)])
'''
B["ps5_masked_attention"]["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    p = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(*X.shape)
    fs = (lambda Z: scaled_self_attention(Z, *p)[0], lambda Z: masked_self_attention(Z, *p)[0],
          lambda Z: scaled_self_attention(Z + Pi, *p)[0])
    return np.array([np.abs(f(X[:, perm]) - f(X)[:, perm]).max() for f in fs])
'''

# =====================================================================================
# s4: private helpers, asserts, a debug print, apply_along_axis, in-place ops
# =====================================================================================
B = BASE["s4"]
B["ps1_self_attention"]["ps1_softmax_code"] = '''def _softmax_1d(z):
    """Stable softmax of a 1-D vector (returns a new array)."""
    z = np.asarray(z, dtype=float).ravel()
    z = z - z.max()
    np.exp(z, out=z)
    z /= z.sum()
    return z


def softmax(items_in):
    out = _softmax_1d(items_in)
    assert out.ndim == 1
    return out
'''
B["ps1_self_attention"]["ps1_loop_code"] = '''def _proj(omega, beta, x):
    """beta + Omega x (x a column or a D x N matrix)."""
    return beta + omega @ x


def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    qs = [_proj(omega_q, beta_q, x) for x in all_x]
    ks = [_proj(omega_k, beta_k, x) for x in all_x]
    vs = [_proj(omega_v, beta_v, x) for x in all_x]
    out = []
    for q_n in qs:
        a = softmax([(k_m.T @ q_n).item() for k_m in ks])
        x_n = np.zeros_like(vs[0])
        for a_m, v_m in zip(a, vs):
            x_n += a_m * v_m
        out.append(x_n)
    return out
'''
B["ps1_self_attention"]["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    data_in = np.asarray(data_in, dtype=float)
    assert data_in.ndim == 2, "softmax_cols expects a matrix"
    return np.apply_along_axis(_softmax_1d, 0, data_in)
'''
B["ps1_self_attention"]["ps1_self_attention_code"] = '''def _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    return _proj(omega_q, beta_q, X), _proj(omega_k, beta_k, X), _proj(omega_v, beta_v, X)


def _attend(V, scores):
    A = softmax_cols(scores)
    return V @ A, A


def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    X_prime, attentions = _attend(V, K.T @ Q)
    return X_prime, attentions
'''
B["ps1_self_attention"]["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    d_q = Q.shape[0]
    assert K.shape[0] == d_q, "queries and keys must have the same size"
    print(f"[debug] scaled attention: D_q = {d_q}, N = {X.shape[1]}")
    X_prime, attentions = _attend(V, K.T @ Q / np.sqrt(d_q))
    return X_prime, attentions
'''
B["ps1_self_attention"]["ps1_equivariance_code"] = '''def _perm_matrix(perm):
    """P with P[perm[i], i] = 1, so that X @ P == X[:, perm]."""
    P = np.zeros((len(perm), len(perm)))
    P[perm, np.arange(len(perm))] = 1.0
    return P


def check_equivariance(f, X, perm):
    P = _perm_matrix(perm)
    return bool(np.allclose(f(X @ P), f(X) @ P))
'''
B["ps2_multihead_attention"]["ps2_single_head_code"] = '''def _proj(omega, beta, X):
    return omega @ X + beta


def _scores(Q, K):
    assert Q.shape[0] == K.shape[0], "queries and keys must have the same size"
    return K.T @ Q / np.sqrt(Q.shape[0])


def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = _proj(omega_q, beta_q, X)
    K = _proj(omega_k, beta_k, X)
    V = _proj(omega_v, beta_v, X)
    return V @ softmax_cols(_scores(Q, K))
'''
B["ps2_multihead_attention"]["ps2_multihead_scaled_code"] = '''def _combine(head_outputs, omega_c):
    stacked = np.vstack(head_outputs)
    assert stacked.shape[0] == omega_c.shape[1], "the stacked heads must have D rows"
    return omega_c @ stacked


def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    heads_out = [single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
                 single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)]
    X_prime = _combine(heads_out, omega_c)
    return X_prime
'''
B["ps2_multihead_attention"]["ps2_multihead_general_code"] = '''def _head_args(head):
    """The six parameters of one head in UDL's order: values, queries, keys."""
    return tuple(head[k] for k in ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k"))


def multihead_self_attention(X, heads, omega_c):
    X_prime = _combine([single_head_attention(X, *_head_args(h)) for h in heads], omega_c)
    return X_prime
'''
B["ps3_attention_layer"]["ps3_softmax_code"] = '''def _softmax_row(r):
    r = r - r.max()
    e = np.exp(r)
    return e / e.sum()


def softmax(X):
    X = np.asarray(X, dtype=float)
    assert X.ndim == 2
    return np.apply_along_axis(_softmax_row, 1, X)
'''
B["ps3_attention_layer"]["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = self._draw()
        self.W_k = self._draw()
        self.W_v = self._draw()
        self.W_o = self._draw()

    def _draw(self):
        return np.random.normal(loc=0.0, scale=1.0, size=(self.dims, self.dims))

    def _project(self, x):
        return x @ self.W_q, x @ self.W_k, x @ self.W_v

    def forward(self, x):
        assert x.shape[1] == self.dims, "tokens must have size dims"
        Q, K, V = self._project(x)
        scores = Q @ K.T
        scores /= np.sqrt(self.dims)
        A = softmax(scores)
        return (A @ V) @ self.W_o
'''
B["ps4_encoder_decoder_attention"]["ps4_get_scores_code"] = '''def _as_1d(v):
    v = np.asarray(v, dtype=float)
    assert v.ndim == 1, f"expected a 1-D array, got shape {v.shape}"
    return v


def get_scores(matrix, vector):
    vector = _as_1d(vector)
    return np.array([row @ vector for row in np.asarray(matrix, dtype=float)])
'''
B["ps4_encoder_decoder_attention"]["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    return _as_1d(scores) / np.sqrt(n)
'''
B["ps4_encoder_decoder_attention"]["ps4_attention_weights_code"] = '''def _stable_exp(s):
    s = _as_1d(s)
    return np.exp(s - s.max())


def get_attention_weights(scores):
    e = _stable_exp(scores)
    e /= e.sum()
    return e
'''
B["ps4_encoder_decoder_attention"]["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    w = _as_1d(attention_weights)
    H = np.asarray(hidden_encoder_matrix, dtype=float)
    assert H.shape[0] == w.shape[0], "one weight per state (row)"
    return np.apply_along_axis(lambda col: np.dot(w, col), 0, H)
'''
B["ps4_encoder_decoder_attention"]["ps4_single_query_code"] = '''def _project(X, W):
    return np.asarray(X, dtype=float) @ W


def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = _project(query_token, W_Q)
    K = _project(tokens, W_K)
    V = _project(tokens, W_V)
    d_k = W_K.shape[1]
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), d_k))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output
'''
B["ps4_encoder_decoder_attention"]["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
T, d_model, n_heads = 3, 4, 2
d_k = d_model // n_heads
head_W_shape = (d_model, d_k)
concat_shape = (T, n_heads * d_k)
W_O_shape = (n_heads * d_k, d_model)
assert all(isinstance(v, int) for v in head_W_shape + concat_shape + W_O_shape)
'''
B["ps4_encoder_decoder_attention"]["ps4_split_heads_code"] = '''def _block_cols(W, i, width):
    return W[:, i * width:(i + 1) * width]


def split_heads(W, h):
    W = np.asarray(W)
    assert W.shape[1] % h == 0, "the columns must split evenly"
    width = W.shape[1] // h
    return [_block_cols(W, i, width) for i in range(h)]
'''
B["ps5_masked_attention"]["ps5_causal_mask_code"] = '''def _future(N):
    """True at (m, n) where input m comes after output n."""
    idx = np.arange(N)
    return idx[:, None] > idx[None, :]


def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    mask = ~_future(N)
    assert mask.dtype == bool
    return mask
'''
B["ps5_masked_attention"]["ps5_masked_softmax_code"] = '''def _softmax_1d(z):
    z = np.asarray(z, dtype=float) - np.max(z)
    np.exp(z, out=z)
    z /= z.sum()
    return z


def _masked_col(col, allowed):
    out = np.zeros(col.shape, dtype=float)
    if allowed.any():
        out[allowed] = _softmax_1d(col[allowed])
    return out


def masked_softmax_cols(scores, mask):
    scores = np.asarray(scores, dtype=float)
    assert scores.shape == np.shape(mask)
    return np.stack([_masked_col(scores[:, n], mask[:, n]) for n in range(scores.shape[1])], axis=1)
'''
B["ps5_masked_attention"]["ps5_masked_attention_code"] = '''def _proj(omega, beta, X):
    return omega @ X + beta


def _scaled_scores(Q, K):
    return K.T @ Q / np.sqrt(Q.shape[0])


def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = _proj(omega_q, beta_q, X), _proj(omega_k, beta_k, X), _proj(omega_v, beta_v, X)
    attentions = masked_softmax_cols(_scaled_scores(Q, K), causal_mask(X.shape[1]))
    X_prime = V @ attentions
    return X_prime, attentions
'''
B["ps5_masked_attention"]["ps5_positional_encoding_code"] = '''def _angle_rates(D):
    r = np.arange(D)
    return 1.0 / np.power(10000.0, (r - r % 2) / D)


def positional_encoding(D, N):
    assert D % 2 == 0, "D must be even"
    angles = _angle_rates(D)[:, None] * np.arange(N)[None, :]
    Pi = np.empty((D, N))
    Pi[0::2] = np.sin(angles[0::2])
    Pi[1::2] = np.cos(angles[1::2])
    return Pi
'''
B["ps5_masked_attention"]["ps5_equivariance_code"] = '''def _gap(f, X, perm):
    return np.max(np.abs(f(X[:, perm]) - f(X)[:, perm]))


def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    args = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(X.shape[0], X.shape[1])
    return np.array([_gap(lambda Z: scaled_self_attention(Z, *args)[0], X, perm),
                     _gap(lambda Z: masked_self_attention(Z, *args)[0], X, perm),
                     _gap(lambda Z: scaled_self_attention(Z + Pi, *args)[0], X, perm)])
'''

# Written answers (markdown cells), three phrasings.
MD = {
    "ps1_positional_answer": [
        "No. Permuting the columns of X moves the tokens but Pi stays in place, so token m is now added to a different positional vector and gets different queries, keys and values. Sa[XP + Pi] is then not Sa[X + Pi]P in general; check_equivariance with f = lambda Z: attention(Z + Pi) returns False.",
        "No, it is no longer equivariant. Each position has its own column of Pi, so after the permutation a token is combined with the encoding of its new position, which changes its projections and its dot products with the other tokens; only if all columns of Pi were equal would the permutation commute.",
        "No: adding Pi breaks the symmetry. Sa[XP + Pi] = Sa[(X + Pi P^T)P] = Sa[X + Pi P^T]P, and Pi P^T differs from Pi because the columns of Pi are distinct, so the outputs differ from Sa[X + Pi]P (my check_equivariance test gives False).",
    ],
    "ps4_heads_answer": [
        "Several heads let the layer compute several different attention patterns at once: in the heat maps head 1 leaned towards 'translation' and head 2 towards 'is'. Each head works in a smaller subspace (d_model/h), so the total cost is about the same as one full-size head. W^O then mixes the heads so every output dimension can use every relation. A single head has to average all these relations into one softmax.",
        "With one head every query gets one set of weights, so it can only look at the sentence in one way. With h heads each head has its own W^Q_i, W^K_i, W^V_i and can specialise (e.g. syntax in one head, nearby words in another), as the two different heat maps show. Because each head has size d_model/h, the cost stays close to a single head, and the concatenation plus W^O combines what they found.",
        "Multiple heads give the model several representation subspaces: each head projects the tokens differently and attends to different tokens (our two heads prefer different words). This makes the attention more expressive without more computation, since the heads are smaller. The output projection W^O mixes the heads back into d_model dimensions.",
    ],
    "ps5_decoder_answer": [
        "(a) Without the mask output n could attend to token n+1 itself, so it would learn to copy the next token instead of predicting it; at generation time the future tokens do not exist yet, so the model would be useless. (b) No: output n is a weighted sum over tokens 0..n where each weight depends only on the token's own key and value, so permuting tokens 0..n-1 among themselves leaves output n unchanged (it knows which tokens come before, not their order).",
        "(a) It would learn to read the answer: the weight on input n+1 would be used to copy it, giving a perfect training loss but nothing to copy when generating one token at a time. (b) Output n does not depend on the order of the earlier tokens: the masked softmax sum over m <= n is a sum over a set, so permuting tokens 0..n-1 gives the same output n.",
        "(a) The decoder would cheat by attending to the target token n+1, which is in its input during training; when generating, that token is not available yet, so what it learned does not transfer. (b) No, only the set matters: permuting tokens 0..n-1 permutes the terms of the weighted sum for output n, which does not change it.",
    ],
}

STYLE_OF = {"blind7_s1": "s1", "blind7_s2": "s2", "blind7_s3": "s3", "blind7_s4": "s4",
            "blind7_s5": "s1", "blind7_s6": "s2", "blind7_s7": "s3", "blind7_s8": "s4",
            "blind7_s9": "s4", "blind7_s10": "s1"}

"""Four correct solution styles. Each style maps grade_id -> cell source."""

# ---------------------------------------------------------------- answers (shared)
ANS_PS1 = """**No.** The positional encoding belongs to the *positions*, not to the tokens: if I permute
the columns of $\\mathbf{X}$, the tokens move but $\\mathbf{\\Pi}$ stays where it is, so a token now
gets the positional vector of its new position. Then $\\text{Sa}[\\mathbf{X}\\mathbf{P} + \\mathbf{\\Pi}]
\\neq \\text{Sa}[\\mathbf{X} + \\mathbf{\\Pi}]\\mathbf{P}$ in general (equality would need
$\\mathbf{\\Pi}\\mathbf{P} = \\mathbf{\\Pi}$, i.e. all columns of $\\mathbf{\\Pi}$ equal, which defeats the
purpose). `check_equivariance(lambda Z: attention(Z + Pi), X, [1, 2, 0])` returns `False`."""

ANS_PS4 = """Each head has its own projections $\\mathbf{W}^Q_i, \\mathbf{W}^K_i, \\mathbf{W}^V_i$, so each head
computes its own attention distribution: in section 7 the two heads of the same sentence attend
differently (head 1 leans towards "translation", head 2 towards "is"). With several heads the
layer can follow several relations between tokens at once (e.g. syntax in one head, a nearby
word in another), where one head must average them into a single softmax. Because each head
works in $d_{\\text{model}}/h$ dimensions, the total cost is about that of one full-size head,
and $\\mathbf{W}^O$ then mixes the heads' outputs back into $d_{\\text{model}}$ dimensions."""

ANS_PS5 = """(a) Without the mask, output $n$ could attend to token $n+1$ itself, so it would simply learn
to copy the next token from the input (a trivial, near-zero training loss); at generation time
the next token does not exist yet, so that copying strategy gives nothing useful.

(b) No. Output $n$ is $\\sum_{m \\le n} a_{mn}\\mathbf{v}_m$ with weights that depend only on
$\\mathbf{q}_n$ and each $\\mathbf{k}_m$, so permuting tokens $0, \\ldots, n-1$ among themselves does
not change output $n$: one causal layer only knows *which* tokens came before, not their order
(order information needs positional encodings or several stacked layers)."""

# ================================================================ S1: explicit loops
S1 = {}
S1["ps1_softmax_code"] = '''import math


def softmax(items_in):
    # plain Python: shift by the largest score so every exponent is <= 0
    items = [float(v) for v in np.ravel(items_in)]
    biggest = max(items)
    exps = []
    for v in items:
        exps.append(math.exp(v - biggest))
    total = sum(exps)
    return np.array([e / total for e in exps])'''
S1["ps1_loop_code"] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    all_queries = []
    all_keys = []
    all_values = []
    for x in all_x:
        all_queries.append(beta_q + omega_q @ x)
        all_keys.append(beta_k + omega_k @ x)
        all_values.append(beta_v + omega_v @ x)

    all_x_prime = []
    for q_n in all_queries:
        dots = []
        for k_m in all_keys:
            dots.append((k_m.T @ q_n).item())
        weights = softmax(dots)
        x_prime = np.zeros(all_values[0].shape)
        for m in range(len(all_values)):
            x_prime = x_prime + weights[m] * all_values[m]
        all_x_prime.append(x_prime)
    return all_x_prime'''
S1["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    data_in = np.asarray(data_in, dtype=float)
    out = np.zeros(data_in.shape)
    for col in range(data_in.shape[1]):
        out[:, col] = softmax(data_in[:, col])  # my 1-D softmax, one column at a time
    return out'''
S1["ps1_self_attention_code"] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    N = X.shape[1]
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    scores = np.zeros((N, N))
    for m in range(N):
        for n in range(N):
            scores[m, n] = K[:, m] @ Q[:, n]
    attentions = softmax_cols(scores)
    X_prime = V @ attentions
    return X_prime, attentions'''
S1["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    N = X.shape[1]
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    d_q = Q.shape[0]
    scores = np.zeros((N, N))
    for m in range(N):
        for n in range(N):
            scores[m, n] = (K[:, m] @ Q[:, n]) / math.sqrt(d_q)
    attentions = softmax_cols(scores)
    X_prime = V @ attentions
    return X_prime, attentions'''
S1["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    out_of_permuted = f(X[:, perm])
    out = f(X)
    if np.shape(out_of_permuted) != np.shape(out):
        return False
    for i, p in enumerate(perm):
        # column i of f(XP) must be column perm[i] of f(X)
        if not np.allclose(out_of_permuted[:, i], out[:, p]):
            return False
    return True'''
S1["ps1_positional_answer"] = ANS_PS1

S1["ps2_single_head_code"] = '''import math


def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    d_q = Q.shape[0]          # size of one query of this head
    N = X.shape[1]
    scores = np.empty((N, N))
    for m in range(N):
        for n in range(N):
            scores[m, n] = np.dot(K[:, m], Q[:, n]) / math.sqrt(d_q)
    return V @ softmax_cols(scores)'''
S1["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    head_outputs = []
    head_outputs.append(single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1))
    head_outputs.append(single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2))
    stacked = np.vstack(head_outputs)
    X_prime = omega_c @ stacked
    return X_prime'''
S1["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    head_outputs = []
    for head in heads:
        out = single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                    head["beta_v"], head["beta_q"], head["beta_k"])
        head_outputs.append(out)
    X_prime = omega_c @ np.vstack(head_outputs)
    return X_prime'''

S1["ps3_softmax_code"] = '''def softmax(X):
    X = np.asarray(X, dtype=float)
    result = np.empty_like(X)
    for i in range(X.shape[0]):
        row = X[i] - X[i].max()     # stable: every exponent <= 0
        e = np.exp(row)
        result[i] = e / e.sum()
    return result'''
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
        n = x.shape[0]
        scores = np.zeros((n, n))
        for i in range(n):
            for j in range(n):
                scores[i, j] = Q[i] @ K[j] / np.sqrt(self.dims)
        weights = softmax(scores)
        attention = weights @ V
        output = attention @ self.W_o
        return output'''

S1["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    scores = []
    for t in range(len(matrix)):
        total = 0.0
        for k in range(len(vector)):
            total += matrix[t][k] * vector[k]
        scores.append(total)
    return np.array(scores)'''
S1["ps4_scale_scores_code"] = '''import math


def scale_scores(scores, n):
    return np.array([s / math.sqrt(n) for s in np.ravel(scores)])'''
S1["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    scores = [float(s) for s in scores]
    top = max(scores)
    exps = [math.exp(s - top) for s in scores]
    total = sum(exps)
    return np.array([e / total for e in exps])'''
S1["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    hidden_encoder_matrix = np.asarray(hidden_encoder_matrix, dtype=float)
    context = np.zeros(hidden_encoder_matrix.shape[1])
    for j in range(len(attention_weights)):
        context = context + attention_weights[j] * hidden_encoder_matrix[j]   # weight j scales row j
    return context'''
S1["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q          # (d_k,)
    K = tokens @ W_K               # (T, d_k)
    V = tokens @ W_V               # (T, d_v)
    d_k = K.shape[1]
    scores = get_scores(K, q)
    scaled = scale_scores(scores, d_k)
    attention_weights = get_attention_weights(scaled)
    output = get_context_vector(attention_weights, V)
    return attention_weights, output'''
S1["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
# X is 3 x 4; W^Q_i maps 4 -> 4/2 = 2; head_i is 3 x 2; two heads side by side 3 x 4; W^O 4 x 4
head_W_shape = (4, 2)
concat_shape = (3, 4)
W_O_shape = (4, 4)'''
S1["ps4_split_heads_code"] = '''def split_heads(W, h):
    width = W.shape[1] // h
    blocks = []
    for i in range(h):
        blocks.append(W[:, i * width:(i + 1) * width])
    return blocks'''
S1["ps4_heads_answer"] = ANS_PS4

S1["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    mask = np.zeros((N, N), dtype=bool)
    for m in range(N):
        for n in range(N):
            mask[m, n] = m <= n
    return mask'''
S1["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    scores = np.asarray(scores, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    weights = np.zeros(scores.shape)
    for n in range(scores.shape[1]):
        allowed = [m for m in range(scores.shape[0]) if mask[m, n]]
        if len(allowed) == 0:
            continue                     # fully masked column: zero weights
        top = max(scores[m, n] for m in allowed)
        exps = {m: np.exp(scores[m, n] - top) for m in allowed}
        total = sum(exps.values())
        for m in allowed:
            weights[m, n] = exps[m] / total
    return weights'''
S1["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    n_tokens = X.shape[1]
    d_q = Q.shape[0]
    scores = (K.T @ Q) / np.sqrt(d_q)
    attentions = masked_softmax_cols(scores, causal_mask(n_tokens))
    X_prime = V @ attentions
    return X_prime, attentions'''
S1["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    for n in range(N):
        for i in range(D // 2):
            angle = n / (10000 ** (2 * i / D))
            Pi[2 * i, n] = np.sin(angle)
            Pi[2 * i + 1, n] = np.cos(angle)
    return Pi'''
S1["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    D_x, N_x = X.shape
    Pi = positional_encoding(D_x, N_x)
    maps = [lambda Z: scaled_self_attention(Z, *params)[0],
            lambda Z: masked_self_attention(Z, *params)[0],
            lambda Z: scaled_self_attention(Z + Pi, *params)[0]]
    gaps = []
    for f in maps:
        gaps.append(np.max(np.abs(f(X[:, perm]) - f(X)[:, perm])))
    return np.array(gaps)'''
S1["ps5_decoder_answer"] = ANS_PS5

# ================================================================ S2: vectorised
S2 = {}
S2["ps1_softmax_code"] = '''def softmax(items_in):
    z = np.asarray(items_in, dtype=float).ravel()
    e = np.exp(z - z.max())
    return e / e.sum()'''
S2["ps1_loop_code"] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    qs = [beta_q + omega_q @ x for x in all_x]
    ks = [beta_k + omega_k @ x for x in all_x]
    vs = [beta_v + omega_v @ x for x in all_x]
    outputs = []
    for q in qs:
        a = softmax([(k.T @ q).item() for k in ks])
        outputs.append(sum(a_m * v for a_m, v in zip(a, vs)))
    return outputs'''
S2["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    z = np.asarray(data_in, dtype=float)
    e = np.exp(z - z.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)'''
S2["ps1_self_attention_code"] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(np.einsum("dm,dn->mn", K, Q))
    X_prime = V @ attentions
    return X_prime, attentions'''
S2["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(np.einsum("dm,dn->mn", K, Q) / np.sqrt(Q.shape[0]))
    X_prime = V @ attentions
    return X_prime, attentions'''
S2["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    return bool(np.allclose(f(X[:, perm]), f(X)[:, perm]))'''
S2["ps1_positional_answer"] = ANS_PS1
S2["ps2_single_head_code"] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    A = softmax_cols(np.einsum("dm,dn->mn", K, Q) / np.sqrt(Q.shape[0]))
    return np.einsum("dm,mn->dn", V, A)'''
S2["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    h1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    h2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    X_prime = omega_c @ np.vstack([h1, h2])
    return X_prime'''
S2["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    outs = [single_head_attention(X, p["omega_v"], p["omega_q"], p["omega_k"],
                                  p["beta_v"], p["beta_q"], p["beta_k"]) for p in heads]
    X_prime = omega_c @ np.concatenate(outs, axis=0)
    return X_prime'''
S2["ps3_softmax_code"] = '''def softmax(X):
    Z = np.asarray(X, dtype=float)
    E = np.exp(Z - Z.max(axis=-1, keepdims=True))
    return E / E.sum(axis=-1, keepdims=True)'''
S2["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = (np.random.randn(dims, dims) for _ in range(4))

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        A = softmax(np.einsum("id,jd->ij", Q, K) / np.sqrt(self.dims))
        return (A @ V) @ self.W_o'''
S2["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    return np.asarray(matrix) @ np.asarray(vector)'''
S2["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    return np.asarray(scores) / np.sqrt(n)'''
S2["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    s = np.asarray(scores, dtype=float)
    e = np.exp(s - s.max())
    return e / e.sum()'''
S2["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return np.asarray(attention_weights) @ np.asarray(hidden_encoder_matrix)'''
S2["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q, K, V = query_token @ W_Q, tokens @ W_K, tokens @ W_V
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), K.shape[1]))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output'''
S2["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape = (4, 2)
concat_shape = (3, 4)
W_O_shape = (4, 4)'''
S2["ps4_split_heads_code"] = '''def split_heads(W, h):
    return list(np.hsplit(W, h))'''
S2["ps4_heads_answer"] = ANS_PS4
S2["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    idx = np.arange(N)
    return idx[:, None] <= idx[None, :]'''
S2["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    s = np.where(mask, np.asarray(scores, dtype=float), -np.inf)
    top = s.max(axis=0, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)       # fully masked column: no shift
    e = np.where(mask, np.exp(s - top), 0.0)
    total = e.sum(axis=0, keepdims=True)
    return e / np.where(total > 0, total, 1.0)'''
S2["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = masked_softmax_cols(np.einsum("dm,dn->mn", K, Q) / np.sqrt(Q.shape[0]),
                                     causal_mask(X.shape[1]))
    X_prime = V @ attentions
    return X_prime, attentions'''
S2["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    freqs = 1.0 / 10000 ** (np.arange(0, D, 2) / D)        # one per pair of rows
    angles = freqs[:, None] * np.arange(N)[None, :]         # D/2 x N
    Pi = np.empty((D, N))
    Pi[0::2] = np.sin(angles)
    Pi[1::2] = np.cos(angles)
    return Pi'''
S2["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    p = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(*X.shape)
    fs = (lambda Z: scaled_self_attention(Z, *p)[0],
          lambda Z: masked_self_attention(Z, *p)[0],
          lambda Z: scaled_self_attention(Z + Pi, *p)[0])
    return np.array([np.abs(f(X[:, perm]) - f(X)[:, perm]).max() for f in fs])'''
S2["ps5_decoder_answer"] = ANS_PS5

# ================================================================ S3: log-domain, careful copies
S3 = {}
S3["ps1_softmax_code"] = '''def _logsumexp(z, axis=None, keepdims=False):
    """log(sum(exp(z))) without overflow: m + log(sum(exp(z - m)))."""
    m = np.max(z, axis=axis, keepdims=True)
    out = m + np.log(np.sum(np.exp(z - m), axis=axis, keepdims=True))
    return out if keepdims else np.squeeze(out, axis=axis)


def softmax(items_in):
    z = np.array(items_in, dtype=np.float64).reshape(-1)   # a copy: never touch the caller's data
    log_weights = z - _logsumexp(z)                         # log-domain softmax
    return np.exp(log_weights)'''
S3["ps1_loop_code"] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    N = len(all_x)
    queries = [beta_q + omega_q @ np.asarray(x, dtype=np.float64) for x in all_x]
    keys = [beta_k + omega_k @ np.asarray(x, dtype=np.float64) for x in all_x]
    values = [beta_v + omega_v @ np.asarray(x, dtype=np.float64) for x in all_x]
    all_x_prime = []
    for n in range(N):
        logits = np.array([(keys[m].T @ queries[n]).item() for m in range(N)])
        a = softmax(logits)
        out = np.zeros_like(values[0])
        for m in range(N):
            out += a[m] * values[m]
        assert out.shape == values[0].shape
        all_x_prime.append(out)
    return all_x_prime'''
S3["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    z = np.array(data_in, dtype=np.float64)                  # copy
    return np.exp(z - _logsumexp(z, axis=0, keepdims=True))'''
S3["ps1_self_attention_code"] = '''def _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    X = np.asarray(X, dtype=np.float64)
    return (beta_q + omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X)


def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    attentions = softmax_cols(K.T @ Q)
    X_prime = V @ attentions
    assert attentions.shape == (X.shape[1], X.shape[1])
    return X_prime, attentions'''
S3["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    D_q = Q.shape[0]
    attentions = softmax_cols((K.T @ Q) / np.sqrt(D_q))
    X_prime = V @ attentions
    return X_prime, attentions'''
S3["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    perm = np.asarray(perm)
    X = np.array(X, copy=True)
    left = np.asarray(f(X[:, perm]), dtype=np.float64)
    right = np.asarray(f(X), dtype=np.float64)[:, perm]
    if left.shape != right.shape:
        return False
    scale = 1.0 + np.max(np.abs(right))
    return bool(np.max(np.abs(left - right)) <= 1e-8 * scale)'''
S3["ps1_positional_answer"] = ANS_PS1
S3["ps2_single_head_code"] = '''def _log_softmax_cols(S):
    m = S.max(axis=0, keepdims=True)
    return S - (m + np.log(np.exp(S - m).sum(axis=0, keepdims=True)))


def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    X = np.asarray(X, dtype=np.float64)
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    D_q = Q.shape[0]                    # rows of this head's queries (D/H), not D
    A = np.exp(_log_softmax_cols(K.T @ Q / np.sqrt(D_q)))
    return V @ A'''
S3["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    sa1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    sa2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    stacked = np.concatenate([sa1, sa2], axis=0)
    assert stacked.shape[0] == omega_c.shape[1]
    X_prime = omega_c @ stacked
    return X_prime'''
S3["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    H = len(heads)
    pieces = []
    for h in range(H):
        p = heads[h]
        pieces.append(single_head_attention(X, p["omega_v"], p["omega_q"], p["omega_k"],
                                            p["beta_v"], p["beta_q"], p["beta_k"]))
    X_prime = omega_c @ np.concatenate(pieces, axis=0)
    return X_prime'''
S3["ps3_softmax_code"] = '''def softmax(X):
    Z = np.array(X, dtype=np.float64)            # copy, float
    m = Z.max(axis=1, keepdims=True)
    log_norm = m + np.log(np.exp(Z - m).sum(axis=1, keepdims=True))
    return np.exp(Z - log_norm)'''
S3["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = int(dims)
        shape = (self.dims, self.dims)
        self.W_q = np.random.normal(loc=0.0, scale=1.0, size=shape)
        self.W_k = np.random.normal(loc=0.0, scale=1.0, size=shape)
        self.W_v = np.random.normal(loc=0.0, scale=1.0, size=shape)
        self.W_o = np.random.normal(loc=0.0, scale=1.0, size=shape)

    def forward(self, x):
        x = np.asarray(x, dtype=np.float64)
        assert x.ndim == 2 and x.shape[1] == self.dims, x.shape
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        S = Q @ K.T / np.sqrt(self.dims)          # the scores, n x n
        A = softmax(S)                            # the attention weights
        return (A @ V) @ self.W_o'''
S3["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    M = np.asarray(matrix, dtype=np.float64)
    v = np.asarray(vector, dtype=np.float64).reshape(-1)
    return np.einsum("tk,k->t", M, v)'''
S3["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    return np.asarray(scores, dtype=np.float64) * (1.0 / np.sqrt(float(n)))'''
S3["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    s = np.array(scores, dtype=np.float64).reshape(-1)
    m = s.max()
    log_z = m + np.log(np.sum(np.exp(s - m)))
    return np.exp(s - log_z)'''
S3["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    a = np.asarray(attention_weights, dtype=np.float64).reshape(-1)
    H = np.asarray(hidden_encoder_matrix, dtype=np.float64)
    assert a.shape[0] == H.shape[0], "one weight per state (row)"
    return np.einsum("t,tn->n", a, H)'''
S3["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.asarray(query_token, dtype=np.float64).reshape(-1) @ W_Q
    K = np.asarray(tokens, dtype=np.float64) @ W_K
    V = np.asarray(tokens, dtype=np.float64) @ W_V
    d_k = W_K.shape[1]
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), d_k))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output'''
S3["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
T, d_model, h = 3, 4, 2
d_k = d_model // h
head_W_shape = (d_model, d_k)
concat_shape = (T, h * d_k)
W_O_shape = (h * d_k, d_model)'''
S3["ps4_split_heads_code"] = '''def split_heads(W, h):
    W = np.asarray(W)
    assert W.shape[1] % h == 0
    return [W[:, i * (W.shape[1] // h):(i + 1) * (W.shape[1] // h)].copy() for i in range(h)]'''
S3["ps4_heads_answer"] = ANS_PS4
S3["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    m, n = np.indices((N, N))
    return (m <= n).astype(bool)'''
S3["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    mask = np.asarray(mask, dtype=bool)
    log_w = np.where(mask, np.asarray(scores, dtype=np.float64), -np.inf)   # log-domain
    any_allowed = mask.any(axis=0, keepdims=True)
    m = np.where(any_allowed, log_w.max(axis=0, keepdims=True), 0.0)
    with np.errstate(divide="ignore"):
        log_z = m + np.log(np.exp(log_w - m).sum(axis=0, keepdims=True))
    log_z = np.where(any_allowed, log_z, 0.0)
    w = np.exp(log_w - log_z)          # exp(-inf) = 0 exactly on masked entries
    return np.where(mask, w, 0.0)'''
S3["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    X = np.asarray(X, dtype=np.float64)
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    N_tok = X.shape[1]
    D_q = Q.shape[0]
    attentions = masked_softmax_cols(K.T @ Q / np.sqrt(D_q), causal_mask(N_tok))
    X_prime = V @ attentions
    return X_prime, attentions'''
S3["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    pos = np.arange(N, dtype=np.float64)
    i = np.arange(D // 2, dtype=np.float64)
    log_inv_freq = -(2.0 * i / D) * np.log(10000.0)           # log of 1 / 10000^(2i/D)
    angles = np.exp(log_inv_freq)[:, None] * pos[None, :]
    Pi = np.zeros((D, N))
    Pi[2 * i.astype(int)] = np.sin(angles)
    Pi[2 * i.astype(int) + 1] = np.cos(angles)
    return Pi'''
S3["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    X = np.array(X, dtype=np.float64)
    perm = list(perm)
    args = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    D_x, N_x = X.shape
    Pi = positional_encoding(D_x, N_x)          # tied to positions: never permuted

    def gap(f):
        return float(np.max(np.abs(f(X[:, perm]) - f(X)[:, perm])))

    g_plain = gap(lambda Z: scaled_self_attention(Z, *args)[0])
    g_causal = gap(lambda Z: masked_self_attention(Z, *args)[0])
    g_pos = gap(lambda Z: scaled_self_attention(Z + Pi, *args)[0])
    return np.array([g_plain, g_causal, g_pos])'''
S3["ps5_decoder_answer"] = ANS_PS5

# ================================================================ S4: own helpers, unusual decompositions
S4 = {}
S4["ps1_softmax_code"] = '''DEBUG = False


def _normalise(e, axis=None):
    return e / np.sum(e, axis=axis, keepdims=axis is not None)


def softmax(items_in):
    z = np.ravel(np.asarray(items_in, dtype=float))
    z = z - np.max(z)                     # new array, the input is untouched
    w = _normalise(np.exp(z))
    if DEBUG:
        print("softmax:", z, w)
    return w'''
S4["ps1_loop_code"] = '''def _project(omega, beta, x):
    return beta + omega @ x


def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    outputs = []
    for x_n in all_x:
        q_n = _project(omega_q, beta_q, x_n)
        dots = np.array([(_project(omega_k, beta_k, x_m).T @ q_n).item() for x_m in all_x])
        a = softmax(dots)
        values = np.hstack([_project(omega_v, beta_v, x_m) for x_m in all_x])   # D x N
        outputs.append(values @ a.reshape(-1, 1))                               # D x 1
        if DEBUG:
            print("weights", a)
    return outputs'''
S4["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    # softmax of columns = softmax of the rows of the transpose, transposed back
    Z = np.asarray(data_in, dtype=float).T
    E = np.exp(Z - Z.max(axis=1, keepdims=True))
    return _normalise(E, axis=1).T'''
S4["ps1_self_attention_code"] = '''def _attend(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, scale):
    Q = _project(omega_q, beta_q, X)
    K = _project(omega_k, beta_k, X)
    V = _project(omega_v, beta_v, X)
    A = softmax_cols((K.T @ Q) / scale(Q))
    return V @ A, A


def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    X_prime, attentions = _attend(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k,
                                  scale=lambda Q: 1.0)
    return X_prime, attentions'''
S4["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    X_prime, attentions = _attend(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k,
                                  scale=lambda Q: np.sqrt(Q.shape[0]))
    return X_prime, attentions'''
S4["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    # build the permutation matrix P and compare f(XP) with f(X)P
    N = X.shape[1]
    P = np.zeros((N, N))
    P[perm, np.arange(N)] = 1.0            # X @ P == X[:, perm]
    return bool(np.allclose(f(X @ P), f(X) @ P))'''
S4["ps1_positional_answer"] = ANS_PS1
S4["ps2_single_head_code"] = '''DEBUG = False


def _head(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Returns (output, attention) of one head."""
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    A = softmax_cols(K.T @ Q / np.sqrt(len(Q)))       # len(Q) = rows = D_q
    if DEBUG:
        print("head sizes", Q.shape, K.shape, V.shape)
    return V @ A, A


def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    return _head(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]'''
S4["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    # Omega_c [S1; S2] = Omega_c[:, :d1] S1 + Omega_c[:, d1:] S2
    S1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    S2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    d1 = S1.shape[0]
    X_prime = omega_c[:, :d1] @ S1 + omega_c[:, d1:] @ S2
    return X_prime'''
S4["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    X_prime = np.zeros((omega_c.shape[0], X.shape[1]))
    start = 0
    for p in heads:
        S_h = single_head_attention(X, p["omega_v"], p["omega_q"], p["omega_k"],
                                    p["beta_v"], p["beta_q"], p["beta_k"])
        stop = start + S_h.shape[0]
        X_prime = X_prime + omega_c[:, start:stop] @ S_h     # this head's block of columns
        start = stop
    return X_prime'''
S4["ps3_softmax_code"] = '''def _shift_rows(X):
    return X - np.max(X, axis=1, keepdims=True)


def softmax(X):
    E = np.exp(_shift_rows(np.asarray(X, dtype=float)))
    return E / np.sum(E, axis=1, keepdims=True)'''
S4["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    NAMES = ("W_q", "W_k", "W_v", "W_o")

    def __init__(self, dims):
        self.dims = dims
        for name in self.NAMES:                       # one draw per matrix
            setattr(self, name, np.random.standard_normal((dims, dims)))

    def attention_weights(self, x):
        Q = x @ self.W_q
        K = x @ self.W_k
        return softmax(Q @ K.T / np.sqrt(self.dims))

    def forward(self, x):
        A = self.attention_weights(x)
        # (A V) W_o = A (x W_v W_o): fold the two weight matrices first
        return A @ (x @ (self.W_v @ self.W_o))'''
S4["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    # dot product of every row with the vector: multiply then sum along the row
    return np.sum(np.asarray(matrix) * np.asarray(vector)[np.newaxis, :], axis=1)'''
S4["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    return np.asarray(scores) * n ** -0.5'''
S4["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    s = np.asarray(scores, dtype=float)
    e = np.exp(s - np.max(s))
    return e / np.sum(e)'''
S4["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    # weight j scales row j: put the weights in a column so they broadcast over rows
    a = np.asarray(attention_weights, dtype=float)[:, np.newaxis]
    return np.sum(a * np.asarray(hidden_encoder_matrix), axis=0)'''
S4["ps4_single_query_code"] = '''def _project_tokens(tokens, W):
    return np.asarray(tokens) @ W


def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = _project_tokens(query_token, W_Q)
    K = _project_tokens(tokens, W_K)
    V = _project_tokens(tokens, W_V)
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), q.shape[-1]))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output'''
S4["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
# x W^Q_i : (3 x 4)(4 x 2) = 3 x 2 per head; Concat -> 3 x 4; (3 x 4) W^O -> 3 x 4
head_W_shape = (4, 4 // 2)
concat_shape = (3, 2 * (4 // 2))
W_O_shape = (4, 4)'''
S4["ps4_split_heads_code"] = '''def split_heads(W, h):
    rows, cols = W.shape
    blocks = W.reshape(rows, h, cols // h).transpose(1, 0, 2)   # h x rows x cols/h
    return [blocks[i] for i in range(h)]'''
S4["ps4_heads_answer"] = ANS_PS4
S4["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.triu(np.ones((N, N), dtype=bool))'''
S4["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    scores = np.asarray(scores, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    # shift each column by the max over its *allowed* entries only
    shift = np.max(np.where(mask, scores, -np.inf), axis=0)
    shift[~np.isfinite(shift)] = 0.0
    e = np.zeros_like(scores)
    e[mask] = np.exp((scores - shift)[mask])
    totals = e.sum(axis=0)
    totals[totals == 0] = 1.0                # fully masked column stays all zero
    return e / totals'''
S4["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    S = K.T @ Q / np.sqrt(Q.shape[0])
    attentions = masked_softmax_cols(S, causal_mask(S.shape[1]))
    X_prime = V @ attentions
    return X_prime, attentions'''
S4["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    # e^{i w n} = cos(w n) + i sin(w n): one complex exponential per pair of rows
    w = 10000.0 ** (-np.arange(D // 2) * 2.0 / D)
    z = np.exp(1j * np.outer(w, np.arange(N)))            # D/2 x N
    return np.stack([z.imag, z.real], axis=1).reshape(D, N)'''
S4["ps5_equivariance_code"] = '''def _gap(f, X, perm):
    return np.max(np.abs(f(X[:, perm]) - f(X)[:, perm]))


def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    th = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(X.shape[0], X.shape[1])
    return np.array([_gap(lambda Z: scaled_self_attention(Z, *th)[0], X, perm),
                     _gap(lambda Z: masked_self_attention(Z, *th)[0], X, perm),
                     _gap(lambda Z: scaled_self_attention(Z + Pi, *th)[0], X, perm)])'''
S4["ps5_decoder_answer"] = ANS_PS5

STYLES = {"S1": S1, "S2": S2, "S3": S3, "S4": S4}

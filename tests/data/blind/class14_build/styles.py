"""Correct students s2 (loops / python lists), s3 (einsum / np.ma / logsumexp), s4 (helpers, copies, debug prints)."""
from base import S1

S2 = dict(S1)
S2["ps1_softmax_code"] = '''import math

def softmax(items_in):
    values = [float(v) for v in np.ravel(items_in)]
    biggest = max(values)
    exps = [math.exp(v - biggest) for v in values]
    total = sum(exps)
    return np.array([e / total for e in exps])
'''
S2["ps1_loop_code"] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    N_tokens = len(all_x)
    queries, keys, values = [], [], []
    for x in all_x:
        queries.append(omega_q @ x + beta_q)
        keys.append(omega_k @ x + beta_k)
        values.append(omega_v @ x + beta_v)
    outputs = []
    for n in range(N_tokens):
        dots = []
        for m in range(N_tokens):
            dots.append((keys[m].T @ queries[n]).item())
        weights = softmax(dots)
        out = weights[0] * values[0]
        for m in range(1, N_tokens):
            out = out + weights[m] * values[m]
        outputs.append(out.reshape(-1, 1))
    return outputs
'''
S2["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    data_in = np.asarray(data_in, dtype=float)
    result = np.zeros_like(data_in)
    for col in range(data_in.shape[1]):
        result[:, col] = softmax(data_in[:, col])
    return result
'''
S2["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    left = f(X[:, perm])
    right = f(X)[:, perm]
    if left.shape != right.shape:
        return False
    return np.allclose(left, right)
'''
S2["ps1_positional_answer"] = ("No, it is no longer equivariant. Pi is tied to the positions, so after permuting X each token "
    "gets a different positional vector added, and the queries/keys/values change, not just their order. Only if all "
    "columns of Pi were equal would the two sides agree; with Pi = np.arange(X.size).reshape(X.shape)/X.size my "
    "check_equivariance returned False.")
S2["ps2_single_head_code"] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    queries = omega_q @ X + beta_q
    keys = omega_k @ X + beta_k
    values = omega_v @ X + beta_v
    d_q = queries.shape[0]
    n_tok = X.shape[1]
    scores = np.zeros((n_tok, n_tok))
    for m in range(n_tok):
        for n in range(n_tok):
            scores[m, n] = keys[:, m] @ queries[:, n] / np.sqrt(d_q)
    return values @ softmax_cols(scores)
'''
S2["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    params = [(omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
              (omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)]
    stacked = np.concatenate([single_head_attention(X, *p) for p in params], axis=0)
    X_prime = omega_c @ stacked
    return X_prime
'''
S2["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    pieces = []
    for head in heads:
        pieces.append(single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                            head["beta_v"], head["beta_q"], head["beta_k"]))
    X_prime = omega_c @ np.concatenate(pieces, axis=0)
    return X_prime
'''
S2["ps3_softmax_code"] = '''def softmax(X):
    X = np.array(X, dtype=float)  # my own copy
    out = np.empty_like(X)
    for i in range(X.shape[0]):
        row = X[i] - np.max(X[i])
        ex = np.exp(row)
        out[i] = ex / np.sum(ex)
    return out
'''
S2["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        W = np.random.randn(4, dims, dims)
        self.W_q, self.W_k, self.W_v, self.W_o = W[0], W[1], W[2], W[3]

    def forward(self, x):
        Q = np.dot(x, self.W_q)
        K = np.dot(x, self.W_k)
        V = np.dot(x, self.W_v)
        S = np.dot(Q, K.T) / self.dims ** 0.5
        A = softmax(S)
        self_attention = np.dot(A, V)
        return np.dot(self_attention, self.W_o)
'''
S2["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    return np.array([np.dot(row, vector) for row in matrix])
'''
S2["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    return np.array([s / n ** 0.5 for s in scores])
'''
S2["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    shifted = [s - max(scores) for s in scores]
    exps = np.exp(np.array(shifted, dtype=float))
    return exps / exps.sum()
'''
S2["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    c = np.zeros(hidden_encoder_matrix.shape[1])
    for j in range(len(attention_weights)):
        c = c + attention_weights[j] * hidden_encoder_matrix[j]
    return c
'''
S2["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.dot(query_token, W_Q)
    keys = np.dot(tokens, W_K)
    values = np.dot(tokens, W_V)
    scores = get_scores(keys, q)
    scores = scale_scores(scores, keys.shape[1])
    attention_weights = get_attention_weights(scores)
    output = get_context_vector(attention_weights, values)
    return attention_weights, output
'''
S2["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
d_model, T, h = 4, 3, 2
head_W_shape = (d_model, d_model // h)
concat_shape = (T, h * (d_model // h))
W_O_shape = (h * (d_model // h), d_model)
'''
S2["ps4_split_heads_code"] = '''def split_heads(W, h):
    width = W.shape[1] // h
    blocks = []
    for i in range(h):
        blocks.append(W[:, i * width:(i + 1) * width])
    return blocks
'''
S2["ps4_heads_answer"] = ("With several heads every query gets h different weight distributions instead of one, so the "
    "model can attend to several tokens for different reasons at the same time (the two heat maps differed). Each head "
    "uses a slice of W^Q, W^K, W^V, so the total number of parameters and the cost stay about the same as one big head. "
    "The concatenated outputs are mixed by W^O, so every output dimension can combine information from all heads. "
    "It also makes the model less dependent on a single saturated softmax.")
S2["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    mask = np.zeros((N, N), dtype=bool)
    for m in range(N):
        for n in range(N):
            if m <= n:
                mask[m, n] = True
    return mask
'''
S2["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    scores = np.asarray(scores, dtype=float)
    weights = np.zeros(scores.shape)
    for n in range(scores.shape[1]):
        allowed = [m for m in range(scores.shape[0]) if mask[m, n]]
        if not allowed:
            continue
        vals = scores[allowed, n]
        e = np.exp(vals - vals.max())
        weights[allowed, n] = e / e.sum()
    return weights
'''
S2["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    queries = omega_q @ X + beta_q
    keys = omega_k @ X + beta_k
    values = omega_v @ X + beta_v
    n_tokens = X.shape[1]
    scores = (keys.T @ queries) / np.sqrt(queries.shape[0])
    attentions = masked_softmax_cols(scores, causal_mask(n_tokens))
    X_prime = values @ attentions
    return X_prime, attentions
'''
S2["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    for n in range(N):
        for i in range(D // 2):
            angle = n / 10000 ** (2 * i / D)
            Pi[2 * i, n] = np.sin(angle)
            Pi[2 * i + 1, n] = np.cos(angle)
    return Pi
'''
S2["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    D_here, N_here = X.shape
    Pi = positional_encoding(D_here, N_here)
    X_perm = X[:, perm]
    gaps = []
    out_plain = scaled_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    out_plain_p = scaled_self_attention(X_perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    gaps.append(np.abs(out_plain_p - out_plain[:, perm]).max())
    out_c = masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    out_c_p = masked_self_attention(X_perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    gaps.append(np.abs(out_c_p - out_c[:, perm]).max())
    out_pi = scaled_self_attention(X + Pi, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    out_pi_p = scaled_self_attention(X_perm + Pi, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    gaps.append(np.abs(out_pi_p - out_pi[:, perm]).max())
    return np.array(gaps)
'''
S2["ps5_decoder_answer"] = ("(a) It would learn to look at token n+1 and copy it, a trivial solution with a perfect training "
    "loss; when generating, token n+1 has not been written yet, so the copied information is missing and the predictions are garbage.\n\n"
    "(b) No. The causal output n is a weighted sum over the set {0..n}; the weights depend on the keys and values of those "
    "tokens but not on their positions, so shuffling tokens 0..n-1 among themselves does not change output n.")

S3 = dict(S1)
S3["ps1_softmax_code"] = '''def softmax(items_in):
    z = np.array(items_in, dtype=np.float64).reshape(-1)
    m = np.max(z)
    log_norm = m + np.log(np.sum(np.exp(z - m)))   # log-sum-exp
    return np.exp(z - log_norm)
'''
S3["ps1_loop_code"] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    keys = [omega_k @ x + beta_k for x in all_x]
    vals = [omega_v @ x + beta_v for x in all_x]
    result = []
    for x_n in all_x:
        q_n = omega_q @ x_n + beta_q
        a = softmax([(k_m.T @ q_n).item() for k_m in keys])
        result.append(sum(a_m * v_m for a_m, v_m in zip(a, vals)))
    return result
'''
S3["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    A = np.asarray(data_in, dtype=np.float64)
    m = A.max(axis=0)
    lse = m + np.log(np.exp(A - m).sum(axis=0))
    return np.exp(A - lse)
'''
S3["ps1_self_attention_code"] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum('ij,jn->in', omega_q, X) + beta_q
    K = np.einsum('ij,jn->in', omega_k, X) + beta_k
    V = np.einsum('ij,jn->in', omega_v, X) + beta_v
    attentions = softmax_cols(np.einsum('dm,dn->mn', K, Q))
    X_prime = np.einsum('dm,mn->dn', V, attentions)
    return X_prime, attentions
'''
S3["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum('ij,jn->in', omega_q, X) + beta_q
    K = np.einsum('ij,jn->in', omega_k, X) + beta_k
    V = np.einsum('ij,jn->in', omega_v, X) + beta_v
    d_q = Q.shape[0]
    attentions = softmax_cols(np.einsum('dm,dn->mn', K, Q) / np.sqrt(d_q))
    X_prime = np.einsum('dm,mn->dn', V, attentions)
    return X_prime, attentions
'''
S3["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    perm = np.asarray(perm)
    return np.allclose(f(X[:, perm]), f(X)[:, perm], rtol=1e-5, atol=1e-8)
'''
S3["ps2_single_head_code"] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum('hd,dn->hn', omega_q, X) + beta_q
    K = np.einsum('hd,dn->hn', omega_k, X) + beta_k
    V = np.einsum('hd,dn->hn', omega_v, X) + beta_v
    A = softmax_cols(np.einsum('hm,hn->mn', K, Q) / np.sqrt(Q.shape[0]))
    return np.einsum('hm,mn->hn', V, A)
'''
S3["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    keys = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")
    stacked = np.vstack([single_head_attention(X, *(head[k] for k in keys)) for head in heads])
    X_prime = np.einsum('ij,jn->in', omega_c, stacked)
    return X_prime
'''
S3["ps3_softmax_code"] = '''def softmax(X):
    X = np.asarray(X, dtype=np.float64)
    m = np.max(X, axis=-1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(X - m), axis=-1, keepdims=True))
    return np.exp(X - lse)
'''
S3["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = int(dims)
        self.W_o = np.random.normal(size=(dims, dims))   # the order is free
        self.W_v = np.random.normal(size=(dims, dims))
        self.W_k = np.random.normal(size=(dims, dims))
        self.W_q = np.random.normal(size=(dims, dims))

    def forward(self, x):
        Q = np.einsum('nd,de->ne', x, self.W_q)
        K = np.einsum('nd,de->ne', x, self.W_k)
        V = np.einsum('nd,de->ne', x, self.W_v)
        S = np.einsum('ie,je->ij', Q, K) / np.sqrt(self.dims)
        A = softmax(S)
        return np.einsum('ij,je,ef->if', A, V, self.W_o)
'''
S3["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    return np.einsum('tn,n->t', matrix, vector)
'''
S3["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    s = np.asarray(scores, dtype=np.float64)
    lse = s.max() + np.log(np.exp(s - s.max()).sum())
    return np.exp(s - lse)
'''
S3["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return np.einsum('t,tn->n', attention_weights, hidden_encoder_matrix)
'''
S3["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape = (4, 2)
concat_shape = (3, 4)
W_O_shape = (4, 4)
'''
S3["ps4_split_heads_code"] = '''def split_heads(W, h):
    return list(np.split(np.asarray(W), h, axis=1))
'''
S3["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.triu(np.ones((N, N), dtype=bool))
'''
S3["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    ms = np.ma.masked_array(np.asarray(scores, dtype=float), mask=~np.asarray(mask, dtype=bool))
    with np.errstate(all="ignore"):
        shifted = ms - ms.max(axis=0)
        e = np.ma.exp(shifted)
        w = e / e.sum(axis=0)
    return np.ma.filled(w, 0.0).astype(float)
'''
S3["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    pos = np.arange(N, dtype=float)
    i = np.arange(D // 2, dtype=float)
    angle = np.einsum('i,n->in', 1.0 / 10000.0 ** (2 * i / D), pos)
    Pi = np.empty((D, N))
    Pi[0::2] = np.sin(angle)
    Pi[1::2] = np.cos(angle)
    return Pi
'''
S3["ps1_positional_answer"] = ("No. Sa[X + Pi]P equals Sa[(X + Pi)P] = Sa[XP + PiP], but the layer computes Sa[XP + Pi]: "
    "the tokens moved while the encodings stayed. Since the columns of Pi are all different, PiP != Pi, so a token "
    "gets different queries/keys/values after the permutation and the outputs are not just reordered.")
S3["ps4_heads_answer"] = ("Multiple heads give the layer several independent attention distributions per query: each head has its own "
    "projections W^Q_i, W^K_i, W^V_i and therefore its own notion of similarity, so one head can track one relation "
    "while another tracks a different one (our two heads preferred different tokens). Since each head has only "
    "d_model/h dimensions, the cost is similar to one full head. W^O then combines the heads' outputs.")
S3["ps5_decoder_answer"] = ("(a) It would learn to read off token n+1 directly from the input (cheating), so it never learns "
    "to predict; at generation time the future token is unavailable and the model fails.\n\n(b) No, output n does not "
    "depend on the order of tokens 0..n-1: the masked softmax sums over them with weights depending only on their "
    "content, so permuting them among themselves leaves output n unchanged.")

S4 = dict(S1)
S4["ps1_softmax_code"] = '''def _stable_exp(z):
    """exp(z - max z): every exponent <= 0."""
    return np.exp(z - np.max(z))


def softmax(items_in):
    scores = np.array(items_in, dtype=float).flatten()   # copy, never touch the input
    unnormalised = _stable_exp(scores)
    weights = unnormalised / np.sum(unnormalised)
    return weights.reshape(-1, 1)   # column (N, 1); the tests ravel it
'''
S4["ps1_loop_code"] = '''def linear(omega, beta, x):
    return beta + omega @ x


def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    qs = [linear(omega_q, beta_q, x) for x in all_x]
    ks = [linear(omega_k, beta_k, x) for x in all_x]
    vs = [linear(omega_v, beta_v, x) for x in all_x]
    out = []
    for n, q_n in enumerate(qs):
        a_n = np.ravel(softmax([(k_m.T @ q_n).item() for k_m in ks]))
        x_prime_n = np.hstack(vs) @ a_n.reshape(-1, 1)
        assert x_prime_n.shape == vs[0].shape
        out.append(x_prime_n)
    return out
'''
S4["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    data = np.array(data_in, dtype=float)
    data = data - np.max(data, axis=0)[np.newaxis, :]
    numer = np.exp(data)
    denom = np.sum(numer, axis=0)[np.newaxis, :]
    return numer / denom
'''
S4["ps1_self_attention_code"] = '''def project(omega, beta, X):
    """beta 1^T + omega X (eq. 12.6)."""
    return beta + omega @ X


def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = project(omega_q, beta_q, X)
    K = project(omega_k, beta_k, X)
    V = project(omega_v, beta_v, X)
    attentions = softmax_cols(K.T @ Q)
    X_prime = V @ attentions
    return X_prime, attentions
'''
S4["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = project(omega_q, beta_q, X)
    K = project(omega_k, beta_k, X)
    V = project(omega_v, beta_v, X)
    D_q = Q.shape[0]
    # print("debug: D_q =", D_q)
    attentions = softmax_cols((K.T @ Q) / np.sqrt(D_q))
    X_prime = V @ attentions
    return X_prime, attentions
'''
S4["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    X_permuted = np.array(X)[:, list(perm)]
    out_of_permuted = np.asarray(f(X_permuted))
    permuted_out = np.asarray(f(np.array(X)))[:, list(perm)]
    print("debug: largest difference", np.max(np.abs(out_of_permuted - permuted_out)))
    return bool(np.allclose(out_of_permuted, permuted_out))
'''
S4["ps2_single_head_code"] = '''def _qkv(X, omega, beta):
    return omega @ X + beta


def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = _qkv(X, omega_q, beta_q)
    K = _qkv(X, omega_k, beta_k)
    V = _qkv(X, omega_v, beta_v)
    D_q = Q.shape[0]
    A = softmax_cols((K.T @ Q) / np.sqrt(D_q))
    assert A.shape == (X.shape[1], X.shape[1])
    return V @ A
'''
S4["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    heads_here = [dict(omega_v=omega_v1, omega_q=omega_q1, omega_k=omega_k1, beta_v=beta_v1, beta_q=beta_q1, beta_k=beta_k1),
                  dict(omega_v=omega_v2, omega_q=omega_q2, omega_k=omega_k2, beta_v=beta_v2, beta_q=beta_q2, beta_k=beta_k2)]
    X_prime = _combine_heads(X, heads_here, omega_c)
    return X_prime


def _combine_heads(X, heads, omega_c):
    outputs = [single_head_attention(X, p["omega_v"], p["omega_q"], p["omega_k"],
                                     p["beta_v"], p["beta_q"], p["beta_k"]) for p in heads]
    return omega_c @ np.vstack(outputs)
'''
S4["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    X_prime = _combine_heads(X, heads, omega_c)
    return X_prime
'''
S4["ps3_softmax_code"] = '''def softmax(X):
    row_max = np.max(X, axis=1, keepdims=True)
    shifted = X - row_max            # new array, X untouched
    exp_x = np.exp(shifted)
    return exp_x / np.sum(exp_x, axis=1, keepdims=True)
'''
S4["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        for name in ("W_q", "W_k", "W_v", "W_o"):
            setattr(self, name, np.random.normal(loc=0.0, scale=1.0, size=(dims, dims)))

    def forward(self, x):
        x = np.asarray(x, dtype=float)
        Q, K, V = (x @ W for W in (self.W_q, self.W_k, self.W_v))
        scores = (Q @ K.T) / np.sqrt(self.dims)
        attention_weights = softmax(scores)
        self_attention = attention_weights @ V
        output = self_attention @ self.W_o
        return output
'''
S4["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    matrix = np.asarray(matrix, dtype=float)
    vector = np.asarray(vector, dtype=float).reshape(-1)
    return np.sum(matrix * vector[np.newaxis, :], axis=1)
'''
S4["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    s = np.array(scores, dtype=float)
    s = s - np.max(s)
    w = np.exp(s)
    return w / np.sum(w)
'''
S4["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    w = np.asarray(attention_weights, dtype=float).reshape(-1, 1)   # one weight per ROW
    return np.sum(w * np.asarray(hidden_encoder_matrix, dtype=float), axis=0)
'''
S4["ps4_split_heads_code"] = '''def split_heads(W, h):
    cols = W.shape[1]
    assert cols % h == 0, "columns must be a multiple of h"
    size = cols // h
    return [np.array(W[:, start:start + size]) for start in range(0, cols, size)]
'''
S4["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    scores = np.array(scores, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    filled = np.where(mask, scores, -np.inf)
    col_max = np.max(filled, axis=0)
    col_max[~np.isfinite(col_max)] = 0.0        # fully masked column
    exps = np.exp(filled - col_max) * mask
    sums = exps.sum(axis=0)
    safe = np.where(sums > 0, sums, 1.0)
    return exps / safe
'''
S4["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    n_tokens = X.shape[1]
    D_q = Q.shape[0]
    attentions = masked_softmax_cols((K.T @ Q) / np.sqrt(D_q), causal_mask(n_tokens))
    X_prime = V @ attentions
    return X_prime, attentions
'''
S4["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    positions = np.arange(N)
    for r in range(D):
        two_i = r if r % 2 == 0 else r - 1
        wave = positions / (10000 ** (two_i / D))
        Pi[r] = np.sin(wave) if r % 2 == 0 else np.cos(wave)
    return Pi
'''
S4["ps1_positional_answer"] = ("No. With the encoding added, permuting X gives Sa[XP + Pi], while permuting the output gives "
    "Sa[X + Pi]P = Sa[XP + Pi P]. These are equal only if Pi P = Pi, i.e. if the encoding were the same for every "
    "position, which defeats its purpose; with distinct columns my check_equivariance returns False. The positional "
    "encoding is exactly what makes the layer sensitive to order.")
S4["ps4_heads_answer"] = ("Using several heads lets each query look at the sentence in several ways at once: every head has "
    "its own W^Q_i, W^K_i, W^V_i, so it computes its own attention matrix (our head 1 favoured \"translation\", head 2 \"is\"). "
    "Different heads can specialise on different relations (position, syntax, meaning), and the outputs are "
    "concatenated and mixed by W^O. Because each head works in d_model/h dimensions, this costs about as much as a "
    "single full-width head, and averaging inside one softmax would blur these relations together.")
S4["ps5_decoder_answer"] = ("(a) Output n would simply attend to input n+1 and copy it, which gives a perfect training loss "
    "but teaches nothing; at generation time token n+1 is not yet known, so the model cannot predict it.\n\n"
    "(b) No: output n depends on tokens 0..n only through a softmax-weighted sum whose weights depend on the "
    "tokens' contents, so any permutation of tokens 0..n-1 among themselves gives the same output n.")

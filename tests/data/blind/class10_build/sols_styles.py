# Correct students 1-4, each in its own style.
S1 = {  # object-oriented helpers and small classes
"ps1_self_attention": {
"ps1_softmax_code": '''class StableSoftmax:
    """Softmax along one axis (None = the whole array), shifted by the maximum."""

    def __init__(self, axis=None):
        self.axis = axis

    def __call__(self, z):
        z = np.array(z, dtype=float)  # a new array: the caller's data is never touched
        shifted = z - np.max(z, axis=self.axis, keepdims=True)
        e = np.exp(shifted)
        return e / np.sum(e, axis=self.axis, keepdims=True)


_softmax_flat = StableSoftmax()


def softmax(items_in):
    return _softmax_flat(np.ravel(items_in))''',
"ps1_loop_code": '''class Projection:
    """x -> beta + omega x for one D x 1 column."""

    def __init__(self, omega, beta):
        self.omega = omega
        self.beta = beta

    def __call__(self, x):
        return self.beta + self.omega @ x


def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    to_query = Projection(omega_q, beta_q)
    to_key = Projection(omega_k, beta_k)
    to_value = Projection(omega_v, beta_v)
    keys = [to_key(x) for x in all_x]
    values = [to_value(x) for x in all_x]
    outputs = []
    for x in all_x:
        q = to_query(x)
        weights = softmax([(k.T @ q).item() for k in keys])
        outputs.append(sum(w * v for w, v in zip(weights, values)))
    return outputs''',
"ps1_softmax_cols_code": '''_softmax_columns = StableSoftmax(axis=0)


def softmax_cols(data_in):
    return _softmax_columns(data_in)''',
"ps1_self_attention_code": '''class QKV:
    """Queries, keys and values of the columns of X (equation 12.6)."""

    def __init__(self, X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
        self.Q = Projection(omega_q, beta_q)(X)
        self.K = Projection(omega_k, beta_k)(X)
        self.V = Projection(omega_v, beta_v)(X)

    def attend(self, scale=1.0):
        attentions = softmax_cols((self.K.T @ self.Q) / scale)
        return self.V @ attentions, attentions


def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    X_prime, attentions = QKV(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k).attend()
    return X_prime, attentions''',
"ps1_scaled_code": '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    qkv = QKV(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    X_prime, attentions = qkv.attend(scale=np.sqrt(qkv.Q.shape[0]))
    return X_prime, attentions''',
"ps1_equivariance_code": '''class EquivarianceCheck:
    def __init__(self, f):
        self.f = f

    def __call__(self, X, perm):
        perm = list(perm)
        return bool(np.allclose(self.f(X[:, perm]), self.f(X)[:, perm]))


def check_equivariance(f, X, perm):
    return EquivarianceCheck(f)(X, perm)''',
"ps1_positional_answer": '''No. Pi is tied to the positions, so after permuting the tokens each token gets a different positional column added: X P + Pi is not (X + Pi) P, and so Sa[X P + Pi] is in general not Sa[X + Pi] P. With Pi = np.arange(X.size).reshape(X.shape) / X.size, check_equivariance(lambda Z: attention(Z + Pi), X, [1, 2, 0]) gives False.''',
},
"ps2_multihead_attention": {
"ps2_single_head_code": '''class AttentionHead:
    """One head of scaled self-attention (equation 12.10); tokens are columns."""

    def __init__(self, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
        self.omega_v, self.omega_q, self.omega_k = omega_v, omega_q, omega_k
        self.beta_v, self.beta_q, self.beta_k = beta_v, beta_q, beta_k

    @classmethod
    def from_dict(cls, d):
        return cls(d["omega_v"], d["omega_q"], d["omega_k"], d["beta_v"], d["beta_q"], d["beta_k"])

    def __call__(self, X):
        Q = self.beta_q + self.omega_q @ X
        K = self.beta_k + self.omega_k @ X
        V = self.beta_v + self.omega_v @ X
        d_q = Q.shape[0]  # size of one query of this head
        return V @ softmax_cols(K.T @ Q / np.sqrt(d_q))


def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    return AttentionHead(omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)(X)''',
"ps2_multihead_scaled_code": '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    two_heads = [AttentionHead(omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
                 AttentionHead(omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)]
    X_prime = omega_c @ np.vstack([head(X) for head in two_heads])
    return X_prime''',
"ps2_multihead_general_code": '''class MultiHead:
    def __init__(self, heads, omega_c):
        self.heads = [AttentionHead.from_dict(h) for h in heads]
        self.omega_c = omega_c

    def __call__(self, X):
        return self.omega_c @ np.vstack([head(X) for head in self.heads])


def multihead_self_attention(X, heads, omega_c):
    X_prime = MultiHead(heads, omega_c)(X)
    return X_prime''',
},
"ps3_attention_layer": {
"ps3_softmax_code": '''class RowSoftmax:
    """Stable softmax of every row of a 2-D array."""

    def __call__(self, X):
        X = np.asarray(X, dtype=float)
        shifted = X - X.max(axis=1, keepdims=True)  # a new array
        e = np.exp(shifted)
        return e / e.sum(axis=1, keepdims=True)


_row_softmax = RowSoftmax()


def softmax(X):
    return _row_softmax(X)''',
"ps3_layer_code": '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    WEIGHT_NAMES = ("W_q", "W_k", "W_v", "W_o")

    def __init__(self, dims):
        self.dims = dims
        for name in self.WEIGHT_NAMES:
            setattr(self, name, np.random.normal(loc=0.0, scale=1.0, size=(dims, dims)))

    def _scores(self, Q, K):
        return Q @ K.T / np.sqrt(self.dims)

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        weights = softmax(self._scores(Q, K))
        return (weights @ V) @ self.W_o''',
},
"ps4_encoder_decoder_attention": {
"ps4_get_scores_code": '''def get_scores(matrix, vector):
    matrix = np.asarray(matrix, dtype=float)
    vector = np.asarray(vector, dtype=float)
    return np.array([row @ vector for row in matrix])''',
"ps4_scale_scores_code": '''def scale_scores(scores, n):
    return np.asarray(scores, dtype=float) / np.sqrt(n)''',
"ps4_attention_weights_code": '''class Softmax1D:
    def __call__(self, z):
        z = np.asarray(z, dtype=float)
        e = np.exp(z - z.max())
        return e / e.sum()


def get_attention_weights(scores):
    return Softmax1D()(scores)''',
"ps4_context_vector_code": '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    weights = np.asarray(attention_weights, dtype=float)
    states = np.asarray(hidden_encoder_matrix, dtype=float)
    return (weights[:, np.newaxis] * states).sum(axis=0)  # weight j scales row j''',
"ps4_single_query_code": '''class Projections:
    def __init__(self, W_Q, W_K, W_V):
        self.W_Q, self.W_K, self.W_V = W_Q, W_K, W_V

    @property
    def d_k(self):
        return self.W_K.shape[1]


def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    p = Projections(W_Q, W_K, W_V)
    q = query_token @ p.W_Q
    K = tokens @ p.W_K
    V = tokens @ p.W_V
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), p.d_k))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output''',
"ps4_dimensions_code": '''# Tuples of ints (rows, columns), for example (5, 7).
T, d_model, n_heads = 3, 4, 2
d_head = d_model // n_heads
head_W_shape = (d_model, d_head)          # X (T x d_model) @ W^Q_i -> T x d_head
concat_shape = (T, n_heads * d_head)      # heads side by side
W_O_shape = (n_heads * d_head, d_model)   # back to T x d_model''',
"ps4_split_heads_code": '''def split_heads(W, h):
    width = W.shape[1] // h
    return [W[:, i * width:(i + 1) * width] for i in range(h)]''',
"ps4_heads_answer": '''With several heads every head has its own W^Q_i, W^K_i and W^V_i, so it can learn its own notion of relevance; a single head produces only one set of weights per query, which has to average over all relations. In the heat maps above the two heads already attend differently ("translation" vs "is"). Since each head works in d_model/h dimensions, this comes at roughly the cost of one full-size head, and W^O combines the heads' outputs so that every output feature can use all of them.''',
},
"ps5_masked_attention": {
"ps5_causal_mask_code": '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    idx = np.arange(N)
    return idx[:, None] <= idx[None, :]''',
"ps5_masked_softmax_code": '''class MaskedColumnSoftmax:
    def __init__(self, mask):
        self.mask = np.asarray(mask, dtype=bool)

    def __call__(self, scores):
        scores = np.asarray(scores, dtype=float)
        safe = np.where(self.mask, scores, -np.inf)
        has_any = self.mask.any(axis=0, keepdims=True)
        shift = np.where(has_any, safe.max(axis=0, keepdims=True), 0.0)
        e = np.where(self.mask, np.exp(safe - shift), 0.0)
        total = e.sum(axis=0, keepdims=True)
        return np.where(has_any, e / np.where(total > 0, total, 1.0), 0.0)


def masked_softmax_cols(scores, mask):
    return MaskedColumnSoftmax(mask)(scores)''',
"ps5_masked_attention_code": '''class CausalAttention:
    def __init__(self, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
        self.params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)

    def __call__(self, X):
        omega_v, omega_q, omega_k, beta_v, beta_q, beta_k = self.params
        Q = beta_q + omega_q @ X
        K = beta_k + omega_k @ X
        V = beta_v + omega_v @ X
        scores = K.T @ Q / np.sqrt(Q.shape[0])
        attentions = masked_softmax_cols(scores, causal_mask(X.shape[1]))
        return V @ attentions, attentions


def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    X_prime, attentions = CausalAttention(omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)(X)
    return X_prime, attentions''',
"ps5_positional_encoding_code": '''class Sinusoids:
    def __init__(self, D):
        self.D = D

    def inverse_frequency(self, r):
        return 10000 ** ((r - r % 2) / self.D)

    def row(self, r, positions):
        angle = positions / self.inverse_frequency(r)
        return np.sin(angle) if r % 2 == 0 else np.cos(angle)


def positional_encoding(D, N):
    waves = Sinusoids(D)
    positions = np.arange(N, dtype=float)
    return np.array([waves.row(r, positions) for r in range(D)])''',
"ps5_equivariance_code": '''class Gap:
    def __init__(self, f):
        self.f = f

    def __call__(self, X, perm):
        return float(np.max(np.abs(self.f(X[:, perm]) - self.f(X)[:, perm])))


def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(*X.shape)
    maps = [lambda Z: scaled_self_attention(Z, *params)[0],
            lambda Z: masked_self_attention(Z, *params)[0],
            lambda Z: scaled_self_attention(Z + Pi, *params)[0]]
    return np.array([Gap(f)(X, perm) for f in maps])''',
"ps5_decoder_answer": '''(a) It would learn to read token n+1 straight from its input and copy it, which makes the training loss tiny; at generation time token n+1 has not been written yet, so the model has nothing to copy and its predictions are useless.

(b) No. Without positional encodings output n is a weighted sum over the set {0, ..., n}; permuting tokens 0, ..., n-1 among themselves just reorders the terms of the softmax and the sum, so output n stays the same.''',
},
}

S2 = {  # einsum / tensordot / broadcasting
"ps1_self_attention": {
"ps1_softmax_code": '''def softmax(items_in):
    z = np.ravel(np.asarray(items_in, dtype=np.float64))
    e = np.exp(z - z.max())
    return e / np.einsum("i->", e)''',
"ps1_loop_code": '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    qs = [beta_q + np.einsum("ij,jk->ik", omega_q, x) for x in all_x]
    ks = [beta_k + np.einsum("ij,jk->ik", omega_k, x) for x in all_x]
    vs = np.stack([beta_v + np.einsum("ij,jk->ik", omega_v, x) for x in all_x])  # N x D x 1
    outs = []
    for q in qs:
        a = softmax([np.einsum("ik,ik->", k, q) for k in ks])
        outs.append(np.einsum("m,mij->ij", a, vs))
    return outs''',
"ps1_softmax_cols_code": '''def softmax_cols(data_in):
    e = np.exp(data_in - np.max(data_in, axis=0)[np.newaxis, :])
    return e / np.einsum("mn->n", e)[np.newaxis, :]''',
"ps1_self_attention_code": '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum("de,en->dn", omega_q, X)
    K = beta_k + np.einsum("de,en->dn", omega_k, X)
    V = beta_v + np.einsum("de,en->dn", omega_v, X)
    attentions = softmax_cols(np.einsum("dm,dn->mn", K, Q))
    X_prime = np.einsum("dm,mn->dn", V, attentions)
    return X_prime, attentions''',
"ps1_scaled_code": '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum("de,en->dn", omega_q, X)
    K = beta_k + np.einsum("de,en->dn", omega_k, X)
    V = beta_v + np.einsum("de,en->dn", omega_v, X)
    attentions = softmax_cols(np.einsum("dm,dn->mn", K, Q) / np.sqrt(Q.shape[0]))
    X_prime = np.einsum("dm,mn->dn", V, attentions)
    return X_prime, attentions''',
"ps1_equivariance_code": '''def check_equivariance(f, X, perm):
    left = f(np.take(X, perm, axis=1))
    right = np.take(f(X), perm, axis=1)
    return bool(np.allclose(left, right))''',
"ps1_positional_answer": '''No. Only the tokens are permuted, Pi is not, so X P + Pi != (X + Pi) P and the layer sees different token+position sums; in general Sa[X P + Pi] != Sa[X + Pi] P. check_equivariance(lambda Z: attention(Z + Pi), X, [1, 2, 0]) returns False, whereas without Pi it returns True.''',
},
"ps2_multihead_attention": {
"ps2_single_head_code": '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = np.einsum("hd,dn->hn", omega_q, X) + beta_q
    K = np.einsum("hd,dn->hn", omega_k, X) + beta_k
    V = np.einsum("hd,dn->hn", omega_v, X) + beta_v
    A = softmax_cols(np.einsum("hm,hn->mn", K, Q) / np.sqrt(Q.shape[0]))
    return np.einsum("hm,mn->hn", V, A)''',
"ps2_multihead_scaled_code": '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    stacked = np.concatenate(
        [single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
         single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)], axis=0)
    X_prime = np.einsum("ij,jn->in", omega_c, stacked)
    return X_prime''',
"ps2_multihead_general_code": '''def multihead_self_attention(X, heads, omega_c):
    per_head = np.stack([single_head_attention(X, h["omega_v"], h["omega_q"], h["omega_k"],
                                               h["beta_v"], h["beta_q"], h["beta_k"])
                         for h in heads])            # H x (D/H) x N
    stacked = per_head.reshape(-1, X.shape[1])       # head 0's rows first
    X_prime = np.tensordot(omega_c, stacked, axes=(1, 0))
    return X_prime''',
},
"ps3_attention_layer": {
"ps3_softmax_code": '''def softmax(X):
    e = np.exp(X - np.max(X, axis=-1, keepdims=True))
    return e / np.einsum("ij->i", e)[:, None]''',
"ps3_layer_code": '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        W = np.random.normal(0.0, 1.0, size=(4, dims, dims))  # one draw, four different matrices
        self.W_q, self.W_k, self.W_v, self.W_o = W[0], W[1], W[2], W[3]

    def forward(self, x):
        Q = np.einsum("nd,de->ne", x, self.W_q)
        K = np.einsum("nd,de->ne", x, self.W_k)
        V = np.einsum("nd,de->ne", x, self.W_v)
        S = np.einsum("id,jd->ij", Q, K) / np.sqrt(self.dims)
        A = softmax(S)
        return np.einsum("ij,jd,de->ie", A, V, self.W_o)''',
},
"ps4_encoder_decoder_attention": {
"ps4_get_scores_code": '''def get_scores(matrix, vector):
    return np.einsum("tk,k->t", matrix, vector)''',
"ps4_scale_scores_code": '''def scale_scores(scores, n):
    return np.true_divide(scores, np.sqrt(n))''',
"ps4_attention_weights_code": '''def get_attention_weights(scores):
    e = np.exp(np.subtract(scores, np.max(scores)))
    return e / np.einsum("t->", e)''',
"ps4_context_vector_code": '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return np.einsum("t,tk->k", attention_weights, hidden_encoder_matrix)''',
"ps4_single_query_code": '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.einsum("d,dk->k", query_token, W_Q)
    K = np.einsum("td,dk->tk", tokens, W_K)
    V = np.einsum("td,dv->tv", tokens, W_V)
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), K.shape[1]))
    output = np.einsum("t,tv->v", attention_weights, V)
    return attention_weights, output''',
"ps4_dimensions_code": '''# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape = (4, 2)   # d_model x d_model/h
concat_shape = (3, 4)   # T x (h * d_v)
W_O_shape = (4, 4)      # (h * d_v) x d_model''',
"ps4_split_heads_code": '''def split_heads(W, h):
    return list(np.split(W, h, axis=1))''',
"ps4_heads_answer": '''Several heads let the layer compute several different attention distributions in parallel from the same tokens, each with its own projections, instead of one distribution that must capture everything (our two heads already weight "translation" and "is" differently). Each head works in a smaller d_model/h space, so the total cost is about the same as a single full-size head. The concatenation followed by W^O lets the model combine the information that the different heads extracted.''',
},
"ps5_masked_attention": {
"ps5_causal_mask_code": '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.triu(np.ones((N, N), dtype=bool))''',
"ps5_masked_softmax_code": '''def masked_softmax_cols(scores, mask):
    scores = np.asarray(scores, dtype=float)
    col_max = np.max(scores, axis=0, initial=-np.inf, where=mask)
    col_max = np.where(np.isfinite(col_max), col_max, 0.0)[None, :]
    e = np.exp(scores - col_max, where=mask, out=np.zeros_like(scores))
    denom = np.einsum("mn->n", e)[None, :]
    return e / np.where(denom == 0, 1.0, denom)''',
"ps5_masked_attention_code": '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum("de,en->dn", omega_q, X)
    K = beta_k + np.einsum("de,en->dn", omega_k, X)
    V = beta_v + np.einsum("de,en->dn", omega_v, X)
    S = np.einsum("dm,dn->mn", K, Q) / np.sqrt(Q.shape[0])
    attentions = masked_softmax_cols(S, causal_mask(X.shape[1]))
    X_prime = np.einsum("dm,mn->dn", V, attentions)
    return X_prime, attentions''',
"ps5_positional_encoding_code": '''def positional_encoding(D, N):
    rows = np.arange(D)[:, None]
    pos = np.arange(N)[None, :]
    angle = pos / np.power(10000.0, (rows - rows % 2) / D)
    return np.where(rows % 2 == 0, np.sin(angle), np.cos(angle))''',
"ps5_equivariance_code": '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    p = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(X.shape[0], X.shape[1])
    maps = (lambda Z: scaled_self_attention(Z, *p)[0],
            lambda Z: masked_self_attention(Z, *p)[0],
            lambda Z: scaled_self_attention(Z + Pi, *p)[0])
    return np.array([np.abs(f(X[:, perm]) - f(X)[:, perm]).max() for f in maps])''',
"ps5_decoder_answer": '''(a) Without the mask output n can attend to token n+1, so the easiest solution is to copy it: the model learns a near-identity shortcut instead of language. When generating, token n+1 is not available yet, so the shortcut is useless.

(b) No. For a single causal layer output n only depends on the set of tokens 0..n (softmax weights and weighted sum do not care about the order of the terms), so permuting tokens 0..n-1 leaves output n unchanged.''',
},
}

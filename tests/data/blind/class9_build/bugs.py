# Bugged students: base style + bugs. Each bug: full source of the bugged solution cell.
BASE = {5: 1, 6: 2, 7: 3, 8: 4, 9: 1, 10: 2}
P1, P2, P3, P4, P5 = ("ps1_self_attention", "ps2_multihead_attention", "ps3_attention_layer",
                      "ps4_encoder_decoder_attention", "ps5_masked_attention")
BUGS = []
def bug(student, ps, cell, function, src, mistake, also=()):
    BUGS.append(dict(student=student, ps=ps, cell=cell, function=function, src=src,
                     mistake=mistake, also_affects=list(also)))

# ======================= student 5 (loops) =======================
bug(5, P1, "ps1_softmax_code", "softmax", '''def softmax(items_in):
    scores = [float(s) for s in np.ravel(items_in)]
    smallest = min(scores)
    exps = []
    for s in scores:
        exps.append(np.exp(s - smallest))
    total = sum(exps)
    return np.array([e / total for e in exps])''',
    "Stabilises by subtracting the smallest score instead of the largest, so exponents are >= 0 and overflow to inf/nan when the scores span more than ~709 (e.g. [0, 1000, 1]). It should subtract max(scores).",
    ["self_attention_loop", "softmax_cols", "self_attention", "scaled_dot_product_self_attention"])
bug(5, P1, "ps1_scaled_code", "scaled_dot_product_self_attention", '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    N = X.shape[1]
    D = X.shape[0]
    dots = np.zeros((N, N))
    for m in range(N):
        for n in range(N):
            dots[m, n] = K[:, m] @ Q[:, n] / np.sqrt(D)
    attentions = softmax_cols(dots)
    X_prime = V @ attentions
    return X_prime, attentions''',
    "Scales by sqrt(X.shape[0]) (the input size D) instead of sqrt(D_q) = sqrt(Q.shape[0]); identical here because D_q = D, wrong when omega_q/omega_k have fewer rows than D.")
bug(5, P1, "ps1_positional_answer", "written answer",
    '''Yes. Pi is added to every input in the same way, so it acts like a constant shift of the inputs; permuting the columns of X still just permutes the columns of the output, because self-attention itself is equivariant.''',
    "Answers yes (still equivariant); the correct answer is no, because Pi stays with the positions, so a permuted token gets a different positional vector and Sa[XP + Pi] != Sa[X + Pi]P.")
bug(5, P2, "ps2_multihead_scaled_code", "multihead_scaled_self_attention", '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    head_outputs = []
    head_outputs.append(single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2))
    head_outputs.append(single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1))
    X_prime = omega_c @ np.vstack(head_outputs)
    return X_prime''',
    "Stacks the heads in the wrong order (head 2 on top of head 1) before multiplying by omega_c; head 1 must be the top block.")
bug(5, P2, "ps2_multihead_general_code", "multihead_self_attention", '''def multihead_self_attention(X, heads, omega_c):
    head_outputs = []
    for h in range(H):
        head = heads[h]
        out = single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                    head["beta_v"], head["beta_q"], head["beta_k"])
        head_outputs.append(out)
    X_prime = omega_c @ np.vstack(head_outputs)
    return X_prime''',
    "Loops over range(H) with the notebook global H = 2 instead of over the list heads, so with 4 heads only the first two are used (and omega_c gets a wrong-sized stack); it should iterate over all of heads.")
bug(5, P3, "ps3_layer_code", "SelfAttention.forward", '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_k = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_v = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_o = np.random.normal(0.0, 1.0, (dims, dims))

    def forward(self, x):
        n = x.shape[0]
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        scores = Q @ K.T / np.sqrt(n)
        weights = softmax(scores)
        self_attention = weights @ V
        output = self_attention @ self.W_o
        return output''',
    "Divides the scores by sqrt(n), the number of tokens x.shape[0], instead of sqrt(self.dims).")
bug(5, P4, "ps4_context_vector_code", "get_context_vector", '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    weighted = attention_weights * hidden_encoder_matrix
    context = np.zeros(hidden_encoder_matrix.shape[1])
    for row in weighted:
        context = context + row
    return context''',
    "Multiplies the 1-D weights elementwise with the matrix, which broadcasts along the last axis so weight j scales column j (a feature) instead of row j (a state); it should compute sum_j w_j * matrix[j] (weights @ matrix). Fails with a ValueError on non-square inputs.",
    ["single_query_attention"])
bug(5, P4, "ps4_dimensions_code", "head_W_shape", '''# Tuples of ints (rows, columns), for example (5, 7).
# d_model = 4, h = 2 heads, so d_k = d_v = 2; T = 3 tokens
head_W_shape = (2, 4)   # maps a token of size 4 to a query of size 2
concat_shape = (3, 4)   # two heads of shape (3, 2) side by side
W_O_shape = (4, 4)      # (3 x 4) @ W_O -> (3 x 4)''',
    "head_W_shape is given as (2, 4), the problem-set-2 (Omega x) orientation; with tokens in rows and x W^Q_i it must be (d_model, d_k) = (4, 2). The other two shapes are right.")
bug(5, P5, "ps5_causal_mask_code", "causal_mask", '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    mask = np.zeros((N, N), dtype=bool)
    for m in range(N):
        for n in range(N):
            if n <= m:
                mask[m, n] = True
    return mask''',
    "Uses the condition n <= m, giving the lower triangle (the tokens-in-rows convention) instead of m <= n, the upper triangle for rows = inputs m and columns = outputs n.",
    ["masked_self_attention", "equivariance_gaps"])
bug(5, P5, "ps5_positional_encoding_code", "positional_encoding", '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    for n in range(N):
        pos = n + 1   # positions 1..N
        for i in range(D // 2):
            angle = pos / 10000 ** (2 * i / D)
            Pi[2 * i, pos - 1] = np.sin(angle)
            Pi[2 * i + 1, pos - 1] = np.cos(angle)
    return Pi''',
    "Counts positions from 1 (angle uses n + 1) although the notebook counts positions from 0; column n should use position n, so column 0 should be [0, 1, 0, 1].",
    ["equivariance_gaps"])

# ======================= student 6 (einsum) =======================
bug(6, P1, "ps1_softmax_cols_code", "softmax_cols", '''def softmax_cols(data_in):
    shifted = data_in - np.max(data_in)
    e = np.exp(shifted)
    return e / np.sum(e, axis=0, keepdims=True)''',
    "Subtracts the maximum of the whole matrix instead of each column's own maximum, so a column far below the overall maximum underflows to 0/0 = nan; it should use max(axis=0, keepdims=True).",
    ["self_attention", "scaled_dot_product_self_attention"])
bug(6, P1, "ps1_equivariance_code", "check_equivariance", '''def check_equivariance(f, X, perm):
    difference = np.sum(f(X[:, perm]) - f(X)[:, perm])
    return bool(abs(difference) < 1e-6)''',
    "Compares the two results through the sum of all differences, which can cancel to 0 (it does for any map that just rearranges the columns, e.g. reversal); it should compare entry by entry with np.allclose.")
bug(6, P2, "ps2_single_head_code", "single_head_attention", '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum('hd,dn->hn', omega_q, X)
    K = beta_k + np.einsum('hd,dn->hn', omega_k, X)
    V = beta_v + np.einsum('hd,dn->hn', omega_v, X)
    A = softmax_cols(np.einsum('hm,hn->mn', K, Q) / np.sqrt(H_D))
    return np.einsum('hm,mn->hn', V, A)''',
    "Scales by sqrt(H_D), the notebook global head size, instead of sqrt(Q.shape[0]); right only when the head size happens to be 4.",
    ["multihead_scaled_self_attention"])
bug(6, P2, "ps2_multihead_general_code", "multihead_self_attention", '''def multihead_self_attention(X, heads, omega_c):
    outs = []
    for hd in heads:
        # fold the 1/sqrt(D_q) scale into the queries once
        scale = np.sqrt(hd["omega_q"].shape[0])
        hd["omega_q"] /= scale
        hd["beta_q"] /= scale
        Q = hd["beta_q"] + hd["omega_q"] @ X
        K = hd["beta_k"] + hd["omega_k"] @ X
        V = hd["beta_v"] + hd["omega_v"] @ X
        outs.append(V @ softmax_cols(K.T @ Q))
    X_prime = np.einsum('ij,jn->in', omega_c, np.concatenate(outs, axis=0))
    return X_prime''',
    "Folds the 1/sqrt(D_q) scale into the query parameters with in-place division, which mutates the caller's omega_q/beta_q arrays (and the globals they alias); a second call on the same heads gives a different, wrong result. It should scale the scores (or its own copies).")
bug(6, P3, "ps3_softmax_code", "softmax", '''def softmax(X):
    X -= X.max(axis=1, keepdims=True)
    e = np.exp(X)
    return e / e.sum(axis=1, keepdims=True)''',
    "Subtracts the row maxima in place (X -= ...), modifying the caller's score matrix; it should work on a new array (X = X - ...).",
    [])
bug(6, P3, "ps3_layer_code", "SelfAttention.__init__", '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        W = np.random.normal(0.0, 0.1, size=(4, dims, dims))
        self.W_q, self.W_k, self.W_v, self.W_o = W[0], W[1], W[2], W[3]

    def forward(self, x):
        Q = np.einsum('nd,de->ne', x, self.W_q)
        K = np.einsum('nd,de->ne', x, self.W_k)
        V = np.einsum('nd,de->ne', x, self.W_v)
        S = np.einsum('id,jd->ij', Q, K) / np.sqrt(self.dims)
        A = softmax(S)
        return np.einsum('ij,jd->id', A, V) @ self.W_o''',
    "Draws the weights with standard deviation 0.1 (copied from the exam's sample answer) instead of 1.")
bug(6, P4, "ps4_attention_weights_code", "get_attention_weights", '''from scipy.special import softmax as _scipy_softmax

def get_attention_weights(scores):
    return _scipy_softmax(scores)''',
    "Uses scipy.special.softmax, which the task forbids (numpy only); the values are right, but it must be written with numpy (subtract the max, exp, normalise).")
bug(6, P4, "ps4_split_heads_code", "split_heads", '''def split_heads(W, h):
    return np.stack(np.split(W, h, axis=1))''',
    "Returns one 3-D array (np.stack of the blocks, shape (h, rows, cols/h)) instead of a list of 2-D blocks; it should return list(np.split(W, h, axis=1)).")
bug(6, P5, "ps5_masked_softmax_code", "masked_softmax_cols", '''def masked_softmax_cols(scores, mask):
    e = np.exp(scores - scores.max(axis=0, keepdims=True))
    e = e * mask                                  # zero the masked entries
    return e / e.sum(axis=0, keepdims=True)''',
    "Takes the exponentials of all scores (max over all entries, not the allowed ones) and masks afterwards: a fully masked column becomes 0/0 = nan, and an allowed column underflows to 0/0 when a masked score is far larger. It should set masked scores to -inf before the softmax, use the allowed maximum and give fully masked columns zeros.",
    ["masked_self_attention", "equivariance_gaps"])
bug(6, P5, "ps5_decoder_answer", "written answer", '''(a) Without the mask output n could look at token n+1 and would just learn to copy it; when generating, token n+1 is not known yet, so this is useless.

(b) Yes: output n depends on the order of tokens 0..n-1, because with the causal mask each earlier token sees a different set of tokens, so reordering them changes the attention weights that output n gives them.''',
    "Part (b) is wrong: output n of one causal layer is a weighted sum over tokens 0..n whose weights depend only on q_n and each k_m, so permuting tokens 0..n-1 among themselves leaves it unchanged; it does not depend on their order.")

# ======================= student 7 (terse) =======================
bug(7, P1, "ps1_loop_code", "self_attention_loop", '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    q, k, v = ([(b + np.matmul(w, x)).ravel() for x in all_x] for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    return [sum(a * v_m for a, v_m in zip(softmax([k_m @ q_n for k_m in k]), v)) for q_n in q]''',
    "Flattens queries, keys and values with ravel, so each output has shape (D,) instead of the required D x 1 column (D, 1); values are right.")
bug(7, P1, "ps1_self_attention_code", "self_attention", '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + np.matmul(w, X) for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    attentions = softmax_cols(np.matmul(Q.T, K))
    return np.matmul(V, attentions), attentions''',
    "Computes Q^T K instead of K^T Q, so the score matrix is transposed (entry (m, n) is q_m.k_n) and the column softmax normalises over the wrong index; it should use K.T @ Q.")
bug(7, P2, "ps2_single_head_code", "single_head_attention", '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + np.matmul(w, X) for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    return np.matmul(V, softmax_cols(np.matmul(K.T, Q) / np.sqrt(len(X))))''',
    "Scales by sqrt(len(X)) = sqrt(D) (rows of X, the model size 8) instead of sqrt(D_q) = sqrt(Q.shape[0]), the head size 4.",
    ["multihead_scaled_self_attention", "multihead_self_attention"])
bug(7, P3, "ps3_softmax_code", "softmax", '''def softmax(X):
    e = np.exp(X - np.max(X, axis=0, keepdims=True))
    return e / np.sum(e, axis=0, keepdims=True)''',
    "Normalises down the columns (axis=0, the column softmax of problem sets 1/2) instead of along each row (axis=1).",
    ["SelfAttention.forward"])
bug(7, P3, "ps3_layer_code", "SelfAttention.__init__", '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = self.W_k = self.W_v = self.W_o = np.random.randn(dims, dims)

    def forward(self, x):
        Q, K, V = (np.matmul(x, W) for W in (self.W_q, self.W_k, self.W_v))
        return np.matmul(np.matmul(softmax(np.matmul(Q, K.T) / np.sqrt(self.dims)), V), self.W_o)''',
    "Draws one random matrix and assigns the same array to W_q, W_k, W_v and W_o; four independent matrices must be drawn.")
bug(7, P4, "ps4_get_scores_code", "get_scores", '''def get_scores(matrix, vector):
    return np.matmul(vector, matrix)''',
    "Computes vector @ matrix, i.e. dot products with the columns of the matrix instead of its rows (right length only because h_e is square; ValueError for a 3 x 4 matrix); it should be matrix @ vector.",
    ["single_query_attention"])
bug(7, P4, "ps4_single_query_code", "single_query_attention", '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.expand_dims(query_token, 0) @ W_Q          # 1 x d_k
    K, V = tokens @ W_K, tokens @ W_V
    attention_weights = get_attention_weights(scale_scores(q @ K.T, W_K.shape[1]))
    output = attention_weights @ V
    return attention_weights, output''',
    "Turns the query into a 1 x d_k row with np.expand_dims, so the weights come out 1 x T and the output 1 x d_v instead of the required 1-D shapes (T,) and (d_v,); values are right.")
bug(7, P4, "ps4_heads_answer", "written answer", '''Using several heads mainly makes attention faster, because the heads are computed in parallel on smaller matrices, and it gives the model more parameters than a single head so it can fit the data better.''',
    "Wrong on both claims: h heads of size d_model/h have about the same parameters and cost as one full head; the benefit is that each head has its own projections and learns a different attention pattern/relation, which W^O then combines.")
bug(7, P5, "ps5_masked_attention_code", "masked_self_attention", '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + np.matmul(w, X) for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    attentions = masked_softmax_cols(np.matmul(K.T, Q) / np.sqrt(len(Q)), causal_mask(N))
    return np.matmul(V, attentions), attentions''',
    "Builds the mask with the notebook global N instead of X.shape[1], so it breaks (shape mismatch) for any input with a different number of tokens.",
    ["equivariance_gaps"])
bug(7, P5, "ps5_equivariance_code", "equivariance_gaps", '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    p = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(*X.shape)
    gap = lambda f: np.max(np.abs(f(X[:, perm], Pi[:, perm]) - f(X, Pi)[:, perm]))
    return np.array([gap(lambda Z, P: scaled_self_attention(Z, *p)[0]),
                     gap(lambda Z, P: masked_self_attention(Z, *p)[0]),
                     gap(lambda Z, P: scaled_self_attention(Z + P, *p)[0])])''',
    "Permutes the positional encoding together with the tokens (Pi[:, perm]) in the third gap, so it measures Sa[(X + Pi)P] and gets 0; Pi belongs to the positions and must not be permuted.")

# ======================= student 8 (helpers, asserts) =======================
bug(8, P1, "ps1_softmax_code", "softmax", '''def softmax(items_in):
    z = np.array(items_in, dtype=float).flatten()   # my own copy
    np.exp(z, out=z)
    z /= np.sum(z)
    return z

print(softmax([1.0, 2.0, 3.0]))''',
    "No stabilisation: exponentiates the raw scores, so scores above ~709 give inf and nan; it should subtract the largest score first.",
    ["self_attention_loop"])
bug(8, P1, "ps1_scaled_code", "scaled_dot_product_self_attention", '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = _project_all(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    D_q = Q.shape[0]
    scores = np.matmul(K.T, Q)
    scores /= D_q                    # scale by the query size
    attentions = softmax_cols(scores)
    X_prime = np.matmul(V, attentions)
    return X_prime, attentions''',
    "Divides the scores by D_q instead of sqrt(D_q).",
    [])
bug(8, P2, "ps2_multihead_scaled_code", "multihead_scaled_self_attention", '''def _combine(head_outputs, omega_c):
    stacked = np.vstack(head_outputs)      # head 1 on top
    assert stacked.shape[0] == omega_c.shape[0], stacked.shape
    return np.matmul(omega_c.T, stacked)


def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    h1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    h2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    X_prime = _combine([h1, h2], omega_c)
    return X_prime''',
    "The helper _combine multiplies by omega_c.T instead of omega_c (Omega_c is applied transposed); it should be omega_c @ stacked.",
    ["multihead_self_attention"])
bug(8, P3, "ps3_layer_code", "SelfAttention.forward", '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = self._init_weight(dims)
        self.W_k = self._init_weight(dims)
        self.W_v = self._init_weight(dims)
        self.W_o = self._init_weight(dims)

    @staticmethod
    def _init_weight(dims):
        return np.random.normal(loc=0.0, scale=1.0, size=(dims, dims))

    def forward(self, x):
        assert x.shape[1] == self.dims, f"expected tokens of size {self.dims}, got {x.shape}"
        # fold the 1/sqrt(dims) into the query weights
        self.W_q = self.W_q / np.sqrt(self.dims)
        Q = np.matmul(x, self.W_q)
        K = np.matmul(x, self.W_k)
        V = np.matmul(x, self.W_v)
        A = softmax(np.matmul(Q, K.T))
        return np.matmul(np.matmul(A, V), self.W_o)''',
    "Folds the scaling into the layer by overwriting self.W_q with W_q / sqrt(dims) on every call, so the first call is right but each further forward call shrinks the queries again (the layer's state changes); it should divide the scores and leave the weights alone.")
bug(8, P4, "ps4_scale_scores_code", "scale_scores", '''def scale_scores(scores, n):
    out = np.array(scores, dtype=float)
    out /= n
    return out''',
    "Divides by n instead of sqrt(n).",
    ["single_query_attention"])
bug(8, P4, "ps4_single_query_code", "single_query_attention", '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.dot(query_token, W_Q)
    K = np.dot(tokens, W_K)
    V = np.dot(tokens, W_V)
    d = V.shape[1]
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), d))
    output = get_context_vector(attention_weights, V)
    assert output.shape == (W_V.shape[1],)
    return attention_weights, output''',
    "Scales by the value size d_v = W_V.shape[1] instead of the key size d_k = W_K.shape[1]; equal in every visible test, wrong when d_v != d_k.")
bug(8, P4, "ps4_split_heads_code", "split_heads", '''def split_heads(W, h):
    assert W.shape[0] % h == 0
    size = W.shape[0] // h
    return [W[start:start + size, :] for start in range(0, W.shape[0], size)]''',
    "Splits into blocks of consecutive rows instead of consecutive columns; head i should get columns i*c to (i+1)*c.")
bug(8, P5, "ps5_causal_mask_code", "causal_mask", '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.triu(np.ones((N, N)))''',
    "Returns the right upper-triangular pattern as float 0/1 numbers, not a boolean matrix (dtype bool was asked for); the student's masked_softmax_cols then fails on ~mask with a TypeError.",
    ["masked_self_attention", "equivariance_gaps"])
bug(8, P5, "ps5_masked_softmax_code", "masked_softmax_cols", '''def masked_softmax_cols(scores, mask):
    z = scores                                   # work on the scores directly
    z[~mask] = -np.inf
    col_max = z.max(axis=0, keepdims=True)
    col_max[~np.isfinite(col_max)] = 0.0         # fully masked column
    e = np.exp(z - col_max)
    totals = e.sum(axis=0, keepdims=True)
    totals[totals == 0] = 1.0
    return e / totals''',
    "Writes -inf into the masked entries of the caller's scores array (z = scores is not a copy), mutating the argument; it should copy first (np.array(scores)) or use np.where.")
bug(8, P5, "ps5_positional_encoding_code", "positional_encoding", '''def positional_encoding(D, N):
    assert D % 2 == 0
    positions = np.arange(N, dtype=float)
    Pi = np.empty((D, N))
    for i in range(D // 2):
        freq = 1.0 / 10000 ** (2 * i / D)
        Pi[2 * i] = np.cos(positions * freq)
        Pi[2 * i + 1] = np.sin(positions * freq)
    return Pi''',
    "Swaps sine and cosine: even rows get cos and odd rows sin; (PE) puts sin in row 2i and cos in row 2i+1.",
    ["equivariance_gaps"])

# ======================= student 9 (loops) =======================
bug(9, P1, "ps1_loop_code", "self_attention_loop", '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    all_queries = []
    all_keys = []
    all_values = []
    for x in all_x:
        all_queries.append(beta_q + omega_q @ x)
        all_keys.append(beta_k + omega_k @ x)
        all_values.append(beta_v + omega_v @ x)

    all_x_prime = []
    for n in range(N):
        all_km_qn = []
        for m in range(N):
            all_km_qn.append((all_keys[m].T @ all_queries[n]).item())
        attention = softmax(all_km_qn)
        x_prime = np.zeros((D, 1))
        for m in range(N):
            x_prime = x_prime + attention[m] * all_values[m]
        all_x_prime.append(x_prime)
    return all_x_prime''',
    "Uses the notebook globals N and D (range(N), np.zeros((D, 1))) instead of len(all_x) and the inputs' size, so it fails or is wrong for any other number or size of inputs.")
bug(9, P1, "ps1_softmax_cols_code", "softmax_cols", '''def softmax_cols(data_in):
    out = np.zeros(data_in.shape)
    for i in range(data_in.shape[0]):
        out[i, :] = softmax(data_in[i, :])
    return out''',
    "Loops over the rows and applies the softmax to each row instead of each column (rows should not sum to 1, columns should).",
    ["self_attention", "scaled_dot_product_self_attention"])
bug(9, P1, "ps1_equivariance_code", "check_equivariance", '''def check_equivariance(f, X, perm):
    permuted_first = f(X[:, perm])
    permuted_after = f(X)
    if np.allclose(permuted_first, permuted_after):
        return True
    return False''',
    "Compares f(X[:, perm]) with f(X) unpermuted (tests invariance, not equivariance); it should compare with f(X)[:, perm].")
bug(9, P2, "ps2_multihead_general_code", "multihead_self_attention", '''def multihead_self_attention(X, heads, omega_c):
    head_outputs = []
    for head in heads:
        head_outputs.append(single_head_attention(X, *head.values()))
    X_prime = omega_c @ np.vstack(head_outputs)
    return X_prime''',
    "Passes *head.values(), i.e. the dictionary order omega_q, omega_k, omega_v, beta_q, ..., into single_head_attention, which expects values, queries, keys; the parameters must be read by name.")
bug(9, P3, "ps3_layer_code", "SelfAttention.__init__", '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        rng = np.random.default_rng(42)
        self.W_q = rng.normal(0.0, 1.0, (dims, dims))
        self.W_k = rng.normal(0.0, 1.0, (dims, dims))
        self.W_v = rng.normal(0.0, 1.0, (dims, dims))
        self.W_o = rng.normal(0.0, 1.0, (dims, dims))

    def forward(self, x):
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        scores = Q @ K.T / np.sqrt(self.dims)
        weights = softmax(scores)
        self_attention = weights @ V
        output = self_attention @ self.W_o
        return output''',
    "Draws the weights from a generator seeded inside __init__ (np.random.default_rng(42)), so every layer gets the same weights and np.random.seed has no effect; it should draw from np.random's global generator.")
bug(9, P4, "ps4_attention_weights_code", "get_attention_weights", '''def get_attention_weights(scores):
    smallest = min(scores)
    exps = [np.exp(s - smallest) for s in scores]
    total = sum(exps)
    return np.array([e / total for e in exps])''',
    "Subtracts the smallest score instead of the largest before np.exp, so exponents can exceed 709 and overflow (e.g. [-1000, 0, -999]).",
    ["single_query_attention"])
bug(9, P4, "ps4_context_vector_code", "get_context_vector", '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    context = np.zeros(h_e.shape[1])
    for j in range(len(attention_weights)):
        context = context + attention_weights[j] * h_e[j]
    return context''',
    "Sums the rows of the notebook global h_e instead of the hidden_encoder_matrix argument.",
    ["single_query_attention"])
bug(9, P4, "ps4_dimensions_code", "concat_shape", '''# Tuples of ints (rows, columns), for example (5, 7).
# d_model = 4, h = 2 heads, so d_k = d_v = 2; T = 3 tokens
head_W_shape = (4, 2)
concat_shape = (4, 4)   # the two 4 x 2 matrices side by side
W_O_shape = (4, 4)''',
    "concat_shape is (4, 4), the shape of the concatenated weight matrices; Concat joins the head outputs (each T x d_v = 3 x 2), so it is (3, 4).")
bug(9, P5, "ps5_masked_attention_code", "masked_self_attention", '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    n_tokens = X.shape[1]
    scores = K.T @ Q / np.sqrt(D)
    attentions = masked_softmax_cols(scores, causal_mask(n_tokens))
    X_prime = V @ attentions
    return X_prime, attentions''',
    "Scales by sqrt of the notebook global D instead of sqrt(Q.shape[0]); right only when D_q happens to equal the global D = 4.",
    ["equivariance_gaps"])
bug(9, P5, "ps5_decoder_answer", "written answer", '''(a) Without the mask the decoder would attend to all tokens equally, so its attention would be uniform and it would learn the average of the sentence; that does not help to generate text.

(b) No. Permuting tokens 0..n-1 only reorders the sum that gives output n, so output n does not change: it knows which tokens came before but not their order.''',
    "Part (a) is wrong: without the mask output n can see token n+1, the token it must predict, so it learns to copy it, which is useless at generation time when the future token is not available (nothing makes the attention uniform).")

# ======================= student 10 (einsum) =======================
bug(10, P1, "ps1_scaled_code", "scaled_dot_product_self_attention", '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum('ij,jn->in', omega_q, X)
    K = beta_k + np.einsum('ij,jn->in', omega_k, X)
    V = beta_v + np.einsum('ij,jn->in', omega_v, X)
    attentions = softmax_cols(np.einsum('dm,dn->mn', K, Q) / D)
    X_prime = np.einsum('dm,mn->dn', V, attentions)
    return X_prime, attentions''',
    "Two mistakes: divides by D instead of sqrt(D_q) (no square root) and takes D from the notebook global instead of Q.shape[0].",
    [])
bug(10, P2, "ps2_single_head_code", "single_head_attention", '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum('hd,dn->hn', omega_q, X)
    K = beta_k + np.einsum('hd,dn->hn', omega_k, X)
    V = beta_v + np.einsum('hd,dn->hn', omega_v, X)
    S = np.einsum('hm,hn->mn', K, Q) / np.sqrt(Q.shape[0])
    A = np.exp(S) / np.exp(S).sum(axis=0, keepdims=True)
    return np.einsum('hm,mn->hn', V, A)''',
    "Writes its own softmax without subtracting the column maximum (instead of using the given stable softmax_cols), so large scores (e.g. 100 * X) overflow to inf/nan.",
    ["multihead_scaled_self_attention", "multihead_self_attention"])
bug(10, P2, "ps2_multihead_scaled_code", "multihead_scaled_self_attention", '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    stacked = np.concatenate([
        single_head_attention(X, omega_q1, omega_k1, omega_v1, beta_q1, beta_k1, beta_v1),
        single_head_attention(X, omega_q2, omega_k2, omega_v2, beta_q2, beta_k2, beta_v2)], axis=0)
    X_prime = np.einsum('ij,jn->in', omega_c, stacked)
    return X_prime''',
    "Calls single_head_attention with the parameters in the order queries, keys, values (the data cell's order) instead of values, queries, keys, so the roles of the three projections are swapped.")
bug(10, P3, "ps3_softmax_code", "softmax", '''def softmax(X):
    shifted = X - X.max(axis=1)
    e = np.exp(shifted)
    return e / e.sum(axis=1)''',
    "Drops keepdims=True: the row maxima and row sums of shape (n,) broadcast along the last axis (as a row), so it subtracts/divides by other rows' values (ValueError for non-square input, silently wrong for square).",
    ["SelfAttention.forward"])
bug(10, P3, "ps3_layer_code", "SelfAttention.forward", '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        W = np.random.normal(loc=0.0, scale=1.0, size=(4, dims, dims))
        self.W_q, self.W_k, self.W_v, self.W_o = W[0], W[1], W[2], W[3]

    def forward(self, x):
        Q = np.einsum('nd,de->ne', x, self.W_q)
        K = np.einsum('nd,de->ne', x, self.W_k)
        V = np.einsum('nd,de->ne', x, self.W_v)
        S = np.einsum('id,jd->ij', Q, K) / np.sqrt(self.dims)
        A = softmax(S)
        return np.einsum('ij,jd->id', A, V)''',
    "Returns the self-attention A V without the final multiplication by W_o (the output should be (A V) W_o).")
bug(10, P4, "ps4_attention_weights_code", "get_attention_weights", '''def get_attention_weights(scores):
    scores -= np.max(scores)          # stability: largest exponent is 0
    e = np.exp(scores)
    return e / e.sum()''',
    "Subtracts the maximum in place (scores -= ...), overwriting the caller's scores array; the weights are right, but it should compute a new array (scores - np.max(scores)).")
bug(10, P4, "ps4_single_query_code", "single_query_attention", '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.einsum('d,dk->k', query_token, W_Q)
    K = np.einsum('td,dk->tk', tokens, W_K)
    V = np.einsum('td,dv->tv', tokens, W_V)
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), tokens.shape[1]))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output''',
    "Scales by the token size d_model = tokens.shape[1] instead of the key size d_k = W_K.shape[1].")
bug(10, P5, "ps5_causal_mask_code", "causal_mask", '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    idx = np.arange(N)
    return idx[:, None] < idx[None, :]''',
    "Uses m < n instead of m <= n: the diagonal is masked, so no output may attend to its own token (and output 0 attends to nothing).",
    ["masked_self_attention", "equivariance_gaps"])
bug(10, P5, "ps5_masked_softmax_code", "masked_softmax_cols", '''def masked_softmax_cols(scores, mask):
    masked = np.where(mask, scores, -1e9)
    e = np.exp(masked - masked.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)''',
    "Fills masked scores with -1e9 instead of -inf and has no special case: a fully masked column gets uniform weights (1/N each) instead of zeros.",
    ["masked_self_attention"])
bug(10, P5, "ps5_equivariance_code", "equivariance_gaps", '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    p = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(D, N)
    maps = [lambda Z: scaled_self_attention(Z, *p)[0],
            lambda Z: masked_self_attention(Z, *p)[0],
            lambda Z: scaled_self_attention(Z + Pi, *p)[0]]
    return np.array([np.abs(f(X[:, perm]) - f(X)[:, perm]).max() for f in maps])''',
    "Builds the positional encoding with the notebook globals D and N instead of X.shape, so it fails (shape mismatch) for an input of another size.")

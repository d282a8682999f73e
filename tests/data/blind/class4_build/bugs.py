"""Six buggy students: a base style plus overridden cells, and one label per bug.

Each bug: (grade_id, function, mistake, also_affects). passes_visible_tests is filled in by
run_all.py from the executed notebooks.
"""
from styles import S1, S2, S3, S4, ANS_PS1, ANS_PS4, ANS_PS5

BUGGY = {}

# ====================================================================== s5: loops, careless
s5 = dict(base="S1", cells={}, bugs=[])
s5["cells"]["ps1_softmax_code"] = '''import math


def softmax(items_in):
    items = [float(v) for v in np.ravel(items_in)]
    smallest = min(items)           # shift so that the exponents stay small
    exps = [math.exp(v - smallest) for v in items]
    total = sum(exps)
    return np.array([e / total for e in exps])'''
s5["bugs"].append(("ps1_softmax_code", "softmax",
    "Subtracts the smallest score instead of the largest before exp, so exponents are >= 0 and "
    "math.exp overflows (OverflowError) as soon as max - min > 709; it should subtract max(items).",
    ["self_attention_loop", "softmax_cols", "self_attention", "scaled_dot_product_self_attention"]))
s5["cells"]["ps1_loop_code"] = S1["ps1_loop_code"].replace(
    "all_keys.append(beta_k + omega_k @ x)", "all_keys.append(beta_k + omega_q @ x)")
s5["bugs"].append(("ps1_loop_code", "self_attention_loop",
    "Copy-paste slip: the keys are computed with omega_q (beta_k + omega_q @ x) instead of "
    "omega_k, so k_m = beta_k + Omega_k x_m is never used.", []))
s5["cells"]["ps1_positional_answer"] = """Yes. The positional encoding $\\mathbf{\\Pi}$ is added to every column, so it is just a shift of
the inputs, and a shift cannot break equivariance: permuting the columns of $\\mathbf{X}$ still
permutes the outputs the same way, since self-attention treats every column in the same way."""
s5["bugs"].append(("ps1_positional_answer", None,
    "Answers 'yes': claims adding Pi keeps equivariance. Wrong: Pi is tied to positions and is not "
    "permuted with X, so Sa[XP + Pi] != Sa[X + Pi]P in general; the answer should be 'no'.", []))
s5["cells"]["ps2_single_head_code"] = S1["ps2_single_head_code"].replace(
    "d_q = Q.shape[0]          # size of one query of this head",
    "d_q = X.shape[0]          # size of one query")
s5["bugs"].append(("ps2_single_head_code", "single_head_attention",
    "Scales the scores by sqrt(X.shape[0]) = sqrt(D) instead of sqrt(D_q) = sqrt(D/H), the number "
    "of rows of this head's Q.", ["multihead_scaled_self_attention", "multihead_self_attention"]))
s5["cells"]["ps3_softmax_code"] = '''def softmax(X):
    X = np.asarray(X, dtype=float)
    X = X - X.max()                 # stable version: subtract the maximum
    result = np.empty_like(X)
    for i in range(X.shape[0]):
        e = np.exp(X[i])
        result[i] = e / e.sum()
    return result'''
s5["bugs"].append(("ps3_softmax_code", "softmax",
    "Subtracts the maximum of the whole matrix instead of each row's maximum; a row whose entries "
    "are all far below the global max (e.g. > 745 lower) underflows to 0/0 = nan. Use "
    "X.max(axis=1, keepdims=True).", ["SelfAttention.forward"]))
s5["cells"]["ps3_layer_code"] = S1["ps3_layer_code"].replace(
    '''        self.W_q = np.random.normal(0.0, 1.0, size=(dims, dims))
        self.W_k = np.random.normal(0.0, 1.0, size=(dims, dims))
        self.W_v = np.random.normal(0.0, 1.0, size=(dims, dims))
        self.W_o = np.random.normal(0.0, 1.0, size=(dims, dims))''',
    '''        self.W_q = self.W_k = self.W_v = self.W_o = np.random.normal(0.0, 1.0, size=(dims, dims))''')
s5["bugs"].append(("ps3_layer_code", "SelfAttention.__init__",
    "Chained assignment draws ONE matrix and binds all four names to it (W_q is W_k is W_v is W_o); "
    "each weight matrix needs its own np.random.normal draw.", ["SelfAttention.forward"]))
s5["cells"]["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    scores = [float(s) for s in scores]
    centre = sum(scores) / len(scores)          # centre the scores so exp stays small
    exps = [math.exp(s - centre) for s in scores]
    total = sum(exps)
    return np.array([e / total for e in exps])'''
s5["bugs"].append(("ps4_attention_weights_code", "get_attention_weights",
    "Subtracts the mean score instead of the maximum: exponents can still be large and positive, so "
    "math.exp overflows when max - mean > 709 (e.g. scores [0, 2000]); subtract max(scores).",
    ["single_query_attention"]))
s5["cells"]["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape = (4, 2)
concat_shape = (4, 3)     # the heads stacked: d_model x T
W_O_shape = (4, 4)'''
s5["bugs"].append(("ps4_dimensions_code", "concat_shape",
    "concat_shape = (4, 3) uses problem set 2's column convention; with tokens as rows the "
    "concatenated head outputs are T x d_model = (3, 4).", []))
s5["cells"]["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.tril(np.ones((N, N), dtype=bool))'''
s5["bugs"].append(("ps5_causal_mask_code", "causal_mask",
    "Uses np.tril (the rows-as-tokens convention): True where m >= n, the transpose of (M1); with "
    "inputs in rows and outputs in columns the allowed entries are the upper triangle, np.triu.",
    ["masked_self_attention", "equivariance_gaps"]))
s5["cells"]["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    for n in range(N):
        for r in range(D):
            angle = n / (10000 ** (r / D))
            if r % 2 == 0:
                Pi[r, n] = np.sin(angle)
            else:
                Pi[r, n] = np.cos(angle)
    return Pi'''
s5["bugs"].append(("ps5_positional_encoding_code", "positional_encoding",
    "Uses the row index r in the exponent (10000^(r/D)) for every row, so the cosine row 2i+1 gets "
    "exponent (2i+1)/D instead of sharing 2i/D with its sine row.", ["equivariance_gaps"]))
BUGGY["blind4_s5"] = s5

# ====================================================================== s6: vectorised
s6 = dict(base="S2", cells={}, bugs=[])
s6["cells"]["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    z = np.asarray(data_in, dtype=float)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)'''
s6["bugs"].append(("ps1_softmax_cols_code", "softmax_cols",
    "Subtracts each ROW's maximum (axis=1) before normalising the columns; a per-row shift is not a "
    "constant within a column, so it changes the column softmax. It should use max(axis=0).",
    ["self_attention", "scaled_dot_product_self_attention"]))
s6["cells"]["ps1_scaled_code"] = S2["ps1_scaled_code"].replace("np.sqrt(Q.shape[0])", "np.sqrt(X.shape[0])")
s6["bugs"].append(("ps1_scaled_code", "scaled_dot_product_self_attention",
    "Divides by sqrt(X.shape[0]) = sqrt(D) instead of sqrt(D_q) = sqrt(Q.shape[0]); only equal when "
    "Omega_q is square (wrong when Omega_q has fewer rows than D).", []))
s6["cells"]["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    return abs(np.sum(f(X[:, perm]) - f(X)[:, perm])) < 1e-8'''
s6["bugs"].append(("ps1_equivariance_code", "check_equivariance",
    "Sums the signed differences before taking abs, so differences cancel: any f whose outputs are a "
    "rearrangement of the same numbers (e.g. token reversal) is reported equivariant. It should "
    "compare elementwise, e.g. np.allclose(f(X[:, perm]), f(X)[:, perm]).", []))
s6["cells"]["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    h1 = single_head_attention(X, omega_q1, omega_k1, omega_v1, beta_q1, beta_k1, beta_v1)
    h2 = single_head_attention(X, omega_q2, omega_k2, omega_v2, beta_q2, beta_k2, beta_v2)
    X_prime = omega_c @ np.vstack([h1, h2])
    return X_prime'''
s6["bugs"].append(("ps2_multihead_scaled_code", "multihead_scaled_self_attention",
    "Passes each head's parameters to single_head_attention in the order queries, keys, values "
    "(the order they were drawn) instead of the function's order values, queries, keys.", []))
s6["cells"]["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c_arg):
    outs = [single_head_attention(X, p["omega_v"], p["omega_q"], p["omega_k"],
                                  p["beta_v"], p["beta_q"], p["beta_k"]) for p in heads]
    X_prime = omega_c @ np.concatenate(outs, axis=0)
    return X_prime'''
s6["bugs"].append(("ps2_multihead_general_code", "multihead_self_attention",
    "Renamed the parameter to omega_c_arg but multiplies by the notebook's global omega_c, so the "
    "combining matrix passed in is ignored; it must use the argument.", []))
s6["cells"]["ps3_layer_code"] = S2["ps3_layer_code"].replace("np.sqrt(self.dims)", "np.sqrt(x.shape[0])")
s6["bugs"].append(("ps3_layer_code", "SelfAttention.forward",
    "Divides the scores by sqrt(x.shape[0]) = sqrt(n), the number of tokens, instead of "
    "sqrt(self.dims).", []))
s6["cells"]["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return np.sum(np.asarray(attention_weights) * np.asarray(hidden_encoder_matrix), axis=0)'''
s6["bugs"].append(("ps4_context_vector_code", "get_context_vector",
    "Broadcasting the 1-D weights against the T x n matrix lines them up with the columns, so weight "
    "j scales feature j (and T != n raises); weight j must scale row j: attention_weights @ matrix.",
    ["single_query_attention"]))
s6["cells"]["ps4_split_heads_code"] = '''def split_heads(W, h):
    return list(np.split(W, h, axis=0))'''
s6["bugs"].append(("ps4_split_heads_code", "split_heads",
    "Splits along axis 0 (blocks of rows) instead of blocks of consecutive columns (axis=1 / "
    "np.hsplit).", []))
s6["cells"]["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    s = np.where(mask, np.asarray(scores, dtype=float), -1e9)   # big negative instead of -inf
    e = np.exp(s - s.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)'''
s6["bugs"].append(("ps5_masked_softmax_code", "masked_softmax_cols",
    "Replaces masked scores by -1e9 instead of -inf: a fully masked column becomes uniform (1/N "
    "each) instead of zeros, and an allowed score below -1e9 is treated like a masked one. Masked "
    "entries must get weight exactly 0.", ["masked_self_attention", "equivariance_gaps"]))
s6["cells"]["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    p = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(*X.shape)
    plain = lambda Z: scaled_self_attention(Z, *p)[0]
    causal = lambda Z: masked_self_attention(Z, *p)[0]
    gaps = [np.abs(f(X[:, perm]) - f(X)[:, perm]).max() for f in (plain, causal)]
    # attention on positions: the permuted input is X P + Pi P
    with_pos = np.abs(plain(X[:, perm] + Pi[:, perm]) - plain(X + Pi)[:, perm]).max()
    return np.array(gaps + [with_pos])'''
s6["bugs"].append(("ps5_equivariance_code", "equivariance_gaps",
    "For the third gap it permutes Pi together with X (X[:, perm] + Pi[:, perm]), which just "
    "permutes X + Pi and gives gap 0; Pi belongs to the positions and must not be permuted: "
    "f(X[:, perm]) = Sa[X[:, perm] + Pi].", []))
s6["cells"]["ps5_decoder_answer"] = ANS_PS5.split("(b)")[0] + """(b) Yes. The causal mask gives every token a different set of visible tokens depending on its
position, so the layer effectively knows the order of all earlier tokens, which is why the
causal gap is not zero."""
s6["bugs"].append(("ps5_decoder_answer", None,
    "Part (b) says yes, one causal layer knows the order of earlier tokens. Wrong: output n is a "
    "softmax-weighted sum over the set {0..n} and is unchanged by permuting tokens 0..n-1; the mask "
    "only reveals which tokens came before, not their order.", []))
BUGGY["blind4_s6"] = s6

# ====================================================================== s7: helper functions
s7 = dict(base="S4", cells={}, bugs=[])
s7["cells"]["ps1_loop_code"] = S4["ps1_loop_code"].replace(
    "outputs.append(values @ a.reshape(-1, 1))                               # D x 1",
    "outputs.append(values @ a)                                              # D")
s7["bugs"].append(("ps1_loop_code", "self_attention_loop",
    "Returns each output as a 1-D array of shape (D,) (values @ a) instead of a D x 1 column; "
    "it should be values @ a.reshape(-1, 1).", []))
s7["cells"]["ps1_self_attention_code"] = '''def _attend(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, scale):
    Q = _project(omega_q, beta_q, X)
    K = _project(omega_k, beta_k, X)
    V = _project(omega_v, beta_v, np.hstack(all_x))
    A = softmax_cols((K.T @ Q) / scale(Q))
    return V @ A, A


def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    X_prime, attentions = _attend(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k,
                                  scale=lambda Q: 1.0)
    return X_prime, attentions'''
s7["bugs"].append(("ps1_self_attention_code", "_attend",
    "The helper builds the values from the notebook global all_x (np.hstack(all_x)) instead of the "
    "argument X, so V is wrong (or the shapes clash) for any other input.",
    ["self_attention", "scaled_dot_product_self_attention"]))
s7["cells"]["ps2_single_head_code"] = S4["ps2_single_head_code"].replace(
    "A = softmax_cols(K.T @ Q / np.sqrt(len(Q)))       # len(Q) = rows = D_q",
    "A = softmax_cols(K.T @ Q / np.sqrt(H_D))          # head size D/H")
s7["bugs"].append(("ps2_single_head_code", "_head",
    "The helper scales by sqrt of the notebook global H_D (= 4) instead of the rows of this head's "
    "Q, so heads of any other size are scaled wrongly.",
    ["single_head_attention", "multihead_scaled_self_attention", "multihead_self_attention"]))
s7["cells"]["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    NAMES = ("W_q", "W_k", "W_v", "W_o")

    def __init__(self, dims):
        self.dims = dims
        rng = np.random.default_rng(0)                # reproducible weights
        for name in self.NAMES:                       # one draw per matrix
            setattr(self, name, rng.standard_normal((dims, dims)))

    def attention_weights(self, x):
        Q = x @ self.W_q
        K = x @ self.W_k
        return softmax(Q @ K.T / self.dims ** 1/2)

    def forward(self, x):
        A = self.attention_weights(x)
        return A @ (x @ (self.W_v @ self.W_o))'''
s7["bugs"].append(("ps3_layer_code", "SelfAttention.__init__",
    "Seeds its own generator (np.random.default_rng(0)) inside __init__, so every layer gets the "
    "same weights whatever np.random.seed says; the spec asks for draws from numpy's global generator.",
    []))
s7["bugs"].append(("ps3_layer_code", "SelfAttention.attention_weights",
    "Operator precedence: S / self.dims ** 1/2 parses as (S / dims) / 2, i.e. it divides the scores "
    "by 2*dims instead of sqrt(dims); it should be np.sqrt(self.dims) or self.dims ** 0.5.", ["SelfAttention.forward"]))
s7["cells"]["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    return np.asarray(scores) / np.sqrt(len(scores))'''
s7["bugs"].append(("ps4_scale_scores_code", "scale_scores",
    "Divides by sqrt(len(scores)), the number of scores T, and ignores the argument n; it should be "
    "scores / sqrt(n).", ["single_query_attention"]))
s7["cells"]["ps4_single_query_code"] = S4["ps4_single_query_code"].replace(
    "scale_scores(get_scores(K, q), q.shape[-1])", "scale_scores(get_scores(K, q), V.shape[-1])")
s7["bugs"].append(("ps4_single_query_code", "single_query_attention",
    "Passes d_v = V.shape[-1] (columns of W_V) as the scaling size instead of d_k (columns of W_K); "
    "wrong whenever d_v != d_k.", []))
s7["cells"]["ps4_heads_answer"] = """Several heads are mainly a speed-up: splitting $d_{\\text{model}}$ into $h$ heads makes the
attention $h$ times cheaper to compute, because each head only works in $d_{\\text{model}}/h$
dimensions. All heads see the same input, so they learn the same attention pattern, and the
result is the same as one head but faster to train."""
s7["bugs"].append(("ps4_heads_answer", None,
    "Claims heads are just an h-times speed-up that learn the same pattern. Wrong: the h heads cost "
    "about as much as one full head, and their separate projections let them learn different "
    "attention patterns (as section 7 shows).", []))
s7["cells"]["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    scores = np.asarray(scores, dtype=float)
    mask = np.asarray(mask, dtype=bool)
    shift = np.max(scores, axis=0)           # column max, for stability
    e = np.zeros_like(scores)
    e[mask] = np.exp((scores - shift)[mask])
    totals = e.sum(axis=0)
    totals[totals == 0] = 1.0                # fully masked column stays all zero
    return e / totals'''
s7["bugs"].append(("ps5_masked_softmax_code", "masked_softmax_cols",
    "Shifts each column by the maximum over ALL its scores, including masked ones; if a masked score "
    "is > ~745 above the allowed ones, every allowed exp underflows to 0 and the column gets zero "
    "weights. The shift must be the max over the allowed entries only.",
    ["masked_self_attention", "equivariance_gaps"]))
s7["cells"]["ps5_masked_attention_code"] = S4["ps5_masked_attention_code"].replace(
    "causal_mask(S.shape[1])", "causal_mask(N)")
s7["bugs"].append(("ps5_masked_attention_code", "masked_self_attention",
    "Builds the mask with the notebook global N (= 5) instead of the number of tokens X.shape[1]; "
    "fails (shape mismatch) for any other number of tokens.", ["equivariance_gaps"]))
BUGGY["blind4_s7"] = s7

# ====================================================================== s8: transposes / conventions
s8 = dict(base="S2", cells={}, bugs=[])
s8["cells"]["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
    X_prime = V @ attentions
    return X_prime, attentions.T        # row n = weights of output n, easier to read'''
s8["bugs"].append(("ps1_scaled_code", "scaled_dot_product_self_attention",
    "Returns the attention matrix transposed (rows = outputs) although the notebook's convention "
    "is column n = weights for output n; X_prime is right but attentions should not be transposed.",
    []))
s8["cells"]["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    inverse = np.argsort(perm)
    return bool(np.allclose(f(X[:, perm]), f(X)[:, inverse]))'''
s8["bugs"].append(("ps1_equivariance_code", "check_equivariance",
    "Permutes the output with the inverse permutation (np.argsort(perm)); f(XP) must be compared "
    "with f(X)[:, perm], the same permutation (they only agree when perm is its own inverse).", []))
s8["cells"]["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    outs = [single_head_attention(X, heads[h]["omega_v"], heads[h]["omega_q"], heads[h]["omega_k"],
                                  heads[h]["beta_v"], heads[h]["beta_q"], heads[h]["beta_k"])
            for h in range(H)]
    X_prime = omega_c @ np.concatenate(outs, axis=0)
    return X_prime'''
s8["bugs"].append(("ps2_multihead_general_code", "multihead_self_attention",
    "Loops over range(H) with the notebook global H = 2 instead of len(heads), so with more heads "
    "only the first two are used (and omega_c's shapes clash).", []))
s8["cells"]["ps3_softmax_code"] = '''def softmax(X):
    Z = np.asarray(X, dtype=float)
    E = np.exp(Z - Z.max(axis=1))
    return E / E.sum(axis=1)'''
s8["bugs"].append(("ps3_softmax_code", "softmax",
    "Drops keepdims: Z.max(axis=1) and E.sum(axis=1) have shape (n,) and broadcast along the last "
    "axis, so row i is shifted/divided by column-indexed values (wrong for square input, an error "
    "otherwise); use keepdims=True.", ["SelfAttention.forward"]))
s8["cells"]["ps3_layer_code"] = S2["ps3_layer_code"].replace(
    "Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v",
    "Q, K, V = x @ self.W_q.T, x @ self.W_k.T, x @ self.W_v.T")
s8["bugs"].append(("ps3_layer_code", "SelfAttention.forward",
    "Multiplies by the transposed weights (x @ W_q.T etc., the nn.Linear habit) instead of x @ W_q, "
    "x @ W_k, x @ W_v as in equation (2).", []))
s8["cells"]["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    return np.asarray(vector) @ np.asarray(matrix)'''
s8["bugs"].append(("ps4_get_scores_code", "get_scores",
    "vector @ matrix contracts the vector with the matrix's ROWS (it computes matrix.T @ vector), "
    "so score j is the dot with column j, not row j; should be matrix @ vector (and T != n fails).",
    ["single_query_attention"]))
s8["cells"]["ps4_split_heads_code"] = '''def split_heads(W, h):
    return [W[:, i * h:(i + 1) * h] for i in range(h)]'''
s8["bugs"].append(("ps4_split_heads_code", "split_heads",
    "Uses h as the block width (columns i*h to (i+1)*h) instead of W.shape[1] // h; right only when "
    "h*h equals the number of columns.", []))
s8["cells"]["ps4_heads_answer"] = """With several heads the model has more parameters than with one head, so it can fit the data
better. Each head has its own $\\mathbf{W}^Q_i$, $\\mathbf{W}^K_i$, $\\mathbf{W}^V_i$ of size
$d_{\\text{model}} \\times d_{\\text{model}}$, which makes the model $h$ times bigger and therefore
more accurate."""
s8["bugs"].append(("ps4_heads_answer", None,
    "Says heads help by adding parameters with d_model x d_model per-head matrices. Wrong: each "
    "W^Q_i is d_model x d_model/h, so h heads have about the same parameters as one; the benefit is "
    "several different attention patterns/subspaces at once.", []))
s8["cells"]["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    freqs = 1.0 / 10000 ** (np.arange(0, D, 2) / D)
    angles = freqs[:, None] * np.arange(1, N + 1)[None, :]     # positions 1..N as in UDL
    Pi = np.empty((D, N))
    Pi[0::2] = np.sin(angles)
    Pi[1::2] = np.cos(angles)
    return Pi'''
s8["bugs"].append(("ps5_positional_encoding_code", "positional_encoding",
    "Counts positions from 1 (np.arange(1, N + 1)) although the notebook counts them from 0; "
    "column n must use position n, so column 0 is [0, 1, 0, 1, ...].", ["equivariance_gaps"]))
s8["cells"]["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    p = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(*X.shape)
    fs = (lambda Z: scaled_self_attention(Z, *p)[0],
          lambda Z: masked_self_attention(Z, *p)[0],
          lambda Z: scaled_self_attention(Z + Pi, *p)[0])
    return np.array([np.max(f(X[:, perm]) - f(X)[:, perm]) for f in fs])'''
s8["bugs"].append(("ps5_equivariance_code", "equivariance_gaps",
    "Takes the max of the signed difference instead of its absolute value, so a gap whose largest "
    "deviation is negative is under-reported (and a plain gap can come out negative); (G) needs "
    "np.max(np.abs(...)).", []))
BUGGY["blind4_s8"] = s8

# ====================================================================== s9: log-domain but sloppy
s9 = dict(base="S3", cells={}, bugs=[])
s9["cells"]["ps1_softmax_code"] = '''def _logsumexp(z, axis=None, keepdims=False):
    """log(sum(exp(z))) without overflow: m + log(sum(exp(z - m)))."""
    m = np.max(z, axis=axis, keepdims=True)
    out = m + np.log(np.sum(np.exp(z - m), axis=axis, keepdims=True))
    return out if keepdims else np.squeeze(out, axis=axis)


def softmax(items_in):
    z = np.array(items_in, dtype=np.float64).reshape(-1)
    return np.exp(z - z.max()) / np.sum(np.exp(z))'''
s9["bugs"].append(("ps1_softmax_code", "softmax",
    "Shifts the numerator by the max but not the denominator (np.sum(np.exp(z))), so the result is "
    "off by the factor e^{-max} (only right when max = 0) and the denominator overflows for large "
    "scores; both must use exp(z - max).", ["self_attention_loop"]))
s9["cells"]["ps1_self_attention_code"] = S3["ps1_self_attention_code"].replace(
    "attentions = softmax_cols(K.T @ Q)", "attentions = softmax_cols(Q.T @ K)")
s9["bugs"].append(("ps1_self_attention_code", "self_attention",
    "Computes Q^T K instead of K^T Q, so entry (m, n) is q_m . k_n and the column softmax normalises "
    "over the wrong index (attention transposed before normalising).", []))
s9["cells"]["ps2_single_head_code"] = S3["ps2_single_head_code"].replace(
    "D_q = Q.shape[0]                    # rows of this head's queries (D/H), not D",
    "D_q = omega_q.shape[1]              # size of the queries")
s9["bugs"].append(("ps2_single_head_code", "single_head_attention",
    "Takes D_q from omega_q.shape[1] (its columns, = D) instead of omega_q.shape[0] / Q.shape[0] "
    "(= D/H), so it scales by sqrt(D).", ["multihead_scaled_self_attention", "multihead_self_attention"]))
s9["cells"]["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    sa1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    sa2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    X_prime = np.concatenate([sa1, sa2], axis=0)      # D x N
    return X_prime'''
s9["bugs"].append(("ps2_multihead_scaled_code", "multihead_scaled_self_attention",
    "Returns the stacked heads [Sa_1; Sa_2] without multiplying by omega_c (equation 12.11 needs "
    "X_prime = omega_c @ stacked).", []))
s9["cells"]["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = int(dims)
        shape = (self.dims, self.dims)
        self.W_q = np.random.normal(0.0, 1.0, size=shape)
        self.W_k = np.random.normal(0.0, 1.0, size=shape)
        self.W_v = np.random.normal(0.0, 1.0, size=shape)
        self.W_o = np.random.normal(0.0, 1.0, size=shape)

    def forward(self, x):
        x = np.asarray(x, dtype=np.float64)
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        S = Q @ K.T / self.dims                   # the scores
        A = softmax(S)
        return (A @ V) @ self.W_v'''
s9["bugs"].append(("ps3_layer_code", "SelfAttention.forward",
    "Divides the scores by dims instead of sqrt(dims).", []))
s9["bugs"].append(("ps3_layer_code", "SelfAttention.forward",
    "Multiplies the self-attention by W_v again instead of W_o in the last step (equation 5: "
    "(A V) W_o).", []))
s9["cells"]["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    M = np.asarray(matrix, dtype=np.float64)
    v = np.asarray(vector, dtype=np.float64).reshape(-1, 1)      # column vector
    return M @ v'''
s9["bugs"].append(("ps4_get_scores_code", "get_scores",
    "Returns a T x 1 column (M @ v with v reshaped to (n, 1)) instead of a 1-D array of shape (T,).",
    ["single_query_attention"]))
s9["cells"]["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
T, d_model, h = 3, 4, 2
d_k = d_model // h
head_W_shape = (d_k, d_model)          # Omega maps d_model -> d_k
concat_shape = (T, h * d_k)
W_O_shape = (h * d_k, d_model)'''
s9["bugs"].append(("ps4_dimensions_code", "head_W_shape",
    "head_W_shape = (2, 4) is problem set 2's Omega shape; with tokens in rows x W^Q_i needs W^Q_i of "
    "shape d_model x d_k = (4, 2).", []))
s9["cells"]["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.triu(np.ones((N, N)))'''
s9["bugs"].append(("ps5_causal_mask_code", "causal_mask",
    "Returns a float 0/1 matrix (np.triu(np.ones((N, N)))) instead of dtype bool; ~mask or "
    "indexing with it then behaves differently. Use np.ones((N, N), dtype=bool).", []))
s9["cells"]["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    z = np.asarray(scores, dtype=np.float64)
    m = z.max(axis=0, keepdims=True)
    w = np.exp(z - m - np.log(np.exp(z - m).sum(axis=0, keepdims=True)))   # softmax
    return w * mask                                                          # then mask'''
s9["bugs"].append(("ps5_masked_softmax_code", "masked_softmax_cols",
    "Masks AFTER the softmax (weights * mask) instead of setting masked scores to -inf before it, "
    "so allowed weights no longer sum to 1 (M2).", ["masked_self_attention", "equivariance_gaps"]))
BUGGY["blind4_s9"] = s9

# ====================================================================== s10: subtle ones
s10 = dict(base="S1", cells={}, bugs=[])
s10["cells"]["ps1_loop_code"] = S1["ps1_loop_code"].replace(
    "    for q_n in all_queries:", "    for n in range(N):\n        q_n = all_queries[n]").replace(
    "for m in range(len(all_values)):", "for m in range(N):")
s10["bugs"].append(("ps1_loop_code", "self_attention_loop",
    "Loops over range(N) with the notebook global N = 3 instead of len(all_x); for any other number "
    "of tokens it returns the wrong number of outputs or sums the wrong values.", []))
s10["cells"]["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    out_of_permuted = f(X[:, perm])
    out = f(X)
    # first output token is enough to see whether the permutation commutes
    return bool(np.allclose(out_of_permuted[:, 0], out[:, perm[0]]))'''
s10["bugs"].append(("ps1_equivariance_code", "check_equivariance",
    "Compares only the first output column, so a map that is wrong on the other columns is still "
    "reported equivariant; all columns of f(X[:, perm]) and f(X)[:, perm] must be compared.", []))
s10["cells"]["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    head_outputs = []
    for i in range(len(heads)):
        head = heads[i - 1]
        out = single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                    head["beta_v"], head["beta_q"], head["beta_k"])
        head_outputs.append(out)
    X_prime = omega_c @ np.vstack(head_outputs)
    return X_prime'''
s10["bugs"].append(("ps2_multihead_general_code", "multihead_self_attention",
    "Off-by-one: heads[i - 1] takes the last head first (order H, 1, 2, ..., H-1), so the head "
    "blocks are stacked in the wrong order; it should use heads[i].", []))
s10["cells"]["ps3_softmax_code"] = '''def softmax(X):
    X = np.asarray(X, dtype=float)
    e = np.exp(X - X.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)'''
s10["bugs"].append(("ps3_softmax_code", "softmax",
    "Uses axis=0 (columns, as in problem set 1) instead of axis=1: it normalises each column, but "
    "this layer needs each ROW of the scores to sum to one.", ["SelfAttention.forward"]))
s10["cells"]["ps4_scale_scores_code"] = '''import math


def scale_scores(scores, n):
    return np.asarray(scores) / n ** 1/2'''
s10["bugs"].append(("ps4_scale_scores_code", "scale_scores",
    "Operator precedence: scores / n ** 1/2 parses as (scores / n) / 2, dividing by 2n instead of "
    "sqrt(n); write n ** 0.5 or np.sqrt(n).", ["single_query_attention"]))
s10["cells"]["ps4_single_query_code"] = S1["ps4_single_query_code"].replace(
    "d_k = K.shape[1]", "d_k = tokens.shape[1]     # size of the tokens")
s10["bugs"].append(("ps4_single_query_code", "single_query_attention",
    "Scales by the token size d_model = tokens.shape[1] instead of d_k = W_K.shape[1]; wrong whenever "
    "the projections change the size.", []))
s10["cells"]["ps4_split_heads_code"] = '''def split_heads(W, h):
    width = W.shape[1] // h
    return np.stack([W[:, i * width:(i + 1) * width] for i in range(h)])'''
s10["bugs"].append(("ps4_split_heads_code", "split_heads",
    "Returns one 3-D array (np.stack) of shape (h, rows, cols/h) instead of the requested list of h "
    "2-D blocks.", []))
s10["cells"]["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    for n in range(N):
        for i in range(D // 2):
            angle = n / (10000 ** (2 * i / D))
            Pi[2 * i, n] = np.cos(angle)
            Pi[2 * i + 1, n] = np.sin(angle)
    return Pi'''
s10["bugs"].append(("ps5_positional_encoding_code", "positional_encoding",
    "Swaps sine and cosine: even rows 2i get cos and odd rows 2i+1 get sin; (PE) puts sin in row 2i "
    "and cos in row 2i+1.", ["equivariance_gaps"]))
s10["cells"]["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    n_tokens = X.shape[1]
    scores = (K.T @ Q) / np.sqrt(Q.shape[0])
    # softmax first, then keep the allowed entries and renormalise each column
    e = np.exp(scores - scores.max(axis=0, keepdims=True))
    attentions = e * causal_mask(n_tokens)
    attentions = attentions / attentions.sum(axis=0, keepdims=True)
    X_prime = V @ attentions
    return X_prime, attentions'''
s10["bugs"].append(("ps5_masked_attention_code", "masked_self_attention",
    "Does not use masked_softmax_cols: it subtracts the max over the whole column (including future "
    "tokens) and masks afterwards, so when a future score is > ~745 above all allowed ones the "
    "allowed weights underflow and the column becomes 0/0 = nan.", ["equivariance_gaps"]))
s10["cells"]["ps5_decoder_answer"] = """(a) Without the mask the decoder would just learn the average next word, because every output
sees the whole sentence and the information is mixed together; this makes the predictions blurry.

(b) No: output $n$ is a weighted sum over tokens $0, \\ldots, n$ that does not change when those
earlier tokens are permuted, so a single causal layer does not know their order."""
s10["bugs"].append(("ps5_decoder_answer", None,
    "Part (a) is wrong: without the mask output n can see token n+1 and simply learns to copy it "
    "(a trivial solution), which is useless at generation time because the next token is not yet "
    "available; it does not 'learn the average word'.", []))
BUGGY["blind4_s10"] = s10

# Bugs for students 5-10. Each bug: the whole solution cell = the reference solution with ONLY this bug.
from sols_ref import REF

def R(ps, cell):
    return REF[ps][cell]

P1, P2, P3, P4, P5 = ("ps1_self_attention", "ps2_multihead_attention", "ps3_attention_layer",
                      "ps4_encoder_decoder_attention", "ps5_masked_attention")

def rep(ps, cell, old, new):
    src = R(ps, cell)
    assert old in src, (cell, old)
    return src.replace(old, new)

BUGS = []
def bug(student, ps, cell, function, mistake, src, test_cell, also=()):
    BUGS.append(dict(student=f"blind10_s{student}", ps=ps, cell=cell, function=function,
                     mistake=mistake, src=src, visible_test_cell=test_cell, also_affects=list(also)))

# ---------------- student 5 ----------------
bug(5, P1, "ps1_softmax_code", "softmax",
    "Stabilises by subtracting the smallest score (z - z.min()) instead of the largest, so the exponents can still be large and np.exp overflows to inf/nan when one score is far above the others; it should subtract z.max().",
    rep(P1, "ps1_softmax_code", "z - z.max()", "z - z.min()"), "ps1_softmax", ["self_attention_loop"])
bug(5, P1, "ps1_loop_code", "self_attention_loop",
    "The values are computed with the query bias (beta_q + omega_v @ x) instead of beta_v, so every output is shifted by beta_q - beta_v; it should use beta_v.",
    rep(P1, "ps1_loop_code", "all_values.append(beta_v + omega_v @ x)", "all_values.append(beta_q + omega_v @ x)"),
    "ps1_self_attention_loop")
bug(5, P1, "ps1_scaled_code", "scaled_dot_product_self_attention",
    "Divides the scores by np.sqrt(D) using the notebook's global D instead of the query size Q.shape[0]; right only when D_q equals the global D (4), wrong for the hidden tests with D_q < D or other D.",
    rep(P1, "ps1_scaled_code", "np.sqrt(Q.shape[0])", "np.sqrt(D)"), "ps1_scaled_attention")
bug(5, P1, "ps1_positional_answer", "written answer",
    "Answers 'yes': claims adding the same positional matrix keeps the layer equivariant. Wrong: Pi stays with the positions, so X P + Pi is not (X + Pi) P and Sa[X P + Pi] != Sa[X + Pi] P.",
    "Yes. Pi is added to every column, so it is just a constant shift of the inputs and the attention still only compares the tokens with each other; permuting the columns of X therefore still permutes the outputs in the same way, so the layer stays equivariant.",
    None)
bug(5, P2, "ps2_multihead_scaled_code", "multihead_scaled_self_attention",
    "Stacks the heads in the wrong order (head 2 on top of head 1) before multiplying by omega_c; head 1 must come first.",
    rep(P2, "ps2_multihead_scaled_code", "np.vstack([head1, head2])", "np.vstack([head2, head1])"),
    "ps2_multihead_scaled")
bug(5, P3, "ps3_layer_code", "SelfAttention.forward",
    "Divides the scores by self.dims instead of np.sqrt(self.dims) (missing square root), so the attention is too flat.",
    rep(P3, "ps3_layer_code", "Q @ K.T / np.sqrt(self.dims)", "Q @ K.T / self.dims"), "ps3_forward")
bug(5, P4, "ps4_context_vector_code", "get_context_vector",
    "Multiplies the 1-D weights elementwise with the matrix and sums over axis 0 (np.sum(w * H, axis=0)); broadcasting lines the weights up with the columns, so weight j scales feature j instead of state j (and it fails on non-square matrices). It should compute w @ H.",
    rep(P4, "ps4_context_vector_code", "return attention_weights @ hidden_encoder_matrix",
        "return np.sum(attention_weights * hidden_encoder_matrix, axis=0)"),
    "ps4_context_vector", ["single_query_attention"])
bug(5, P4, "ps4_dimensions_code", "head_W_shape",
    "head_W_shape is given as (2, 4), the problem-set-2 (Omega on the left) orientation; with tokens in rows W^Q_i is d_model x d_model/h = (4, 2).",
    rep(P4, "ps4_dimensions_code", "head_W_shape = (4, 2)", "head_W_shape = (2, 4)"), "ps4_dimensions")
bug(5, P5, "ps5_causal_mask_code", "causal_mask",
    "Uses np.tril, the lower triangle (the rows-as-tokens convention), so output n may attend to later inputs m > n; with inputs in rows and outputs in columns the allowed entries are the upper triangle (np.triu).",
    rep(P5, "ps5_causal_mask_code", "np.triu(", "np.tril("), "ps5_causal_mask",
    ["masked_self_attention", "equivariance_gaps"])
bug(5, P5, "ps5_positional_encoding_code", "positional_encoding",
    "Uses the row index r in the exponent (10000 ** (r / D)) instead of 2i = r - r % 2, so the cosine rows get the frequency of the next sine row; rows 2i and 2i+1 must share one frequency.",
    rep(P5, "ps5_positional_encoding_code", "angle = positions / 10000 ** (two_i / D)", "angle = positions / 10000 ** (r / D)"),
    "ps5_positional_encoding", ["equivariance_gaps"])

# ---------------- student 6 ----------------
bug(6, P1, "ps1_softmax_cols_code", "softmax_cols",
    "Takes the maxima and sums along axis=1 (rows) instead of axis=0, so it computes a row softmax and the columns do not sum to one.",
    R(P1, "ps1_softmax_cols_code").replace("axis=0", "axis=1"), "ps1_softmax_cols",
    ["self_attention", "scaled_dot_product_self_attention"])
bug(6, P1, "ps1_equivariance_code", "check_equivariance",
    "Compares the sums of the two matrices (abs(sum(f(X[:, perm]) - f(X)[:, perm])) < 1e-6) instead of comparing entry by entry with np.allclose; differences cancel, so a non-equivariant map such as token reversal is reported equivariant.",
    '''def check_equivariance(f, X, perm):
    difference = f(X[:, perm]) - f(X)[:, perm]
    return bool(abs(np.sum(difference)) < 1e-6)''', "ps1_equivariance")
bug(6, P2, "ps2_single_head_code", "single_head_attention",
    "Scales by the square root of omega_q.shape[1] (the input size D = 8, its number of columns) instead of the number of rows of Q (D/H = 4).",
    rep(P2, "ps2_single_head_code", "np.sqrt(Q.shape[0])", "np.sqrt(omega_q.shape[1])"), "ps2_single_head",
    ["multihead_scaled_self_attention", "multihead_self_attention"])
bug(6, P3, "ps3_softmax_code", "softmax",
    "Subtracts the row maxima in place (X -= X.max(axis=1, keepdims=True)), which modifies the caller's array; it should work on a new array (X = X - ...).",
    '''def softmax(X):
    X -= X.max(axis=1, keepdims=True)
    exp_x = np.exp(X)
    return exp_x / exp_x.sum(axis=1, keepdims=True)''', "ps3_softmax")
bug(6, P3, "ps3_layer_code", "SelfAttention.__init__",
    "Draws the weights with np.random.normal(0.0, 0.1, ...) (standard deviation 0.1, copied from the exam's sample answer) instead of standard deviation 1.",
    R(P3, "ps3_layer_code").replace("np.random.normal(0.0, 1.0, (dims, dims))", "np.random.normal(0.0, 0.1, (dims, dims))"),
    "ps3_init")
bug(6, P4, "ps4_get_scores_code", "get_scores",
    "Computes vector @ matrix (a sum over the rows, one result per column) instead of matrix @ vector (one dot product per row); wrong values on square matrices and a shape error on a 3 x 4 matrix.",
    '''def get_scores(matrix, vector):
    return vector @ matrix''', "ps4_get_scores", ["single_query_attention"])
bug(6, P4, "ps4_single_query_code", "single_query_attention",
    "Scales the scores with the size of the query token (d_model, query_token.shape[0]) instead of d_k = W_K.shape[1]; right only when d_k = d_model.",
    rep(P4, "ps4_single_query_code", "d_k = W_K.shape[1]", "d_k = query_token.shape[0]"), "ps4_single_query")
bug(6, P4, "ps4_split_heads_code", "split_heads",
    "Splits the rows instead of the columns (np.split(W, h, axis=0)), so the blocks are h x ... row blocks; head i should get columns i*d/h to (i+1)*d/h.",
    '''def split_heads(W, h):
    return np.split(W, h, axis=0)''', "ps4_split_heads")
bug(6, P5, "ps5_masked_softmax_code", "masked_softmax_cols",
    "Subtracts the maximum over ALL scores of the column (masked ones included) and then replaces nan by 0; when a masked score is far above the allowed ones every allowed exponent underflows to 0 and the column becomes zeros. It should subtract the maximum of the allowed scores only.",
    '''def masked_softmax_cols(scores, mask):
    masked = np.where(mask, scores, -np.inf)
    exp_values = np.exp(masked - scores.max(axis=0, keepdims=True))
    with np.errstate(invalid="ignore"):
        weights = exp_values / exp_values.sum(axis=0, keepdims=True)
    return np.nan_to_num(weights)''', "ps5_masked_softmax", ["masked_self_attention", "equivariance_gaps"])
bug(6, P5, "ps5_decoder_answer", "written answer",
    "Part (b) is wrong: claims output n depends on the order of tokens 0..n-1. Without positional encodings output n is a sum over the set of tokens 0..n, so permuting tokens 0..n-1 leaves it unchanged.",
    '''(a) Without the mask the decoder could see token n+1, so it would just learn to copy it from the input; when generating, that token is not there yet, so the model would be useless.

(b) Yes. Because of the mask each output sees a different prefix, so the order matters: if tokens 0, ..., n-1 are permuted, the masks of the earlier tokens change and output n changes as well.''', None)

# ---------------- student 7 ----------------
bug(7, P1, "ps1_loop_code", "self_attention_loop",
    "Flattens every output with .ravel() before returning, so the outputs have shape (D,) instead of D x 1 columns (D, 1).",
    rep(P1, "ps1_loop_code", "all_x_prime.append(x_prime)", "all_x_prime.append(x_prime.ravel())"),
    "ps1_self_attention_loop")
bug(7, P1, "ps1_self_attention_code", "self_attention",
    "Computes the scores as Q.T @ K instead of K.T @ Q, so the score matrix (and the attention matrix) is transposed: the softmax normalises over the wrong index.",
    rep(P1, "ps1_self_attention_code", "softmax_cols(K.T @ Q)", "softmax_cols(Q.T @ K)"), "ps1_self_attention")
bug(7, P1, "ps1_scaled_code", "scaled_dot_product_self_attention",
    "Operator precedence: writes Q.shape[0] ** 1/2, which is (D_q ** 1) / 2 = D_q / 2, not sqrt(D_q); it coincides with the square root only for D_q = 4.",
    rep(P1, "ps1_scaled_code", "K.T @ Q / np.sqrt(Q.shape[0])", "K.T @ Q / (Q.shape[0] ** 1/2)"), "ps1_scaled_attention")
bug(7, P2, "ps2_multihead_general_code", "multihead_self_attention",
    "Loops over range(H) with the notebook's global H = 2 instead of over all entries of heads, so with four heads only the first two are used (and the product with omega_c fails).",
    '''def multihead_self_attention(X, heads, omega_c):
    outputs = []
    for i in range(H):
        head = heads[i]
        outputs.append(single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                             head["beta_v"], head["beta_q"], head["beta_k"]))
    X_prime = omega_c @ np.vstack(outputs)
    return X_prime''', "ps2_multihead_general")
bug(7, P3, "ps3_layer_code", "SelfAttention.forward",
    "Scales the queries by dividing self.W_q in place (self.W_q /= np.sqrt(self.dims)) instead of dividing the scores, so every call to forward changes the layer and a second call on the same tokens gives a different output.",
    rep(P3, "ps3_layer_code", '''        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        scores = Q @ K.T / np.sqrt(self.dims)''', '''        self.W_q /= np.sqrt(self.dims)  # scale the queries
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        scores = Q @ K.T'''), "ps3_forward")
bug(7, P4, "ps4_scale_scores_code", "scale_scores",
    "Divides by np.sqrt(len(scores)) (the number of tokens T) and ignores the argument n; it should divide by np.sqrt(n).",
    '''def scale_scores(scores, n):
    return np.asarray(scores) / np.sqrt(len(scores))''', "ps4_scale_scores", ["single_query_attention"])
bug(7, P4, "ps4_attention_weights_code", "get_attention_weights",
    "Uses scipy.special.softmax, which the task forbids (numpy only, no scipy); the values are right.",
    '''from scipy.special import softmax


def get_attention_weights(scores):
    return softmax(scores)''', "ps4_attention_weights")
bug(7, P4, "ps4_dimensions_code", "concat_shape",
    "concat_shape is given as (3, 2), the shape of one head's output; Concat(head_1, head_2) puts the two 3 x 2 outputs side by side: (3, 4).",
    rep(P4, "ps4_dimensions_code", "concat_shape = (3, 4)", "concat_shape = (3, 2)"), "ps4_dimensions")
bug(7, P5, "ps5_masked_attention_code", "masked_self_attention",
    "Builds the mask with causal_mask(N), the notebook's global N = 5, instead of X.shape[1]; fails (shape mismatch) for any other number of tokens.",
    rep(P5, "ps5_masked_attention_code", "causal_mask(X.shape[1])", "causal_mask(N)"), "ps5_masked_attention",
    ["equivariance_gaps"])
bug(7, P5, "ps5_equivariance_code", "equivariance_gaps",
    "For the third gap it permutes the positional encoding together with the tokens (Sa[(X + Pi) P] vs Sa[X + Pi] P), so the third gap is 0; Pi belongs to the positions and must not be permuted.",
    '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(X.shape[0], X.shape[1])

    def gap(f):
        return np.max(np.abs(f(X[:, perm]) - f(X)[:, perm]))

    plain = lambda Z: scaled_self_attention(Z, *params)[0]
    causal = lambda Z: masked_self_attention(Z, *params)[0]
    positions = np.max(np.abs(scaled_self_attention(X[:, perm] + Pi[:, perm], *params)[0]
                              - scaled_self_attention(X + Pi, *params)[0][:, perm]))
    return np.array([gap(plain), gap(causal), positions])''', "ps5_equivariance")

# ---------------- student 8 ----------------
bug(8, P1, "ps1_softmax_code", "softmax",
    "Stabilises by subtracting the mean score instead of the maximum; exponents can still exceed 709 when one score is far above the mean (e.g. [0, 0, 2200]) and overflow to inf/nan. It should subtract the maximum.",
    rep(P1, "ps1_softmax_code", "z - z.max()", "z - z.mean()"), "ps1_softmax", ["self_attention_loop"])
bug(8, P1, "ps1_softmax_cols_code", "softmax_cols",
    "Subtracts the maximum of the whole matrix (data_in.max()) instead of each column's maximum; a column far below the global maximum underflows to 0/0 = nan.",
    rep(P1, "ps1_softmax_cols_code", "data_in.max(axis=0, keepdims=True)", "data_in.max()"), "ps1_softmax_cols",
    ["self_attention", "scaled_dot_product_self_attention"])
bug(8, P1, "ps1_equivariance_code", "check_equivariance",
    "Permutes the rows of f(X) (f(X)[perm]) instead of its columns (f(X)[:, perm]); the shapes differ (or the wrong entries are compared) and np.allclose raises or gives the wrong answer.",
    '''def check_equivariance(f, X, perm):
    return bool(np.allclose(f(X[:, perm]), f(X)[perm]))''', "ps1_equivariance")
bug(8, P2, "ps2_single_head_code", "single_head_attention",
    "Computes the scores as Q.T @ K instead of K.T @ Q, so the attention matrix is transposed (the softmax runs over the queries instead of the keys).",
    rep(P2, "ps2_single_head_code", "softmax_cols(K.T @ Q", "softmax_cols(Q.T @ K"), "ps2_single_head",
    ["multihead_scaled_self_attention", "multihead_self_attention"])
bug(8, P3, "ps3_layer_code", "SelfAttention.__init__",
    "Calls np.random.seed(0) inside __init__, so every layer gets the same weights whatever seed the caller set; the weights must come from the global generator without reseeding.",
    rep(P3, "ps3_layer_code", "        self.dims = dims\n", "        self.dims = dims\n        np.random.seed(0)  # reproducible weights\n"),
    "ps3_init")
bug(8, P4, "ps4_attention_weights_code", "get_attention_weights",
    "Subtracts the smallest score (np.min) instead of the largest before np.exp, so a score far above the minimum still overflows to inf/nan.",
    rep(P4, "ps4_attention_weights_code", "np.max(scores)", "np.min(scores)"), "ps4_attention_weights",
    ["single_query_attention"])
bug(8, P4, "ps4_context_vector_code", "get_context_vector",
    "Uses the notebook's global h_e instead of the argument hidden_encoder_matrix; it should only use its arguments.",
    '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return attention_weights @ h_e''', "ps4_context_vector", ["single_query_attention"])
bug(8, P4, "ps4_split_heads_code", "split_heads",
    "Returns one 3-D array (np.stack of the blocks) instead of a list of blocks; the blocks themselves are right.",
    '''def split_heads(W, h):
    size = W.shape[1] // h
    return np.stack([W[:, i * size:(i + 1) * size] for i in range(h)])''', "ps4_split_heads")
bug(8, P5, "ps5_masked_attention_code", "masked_self_attention",
    "Scales the scores by np.sqrt(D) with the notebook's global D instead of the query size Q.shape[0]; right only when D_q equals 4.",
    rep(P5, "ps5_masked_attention_code", "np.sqrt(Q.shape[0])", "np.sqrt(D)"), "ps5_masked_attention",
    ["equivariance_gaps"])
bug(8, P5, "ps5_positional_encoding_code", "positional_encoding",
    "Swaps sine and cosine: even rows get cos and odd rows get sin; (PE) puts sin in the even rows 2i and cos in the odd rows 2i+1.",
    rep(P5, "ps5_positional_encoding_code", '''            Pi[r] = np.sin(angle)
        else:
            Pi[r] = np.cos(angle)''', '''            Pi[r] = np.cos(angle)
        else:
            Pi[r] = np.sin(angle)'''), "ps5_positional_encoding", ["equivariance_gaps"])

# ---------------- student 9 ----------------
bug(9, P1, "ps1_loop_code", "self_attention_loop",
    "Loops over range(N) with the notebook's global N instead of len(all_x); wrong (IndexError or missing outputs) for any other number of tokens.",
    '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    all_queries = []
    all_keys = []
    all_values = []
    for n in range(N):
        all_queries.append(beta_q + omega_q @ all_x[n])
        all_keys.append(beta_k + omega_k @ all_x[n])
        all_values.append(beta_v + omega_v @ all_x[n])

    all_x_prime = []
    for n in range(N):
        scores = [(all_keys[m].T @ all_queries[n]).item() for m in range(N)]
        attention = softmax(scores)
        x_prime = np.zeros_like(all_values[0])
        for m in range(N):
            x_prime = x_prime + attention[m] * all_values[m]
        all_x_prime.append(x_prime)
    return all_x_prime''', "ps1_self_attention_loop")
bug(9, P1, "ps1_self_attention_code", "self_attention",
    "Forgets the value bias: V = omega_v @ X instead of beta_v + omega_v @ X (equation 12.6).",
    rep(P1, "ps1_self_attention_code", "V = beta_v + omega_v @ X", "V = omega_v @ X"), "ps1_self_attention")
bug(9, P2, "ps2_multihead_scaled_code", "multihead_scaled_self_attention",
    "Multiplies by the transpose of omega_c (omega_c.T @ stacked) instead of omega_c @ stacked.",
    rep(P2, "ps2_multihead_scaled_code", "omega_c @ np.vstack", "omega_c.T @ np.vstack"), "ps2_multihead_scaled")
bug(9, P2, "ps2_multihead_general_code", "multihead_self_attention",
    "Passes each head's parameters with *head.values(), i.e. in the dictionary order (queries, keys, values, ...), so omega_q is used as omega_v etc.; they must be read by name in the order values, queries, keys.",
    '''def multihead_self_attention(X, heads, omega_c):
    outputs = [single_head_attention(X, *head.values()) for head in heads]
    X_prime = omega_c @ np.vstack(outputs)
    return X_prime''', "ps2_multihead_general")
bug(9, P3, "ps3_softmax_code", "softmax",
    "Takes the maxima and sums along axis=0 (down the columns) instead of axis=1, so the columns rather than the rows sum to one.",
    R(P3, "ps3_softmax_code").replace("axis=1", "axis=0"), "ps3_softmax", ["SelfAttention.forward"])
bug(9, P3, "ps3_layer_code", "SelfAttention.forward",
    "Computes the scores as K @ Q.T instead of Q @ K.T, so the score matrix is transposed and row i no longer holds the weights of output i.",
    rep(P3, "ps3_layer_code", "Q @ K.T / np.sqrt", "K @ Q.T / np.sqrt"), "ps3_forward")
bug(9, P4, "ps4_get_scores_code", "get_scores",
    "Returns a T x 1 column (matrix @ vector[:, None]) instead of a 1-D array of T scores.",
    '''def get_scores(matrix, vector):
    return matrix @ vector[:, None]''', "ps4_get_scores", ["single_query_attention"])
bug(9, P4, "ps4_single_query_code", "single_query_attention",
    "Turns the query into a 1 x d_k row with np.expand_dims (as the worksheet did), so the weights come out 1 x T and the output 1 x d_v instead of 1-D arrays (right values, wrong shapes).",
    '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.expand_dims(query_token @ W_Q, axis=0)
    K = tokens @ W_K
    V = tokens @ W_V
    d_k = W_K.shape[1]
    scores = q @ K.T / np.sqrt(d_k)
    exp_scores = np.exp(scores - scores.max())
    attention_weights = exp_scores / exp_scores.sum()
    output = attention_weights @ V
    return attention_weights, output''', "ps4_single_query")
bug(9, P5, "ps5_causal_mask_code", "causal_mask",
    "Returns np.triu(np.ones((N, N))), a float 0/1 matrix, instead of a boolean matrix (dtype bool).",
    '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.triu(np.ones((N, N)))''', "ps5_causal_mask")
bug(9, P5, "ps5_masked_softmax_code", "masked_softmax_cols",
    "Replaces the masked scores by 0 instead of -inf before the softmax, so masked entries get weight exp(0 - max) > 0 and the allowed weights do not sum to one (M2).",
    '''def masked_softmax_cols(scores, mask):
    masked = np.where(mask, scores, 0.0)
    exp_values = np.exp(masked - masked.max(axis=0, keepdims=True))
    return exp_values / exp_values.sum(axis=0, keepdims=True)''', "ps5_masked_softmax",
    ["masked_self_attention", "equivariance_gaps"])

# ---------------- student 10 ----------------
bug(10, P1, "ps1_softmax_cols_code", "softmax_cols",
    "Subtracts the column maxima in place (data_in -= ...), which modifies the caller's array; it should build a new array (data_in - ...).",
    '''def softmax_cols(data_in):
    data_in -= data_in.max(axis=0, keepdims=True)
    exp_values = np.exp(data_in)
    return exp_values / exp_values.sum(axis=0, keepdims=True)''', "ps1_softmax_cols")
bug(10, P1, "ps1_scaled_code", "scaled_dot_product_self_attention",
    "Takes D_q from omega_q.shape[1] (the number of columns of Omega_q, the input size D) instead of the number of rows of Q; wrong when D_q < D.",
    rep(P1, "ps1_scaled_code", "np.sqrt(Q.shape[0])", "np.sqrt(omega_q.shape[1])"), "ps1_scaled_attention")
bug(10, P1, "ps1_equivariance_code", "check_equivariance",
    "Compares with a loose tolerance np.allclose(..., atol=1e-3) instead of np.allclose's defaults (rtol=1e-5, atol=1e-8), so a map that is off by less than 1e-3 is reported equivariant.",
    rep(P1, "ps1_equivariance_code", "f(X)[:, perm]))", "f(X)[:, perm], atol=1e-3))"), "ps1_equivariance")
bug(10, P2, "ps2_single_head_code", "single_head_attention",
    "Scales by np.sqrt(H_D), the notebook's global head size (4), instead of Q.shape[0]; right only for heads of size 4 (wrong for the four-head example with heads of size 2).",
    rep(P2, "ps2_single_head_code", "np.sqrt(Q.shape[0])", "np.sqrt(H_D)"), "ps2_single_head",
    ["multihead_self_attention"])
bug(10, P3, "ps3_layer_code", "SelfAttention.__init__",
    "Creates one matrix and assigns the same object to W_q, W_k, W_v and W_o ([np.random.normal(...)] * 4); the four matrices must be drawn separately.",
    '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = [np.random.normal(0.0, 1.0, (dims, dims))] * 4

    def forward(self, x):
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        scores = Q @ K.T / np.sqrt(self.dims)
        attention = softmax(scores)
        self_attention = attention @ V
        return self_attention @ self.W_o''', "ps3_init")
bug(10, P4, "ps4_scale_scores_code", "scale_scores",
    "Divides the caller's array in place (scores /= np.sqrt(n); return scores), which modifies the argument (and fails on integer arrays); it should return a new array.",
    '''def scale_scores(scores, n):
    scores /= np.sqrt(n)
    return scores''', "ps4_scale_scores")
bug(10, P4, "ps4_context_vector_code", "get_context_vector",
    "Sums over the wrong axis: (w[:, None] * H).sum(axis=1) gives one number per state (shape (T,)) instead of summing the weighted states over axis 0 (shape (n,)).",
    '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return (attention_weights[:, None] * hidden_encoder_matrix).sum(axis=1)''', "ps4_context_vector",
    ["single_query_attention"])
bug(10, P4, "ps4_heads_answer", "written answer",
    "Claims the benefit of several heads is that each head looks at a different part of the sentence (a subset of the tokens) and that the heads save computation by a factor h; wrong: every head attends over all tokens, with its own projections, and the total cost is about the same as one full-size head.",
    '''Several heads split the sentence between them: each head only looks at its own part of the tokens, so the work is divided and the layer is about h times cheaper than one head. In our example head 1 takes care of "translation" and head 2 of "is". W^O then glues the parts back together.''', None)
bug(10, P5, "ps5_positional_encoding_code", "positional_encoding",
    "Counts positions from 1 (np.arange(1, N + 1)) instead of 0, so the first column is not [0, 1, 0, 1] and every column is shifted by one position.",
    rep(P5, "ps5_positional_encoding_code", "positions = np.arange(N)", "positions = np.arange(1, N + 1)"),
    "ps5_positional_encoding", ["equivariance_gaps"])
bug(10, P5, "ps5_equivariance_code", "equivariance_gaps",
    "Builds Pi with the notebook's globals, positional_encoding(D, N), instead of the shape of X; fails (broadcast error) for inputs of another size.",
    rep(P5, "ps5_equivariance_code", "positional_encoding(X.shape[0], X.shape[1])", "positional_encoding(D, N)"),
    "ps5_equivariance")

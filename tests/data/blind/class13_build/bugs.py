from sols import C
BASE = {'blind13_s5': 0, 'blind13_s6': 1, 'blind13_s7': 2, 'blind13_s8': 3, 'blind13_s9': 0, 'blind13_s10': 1}
TAG = {'blind13_s5': '# my solution', 'blind13_s6': '# attempt (checked with the test below)',
       'blind13_s7': '# --- answer ---', 'blind13_s8': '# written by me',
       'blind13_s9': '# solution', 'blind13_s10': '# TODO done'}
TESTCELL = {'ps1_softmax_code': 'ps1_softmax', 'ps1_loop_code': 'ps1_self_attention_loop',
 'ps1_softmax_cols_code': 'ps1_softmax_cols', 'ps1_self_attention_code': 'ps1_self_attention',
 'ps1_scaled_code': 'ps1_scaled_attention', 'ps1_equivariance_code': 'ps1_equivariance',
 'ps2_single_head_code': 'ps2_single_head', 'ps2_multihead_scaled_code': 'ps2_multihead_scaled',
 'ps2_multihead_general_code': 'ps2_multihead_general', 'ps3_softmax_code': 'ps3_softmax',
 'ps4_get_scores_code': 'ps4_get_scores', 'ps4_scale_scores_code': 'ps4_scale_scores',
 'ps4_attention_weights_code': 'ps4_attention_weights', 'ps4_context_vector_code': 'ps4_context_vector',
 'ps4_single_query_code': 'ps4_single_query', 'ps4_dimensions_code': 'ps4_dimensions',
 'ps4_split_heads_code': 'ps4_split_heads', 'ps5_causal_mask_code': 'ps5_causal_mask',
 'ps5_masked_softmax_code': 'ps5_masked_softmax', 'ps5_masked_attention_code': 'ps5_masked_attention',
 'ps5_positional_encoding_code': 'ps5_positional_encoding', 'ps5_equivariance_code': 'ps5_equivariance'}

def R(student, cell, old, new, count=1):
    src = C[cell][BASE[student]]
    assert src.count(old) >= 1, (student, cell, old)
    return src.replace(old, new, count)

B = []
def bug(student, ps, cell, function, src, mistake, also=(), test=None):
    B.append(dict(student=student, ps=ps, cell=cell, function=function, src=src, mistake=mistake,
                  also_affects=list(also), visible_test_cell=test or TESTCELL[cell]))

P1, P2, P3, P4, P5 = ('ps1_self_attention', 'ps2_multihead_attention', 'ps3_attention_layer',
                      'ps4_encoder_decoder_attention', 'ps5_masked_attention')
s = 'blind13_s5'
bug(s, P1, 'ps1_softmax_code', 'softmax', R(s, 'ps1_softmax_code', 'z - z.max()', 'z - z.min()'),
    "Subtracts the smallest score instead of the largest before np.exp, so exponents can still be large and overflow (e.g. [0, 1000, 1] gives inf/nan). It should subtract max(z).", ['self_attention_loop'])
bug(s, P1, 'ps1_scaled_code', 'scaled_dot_product_self_attention',
    R(s, 'ps1_scaled_code', 'np.sqrt(Q.shape[0])', 'np.sqrt(D)'),
    "Scales the scores by sqrt of the notebook global D instead of D_q = Q.shape[0]; correct only when D_q equals the global D = 4 (wrong for other sizes or D_q < D).")
bug(s, P2, 'ps2_multihead_general_code', 'multihead_self_attention',
    """def multihead_self_attention(X, heads, omega_c):
    stacked = np.zeros((H * H_D, X.shape[1]))
    for i, hd in enumerate(heads):
        stacked[i * H_D:(i + 1) * H_D] = single_head_attention(
            X, hd["omega_v"], hd["omega_q"], hd["omega_k"], hd["beta_v"], hd["beta_q"], hd["beta_k"])
    X_prime = omega_c @ stacked
    return X_prime
""",
    "Preallocates the stacked heads with the notebook globals H and H_D (2 heads of 4 rows) instead of sizes taken from heads and X; with four heads of size 2 the blocks do not fit (broadcast error). Stack what the heads return (np.vstack) instead.")
bug(s, P3, 'ps3_layer_code', 'SelfAttention.__init__',
    R(s, 'ps3_layer_code', 'np.random.normal(0.0, 1.0, (dims, dims))', 'np.random.normal(0.0, 0.1, (dims, dims))', 4),
    "Draws all four weight matrices with standard deviation 0.1 (scale=0.1) instead of 1 as the pseudocode asks.", test='ps3_init')
bug(s, P4, 'ps4_context_vector_code', 'get_context_vector',
    R(s, 'ps4_context_vector_code', 'return attention_weights @ hidden_encoder_matrix', 'return np.sum(attention_weights * hidden_encoder_matrix, axis=0)'),
    "Multiplies the 1-D weights elementwise with the matrix, which broadcasts along the last axis so weight j scales column j instead of row j; should be attention_weights @ hidden_encoder_matrix (weight j times row j). Fails/raises on non-square matrices.", ['single_query_attention'])
bug(s, P5, 'ps5_positional_encoding_code', 'positional_encoding',
    R(s, 'ps5_positional_encoding_code', 'two_i = (np.arange(D) // 2 * 2)[:, None]', 'two_i = (np.arange(D) // 2)[:, None]'),
    "Uses i instead of 2i in the exponent (10000**(i/D) instead of 10000**(2i/D)), so every row pair after the first has the wrong frequency.", ['equivariance_gaps'])

s = 'blind13_s6'
bug(s, P1, 'ps1_loop_code', 'self_attention_loop',
    R(s, 'ps1_loop_code', 'all_x_prime.append(x_prime)', 'all_x_prime.append(x_prime.ravel())'),
    "Flattens each output with ravel, returning 1-D arrays of shape (D,) instead of D x 1 columns (D, 1).")
bug(s, P1, 'ps1_softmax_cols_code', 'softmax_cols',
    R(s, 'ps1_softmax_cols_code', 'col = data_in[:, j] - np.max(data_in[:, j])', 'col = data_in[:, j] - np.max(data_in)'),
    "Subtracts the maximum of the whole matrix instead of each column's own maximum, so a column far below the global maximum underflows to 0/0 = nan; it should subtract np.max(data_in[:, j]).",
    ['self_attention', 'scaled_dot_product_self_attention'])
bug(s, P2, 'ps2_single_head_code', 'single_head_attention',
    R(s, 'ps2_single_head_code', 'np.sqrt(Q.shape[0])', 'np.sqrt(X.shape[0])'),
    "Scales the scores by sqrt(D) (rows of X, 8) instead of sqrt(D_q) = sqrt(Q.shape[0]), the size of one query of the head (4).",
    ['multihead_scaled_self_attention', 'multihead_self_attention'])
bug(s, P3, 'ps3_softmax_code', 'softmax',
    """def softmax(X):
    for i in range(X.shape[0]):
        X[i] -= max(X[i])
    ex = np.exp(X)
    return ex / ex.sum(axis=1, keepdims=True)
""",
    "Subtracts the row maxima in place (X[i] -= ...), which changes the caller's array; it should work on a copy (X = X - X.max(axis=1, keepdims=True)). Integer input would also be truncated.")
bug(s, P4, 'ps4_scale_scores_code', 'scale_scores',
    R(s, 'ps4_scale_scores_code', 's / n ** 0.5', 's / n'),
    "Divides the scores by n instead of by sqrt(n).", ['single_query_attention'])
bug(s, P5, 'ps5_masked_softmax_code', 'masked_softmax_cols',
    R(s, 'ps5_masked_softmax_code', 'biggest = max(scores[m, n] for m in allowed)', 'biggest = max(scores[:, n])'),
    "Subtracts the maximum of the whole column, masked scores included, instead of the maximum of the allowed scores; a large masked score makes every allowed exponential underflow to 0 and gives 0/0 = nan.",
    ['masked_self_attention', 'equivariance_gaps'])
bug(s, P5, 'ps5_equivariance_code', 'equivariance_gaps',
    R(s, 'ps5_equivariance_code', 'a = scaled_self_attention(Xp + Pi,', 'a = scaled_self_attention((X + Pi)[:, perm],'),
    "For the positional gap it permutes X + Pi together, i.e. also permutes the encoding, so the third gap is 0; Pi belongs to the positions and must not be permuted (use X[:, perm] + Pi).")

s = 'blind13_s7'
bug(s, P1, 'ps1_self_attention_code', 'self_attention',
    R(s, 'ps1_self_attention_code', "np.einsum('dm,dn->mn', K, Q)", "np.einsum('dm,dn->mn', Q, K)"),
    "Computes Q^T K instead of K^T Q (entry (m, n) should be k_m . q_n), so the softmax runs over the wrong index and the attention matrix is transposed-wrong.")
bug(s, P1, 'ps1_equivariance_code', 'check_equivariance',
    """def check_equivariance(f, X, perm):
    return abs(np.sum(f(X[:, perm]) - f(X)[:, perm])) < 1e-8
""",
    "Compares the two sides by the sum of their differences, which cancels to 0 whenever the entries are merely rearranged (e.g. token reversal), and also is exact-threshold on rounding; it should use np.allclose entry by entry.")
bug(s, P2, 'ps2_multihead_scaled_code', 'multihead_scaled_self_attention',
    """def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    stacked = np.vstack((
        single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2),
        single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)))
    X_prime = np.einsum('ij,jn->in', omega_c, stacked)
    return X_prime
""",
    "Stacks head 2 above head 1; equation 12.11 stacks head 1 first, so omega_c mixes the blocks in the wrong order.")
bug(s, P3, 'ps3_layer_code', 'SelfAttention.forward',
    R(s, 'ps3_layer_code', 'np.sqrt(self.dims)', 'np.sqrt(x.shape[0])'),
    "Divides the scores by the square root of the number of tokens x.shape[0] instead of sqrt(self.dims).", test='ps3_forward')
bug(s, P4, 'ps4_single_query_code', 'single_query_attention',
    """def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.expand_dims(query_token, 0) @ W_Q
    K = np.einsum('td,dk->tk', tokens, W_K)
    V = np.einsum('td,dv->tv', tokens, W_V)
    s = (q @ K.T) / np.sqrt(K.shape[1])
    attention_weights = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    output = attention_weights @ V
    return attention_weights, output
""",
    "Turns the query into a 1 x d row with np.expand_dims (as the worksheet did), so the weights and output come out as 1 x T and 1 x d_v matrices instead of 1-D arrays (T,) and (d_v,).")
bug(s, P4, 'ps4_split_heads_code', 'split_heads',
    "def split_heads(W, h):\n    return np.array(np.split(W, h, axis=1))\n",
    "Returns the blocks as one 3-D numpy array instead of a list of h 2-D blocks.")
bug(s, P5, 'ps5_causal_mask_code', 'causal_mask',
    R(s, 'ps5_causal_mask_code', 'idx[:, None] <= idx[None, :]', 'idx[:, None] >= idx[None, :]'),
    "Builds the lower triangle (m >= n) instead of the upper triangle m <= n (rows are inputs m, columns outputs n), so outputs see the future instead of the past.",
    ['masked_self_attention', 'equivariance_gaps'])

s = 'blind13_s8'
bug(s, P1, 'ps1_loop_code', 'self_attention_loop',
    R(s, 'ps1_loop_code', 'for n, q_n in enumerate(queries):', 'for n in range(N):\n        q_n = queries[n]'),
    "Loops over range(N) with the notebook global N instead of the number of inputs len(all_x); correct only when the argument has exactly 3 tokens.")
bug(s, P2, 'ps2_single_head_code', 'single_head_attention',
    R(s, 'ps2_single_head_code', 'attention = softmax_cols((K.T @ Q) / np.sqrt(D_q))',
      'scores = (K.T @ Q) / np.sqrt(D_q)\n    attention = np.exp(scores) / np.exp(scores).sum(axis=0, keepdims=True)'),
    "Writes its own softmax without subtracting the column maximum, so large scores (100 * X) overflow to inf/nan; it should use the given stable softmax_cols.",
    ['multihead_scaled_self_attention', 'multihead_self_attention'])
bug(s, P3, 'ps3_layer_code', 'SelfAttention.forward',
    R(s, 'ps3_layer_code', """        Q = x @ self.W_q   # n x dims
        K = x @ self.W_k   # n x dims
        V = x @ self.W_v   # n x dims
        # eq. 3: scaled scores, n x n (divide by sqrt(dims), not sqrt(n))
        S = (Q @ K.T) / np.sqrt(self.dims)""", """        self.W_q /= np.sqrt(self.dims)   # scale the queries
        Q = x @ self.W_q   # n x dims
        K = x @ self.W_k   # n x dims
        V = x @ self.W_v   # n x dims
        # eq. 3: scaled scores, n x n
        S = Q @ K.T"""),
    "Scales by dividing self.W_q in place, so the layer's weights shrink by sqrt(dims) on every call and a second forward on the same tokens gives a different output; it should divide the scores Q K^T instead.",
    test='ps3_forward')
bug(s, P4, 'ps4_attention_weights_code', 'get_attention_weights',
    R(s, 'ps4_attention_weights_code', 'weights = exp_scores / np.sum(exp_scores)', 'weights = exp_scores / np.sum(np.exp(scores))'),
    "Shifts the numerator by the maximum but divides by the sum of the unshifted exponentials, so the weights do not sum to one (and overflow for large scores); both must use the shifted exponentials.",
    ['single_query_attention'])
bug(s, P4, 'ps4_dimensions_code', 'head_W_shape',
    R(s, 'ps4_dimensions_code', 'head_W_shape = (4, 2)', 'head_W_shape = (2, 4)'),
    "Gives W^Q_i the transposed shape (2, 4) carried over from problem set 2's column convention; with tokens in rows, X (3 x 4) W^Q_i must be 3 x 2, so W^Q_i is (4, 2).")
bug(s, P5, 'ps5_masked_attention_code', 'masked_self_attention',
    R(s, 'ps5_masked_attention_code', 'mask = causal_mask(X.shape[1])', 'mask = causal_mask(N)'),
    "Builds the causal mask with the notebook global N instead of the number of tokens X.shape[1], so any input with another number of tokens raises a shape error.", ['equivariance_gaps'])
bug(s, P5, 'ps5_positional_encoding_code', 'positional_encoding',
    R(s, 'ps5_positional_encoding_code', """        if r % 2 == 0:
            Pi[r] = np.sin(angle)
        else:
            Pi[r] = np.cos(angle)""", """        if r % 2 == 0:
            Pi[r] = np.cos(angle)
        else:
            Pi[r] = np.sin(angle)"""),
    "Swaps sine and cosine: even rows get cos and odd rows sin; (PE) puts sin on rows 2i and cos on rows 2i+1.", ['equivariance_gaps'])

s = 'blind13_s9'
bug(s, P1, 'ps1_scaled_code', 'scaled_dot_product_self_attention',
    R(s, 'ps1_scaled_code', 'K.T @ Q / np.sqrt(Q.shape[0])', 'K.T @ Q / (Q.shape[0] ** 1/2)'),
    "Precedence slip: Q.shape[0] ** 1/2 is (D_q ** 1) / 2 = D_q / 2, not sqrt(D_q) (it should be ** 0.5 or np.sqrt); the two coincide only for D_q = 4, as in the visible test.")
bug(s, P2, 'ps2_multihead_general_code', 'multihead_self_attention',
    R(s, 'ps2_multihead_general_code', 'for hd in heads]', 'for hd in heads[:H]]'),
    "Only uses the first H heads, with the notebook global H = 2, instead of all len(heads) heads; the four-head example loses two heads (shape error with omega_c).")
bug(s, P3, 'ps3_softmax_code', 'softmax',
    R(s, 'ps3_softmax_code', 'X - X.max(axis=1, keepdims=True)', 'X - X.max()'),
    "Subtracts one maximum for the whole matrix instead of each row's maximum, so a row far below the global maximum underflows to 0/0 = nan.")
bug(s, P4, 'ps4_get_scores_code', 'get_scores',
    R(s, 'ps4_get_scores_code', 'return matrix @ vector', 'return vector @ matrix'),
    "Computes vector @ matrix, i.e. dot products with the columns of the matrix instead of its rows; should be matrix @ vector (one score per row/state).",
    ['single_query_attention'])
bug(s, P4, 'ps4_single_query_code', 'single_query_attention',
    R(s, 'ps4_single_query_code', 'W_K.shape[1]', 'W_V.shape[1]'),
    "Scales by d_v (columns of W_V) instead of d_k (columns of W_K); correct only when d_v = d_k as in the visible tests.")
bug(s, P5, 'ps5_masked_softmax_code', 'masked_softmax_cols',
    """def masked_softmax_cols(scores, mask):
    s = np.where(mask, scores, -np.inf)
    e = np.exp(s - s.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)
""",
    "Does not handle a fully masked column: its maximum is -inf, -inf - (-inf) = nan, so that column becomes nan instead of zero weights.")

s = 'blind13_s10'
bug(s, P1, 'ps1_softmax_code', 'softmax',
    """def softmax(items_in):
    items_in -= np.max(items_in)
    exps = np.exp(items_in)
    return exps / np.sum(exps)
""",
    "Subtracts the maximum in place (items_in -= ...), which modifies the caller's array when a numpy array is passed (and raises on an integer array); it should compute on a new array, e.g. z = np.asarray(items_in, dtype=float) - max. Lists, as in the visible tests, are not affected.")
bug(s, P1, 'ps1_self_attention_code', 'self_attention',
    R(s, 'ps1_self_attention_code', 'X_prime = np.matmul(V, attentions)', 'X_prime = np.matmul(V, attentions.T)'),
    "Multiplies V by the transposed attention matrix (V A^T); column n of A holds output n's weights, so it should be V @ attentions.")
bug(s, P2, 'ps2_single_head_code', 'single_head_attention',
    R(s, 'ps2_single_head_code', 'A = softmax_cols(scores / np.sqrt(Q.shape[0]))',
      'A = np.exp(scores / np.sqrt(Q.shape[0]))\n    A = A / A.sum(axis=0)'),
    "Replaces the given stable softmax_cols by a naive column softmax without subtracting the maximum, which overflows to inf/nan for large scores (100 * X).",
    ['multihead_scaled_self_attention', 'multihead_self_attention'])
bug(s, P3, 'ps3_layer_code', 'SelfAttention.__init__',
    R(s, 'ps3_layer_code', 'W = np.random.randn(4, dims, dims)', 'W = np.random.default_rng(42).standard_normal((4, dims, dims))'),
    "Draws the weights from a generator seeded inside __init__ (default_rng(42)) instead of numpy's global generator, so every layer gets the same weights regardless of np.random.seed.", test='ps3_init')
bug(s, P4, 'ps4_context_vector_code', 'get_context_vector',
    R(s, 'ps4_context_vector_code', 'c = c + attention_weights[j] * hidden_encoder_matrix[j]', 'c = c + attention_weights[j] * h_e[j]'),
    "Sums the rows of the notebook global h_e instead of the hidden_encoder_matrix argument.", ['single_query_attention'])
bug(s, P4, 'ps4_split_heads_code', 'split_heads',
    "def split_heads(W, h):\n    return np.hsplit(W, W.shape[1] // h)\n",
    "Passes the block size W.shape[1] // h to np.hsplit, which expects the number of sections; it should be np.hsplit(W, h) (the two coincide only for 4 columns and h = 2).")
bug(s, P5, 'ps5_positional_encoding_code', 'positional_encoding',
    """def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    for n in range(1, N + 1):
        for r in range(D):
            freq = 10000 ** (r / D)
            if r % 2 == 0:
                Pi[r, n - 1] = np.sin(n / freq)
            else:
                Pi[r, n - 1] = np.cos(n / freq)
    return Pi
""",
    "Two mistakes: positions are counted from 1 (n = 1..N) instead of 0, and odd rows use 10000**(r/D) with r instead of r-1 = 2i, so rows 2i+1 get the wrong frequency.",
    ['equivariance_gaps'])
bug(s, P5, 'ps5_masked_attention_code', 'masked_self_attention',
    R(s, 'ps5_masked_attention_code', 'attentions = masked_softmax_cols(scores, mask)',
      'attentions = softmax_cols(scores) * mask\n    attentions = attentions / attentions.sum(axis=0, keepdims=True)'),
    "Uses an ordinary softmax then zeroes the masked weights and renormalises instead of masked_softmax_cols; when later scores are much larger the allowed weights underflow and 0/0 gives nan (100 * X).",
    ['equivariance_gaps'])

"""Students and their bugs.

Each bug edits the base style's cell source with an exact (old -> new) replacement
(old must occur exactly once), or replaces the whole cell ("full").
"""

STUDENTS = {
    "blind5_s1": "A", "blind5_s2": "B", "blind5_s3": "C", "blind5_s4": "D",   # correct
    "blind5_s5": "A", "blind5_s6": "B", "blind5_s7": "C", "blind5_s8": "D",
    "blind5_s9": "A", "blind5_s10": "B",
}
# written-answer variant per student (index into styles.ANSWERS lists, modulo length)
ANSWER_VARIANT = {s: i for i, s in enumerate(STUDENTS)}

PS_OF = lambda cell: {"ps1": "ps1_self_attention", "ps2": "ps2_multihead_attention",
                      "ps3": "ps3_attention_layer", "ps4": "ps4_encoder_decoder_attention",
                      "ps5": "ps5_masked_attention"}[cell[:3]]


def B_(student, cell, function, mistake, old=None, new=None, full=None):
    return dict(student=student, cell=cell, function=function, mistake=mistake,
                old=old, new=new, full=full)


BUGS = [
    # ======================= s5 (base A: loops, verbose)
    B_("blind5_s5", "ps1_softmax_code", "softmax",
       "Does not subtract the maximum score before np.exp, so scores near 1000 overflow to inf and give nan; it should compute exp(z - max(z)).",
       "    z = z - np.max(z)\n", ""),
    B_("blind5_s5", "ps1_loop_code", "self_attention_loop",
       "Flattens each output with .ravel() before appending, returning 1-D arrays of shape (D,) instead of D x 1 columns.",
       "        all_x_prime.append(x_prime)\n", "        all_x_prime.append(x_prime.ravel())\n"),
    B_("blind5_s5", "ps1_scaled_code", "scaled_dot_product_self_attention",
       "Scales by the square root of the notebook global D instead of D_q = Q.shape[0]; wrong whenever the queries have fewer rows than D (or D differs from the global).",
       "    D_q = Q.shape[0]\n", "    D_q = D\n"),
    B_("blind5_s5", "ps1_equivariance_code", "check_equivariance",
       "Loosens the comparison to np.allclose(..., atol=1e-3) instead of the default tolerance (rtol=1e-5, atol=1e-8), so maps that break equivariance by less than about 1e-3 are reported as equivariant.",
       "    return bool(np.allclose(permuted_then_f, f_then_permuted))\n",
       "    return bool(np.allclose(permuted_then_f, f_then_permuted, atol=1e-3))\n"),
    B_("blind5_s5", "ps2_single_head_code", "single_head_attention",
       "Divides the scores by sqrt(D) (X.shape[0], the input size) instead of sqrt(D_q), the number of rows of Q (the head size D/H).",
       "    D_q = Q.shape[0]\n", "    D_q = X.shape[0]\n"),
    B_("blind5_s5", "ps2_multihead_general_code", "multihead_self_attention",
       "Unpacks each head with *head.values(), which passes the parameters in the dictionary's order (queries, keys, values) instead of values, queries, keys; it should read them by name.",
       '''        out = single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                    head["beta_v"], head["beta_q"], head["beta_k"])
''', '''        out = single_head_attention(X, *head.values())
'''),
    B_("blind5_s5", "ps3_softmax_code", "softmax",
       "Subtracts the maximum of the whole matrix instead of each row's own maximum, so a row far below the global maximum underflows to 0/0 = nan; use max(axis=1, keepdims=True).",
       "    row_max = np.max(X, axis=1, keepdims=True)\n", "    row_max = np.max(X)\n"),
    B_("blind5_s5", "ps3_layer_code", "SelfAttention.__init__",
       "Draws the weights with standard deviation 0.1 (np.random.normal(0.0, 0.1, ...)) instead of 1.",
       "        self.W_q = np.random.normal(0.0, 1.0, (dims, dims))\n        self.W_k = np.random.normal(0.0, 1.0, (dims, dims))\n        self.W_v = np.random.normal(0.0, 1.0, (dims, dims))\n        self.W_o = np.random.normal(0.0, 1.0, (dims, dims))\n",
       "        self.W_q = np.random.normal(0.0, 0.1, (dims, dims))\n        self.W_k = np.random.normal(0.0, 0.1, (dims, dims))\n        self.W_v = np.random.normal(0.0, 0.1, (dims, dims))\n        self.W_o = np.random.normal(0.0, 0.1, (dims, dims))\n"),
    B_("blind5_s5", "ps4_context_vector_code", "get_context_vector",
       "Multiplies the 1-D weights elementwise with the matrix and sums over axis 0; broadcasting lines the weights up with the columns, so each weight scales a feature (column) instead of a state (row). For a non-square matrix it raises.",
       '''    context = np.zeros(hidden_encoder_matrix.shape[1])
    for j in range(hidden_encoder_matrix.shape[0]):
        context = context + attention_weights[j] * hidden_encoder_matrix[j]
    return context
''', '''    weighted = attention_weights * hidden_encoder_matrix
    return np.sum(weighted, axis=0)
'''),
    B_("blind5_s5", "ps4_split_heads_code", "split_heads",
       "Cuts W into blocks of consecutive rows (W[i*block:(i+1)*block, :] with block = rows // h) instead of blocks of columns.",
       '''    block = W.shape[1] // h
    blocks = []
    for i in range(h):
        blocks.append(W[:, i * block:(i + 1) * block])
''', '''    block = W.shape[0] // h
    blocks = []
    for i in range(h):
        blocks.append(W[i * block:(i + 1) * block, :])
'''),
    B_("blind5_s5", "ps5_causal_mask_code", "causal_mask",
       "Mask direction reversed: sets True where m >= n (lower triangle, the rows-as-tokens convention) instead of m <= n (upper triangle, output n sees inputs 0..n).",
       "            if m <= n:\n", "            if m >= n:\n"),

    # ======================= s6 (base B: einsum)
    B_("blind5_s6", "ps1_softmax_cols_code", "softmax_cols",
       "Subtracts the maximum of the whole matrix instead of each column's maximum, so a column far below it underflows to 0/0 = nan (and one far above overflows).",
       "    shifted = data_in - np.max(data_in, axis=0, keepdims=True)\n",
       "    shifted = data_in - np.max(data_in)\n"),
    B_("blind5_s6", "ps1_self_attention_code", "self_attention",
       "The einsum for the scores writes 'em,en->nm', i.e. Q^T K instead of K^T Q, so the softmax runs over the wrong index and the attention matrix is transposed.",
       "    attentions = softmax_cols(np.einsum('em,en->mn', K, Q))\n",
       "    attentions = softmax_cols(np.einsum('em,en->nm', K, Q))\n"),
    B_("blind5_s6", "ps1_equivariance_code", "check_equivariance",
       "Compares the SUM of the differences with 0 instead of comparing entry by entry with np.allclose; differences cancel (e.g. a column permutation never changes the total), so non-equivariant maps are reported as equivariant.",
       "    return np.allclose(lhs, rhs, rtol=1e-5, atol=1e-8)\n",
       "    return abs(np.sum(lhs - rhs)) < 1e-8\n"),
    B_("blind5_s6", "ps2_single_head_code", "single_head_attention",
       "Computes the scores as Q^T K ('hm,hn->nm') instead of K^T Q, so the column softmax normalises over the queries and the attention matrix is transposed.",
       "    scores = np.einsum('hm,hn->mn', K, Q) / np.sqrt(Q.shape[0])\n",
       "    scores = np.einsum('hm,hn->nm', K, Q) / np.sqrt(Q.shape[0])\n"),
    B_("blind5_s6", "ps2_multihead_scaled_code", "multihead_scaled_self_attention",
       "Stacks the heads in the wrong order (head 2 on top of head 1); head 1 must come first.",
       "np.concatenate([h1, h2], axis=0)", "np.concatenate([h2, h1], axis=0)"),
    B_("blind5_s6", "ps3_layer_code", "SelfAttention.forward",
       "Scales the scores by sqrt(x.shape[0]), the number of tokens, instead of sqrt(self.dims).",
       "/ np.sqrt(self.dims)", "/ np.sqrt(x.shape[0])"),
    B_("blind5_s6", "ps3_layer_code", "SelfAttention.__init__",
       "Draws the weights from a generator seeded inside __init__ (np.random.default_rng(42)), so every layer gets the same weights and np.random.seed has no effect; it should use np.random.normal/randn.",
       '''        self.W_q = np.random.randn(dims, dims)
        self.W_k = np.random.randn(dims, dims)
        self.W_v = np.random.randn(dims, dims)
        self.W_o = np.random.randn(dims, dims)
''', '''        rng = np.random.default_rng(42)
        self.W_q = rng.standard_normal((dims, dims))
        self.W_k = rng.standard_normal((dims, dims))
        self.W_v = rng.standard_normal((dims, dims))
        self.W_o = rng.standard_normal((dims, dims))
'''),
    B_("blind5_s6", "ps4_scale_scores_code", "scale_scores",
       "Divides by sqrt(len(scores)) (the number of tokens T) instead of sqrt(n), the argument.",
       "    return scores / n ** 0.5\n", "    return scores / len(scores) ** 0.5\n"),
    B_("blind5_s6", "ps4_single_query_code", "single_query_attention",
       "Takes d_k from tokens.shape[1] (d_model) instead of the number of columns of W_K; wrong whenever the projections change the size.",
       "scale_scores(get_scores(K, q), K.shape[1])", "scale_scores(get_scores(K, q), tokens.shape[1])"),
    B_("blind5_s6", "ps5_masked_softmax_code", "masked_softmax_cols",
       "Subtracts the column maximum over ALL scores, masked ones included; a large masked score makes the allowed exponentials underflow (0/0 = nan or zero weights). It should use the maximum of the allowed scores.",
       "    col_max = s.max(axis=0, keepdims=True)\n",
       "    col_max = np.asarray(scores, dtype=float).max(axis=0, keepdims=True)\n"),

    # ======================= s7 (base C: vectorised)
    B_("blind5_s7", "ps1_loop_code", "self_attention_loop",
       "Copy-paste error: the queries use the key bias beta_k instead of beta_q (q = beta_k + omega_q x).",
       "    q = [beta_q + omega_q @ x for x in all_x]\n", "    q = [beta_k + omega_q @ x for x in all_x]\n"),
    B_("blind5_s7", "ps1_self_attention_code", "self_attention",
       "Rebuilds the input from the notebook global all_x (X = np.hstack(all_x)) instead of using its argument X; correct only on the notebook's own data.",
       "    Q, K, V = (b + w @ X for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))\n    attentions = softmax_cols(K.T @ Q)\n",
       "    X = np.hstack(all_x)\n    Q, K, V = (b + w @ X for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))\n    attentions = softmax_cols(K.T @ Q)\n"),
    B_("blind5_s7", "ps1_scaled_code", "scaled_dot_product_self_attention",
       "Scales by sqrt(Q.shape[1]), the number of tokens N, instead of sqrt(Q.shape[0]) = D_q.",
       "np.sqrt(Q.shape[0])", "np.sqrt(Q.shape[1])"),
    B_("blind5_s7", "ps2_single_head_code", "single_head_attention",
       "Operator precedence: writes K.T @ Q / Q.shape[0] ** 1/2, which Python reads as ((K^T Q) / D_q) / 2, i.e. divides by 2 D_q instead of sqrt(D_q).",
       "np.sqrt(Q.shape[0])", "Q.shape[0] ** 1/2"),
    B_("blind5_s7", "ps2_multihead_general_code", "multihead_self_attention",
       "Multiplies by omega_c transposed (stacked.T @ omega_c, then .T) instead of omega_c @ stacked.",
       "    X_prime = omega_c @ np.vstack([single_head_attention(X, *[h[k] for k in keys]) for h in heads])\n",
       "    X_prime = (np.vstack([single_head_attention(X, *[h[k] for k in keys]) for h in heads]).T @ omega_c).T\n"),
    B_("blind5_s7", "ps3_softmax_code", "softmax",
       "Softmax along axis 0 (down the columns) instead of along each row (axis=1).",
       '''    e = np.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)
''', '''    e = np.exp(X - X.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)
'''),
    B_("blind5_s7", "ps3_layer_code", "SelfAttention.forward",
       "Copy-paste error: the values are computed with W_k (V = x @ self.W_k) instead of W_v.",
       "    Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v\n",
       "    Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_k\n"),
    B_("blind5_s7", "ps3_layer_code", "SelfAttention.forward",
       "Divides the scores by self.dims instead of np.sqrt(self.dims) (second bug in the same function).",
       "Q @ K.T / np.sqrt(self.dims)", "Q @ K.T / self.dims"),
    B_("blind5_s7", "ps4_attention_weights_code", "get_attention_weights",
       "Subtracts the minimum score instead of the maximum before np.exp, so when the scores spread by more than ~709 the largest exponent overflows to inf and the weights become nan.",
       "np.subtract(scores, np.max(scores))", "np.subtract(scores, np.min(scores))"),
    B_("blind5_s7", "ps4_dimensions_code", "head_W_shape",
       "head_W_shape is given in problem set 2's column convention, (2, 4), instead of (d_model, d_k) = (4, 2) for x W^Q_i with tokens in rows.",
       "head_W_shape, concat_shape, W_O_shape = (4, 2), (3, 4), (4, 4)\n",
       "head_W_shape, concat_shape, W_O_shape = (2, 4), (3, 4), (4, 4)\n"),
    B_("blind5_s7", "ps5_positional_encoding_code", "positional_encoding",
       "Uses the row index r itself in the exponent (10000 ** (r / D)) instead of 2i = r rounded down to even, so the odd (cosine) rows get a different frequency from their sine partner.",
       "10000 ** ((np.arange(D)[:, None] // 2 * 2) / D)", "10000 ** (np.arange(D)[:, None] / D)"),

    # ======================= s8 (base D: helpers, asserts)
    B_("blind5_s8", "ps1_softmax_code", "_stable_exp",
       "The student's helper _stable_exp ignores its axis argument and subtracts the maximum of the whole array; fine for 1-D softmax but softmax_cols then underflows/overflows on columns far apart. It should pass axis to np.max.",
       "    return np.exp(z - np.max(z, axis=axis, keepdims=True))\n",
       "    return np.exp(z - np.max(z))\n"),
    B_("blind5_s8", "ps1_loop_code", "self_attention_loop",
       "Off-by-one: the weighted sum runs over range(N - 1), so the last value is left out.",
       "        for m in range(N):\n            x_prime += a[m] * values[m]\n",
       "        for m in range(N - 1):\n            x_prime += a[m] * values[m]\n"),
    B_("blind5_s8", "ps1_equivariance_code", "check_equivariance",
       "Wrong permutation convention: compares f(X[:, perm]) with f(X)[:, np.argsort(perm)] (the inverse permutation) instead of f(X)[:, perm].",
       "    b = f(X)[:, perm]\n", "    b = f(X)[:, np.argsort(perm)]\n"),
    B_("blind5_s8", "ps2_single_head_code", "single_head_attention",
       "Takes the scale from the notebook global H_D instead of the head's own query size Q.shape[0]; wrong for other head sizes.",
       "    d_q = Q.shape[0]\n", "    d_q = H_D\n"),
    B_("blind5_s8", "ps2_multihead_scaled_code", "multihead_scaled_self_attention",
       "Copy-paste error: head 2 is computed with head 1's query matrix omega_q1 instead of omega_q2.",
       "    head2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)\n",
       "    head2 = single_head_attention(X, omega_v2, omega_q1, omega_k2, beta_v2, beta_q2, beta_k2)\n"),
    B_("blind5_s8", "ps3_layer_code", "SelfAttention.__init__",
       "Draws one matrix and reuses it: W_q and W_k are the same array (self.W_k = self.W_q) instead of four independent draws.",
       "        self.W_k = self._draw()\n", "        self.W_k = self.W_q\n"),
    B_("blind5_s8", "ps4_get_scores_code", "get_scores",
       "Computes vector @ matrix (dot products with the columns) instead of matrix @ vector (one score per row/state); for a non-square matrix the assert or the shapes fail.",
       "    assert matrix.shape[1] == vector.shape[0], \"state sizes differ\"\n    return matrix @ vector\n",
       "    return vector @ matrix\n"),
    B_("blind5_s8", "ps4_split_heads_code", "split_heads",
       "Takes strided columns W[:, i::h] (every h-th column) instead of consecutive blocks of d_model/h columns.",
       "    return [W[:, start:start + width] for start in range(0, W.shape[1], width)]\n",
       "    return [W[:, i::h] for i in range(h)]\n"),
    B_("blind5_s8", "ps5_masked_attention_code", "masked_self_attention",
       "Builds the mask with the notebook global N (causal_mask(N)) instead of the number of columns of X; raises or mis-masks for other numbers of tokens.",
       "    n_tokens = X.shape[1]\n", "    n_tokens = N\n"),
    B_("blind5_s8", "ps5_masked_attention_code", "masked_self_attention",
       "Scales by the square root of the global D instead of D_q = Q.shape[0] (second bug in the same function).",
       "    d_q = Q.shape[0]\n", "    d_q = D\n"),
    B_("blind5_s8", "ps5_equivariance_code", "equivariance_gaps",
       "Builds Pi from the notebook globals, positional_encoding(D, N), instead of X.shape; fails (ValueError) for inputs of another size.",
       "    Pi = positional_encoding(D_x, N_x)\n", "    Pi = positional_encoding(D, N)\n"),

    # ======================= s9 (base A)
    B_("blind5_s9", "ps1_softmax_cols_code", "softmax_cols",
       "Normalises each ROW instead of each column (loops over rows, data_in[m, :]), so the columns do not sum to one.",
       '''    for n in range(data_in.shape[1]):
        column = data_in[:, n]
        # subtract this column's own maximum for stability
        exp_col = np.exp(column - np.max(column))
        softmax_out[:, n] = exp_col / np.sum(exp_col)
''', '''    for n in range(data_in.shape[0]):
        column = data_in[n, :]
        # subtract this column's own maximum for stability
        exp_col = np.exp(column - np.max(column))
        softmax_out[n, :] = exp_col / np.sum(exp_col)
'''),
    B_("blind5_s9", "ps1_scaled_code", "scaled_dot_product_self_attention",
       "Takes D_q as omega_q.shape[1] (the input size D, the columns) instead of the number of rows of Q / omega_q.",
       "    D_q = Q.shape[0]\n", "    D_q = omega_q.shape[1]\n"),
    B_("blind5_s9", "ps1_scaled_code", "scaled_dot_product_self_attention",
       "Returns the UNSCALED attention matrix (softmax_cols(K.T @ Q), recomputed) instead of the scaled one that was used for X_prime (second bug in the same function).",
       "    X_prime = V @ attentions\n    return X_prime, attentions\n",
       "    X_prime = V @ attentions\n    attentions = softmax_cols(K.T @ Q)\n    return X_prime, attentions\n"),
    B_("blind5_s9", "ps2_single_head_code", "_linear",
       "The student's helper _linear adds beta[0] (the first bias entry, broadcast to every row) instead of the whole bias column beta; every projection in single_head_attention is wrong.",
       full='''def _linear(omega, beta, X):
    # beta 1^T + omega X
    return omega @ X + beta[0]


def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # Queries, keys and values of this head: each is D/H x N
    Q = _linear(omega_q, beta_q, X)
    K = _linear(omega_k, beta_k, X)
    V = _linear(omega_v, beta_v, X)
    # D_q = size of one query of THIS head (rows of Q), not D
    D_q = Q.shape[0]
    attentions = softmax_cols(K.T @ Q / np.sqrt(D_q))
    return V @ attentions
'''),
    B_("blind5_s9", "ps2_multihead_general_code", "multihead_self_attention",
       "Loops over range(H) with the notebook global H = 2 instead of over the heads list, so only the first two heads are used when there are more (and it fails with fewer).",
       "    for head in heads:\n", "    for h in range(H):\n        head = heads[h]\n"),
    B_("blind5_s9", "ps3_softmax_code", "softmax",
       "Takes the row maxima and sums without keepdims, so the (n,) vectors broadcast along the columns instead of the rows: wrong values for square input, ValueError otherwise.",
       '''    row_max = np.max(X, axis=1, keepdims=True)
    exp_x = np.exp(X - row_max)
    # Divide every row by its own sum
    return exp_x / np.sum(exp_x, axis=1, keepdims=True)
''', '''    row_max = np.max(X, axis=1)
    exp_x = np.exp(X - row_max)
    # Divide every row by its own sum
    return exp_x / np.sum(exp_x, axis=1)
'''),
    B_("blind5_s9", "ps3_layer_code", "SelfAttention.forward",
       "Uses the transposed weight matrices (x @ self.W_q.T etc.) instead of x @ W_q, x @ W_k, x @ W_v.",
       '''        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
''', '''        Q = x @ self.W_q.T
        K = x @ self.W_k.T
        V = x @ self.W_v.T
'''),
    B_("blind5_s9", "ps4_attention_weights_code", "get_attention_weights",
       "Shifts by the FIRST score (scores - scores[0]) instead of the largest one, so a later score more than ~709 above the first overflows to inf and the weights become nan.",
       "    exp_scores = np.exp(scores - np.max(scores))\n", "    exp_scores = np.exp(scores - scores[0])\n"),
    B_("blind5_s9", "ps4_single_query_code", "single_query_attention",
       "Turns the query into a 1 x d_k row with np.expand_dims, so the weights and output come back as (1, T) and (1, d_v) instead of 1-D (T,) and (d_v,).",
       '''    scores = get_scores(K, q)
    scaled = scale_scores(scores, d_k)
    attention_weights = get_attention_weights(scaled)
    output = get_context_vector(attention_weights, V)
''', '''    q = np.expand_dims(q, axis=0)  # make it a row
    scores = K @ q.T                # (T, 1)
    scaled = scale_scores(scores.T, d_k)  # (1, T)
    exp_s = np.exp(scaled - np.max(scaled))
    attention_weights = exp_s / np.sum(exp_s)
    output = attention_weights @ V  # (1, d_v)
'''),
    B_("blind5_s9", "ps5_causal_mask_code", "causal_mask",
       "Returns a float 0/1 matrix (np.zeros((N, N)) filled with 1.0) instead of dtype bool.",
       "    mask = np.zeros((N, N), dtype=bool)\n", "    mask = np.zeros((N, N))\n"),
    B_("blind5_s9", "ps5_masked_softmax_code", "masked_softmax_cols",
       "Applies the ordinary softmax to the whole column and zeroes the masked weights afterwards, without renormalising; the allowed weights no longer sum to one (M2).",
       full='''def masked_softmax_cols(scores, mask):
    scores = np.asarray(scores, dtype=float)
    weights = np.zeros_like(scores)
    for n in range(scores.shape[1]):
        col = scores[:, n]
        e = np.exp(col - np.max(col))
        weights[:, n] = e / np.sum(e)
    # remove the masked entries
    weights[~np.asarray(mask, dtype=bool)] = 0.0
    return weights
'''),
    B_("blind5_s9", "ps5_positional_encoding_code", "positional_encoding",
       "Counts positions from 1 (angle = (n + 1) / ...) instead of from 0, so column 0 is not [0, 1, 0, 1, ...].",
       "            angle = n / (10000 ** (two_i / D))\n", "            angle = (n + 1) / (10000 ** (two_i / D))\n"),

    # ======================= s10 (base B)
    B_("blind5_s10", "ps1_softmax_code", "softmax",
       "Subtracts max(|z|) instead of max(z): for large negative scores (e.g. around -1000) every exponent underflows to 0 and the result is 0/0 = nan.",
       "    e = np.exp(z - z.max())\n", "    e = np.exp(z - np.abs(z).max())\n"),
    B_("blind5_s10", "ps1_loop_code", "self_attention_loop",
       "Converts the 1 x 1 dot product with float(...) as in UDL, which raises TypeError in numpy 2.4; use .item().",
       "        dots = [np.einsum('ik,ik->', k_m, q_n).item() for k_m in ks]\n",
       "        dots = [float(k_m.T @ q_n) for k_m in ks]\n"),
    B_("blind5_s10", "ps1_self_attention_code", "self_attention",
       "Adds the value bias as a row (beta_v.T) instead of a column, which broadcasts wrongly (ValueError when N != D, wrong values when N == D).",
       "    V = np.einsum('ed,dn->en', omega_v, X) + beta_v\n",
       "    V = np.einsum('ed,dn->en', omega_v, X) + beta_v.T\n"),
    B_("blind5_s10", "ps2_single_head_code", "single_head_attention",
       "Writes its own softmax without subtracting the column maximum (np.exp(S) / sum) instead of the given stable softmax_cols; overflows to nan on large inputs.",
       "    return np.einsum('hm,mn->hn', V, softmax_cols(scores))\n",
       "    A = np.exp(scores) / np.exp(scores).sum(axis=0)\n    return np.einsum('hm,mn->hn', V, A)\n"),
    B_("blind5_s10", "ps2_multihead_scaled_code", "multihead_scaled_self_attention",
       "Concatenates the heads side by side (axis=1) instead of stacking them vertically (axis=0); the product with omega_c then has mismatched shapes.",
       "np.concatenate([h1, h2], axis=0)", "np.concatenate([h1, h2], axis=1)"),
    B_("blind5_s10", "ps3_layer_code", "SelfAttention.__init__",
       "Uses np.random.rand (uniform on [0, 1), mean 0.5, std 0.29) instead of the standard normal distribution.",
       '''        self.W_q = np.random.randn(dims, dims)
        self.W_k = np.random.randn(dims, dims)
        self.W_v = np.random.randn(dims, dims)
        self.W_o = np.random.randn(dims, dims)
''', '''        self.W_q = np.random.rand(dims, dims)
        self.W_k = np.random.rand(dims, dims)
        self.W_v = np.random.rand(dims, dims)
        self.W_o = np.random.rand(dims, dims)
'''),
    B_("blind5_s10", "ps3_layer_code", "SelfAttention.forward",
       "Applies the softmax to the transposed scores and transposes back (softmax(S.T).T), i.e. normalises each column instead of each row.",
       "        A = softmax(S)\n", "        A = softmax(S.T).T\n"),
    B_("blind5_s10", "ps4_context_vector_code", "get_context_vector",
       "Uses the notebook global h_e instead of the hidden_encoder_matrix argument.",
       "    return np.einsum('t,tn->n', attention_weights, hidden_encoder_matrix)\n",
       "    return np.einsum('t,tn->n', attention_weights, h_e)\n"),
    B_("blind5_s10", "ps4_split_heads_code", "split_heads",
       "Returns one 3-D array (np.array of the blocks) instead of a list of blocks.",
       "    return list(np.split(W, h, axis=1))\n", "    return np.array(np.split(W, h, axis=1))\n"),
    B_("blind5_s10", "ps5_masked_attention_code", "masked_self_attention",
       "Uses the ordinary softmax_cols and then zeroes and renormalises the masked weights instead of masked_softmax_cols; on large scores the allowed weights underflow and 0/0 gives nan.",
       "    attentions = masked_softmax_cols(scores, causal_mask(X.shape[1]))\n",
       "    attentions = softmax_cols(scores) * causal_mask(X.shape[1])\n    attentions = attentions / attentions.sum(axis=0, keepdims=True)\n"),
    B_("blind5_s10", "ps5_equivariance_code", "equivariance_gaps",
       "Permutes the positional encoding together with the tokens (Z[:, perm] + Pi[:, perm]), so the third gap is 0; Pi belongs to the positions and must not be permuted.",
       '''    fs = [lambda Z: scaled_self_attention(Z, *p)[0],
          lambda Z: masked_self_attention(Z, *p)[0],
          lambda Z: scaled_self_attention(Z + Pi, *p)[0]]
    return np.array([np.abs(f(X[:, perm]) - f(X)[:, perm]).max() for f in fs])
''', '''    fs = [lambda Z: scaled_self_attention(Z, *p)[0],
          lambda Z: masked_self_attention(Z, *p)[0]]
    gaps = [np.abs(f(X[:, perm]) - f(X)[:, perm]).max() for f in fs]
    with_pi = scaled_self_attention(X[:, perm] + Pi[:, perm], *p)[0]
    gaps.append(np.abs(with_pi - scaled_self_attention(X + Pi, *p)[0][:, perm]).max())
    return np.array(gaps)
'''),
]

# which functions (in the same notebook) call which: for also_affects
CALLERS = {
    "ps1_self_attention": {"softmax": ["self_attention_loop"],
                           "_stable_exp": ["softmax_cols", "self_attention", "scaled_dot_product_self_attention"],
                           "softmax_cols": ["self_attention", "scaled_dot_product_self_attention"]},
    "ps2_multihead_attention": {"single_head_attention": ["multihead_scaled_self_attention", "multihead_self_attention"],
                                "_linear": ["single_head_attention", "multihead_scaled_self_attention",
                                            "multihead_self_attention"]},
    "ps3_attention_layer": {"softmax": ["SelfAttention.forward"]},
    "ps4_encoder_decoder_attention": {"get_scores": ["single_query_attention"],
                                      "scale_scores": ["single_query_attention"],
                                      "get_attention_weights": ["single_query_attention"],
                                      "get_context_vector": ["single_query_attention"]},
    "ps5_masked_attention": {"causal_mask": ["masked_self_attention", "equivariance_gaps"],
                             "masked_softmax_cols": ["masked_self_attention", "equivariance_gaps"],
                             "masked_self_attention": ["equivariance_gaps"],
                             "positional_encoding": ["equivariance_gaps"]},
}

TEST_CELL = {
    ("ps1_self_attention", "softmax"): "ps1_softmax",
    ("ps1_self_attention", "self_attention_loop"): "ps1_self_attention_loop",
    ("ps1_self_attention", "softmax_cols"): "ps1_softmax_cols",
    ("ps1_self_attention", "self_attention"): "ps1_self_attention",
    ("ps1_self_attention", "scaled_dot_product_self_attention"): "ps1_scaled_attention",
    ("ps1_self_attention", "check_equivariance"): "ps1_equivariance",
    ("ps2_multihead_attention", "single_head_attention"): "ps2_single_head",
    ("ps2_multihead_attention", "multihead_scaled_self_attention"): "ps2_multihead_scaled",
    ("ps2_multihead_attention", "multihead_self_attention"): "ps2_multihead_general",
    ("ps3_attention_layer", "softmax"): "ps3_softmax",
    ("ps3_attention_layer", "SelfAttention.__init__"): "ps3_init",
    ("ps3_attention_layer", "SelfAttention.forward"): "ps3_forward",
    ("ps4_encoder_decoder_attention", "get_scores"): "ps4_get_scores",
    ("ps4_encoder_decoder_attention", "scale_scores"): "ps4_scale_scores",
    ("ps4_encoder_decoder_attention", "get_attention_weights"): "ps4_attention_weights",
    ("ps4_encoder_decoder_attention", "get_context_vector"): "ps4_context_vector",
    ("ps4_encoder_decoder_attention", "single_query_attention"): "ps4_single_query",
    ("ps4_encoder_decoder_attention", "head_W_shape"): "ps4_dimensions",
    ("ps4_encoder_decoder_attention", "split_heads"): "ps4_split_heads",
    ("ps5_masked_attention", "causal_mask"): "ps5_causal_mask",
    ("ps5_masked_attention", "masked_softmax_cols"): "ps5_masked_softmax",
    ("ps5_masked_attention", "masked_self_attention"): "ps5_masked_attention",
    ("ps5_masked_attention", "positional_encoding"): "ps5_positional_encoding",
    ("ps5_masked_attention", "equivariance_gaps"): "ps5_equivariance",
}

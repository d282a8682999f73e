# Correct solutions, four styles. key: grade_id -> source
S1 = {}  # vectorised, helper reuse, concise
S1['ps1_softmax_code'] = '''def softmax(items_in):
    z = np.asarray(items_in, dtype=float).ravel()
    e = np.exp(z - z.max())
    return e / e.sum()'''
S1['ps1_loop_code'] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    all_q = [beta_q + omega_q @ x for x in all_x]
    all_k = [beta_k + omega_k @ x for x in all_x]
    all_v = [beta_v + omega_v @ x for x in all_x]
    all_x_prime = []
    for q_n in all_q:
        scores = [(k_m.T @ q_n).item() for k_m in all_k]
        a = softmax(scores)
        x_prime = sum(a[m] * all_v[m] for m in range(len(all_v)))
        all_x_prime.append(x_prime)
    return all_x_prime'''
S1['ps1_softmax_cols_code'] = '''def softmax_cols(data_in):
    e = np.exp(data_in - data_in.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)'''
S1['ps1_self_attention_code'] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(K.T @ Q)
    X_prime = V @ attentions
    return X_prime, attentions'''
S1['ps1_scaled_code'] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
    X_prime = V @ attentions
    return X_prime, attentions'''
S1['ps1_equivariance_code'] = '''def check_equivariance(f, X, perm):
    return bool(np.allclose(f(X[:, perm]), f(X)[:, perm]))'''
S1['ps1_positional_answer'] = '''No. Sa[XP + Pi] is Sa[(X + Pi P^T) P] = Sa[X + Pi P^T] P, which equals Sa[X + Pi] P only if Pi P^T = Pi, i.e. only if the permuted columns of Pi are equal. Since Pi has a different column for every position, each token now gets a different positional vector after the permutation, so the outputs change and not just move. check_equivariance with Pi = np.arange(X.size).reshape(X.shape) / X.size returns False.'''

S1['ps2_single_head_code'] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))'''
S1['ps2_multihead_scaled_code'] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    head1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    X_prime = omega_c @ np.vstack([head1, head2])
    return X_prime'''
S1['ps2_multihead_general_code'] = '''def multihead_self_attention(X, heads, omega_c):
    outs = [single_head_attention(X, h["omega_v"], h["omega_q"], h["omega_k"],
                                  h["beta_v"], h["beta_q"], h["beta_k"]) for h in heads]
    X_prime = omega_c @ np.vstack(outs)
    return X_prime'''

S1['ps3_softmax_code'] = '''def softmax(X):
    e = np.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)'''
S1['ps3_layer_code'] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_k = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_v = np.random.normal(0.0, 1.0, (dims, dims))
        self.W_o = np.random.normal(0.0, 1.0, (dims, dims))

    def forward(self, x):
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        scores = Q @ K.T / np.sqrt(self.dims)
        A = softmax(scores)
        return (A @ V) @ self.W_o'''

S1['ps4_get_scores_code'] = '''def get_scores(matrix, vector):
    return matrix @ vector'''
S1['ps4_scale_scores_code'] = '''def scale_scores(scores, n):
    return scores / np.sqrt(n)'''
S1['ps4_attention_weights_code'] = '''def get_attention_weights(scores):
    e = np.exp(scores - np.max(scores))
    return e / e.sum()'''
S1['ps4_context_vector_code'] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return attention_weights @ hidden_encoder_matrix'''
S1['ps4_single_query_code'] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    d_k = W_K.shape[1]
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), d_k))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output'''
S1['ps4_dimensions_code'] = '''# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape = (4, 2)
concat_shape = (3, 4)
W_O_shape = (4, 4)'''
S1['ps4_split_heads_code'] = '''def split_heads(W, h):
    return list(np.hsplit(W, h))'''
S1['ps4_heads_answer'] = '''Each head has its own W^Q_i, W^K_i and W^V_i, so each head computes its own attention matrix: in section 7 head 1 leaned towards "translation" and head 2 towards "is" for the same queries. With one head every output gets a single weighted average, so it can only express one kind of relation at a time; several heads let the model attend to several tokens/relations at once (e.g. syntax and meaning) and W^O mixes them. Because each head works in d_model/h dimensions, the total cost is about the same as one full-size head.'''

S1['ps5_causal_mask_code'] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.triu(np.ones((N, N), dtype=bool))'''
S1['ps5_masked_softmax_code'] = '''def masked_softmax_cols(scores, mask):
    masked = np.where(mask, scores, -np.inf)
    col_max = masked.max(axis=0, keepdims=True)
    col_max = np.where(np.isfinite(col_max), col_max, 0.0)
    e = np.where(mask, np.exp(masked - col_max), 0.0)
    total = e.sum(axis=0, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)'''
S1['ps5_masked_attention_code'] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    scores = K.T @ Q / np.sqrt(Q.shape[0])
    attentions = masked_softmax_cols(scores, causal_mask(X.shape[1]))
    X_prime = V @ attentions
    return X_prime, attentions'''
S1['ps5_positional_encoding_code'] = '''def positional_encoding(D, N):
    rows = np.arange(D)[:, None]
    pos = np.arange(N)[None, :]
    two_i = rows - rows % 2
    angles = pos / 10000 ** (two_i / D)
    return np.where(rows % 2 == 0, np.sin(angles), np.cos(angles))'''
S1['ps5_equivariance_code'] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(*X.shape)
    maps = [lambda Z: scaled_self_attention(Z, *params)[0],
            lambda Z: masked_self_attention(Z, *params)[0],
            lambda Z: scaled_self_attention(Z + Pi, *params)[0]]
    return np.array([np.max(np.abs(f(X[:, perm]) - f(X)[:, perm])) for f in maps])'''
S1['ps5_decoder_answer'] = '''(a) Without the mask output n can see token n+1, so it would just learn to copy the next token from its input; when generating text that token does not exist yet, so the model has learned nothing useful for predicting it.

(b) No: output n is a weighted sum over tokens 0..n whose weights depend only on each token's own query/key, so permuting tokens 0..n-1 among themselves leaves output n unchanged; it depends on which tokens come before, not their order.'''

# ---------------------------------------------------------------- S2: loops, verbose comments, python lists
S2 = {}
S2['ps1_softmax_code'] = '''def softmax(items_in):
    # convert the list of scores to a float array (a copy, so the caller's data is untouched)
    scores = np.array(items_in, dtype=float).flatten()
    # subtract the largest score so every exponent is <= 0 (no overflow)
    largest = np.max(scores)
    exps = []
    for s in scores:
        exps.append(np.exp(s - largest))
    total = sum(exps)
    # normalise so the weights add to one
    return np.array([e / total for e in exps])'''
S2['ps1_loop_code'] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    N_tokens = len(all_x)
    # 1. queries, keys and values of every token (equations 12.2 and 12.4)
    all_queries, all_keys, all_values = [], [], []
    for x in all_x:
        all_queries.append(beta_q + omega_q @ x)
        all_keys.append(beta_k + omega_k @ x)
        all_values.append(beta_v + omega_v @ x)
    # 2. one output per token
    all_x_prime = []
    for n in range(N_tokens):
        # dot product of every key with the query of token n
        all_km_qn = []
        for m in range(N_tokens):
            all_km_qn.append((all_keys[m].T @ all_queries[n]).item())
        # attention weights (equation 12.5)
        attention = softmax(all_km_qn)
        # weighted sum of the values (equation 12.3)
        x_prime = np.zeros_like(all_values[0])
        for m in range(N_tokens):
            x_prime = x_prime + attention[m] * all_values[m]
        all_x_prime.append(x_prime)
    return all_x_prime'''
S2['ps1_softmax_cols_code'] = '''def softmax_cols(data_in):
    # work column by column on a float copy
    result = np.zeros(data_in.shape, dtype=float)
    for n in range(data_in.shape[1]):
        column = data_in[:, n] - np.max(data_in[:, n])  # stable: largest exponent is 0
        exps = np.exp(column)
        result[:, n] = exps / np.sum(exps)
    return result'''
S2['ps1_self_attention_code'] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # ones row vector 1^T so beta 1^T repeats the bias in every column (equation 12.6)
    ones = np.ones((1, X.shape[1]))
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    # entry (m, n) is k_m . q_n ; softmax down each column
    dot_products = K.T @ Q
    attentions = softmax_cols(dot_products)
    # equation 12.8
    X_prime = V @ attentions
    return X_prime, attentions'''
S2['ps1_scaled_code'] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    ones = np.ones((1, X.shape[1]))
    Q = beta_q @ ones + omega_q @ X
    K = beta_k @ ones + omega_k @ X
    V = beta_v @ ones + omega_v @ X
    # D_q = size of one query = number of rows of Q (may be smaller than D)
    D_q = Q.shape[0]
    dot_products = (K.T @ Q) / np.sqrt(D_q)
    attentions = softmax_cols(dot_products)
    X_prime = V @ attentions
    return X_prime, attentions'''
S2['ps1_equivariance_code'] = '''def check_equivariance(f, X, perm):
    # permute first, then apply f
    permuted_then_f = f(X[:, perm])
    # apply f, then permute the outputs
    f_then_permuted = f(X)[:, perm]
    # entry by entry, default tolerance
    if np.allclose(permuted_then_f, f_then_permuted):
        return True
    else:
        return False'''
S2['ps1_positional_answer'] = '''No, it would no longer be equivariant. When we permute X but keep Pi fixed, token x_m is now added to a different positional column than before, so X P + Pi is not (X + Pi) P and the queries/keys/values of each token change, not just their order. I checked with Pi = np.arange(X.size).reshape(X.shape) / X.size and f = lambda Z: attention(Z + Pi): check_equivariance returned False.'''

S2['ps2_single_head_code'] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    # queries, keys, values of this head: each D/H x N
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    # D_q = rows of Q (the head size), NOT the global D
    D_q = Q.shape[0]
    N_tokens = X.shape[1]
    scores = np.zeros((N_tokens, N_tokens))
    for m in range(N_tokens):
        for n in range(N_tokens):
            scores[m, n] = np.dot(K[:, m], Q[:, n]) / np.sqrt(D_q)
    attention = softmax_cols(scores)
    return V @ attention'''
S2['ps2_multihead_scaled_code'] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    # run each head (argument order: values, queries, keys)
    sa_1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    sa_2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    # stack head 1 on top of head 2 -> D x N, then mix with omega_c (equation 12.11)
    stacked = np.vstack((sa_1, sa_2))
    X_prime = omega_c @ stacked
    return X_prime'''
S2['ps2_multihead_general_code'] = '''def multihead_self_attention(X, heads, omega_c):
    head_outputs = []
    for head in heads:
        # read the parameters by name, in the order values, queries, keys
        out = single_head_attention(X,
                                    head["omega_v"], head["omega_q"], head["omega_k"],
                                    head["beta_v"], head["beta_q"], head["beta_k"])
        head_outputs.append(out)
    stacked = np.vstack(head_outputs)  # H blocks of D/H rows, in list order
    X_prime = omega_c @ stacked
    return X_prime'''

S2['ps3_softmax_code'] = '''def softmax(X):
    # row by row, on a new array (X itself is not changed)
    out = np.empty(X.shape, dtype=float)
    for i in range(X.shape[0]):
        row = X[i] - np.max(X[i])   # subtract this row's own max
        exps = np.exp(row)
        out[i] = exps / np.sum(exps)
    return out'''
S2['ps3_layer_code'] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        # size of every token and of every weight matrix
        self.dims = dims
        # four separate draws from N(0, 1) using numpy's global generator
        self.W_q = np.random.randn(dims, dims)
        self.W_k = np.random.randn(dims, dims)
        self.W_v = np.random.randn(dims, dims)
        self.W_o = np.random.randn(dims, dims)

    def forward(self, x):
        # equation 2: queries, keys, values (n x dims)
        Q = np.dot(x, self.W_q)
        K = np.dot(x, self.W_k)
        V = np.dot(x, self.W_v)
        # equation 3: scores (n x n), scaled by sqrt(dims) -- self.dims, not the number of tokens
        S = np.dot(Q, K.T) / np.sqrt(self.dims)
        # equation 4: attention weights, one row per output
        A = softmax(S)
        # equation 5
        self_attention = np.dot(A, V)
        output = np.dot(self_attention, self.W_o)
        return output'''

S2['ps4_get_scores_code'] = '''def get_scores(matrix, vector):
    # one dot product per row (state) of the matrix
    scores = []
    for row in matrix:
        scores.append(np.dot(row, vector))
    return np.array(scores)'''
S2['ps4_scale_scores_code'] = '''def scale_scores(scores, n):
    # divide every score by sqrt(n), n = size of one hidden state (or d_k)
    return np.array([s / np.sqrt(n) for s in scores])'''
S2['ps4_attention_weights_code'] = '''def get_attention_weights(scores):
    # stable softmax: shift by the maximum first
    shifted = [s - max(scores) for s in scores]
    exps = [np.exp(s) for s in shifted]
    total = sum(exps)
    return np.array([e / total for e in exps])'''
S2['ps4_context_vector_code'] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    # weight j scales the WHOLE row j (one state)
    context = np.zeros(hidden_encoder_matrix.shape[1])
    for j in range(len(attention_weights)):
        context = context + attention_weights[j] * hidden_encoder_matrix[j]
    return context'''
S2['ps4_single_query_code'] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    # equation 5: one query (1-D), all keys and values (T x d)
    q = np.dot(query_token, W_Q)
    K = np.dot(tokens, W_K)
    V = np.dot(tokens, W_V)
    # d_k = size of one key = columns of W_K
    d_k = W_K.shape[1]
    scores = get_scores(K, q)
    scaled = scale_scores(scores, d_k)
    attention_weights = get_attention_weights(scaled)
    # equation 6: the weighted sum of the values
    output = get_context_vector(attention_weights, V)
    return attention_weights, output'''
S2['ps4_dimensions_code'] = '''# Tuples of ints (rows, columns), for example (5, 7).
# d_model = 4, h = 2 -> d_k = d_v = 2, T = 3
# X (3 x 4) @ W^Q_i (4 x 2) -> head_i is 3 x 2 ; Concat of 2 heads -> 3 x 4 ; Concat @ W^O (4 x 4) -> 3 x 4
head_W_shape = (4, 2)
concat_shape = (3, 4)
W_O_shape = (4, 4)'''
S2['ps4_split_heads_code'] = '''def split_heads(W, h):
    # width of one block = number of columns / number of heads
    width = W.shape[1] // h
    blocks = []
    for i in range(h):
        blocks.append(W[:, i * width:(i + 1) * width].copy())
    return blocks'''
S2['ps4_heads_answer'] = '''Several heads let the layer look at the sentence in several ways at once: each head has its own projections, so it builds its own attention pattern (in section 7 the two heads preferred different tokens). A single head must squeeze all relations into one softmax average, which blurs them. Splitting d_model into h blocks costs about the same as one big head, and W^O then combines the different views. It also makes the model more robust, since no single attention pattern has to be right.'''

S2['ps5_causal_mask_code'] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    mask = np.zeros((N, N), dtype=bool)
    for m in range(N):          # rows: inputs
        for n in range(N):      # columns: outputs
            if m <= n:
                mask[m, n] = True
    return mask'''
S2['ps5_masked_softmax_code'] = '''def masked_softmax_cols(scores, mask):
    weights = np.zeros(scores.shape, dtype=float)
    for n in range(scores.shape[1]):
        allowed = mask[:, n]
        if not np.any(allowed):
            continue  # fully masked column: keep zero weights
        # maximum over the allowed scores only
        col_max = np.max(scores[allowed, n])
        exps = np.exp(scores[allowed, n] - col_max)
        weights[allowed, n] = exps / np.sum(exps)
    return weights'''
S2['ps5_masked_attention_code'] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    n_tokens = X.shape[1]        # not the global N
    D_q = Q.shape[0]             # not the global D
    scores = (K.T @ Q) / np.sqrt(D_q)
    attentions = masked_softmax_cols(scores, causal_mask(n_tokens))
    X_prime = V @ attentions
    return X_prime, attentions'''
S2['ps5_positional_encoding_code'] = '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    for n in range(N):
        for i in range(D // 2):
            freq = 10000 ** (2 * i / D)
            Pi[2 * i, n] = np.sin(n / freq)
            Pi[2 * i + 1, n] = np.cos(n / freq)
    return Pi'''
S2['ps5_equivariance_code'] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    D_x, N_x = X.shape
    Pi = positional_encoding(D_x, N_x)   # fixed, never permuted
    gaps = []
    # 1. plain scaled attention
    a = scaled_self_attention(X[:, perm], omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    b = scaled_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0][:, perm]
    gaps.append(np.max(np.abs(a - b)))
    # 2. causal attention
    a = masked_self_attention(X[:, perm], omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    b = masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0][:, perm]
    gaps.append(np.max(np.abs(a - b)))
    # 3. attention on X + Pi
    a = scaled_self_attention(X[:, perm] + Pi, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0]
    b = scaled_self_attention(X + Pi, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[0][:, perm]
    gaps.append(np.max(np.abs(a - b)))
    return np.array(gaps)'''
S2['ps5_decoder_answer'] = '''(a) It would learn to cheat: output n could attend to token n+1, which is in its own input, and just copy it. At generation time token n+1 is not known yet, so the copying trick gives nothing and the model cannot predict.

(b) No. The weights of output n come from a softmax over the scores of tokens 0..n and the sum over them does not care about their order, so shuffling tokens 0..n-1 gives the same output n (only the later outputs' sets change).'''

# ---------------------------------------------------------------- S3: einsum
S3 = dict(S1)
S3['ps1_softmax_code'] = '''def softmax(items_in):
    z = np.array(items_in, dtype=np.float64)
    z = z - np.max(z)
    ez = np.exp(z)
    return ez / np.sum(ez)'''
S3['ps1_loop_code'] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    out = []
    keys = [beta_k + np.einsum('ij,jk->ik', omega_k, x) for x in all_x]
    vals = [beta_v + np.einsum('ij,jk->ik', omega_v, x) for x in all_x]
    for x_n in all_x:
        q_n = beta_q + np.einsum('ij,jk->ik', omega_q, x_n)
        a = softmax([np.einsum('ik,ik->', k_m, q_n) for k_m in keys])
        out.append(np.einsum('m,mdk->dk', a, np.stack(vals)))
    return out'''
S3['ps1_softmax_cols_code'] = '''def softmax_cols(data_in):
    shifted = data_in - np.max(data_in, axis=0)[np.newaxis, :]
    e = np.exp(shifted)
    return e / np.einsum('mn->n', e)[np.newaxis, :]'''
S3['ps1_self_attention_code'] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum('ed,dn->en', omega_q, X)
    K = beta_k + np.einsum('ed,dn->en', omega_k, X)
    V = beta_v + np.einsum('ed,dn->en', omega_v, X)
    attentions = softmax_cols(np.einsum('em,en->mn', K, Q))
    X_prime = np.einsum('em,mn->en', V, attentions)
    return X_prime, attentions'''
S3['ps1_scaled_code'] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum('ed,dn->en', omega_q, X)
    K = beta_k + np.einsum('ed,dn->en', omega_k, X)
    V = beta_v + np.einsum('ed,dn->en', omega_v, X)
    d_q = Q.shape[0]
    attentions = softmax_cols(np.einsum('em,en->mn', K, Q) / np.sqrt(d_q))
    X_prime = np.einsum('em,mn->en', V, attentions)
    return X_prime, attentions'''
S3['ps1_equivariance_code'] = '''def check_equivariance(f, X, perm):
    lhs = f(X[:, perm])
    rhs = f(X)[:, perm]
    return lhs.shape == rhs.shape and np.allclose(lhs, rhs)'''
S3['ps2_single_head_code'] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum('hd,dn->hn', omega_q, X)
    K = beta_k + np.einsum('hd,dn->hn', omega_k, X)
    V = beta_v + np.einsum('hd,dn->hn', omega_v, X)
    A = softmax_cols(np.einsum('hm,hn->mn', K, Q) / np.sqrt(Q.shape[0]))
    return np.einsum('hm,mn->hn', V, A)'''
S3['ps2_multihead_scaled_code'] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    stacked = np.concatenate([
        single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
        single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)], axis=0)
    X_prime = np.einsum('ij,jn->in', omega_c, stacked)
    return X_prime'''
S3['ps2_multihead_general_code'] = '''def multihead_self_attention(X, heads, omega_c):
    keys = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")
    stacked = np.concatenate([single_head_attention(X, *[hd[k] for k in keys]) for hd in heads], axis=0)
    X_prime = np.einsum('ij,jn->in', omega_c, stacked)
    return X_prime'''
S3['ps3_softmax_code'] = '''def softmax(X):
    Z = X - np.max(X, axis=-1, keepdims=True)
    E = np.exp(Z)
    return E / np.einsum('ij->i', E)[:, None]'''
S3['ps3_layer_code'] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        W = np.random.normal(loc=0.0, scale=1.0, size=(4, dims, dims))
        self.W_q, self.W_k, self.W_v, self.W_o = W[0], W[1], W[2], W[3]

    def forward(self, x):
        Q = np.einsum('nd,de->ne', x, self.W_q)
        K = np.einsum('nd,de->ne', x, self.W_k)
        V = np.einsum('nd,de->ne', x, self.W_v)
        S = np.einsum('ie,je->ij', Q, K) / np.sqrt(self.dims)
        A = softmax(S)
        return np.einsum('ij,je,ef->if', A, V, self.W_o)'''
S3['ps4_get_scores_code'] = '''def get_scores(matrix, vector):
    return np.einsum('tn,n->t', matrix, vector)'''
S3['ps4_context_vector_code'] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return np.einsum('t,tn->n', attention_weights, hidden_encoder_matrix)'''
S3['ps4_single_query_code'] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.einsum('d,dk->k', query_token, W_Q)
    K = np.einsum('td,dk->tk', tokens, W_K)
    V = np.einsum('td,dv->tv', tokens, W_V)
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), K.shape[1]))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output'''
S3['ps4_split_heads_code'] = '''def split_heads(W, h):
    d = W.shape[1] // h
    return [W[:, i * d:(i + 1) * d] for i in range(h)]'''
S3['ps5_causal_mask_code'] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    idx = np.arange(N)
    return idx[:, None] <= idx[None, :]'''
S3['ps5_masked_softmax_code'] = '''def masked_softmax_cols(scores, mask):
    big_neg = np.where(mask, scores, -np.inf)
    m = np.max(big_neg, axis=0)
    m[~np.isfinite(m)] = 0.0
    e = np.exp(big_neg - m[None, :])          # exp(-inf) = 0 on masked entries
    s = np.einsum('mn->n', e)
    s_safe = np.where(s > 0, s, 1.0)
    return e / s_safe[None, :]'''
S3['ps5_masked_attention_code'] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum('ed,dn->en', omega_q, X)
    K = beta_k + np.einsum('ed,dn->en', omega_k, X)
    V = beta_v + np.einsum('ed,dn->en', omega_v, X)
    S = np.einsum('em,en->mn', K, Q) / np.sqrt(Q.shape[0])
    attentions = masked_softmax_cols(S, causal_mask(X.shape[1]))
    X_prime = np.einsum('em,mn->en', V, attentions)
    return X_prime, attentions'''
S3['ps5_positional_encoding_code'] = '''def positional_encoding(D, N):
    i = np.arange(D // 2)
    n = np.arange(N)
    angles = np.einsum('i,n->in', 1.0 / 10000 ** (2 * i / D), n)
    Pi = np.empty((D, N))
    Pi[0::2] = np.sin(angles)
    Pi[1::2] = np.cos(angles)
    return Pi'''
S3['ps5_equivariance_code'] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    p = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(X.shape[0], X.shape[1])
    def gap(f):
        return np.abs(f(X[:, perm]) - f(X)[:, perm]).max()
    return np.array([gap(lambda Z: scaled_self_attention(Z, *p)[0]),
                     gap(lambda Z: masked_self_attention(Z, *p)[0]),
                     gap(lambda Z: scaled_self_attention(Z + Pi, *p)[0])])'''
S3['ps1_positional_answer'] = '''No. With a fixed Pi, permuting the tokens changes which positional column each token receives, so the permuted input X P + Pi is not a permutation of X + Pi, and the outputs are genuinely different rather than reordered. Self-attention itself is still equivariant, Sa[(X + Pi)P] = Sa[X + Pi]P, but (X + Pi)P = XP + Pi P differs from XP + Pi because the columns of Pi are distinct; check_equivariance on f = lambda Z: attention(Z + Pi) gives False.'''
S3['ps4_heads_answer'] = '''Multiple heads give the model several independent attention distributions per token instead of one average; each head's projections W^Q_i, W^K_i, W^V_i pick out different features, so heads can specialise (in section 7 head 1 and head 2 attended to different words). The heads are cheap: each works in d_model/h dimensions, so the total computation matches one full head. W^O then recombines the heads' outputs into d_model features. A single head would average incompatible relations together.'''
S3['ps5_decoder_answer'] = '''(a) It would learn the trivial identity "read token n+1 from the input and output it", because that token is visible to output n; at generation time token n+1 has not been generated yet, so the model has learned no real prediction.

(b) No, it only depends on the set: output n = sum_{m<=n} a_mn v_m with a_mn depending on k_m and q_n only, so permuting tokens 0..n-1 just reorders the terms of the sum and output n is unchanged.'''

# ---------------------------------------------------------------- S4: float32 where harmless, debug prints, in-place on own copies
S4 = dict(S2)
S4['ps1_softmax_code'] = '''def softmax(items_in):
    z = np.array(items_in, dtype=float).reshape(-1, 1)   # column (N, 1): the tests ravel it
    z -= z.max()          # in place on my own copy
    np.exp(z, out=z)
    z /= z.sum()
    return z'''
S4['ps1_loop_code'] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    all_x_prime = []
    for n, x_n in enumerate(all_x):
        q_n = beta_q + omega_q @ x_n
        scores = []
        for x_m in all_x:
            k_m = beta_k + omega_k @ x_m
            scores.append((k_m.T @ q_n).item())
        a = np.ravel(softmax(scores))
        # print("debug: weights for output", n, a)
        x_prime = np.zeros((omega_v.shape[0], 1))
        for m, x_m in enumerate(all_x):
            x_prime += a[m] * (beta_v + omega_v @ x_m)
        all_x_prime.append(x_prime)
    return all_x_prime'''
S4['ps1_softmax_cols_code'] = '''def softmax_cols(data_in):
    out = np.array(data_in, dtype=float)   # copy
    out -= out.max(axis=0)
    np.exp(out, out=out)
    out /= out.sum(axis=0)
    return out'''
S4['ps1_self_attention_code'] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X + beta_q
    K = omega_k @ X + beta_k
    V = omega_v @ X + beta_v
    attentions = softmax_cols(np.transpose(K) @ Q)
    X_prime = V @ attentions
    print("debug: X_prime shape", X_prime.shape, "attention shape", attentions.shape)
    return X_prime, attentions'''
S4['ps1_scaled_code'] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X + beta_q
    K = omega_k @ X + beta_k
    V = omega_v @ X + beta_v
    scores = np.transpose(K) @ Q
    scores /= Q.shape[0] ** 0.5      # D_q = rows of Q
    attentions = softmax_cols(scores)
    X_prime = V @ attentions
    return X_prime, attentions'''
S4['ps1_equivariance_code'] = '''def check_equivariance(f, X, perm):
    diff = np.abs(f(X[:, perm]) - f(X)[:, perm])
    print("debug: max difference", diff.max())
    return np.allclose(f(X[:, perm]), f(X)[:, perm])'''
S4['ps2_single_head_code'] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X + beta_q
    K = omega_k @ X + beta_k
    V = omega_v @ X + beta_v
    scores = K.T @ Q
    scores /= np.sqrt(Q.shape[0])     # head size, not D
    return V @ softmax_cols(scores)'''
S4['ps2_multihead_general_code'] = '''def multihead_self_attention(X, heads, omega_c):
    stacked = None
    for i, head in enumerate(heads):
        out = single_head_attention(X, head["omega_v"], head["omega_q"], head["omega_k"],
                                    head["beta_v"], head["beta_q"], head["beta_k"])
        stacked = out if stacked is None else np.concatenate([stacked, out], axis=0)
    print("debug: stacked heads", stacked.shape)
    X_prime = omega_c @ stacked
    return X_prime'''
S4['ps3_softmax_code'] = '''def softmax(X):
    Y = np.array(X, dtype=np.float32)    # float32 copy, never touches X
    Y -= Y.max(axis=1, keepdims=True)
    np.exp(Y, out=Y)
    Y /= Y.sum(axis=1, keepdims=True)
    return Y'''
S4['ps3_layer_code'] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = [np.random.normal(size=(dims, dims)) for _ in range(4)]

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        S = Q @ K.T
        S /= np.sqrt(self.dims)      # divide the scores (my own array), not the weights
        A = softmax(S)
        # print("debug A rows sum to", A.sum(axis=1))
        return A @ V @ self.W_o'''
S4['ps4_scale_scores_code'] = '''def scale_scores(scores, n):
    out = np.array(scores, dtype=float)   # copy
    out /= np.sqrt(n)
    return out'''
S4['ps4_attention_weights_code'] = '''def get_attention_weights(scores):
    w = np.array(scores, dtype=float)
    w -= w.max()
    np.exp(w, out=w)
    w /= w.sum()
    return w'''
S4['ps4_single_query_code'] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    print("debug: q", q.shape, "K", K.shape, "V", V.shape)
    attention_weights = get_attention_weights(get_scores(K, q) / np.sqrt(K.shape[1]))
    output = attention_weights @ V
    return attention_weights, output'''
S4['ps4_split_heads_code'] = '''def split_heads(W, h):
    return np.split(W, h, axis=1)'''
S4['ps5_causal_mask_code'] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return ~np.tri(N, N, k=-1, dtype=bool)'''
S4['ps5_masked_softmax_code'] = '''def masked_softmax_cols(scores, mask):
    s = np.array(scores, dtype=float)       # copy
    s[~mask] = -np.inf
    col_max = s.max(axis=0)
    col_max[np.isneginf(col_max)] = 0.0     # fully masked column
    s -= col_max
    np.exp(s, out=s)
    total = s.sum(axis=0)
    total[total == 0] = 1.0                 # fully masked column: 0 / 1 = 0
    s /= total
    return s'''
S4['ps5_positional_encoding_code'] = '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    positions = np.arange(N)
    for r in range(D):
        two_i = r if r % 2 == 0 else r - 1
        if r % 2 == 0:
            Pi[r] = np.sin(positions / 10000 ** (two_i / D))
        else:
            Pi[r] = np.cos(positions / 10000 ** (two_i / D))
    return Pi'''
S4['ps5_equivariance_code'] = S1['ps5_equivariance_code']

# Correct solutions, four styles. STYLES[k][grade_id] = cell source
S1, S2, S3, S4 = {}, {}, {}, {}

# ---------------- style 1: explicit loops and lists ----------------
S1["ps1_softmax_code"] = '''def softmax(items_in):
    scores = [float(s) for s in np.ravel(items_in)]
    biggest = max(scores)
    exps = []
    for s in scores:
        exps.append(np.exp(s - biggest))
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
    for n in range(len(all_x)):
        all_km_qn = []
        for m in range(len(all_x)):
            all_km_qn.append((all_keys[m].T @ all_queries[n]).item())
        attention = softmax(all_km_qn)
        x_prime = np.zeros(all_values[0].shape)
        for m in range(len(all_x)):
            x_prime = x_prime + attention[m] * all_values[m]
        all_x_prime.append(x_prime)
    return all_x_prime'''
S1["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    out = np.zeros(data_in.shape)
    for n in range(data_in.shape[1]):
        out[:, n] = softmax(data_in[:, n])
    return out'''
S1["ps1_self_attention_code"] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    N = X.shape[1]
    dots = np.zeros((N, N))
    for m in range(N):
        for n in range(N):
            dots[m, n] = K[:, m] @ Q[:, n]
    attentions = softmax_cols(dots)
    X_prime = V @ attentions
    return X_prime, attentions'''
S1["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    N = X.shape[1]
    D_q = Q.shape[0]
    dots = np.zeros((N, N))
    for m in range(N):
        for n in range(N):
            dots[m, n] = K[:, m] @ Q[:, n] / np.sqrt(D_q)
    attentions = softmax_cols(dots)
    X_prime = V @ attentions
    return X_prime, attentions'''
S1["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    permuted_first = f(X[:, perm])
    permuted_after = f(X)[:, perm]
    if np.allclose(permuted_first, permuted_after):
        return True
    return False'''
S1["ps1_positional_answer"] = '''No. The positional encoding stays attached to the positions while the tokens move, so after a permutation token x_m is paired with a different column of Pi and gets a different query, key and value. Sa[XP + Pi] is then not Sa[X + Pi]P in general (check_equivariance with f = attention(Z + Pi) returns False).'''

S1["ps2_single_head_code"] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    D_q = Q.shape[0]
    N = X.shape[1]
    scores = np.zeros((N, N))
    for m in range(N):
        for n in range(N):
            scores[m, n] = K[:, m] @ Q[:, n]
    attention = softmax_cols(scores / np.sqrt(D_q))
    return V @ attention'''
S1["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    head_outputs = []
    head_outputs.append(single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1))
    head_outputs.append(single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2))
    X_prime = omega_c @ np.vstack(head_outputs)
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
    result = np.zeros(X.shape)
    for i in range(X.shape[0]):
        row = X[i] - np.max(X[i])
        exps = np.exp(row)
        result[i] = exps / np.sum(exps)
    return result'''
S1["ps3_layer_code"] = '''class SelfAttention:
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
        weights = softmax(scores)
        self_attention = weights @ V
        output = self_attention @ self.W_o
        return output'''

S1["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    scores = []
    for row in matrix:
        scores.append(np.dot(row, vector))
    return np.array(scores)'''
S1["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    return np.array([s / np.sqrt(n) for s in scores])'''
S1["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    biggest = max(scores)
    exps = [np.exp(s - biggest) for s in scores]
    total = sum(exps)
    return np.array([e / total for e in exps])'''
S1["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    context = np.zeros(hidden_encoder_matrix.shape[1])
    for j in range(len(attention_weights)):
        context = context + attention_weights[j] * hidden_encoder_matrix[j]
    return context'''
S1["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    d_k = W_K.shape[1]
    scores = get_scores(K, q)
    scaled = scale_scores(scores, d_k)
    attention_weights = get_attention_weights(scaled)
    output = get_context_vector(attention_weights, V)
    return attention_weights, output'''
S1["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
# d_model = 4, h = 2 heads, so d_k = d_v = 2; T = 3 tokens
head_W_shape = (4, 2)   # x (1 x 4) @ W_Q_i -> query of size 2
concat_shape = (3, 4)   # two heads of shape (3, 2) side by side
W_O_shape = (4, 4)      # (3 x 4) @ W_O -> (3 x 4)'''
S1["ps4_split_heads_code"] = '''def split_heads(W, h):
    width = W.shape[1] // h
    blocks = []
    for i in range(h):
        blocks.append(W[:, i * width:(i + 1) * width])
    return blocks'''
S1["ps4_heads_answer"] = '''Each head has its own query, key and value projections, so each head computes its own attention pattern: in section 7 head 1 leans towards "translation" and head 2 towards "is". With one head every token gets a single weighted average, which blurs different relations together; several heads can track several relations (e.g. syntax and meaning) at once. Because each head works in a space of size d_model/h, the total cost is about the same as one full-size head, and W^O mixes the heads back together.'''

S1["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    mask = np.zeros((N, N), dtype=bool)
    for m in range(N):
        for n in range(N):
            if m <= n:
                mask[m, n] = True
    return mask'''
S1["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    out = np.zeros(scores.shape)
    for n in range(scores.shape[1]):
        allowed = [m for m in range(scores.shape[0]) if mask[m, n]]
        if len(allowed) == 0:
            continue
        biggest = max(scores[m, n] for m in allowed)
        exps = {m: np.exp(scores[m, n] - biggest) for m in allowed}
        total = sum(exps.values())
        for m in allowed:
            out[m, n] = exps[m] / total
    return out'''
S1["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    n_tokens = X.shape[1]
    D_q = Q.shape[0]
    scores = K.T @ Q / np.sqrt(D_q)
    attentions = masked_softmax_cols(scores, causal_mask(n_tokens))
    X_prime = V @ attentions
    return X_prime, attentions'''
S1["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    for n in range(N):
        for i in range(D // 2):
            angle = n / 10000 ** (2 * i / D)
            Pi[2 * i, n] = np.sin(angle)
            Pi[2 * i + 1, n] = np.cos(angle)
    return Pi'''
S1["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(X.shape[0], X.shape[1])

    def plain(Z):
        return scaled_self_attention(Z, *params)[0]

    def causal(Z):
        return masked_self_attention(Z, *params)[0]

    def with_positions(Z):
        return scaled_self_attention(Z + Pi, *params)[0]

    gaps = []
    for f in [plain, causal, with_positions]:
        gaps.append(np.max(np.abs(f(X[:, perm]) - f(X)[:, perm])))
    return np.array(gaps)'''
S1["ps5_decoder_answer"] = '''(a) Without the mask output n could see token n+1, so it would just learn to copy the next token from its input; at generation time the next token does not exist yet, so the model has nothing to copy and is useless.

(b) No. Output n is a softmax-weighted sum over tokens 0..n, and a sum does not care about the order of its terms, so permuting tokens 0..n-1 among themselves leaves output n unchanged; it only knows which tokens came before, not in which order.'''

# ---------------- style 2: vectorised, einsum, broadcasting ----------------
S2["ps1_softmax_code"] = '''def softmax(items_in):
    z = np.asarray(items_in, dtype=float).reshape(-1)
    z = z - z.max()          # largest exponent is 0 -> no overflow
    e = np.exp(z)
    return e / e.sum()'''
S2["ps1_loop_code"] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    qs = [beta_q + omega_q @ x for x in all_x]
    ks = [beta_k + omega_k @ x for x in all_x]
    vs = [beta_v + omega_v @ x for x in all_x]
    outputs = []
    for q_n in qs:
        a = softmax([np.einsum('ij,ij->', k_m, q_n) for k_m in ks])
        outputs.append(sum(a_m * v_m for a_m, v_m in zip(a, vs)))
    return outputs'''
S2["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    shifted = data_in - np.max(data_in, axis=0, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=0, keepdims=True)'''
S2["ps1_self_attention_code"] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum('ij,jn->in', omega_q, X)
    K = beta_k + np.einsum('ij,jn->in', omega_k, X)
    V = beta_v + np.einsum('ij,jn->in', omega_v, X)
    attentions = softmax_cols(np.einsum('dm,dn->mn', K, Q))
    X_prime = np.einsum('dm,mn->dn', V, attentions)
    return X_prime, attentions'''
S2["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum('ij,jn->in', omega_q, X)
    K = beta_k + np.einsum('ij,jn->in', omega_k, X)
    V = beta_v + np.einsum('ij,jn->in', omega_v, X)
    attentions = softmax_cols(np.einsum('dm,dn->mn', K, Q) / np.sqrt(Q.shape[0]))
    X_prime = np.einsum('dm,mn->dn', V, attentions)
    return X_prime, attentions'''
S2["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    return bool(np.allclose(f(X[:, perm]), f(X)[:, perm]))'''
S2["ps1_positional_answer"] = '''No. Pi does not move with the tokens, so permuting the columns of X changes which positional vector each token gets, and therefore its queries, keys and values. The outputs are no longer just the permuted outputs; I checked with Pi = np.arange(X.size).reshape(X.shape) / X.size and check_equivariance returned False.'''

S2["ps2_single_head_code"] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum('hd,dn->hn', omega_q, X)
    K = beta_k + np.einsum('hd,dn->hn', omega_k, X)
    V = beta_v + np.einsum('hd,dn->hn', omega_v, X)
    A = softmax_cols(np.einsum('hm,hn->mn', K, Q) / np.sqrt(Q.shape[0]))
    return np.einsum('hm,mn->hn', V, A)'''
S2["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    stacked = np.concatenate([
        single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
        single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)], axis=0)
    X_prime = np.einsum('ij,jn->in', omega_c, stacked)
    return X_prime'''
S2["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    names = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")
    stacked = np.concatenate([single_head_attention(X, *(hd[k] for k in names)) for hd in heads],
                             axis=0)
    X_prime = np.einsum('ij,jn->in', omega_c, stacked)
    return X_prime'''

S2["ps3_softmax_code"] = '''def softmax(X):
    shifted = X - X.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    return e / e.sum(axis=1, keepdims=True)'''
S2["ps3_layer_code"] = '''class SelfAttention:
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
        return np.einsum('ij,jd->id', A, V) @ self.W_o'''

S2["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    return np.einsum('tn,n->t', matrix, vector)'''
S2["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    return np.asarray(scores) / np.sqrt(n)'''
S2["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    e = np.exp(scores - np.max(scores))
    return e / e.sum()'''
S2["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    # weight j scales row j: put the weights in a column so they broadcast over rows
    return (attention_weights[:, None] * hidden_encoder_matrix).sum(axis=0)'''
S2["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.einsum('d,dk->k', query_token, W_Q)
    K = np.einsum('td,dk->tk', tokens, W_K)
    V = np.einsum('td,dv->tv', tokens, W_V)
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), K.shape[1]))
    output = get_context_vector(attention_weights, V)
    return attention_weights, output'''
S2["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape = (4, 2)
concat_shape = (3, 4)
W_O_shape = (4, 4)'''
S2["ps4_split_heads_code"] = '''def split_heads(W, h):
    return list(np.split(W, h, axis=1))'''
S2["ps4_heads_answer"] = '''Several heads let the layer attend to different things at the same time: each head has its own W^Q_i, W^K_i, W^V_i and so its own attention matrix (the two heads above prefer different tokens). A single head has to average all relations into one distribution. The heads are smaller (d_model/h each), so the total cost is roughly that of one big head, and W^O combines their outputs. It also makes the model more robust, since one head saturating on a single token does not hide the others.'''

S2["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    idx = np.arange(N)
    return idx[:, None] <= idx[None, :]'''
S2["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    masked = np.where(mask, scores, -np.inf)
    col_max = masked.max(axis=0, keepdims=True)
    col_max = np.where(np.isfinite(col_max), col_max, 0.0)   # fully masked column
    e = np.where(mask, np.exp(masked - col_max), 0.0)
    total = e.sum(axis=0, keepdims=True)
    return np.divide(e, total, out=np.zeros_like(e), where=total > 0)'''
S2["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = beta_q + np.einsum('ij,jn->in', omega_q, X)
    K = beta_k + np.einsum('ij,jn->in', omega_k, X)
    V = beta_v + np.einsum('ij,jn->in', omega_v, X)
    S = np.einsum('dm,dn->mn', K, Q) / np.sqrt(Q.shape[0])
    attentions = masked_softmax_cols(S, causal_mask(X.shape[1]))
    X_prime = np.einsum('dm,mn->dn', V, attentions)
    return X_prime, attentions'''
S2["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    rows = np.arange(D)
    two_i = rows - rows % 2                        # 0, 0, 2, 2, 4, 4, ...
    angles = np.arange(N)[None, :] / 10000.0 ** (two_i[:, None] / D)
    return np.where(rows[:, None] % 2 == 0, np.sin(angles), np.cos(angles))'''
S2["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    p = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(*X.shape)
    maps = [lambda Z: scaled_self_attention(Z, *p)[0],
            lambda Z: masked_self_attention(Z, *p)[0],
            lambda Z: scaled_self_attention(Z + Pi, *p)[0]]
    return np.array([np.abs(f(X[:, perm]) - f(X)[:, perm]).max() for f in maps])'''
S2["ps5_decoder_answer"] = '''(a) It would learn to read token n+1 straight from the input (a copy), which makes the training loss tiny but teaches nothing about predicting; when generating, the future tokens are not available, so the shortcut it learned cannot be used.

(b) No: the weights and values of tokens 0..n-1 enter output n only through a sum, so permuting those tokens among themselves gives the same output n. One causal layer knows the set of earlier tokens, not their order.'''

# ---------------- style 3: terse one-liners, np.matmul ----------------
S3["ps1_softmax_code"] = '''def softmax(items_in):
    e = np.exp(np.ravel(items_in) - np.max(items_in))
    return e / e.sum()'''
S3["ps1_loop_code"] = '''def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    q, k, v = ([b + np.matmul(w, x) for x in all_x] for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    return [sum(a * v_m for a, v_m in zip(softmax([(k_m.T @ q_n).item() for k_m in k]), v)) for q_n in q]'''
S3["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    e = np.exp(data_in - data_in.max(0))
    return e / e.sum(0)'''
S3["ps1_self_attention_code"] = '''def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + np.matmul(w, X) for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    attentions = softmax_cols(np.matmul(K.T, Q))
    return np.matmul(V, attentions), attentions'''
S3["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + np.matmul(w, X) for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    attentions = softmax_cols(np.matmul(K.T, Q) / len(Q) ** 0.5)
    return np.matmul(V, attentions), attentions'''
S3["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    return np.allclose(f(X[:, perm]), f(X)[:, perm])'''
S3["ps1_positional_answer"] = '''No. Pi belongs to the positions, so after permuting X each token is added to a different column of Pi, which changes its query/key/value; the result is not just Sa[X + Pi] with its columns permuted. check_equivariance(lambda Z: attention(Z + Pi), X, [1, 2, 0]) gives False.'''

S3["ps2_single_head_code"] = '''def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + np.matmul(w, X) for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    return np.matmul(V, softmax_cols(np.matmul(K.T, Q) / np.sqrt(len(Q))))'''
S3["ps2_multihead_scaled_code"] = '''def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    X_prime = np.matmul(omega_c, np.vstack([
        single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
        single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)]))
    return X_prime'''
S3["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    return np.matmul(omega_c, np.vstack([single_head_attention(X, *[h[k] for k in ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")]) for h in heads]))'''

S3["ps3_softmax_code"] = '''def softmax(X):
    e = np.exp(X - np.max(X, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)'''
S3["ps3_layer_code"] = '''class SelfAttention:
    """A self-attention layer; the tokens are the rows of x."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = (np.random.randn(dims, dims) for _ in range(4))

    def forward(self, x):
        Q, K, V = (np.matmul(x, W) for W in (self.W_q, self.W_k, self.W_v))
        return np.matmul(np.matmul(softmax(np.matmul(Q, K.T) / np.sqrt(self.dims)), V), self.W_o)'''

S3["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    return np.matmul(matrix, vector)'''
S3["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    return scores / n ** 0.5'''
S3["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    e = np.exp(np.subtract(scores, np.max(scores)))
    return e / np.sum(e)'''
S3["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    return np.matmul(attention_weights, hidden_encoder_matrix)'''
S3["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    attention_weights = get_attention_weights(scale_scores(get_scores(np.matmul(tokens, W_K), np.matmul(query_token, W_Q)), W_K.shape[1]))
    output = get_context_vector(attention_weights, np.matmul(tokens, W_V))
    return attention_weights, output'''
S3["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
head_W_shape, concat_shape, W_O_shape = (4, 2), (3, 4), (4, 4)'''
S3["ps4_split_heads_code"] = '''def split_heads(W, h):
    c = W.shape[1] // h
    return [W[:, i * c:(i + 1) * c] for i in range(h)]'''
S3["ps4_heads_answer"] = '''Each head gets its own projections, so it can learn its own notion of which tokens are relevant; with one head the model can only produce one attention distribution per query. Several heads attend to different positions/relations in parallel (above, head 1 prefers "translation" and head 2 "is"), and W^O combines what they found. Since each head has size d_model/h, this costs about as much as one full head.'''

S3["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    return np.triu(np.ones((N, N), dtype=bool))'''
S3["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    m = np.max(np.where(mask, scores, -np.inf), axis=0)
    e = np.exp(np.where(mask, scores - np.where(np.isfinite(m), m, 0), -np.inf))
    s = e.sum(0)
    return e / np.where(s > 0, s, 1)'''
S3["ps5_masked_attention_code"] = '''def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = (b + np.matmul(w, X) for w, b in ((omega_q, beta_q), (omega_k, beta_k), (omega_v, beta_v)))
    attentions = masked_softmax_cols(np.matmul(K.T, Q) / np.sqrt(len(Q)), causal_mask(X.shape[1]))
    return np.matmul(V, attentions), attentions'''
S3["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    return np.array([[(np.sin if r % 2 == 0 else np.cos)(n / 10000 ** ((r - r % 2) / D)) for n in range(N)] for r in range(D)])'''
S3["ps5_equivariance_code"] = '''def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    p = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(*X.shape)
    fs = (lambda Z: scaled_self_attention(Z, *p)[0], lambda Z: masked_self_attention(Z, *p)[0], lambda Z: scaled_self_attention(Z + Pi, *p)[0])
    return np.array([np.max(np.abs(f(X[:, perm]) - f(X)[:, perm])) for f in fs])'''
S3["ps5_decoder_answer"] = '''(a) It would learn to copy: output n can see token n+1, which is exactly what it must predict. When generating, token n+1 is not there yet, so the model never learned to actually predict it.
(b) No. Permuting tokens 0..n-1 only reorders the terms of the weighted sum for output n, so output n is unchanged: it depends on which tokens came before but not on their order.'''

# ---------------- style 4: helpers reused, asserts, debug prints, in-place on own copies ----------------
S4["ps1_softmax_code"] = '''def softmax(items_in):
    z = np.array(items_in, dtype=float).flatten()   # my own copy
    z -= np.max(z)                                  # stable: every exponent <= 0
    np.exp(z, out=z)
    z /= np.sum(z)
    assert np.isclose(z.sum(), 1.0)
    return z

print(softmax([1.0, 2.0, 3.0]))'''
S4["ps1_loop_code"] = '''def _qkv(x, omega, beta):
    """beta + omega x for one column x (D x 1)."""
    return beta + np.matmul(omega, x)


def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    queries = [_qkv(x, omega_q, beta_q) for x in all_x]
    keys = [_qkv(x, omega_k, beta_k) for x in all_x]
    values = [_qkv(x, omega_v, beta_v) for x in all_x]
    outputs = []
    for n, q_n in enumerate(queries):
        a = softmax([(k_m.T @ q_n).item() for k_m in keys])
        x_n = np.zeros_like(values[0], dtype=float)
        for a_m, v_m in zip(a, values):
            x_n += a_m * v_m          # x_n is my own array, fine to update in place
        assert x_n.shape == values[0].shape
        outputs.append(x_n)
    return outputs'''
S4["ps1_softmax_cols_code"] = '''def softmax_cols(data_in):
    z = np.array(data_in, dtype=float)          # copy, so the caller's array is untouched
    z -= z.max(axis=0, keepdims=True)
    np.exp(z, out=z)
    z /= z.sum(axis=0, keepdims=True)
    return z'''
S4["ps1_self_attention_code"] = '''def _project_all(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = _qkv(X, omega_q, beta_q)
    K = _qkv(X, omega_k, beta_k)
    V = _qkv(X, omega_v, beta_v)
    return Q, K, V


def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = _project_all(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    attentions = softmax_cols(np.matmul(K.T, Q))
    X_prime = np.matmul(V, attentions)
    assert attentions.shape == (X.shape[1], X.shape[1])
    return X_prime, attentions


print(self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)[1].round(3))'''
S4["ps1_scaled_code"] = '''def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = _project_all(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    D_q = Q.shape[0]
    scores = np.matmul(K.T, Q)
    scores /= np.sqrt(D_q)           # scores is a fresh array
    attentions = softmax_cols(scores)
    X_prime = np.matmul(V, attentions)
    return X_prime, attentions'''
S4["ps1_equivariance_code"] = '''def check_equivariance(f, X, perm):
    left = f(X[:, perm])
    right = f(X)[:, perm]
    if left.shape != right.shape:
        return False
    return bool(np.allclose(left, right))'''
S4["ps1_positional_answer"] = '''No. With Pi fixed to the positions, moving a token puts it together with another positional vector, so its query, key and value change and the outputs are not simply permuted: Sa[XP + Pi] differs from Sa[X + Pi]P. With Pi = np.arange(X.size).reshape(X.shape) / X.size my check_equivariance returns False.'''

S4["ps2_single_head_code"] = '''def _project(X, omega, beta):
    return beta + np.matmul(omega, X)


def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = _project(X, omega_q, beta_q)
    K = _project(X, omega_k, beta_k)
    V = _project(X, omega_v, beta_v)
    D_q = Q.shape[0]                      # size of one query of THIS head
    scores = np.matmul(K.T, Q)
    scores /= np.sqrt(D_q)
    A = softmax_cols(scores)
    assert np.allclose(A.sum(axis=0), 1)
    return np.matmul(V, A)'''
S4["ps2_multihead_scaled_code"] = '''def _combine(head_outputs, omega_c):
    stacked = np.vstack(head_outputs)      # head 1 on top
    assert stacked.shape[0] == omega_c.shape[1], stacked.shape
    return np.matmul(omega_c, stacked)


def multihead_scaled_self_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                    omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                    omega_c):
    h1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    h2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    X_prime = _combine([h1, h2], omega_c)
    return X_prime'''
S4["ps2_multihead_general_code"] = '''def multihead_self_attention(X, heads, omega_c):
    outs = []
    for h in heads:
        outs.append(single_head_attention(X, h["omega_v"], h["omega_q"], h["omega_k"],
                                          h["beta_v"], h["beta_q"], h["beta_k"]))
    X_prime = _combine(outs, omega_c)
    return X_prime'''

S4["ps3_softmax_code"] = '''def softmax(X):
    Z = np.array(X, dtype=float)                  # copy: do not touch the caller's scores
    assert Z.ndim == 2, "softmax expects a 2-D array"
    Z -= Z.max(axis=1, keepdims=True)
    np.exp(Z, out=Z)
    Z /= Z.sum(axis=1, keepdims=True)
    return Z'''
S4["ps3_layer_code"] = '''class SelfAttention:
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
        Q = np.matmul(x, self.W_q)
        K = np.matmul(x, self.W_k)
        V = np.matmul(x, self.W_v)
        S = np.matmul(Q, K.T)
        S /= np.sqrt(self.dims)
        A = softmax(S)
        return np.matmul(np.matmul(A, V), self.W_o)'''

S4["ps4_get_scores_code"] = '''def get_scores(matrix, vector):
    matrix = np.asarray(matrix)
    vector = np.asarray(vector)
    assert matrix.shape[1] == vector.shape[0], (matrix.shape, vector.shape)
    return np.dot(matrix, vector)'''
S4["ps4_scale_scores_code"] = '''def scale_scores(scores, n):
    out = np.array(scores, dtype=float)
    out /= np.sqrt(n)
    return out'''
S4["ps4_attention_weights_code"] = '''def get_attention_weights(scores):
    z = np.array(scores, dtype=float)
    z -= z.max()
    np.exp(z, out=z)
    z /= z.sum()
    return z'''
S4["ps4_context_vector_code"] = '''def get_context_vector(attention_weights, hidden_encoder_matrix):
    assert len(attention_weights) == hidden_encoder_matrix.shape[0]
    return np.dot(hidden_encoder_matrix.T, attention_weights)'''
S4["ps4_single_query_code"] = '''def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = np.dot(query_token, W_Q)
    K = np.dot(tokens, W_K)
    V = np.dot(tokens, W_V)
    d_k = K.shape[1]
    attention_weights = get_attention_weights(scale_scores(get_scores(K, q), d_k))
    output = get_context_vector(attention_weights, V)
    assert output.shape == (W_V.shape[1],)
    return attention_weights, output'''
S4["ps4_dimensions_code"] = '''# Tuples of ints (rows, columns), for example (5, 7).
T, d_model, h = 3, 4, 2
d_k = d_model // h
head_W_shape = (d_model, d_k)
concat_shape = (T, h * d_k)
W_O_shape = (h * d_k, d_model)
print(head_W_shape, concat_shape, W_O_shape)'''
S4["ps4_split_heads_code"] = '''def split_heads(W, h):
    assert W.shape[1] % h == 0
    size = W.shape[1] // h
    return [W[:, start:start + size] for start in range(0, W.shape[1], size)]'''
S4["ps4_heads_answer"] = '''With several heads the model can compute several different attention distributions for the same query, one per head, because every head has its own W^Q_i, W^K_i and W^V_i. One head can focus on one kind of relation (for example the previous word) while another focuses on a different one, instead of one softmax having to compromise between them. The heads work in smaller subspaces (d_model/h), so the cost is similar to a single full-size head, and W^O mixes their outputs back into d_model dimensions.'''

S4["ps5_causal_mask_code"] = '''def causal_mask(N):
    """N x N, dtype bool: True at (m, n) where output n may attend to input m (M1)."""
    m, n = np.indices((N, N))
    mask = m <= n
    assert mask.dtype == bool
    return mask'''
S4["ps5_masked_softmax_code"] = '''def masked_softmax_cols(scores, mask):
    z = np.array(scores, dtype=float)            # my own copy
    z[~mask] = -np.inf
    col_max = z.max(axis=0, keepdims=True)
    col_max[~np.isfinite(col_max)] = 0.0         # fully masked column: avoid -inf - -inf
    z -= col_max
    np.exp(z, out=z)                             # exp(-inf) = 0
    totals = z.sum(axis=0, keepdims=True)
    totals[totals == 0] = 1.0                    # zero column stays zero
    z /= totals
    return z'''
S4["ps5_masked_attention_code"] = '''def _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    return beta_q + omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X


def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q, K, V = _qkv(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    scores = K.T @ Q
    scores /= np.sqrt(Q.shape[0])
    attentions = masked_softmax_cols(scores, causal_mask(X.shape[1]))
    X_prime = V @ attentions
    return X_prime, attentions'''
S4["ps5_positional_encoding_code"] = '''def positional_encoding(D, N):
    assert D % 2 == 0
    positions = np.arange(N, dtype=float)
    Pi = np.empty((D, N))
    for i in range(D // 2):
        freq = 1.0 / 10000 ** (2 * i / D)
        Pi[2 * i] = np.sin(positions * freq)
        Pi[2 * i + 1] = np.cos(positions * freq)
    return Pi'''
S4["ps5_equivariance_code"] = '''def _gap(f, X, perm):
    return np.max(np.abs(f(X[:, perm]) - f(X)[:, perm]))


def equivariance_gaps(X, perm, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    params = (omega_v, omega_q, omega_k, beta_v, beta_q, beta_k)
    Pi = positional_encoding(X.shape[0], X.shape[1])
    gaps = np.array([
        _gap(lambda Z: scaled_self_attention(Z, *params)[0], X, perm),
        _gap(lambda Z: masked_self_attention(Z, *params)[0], X, perm),
        _gap(lambda Z: scaled_self_attention(Z + Pi, *params)[0], X, perm),
    ])
    print("gaps:", gaps)
    return gaps'''
S4["ps5_decoder_answer"] = '''(a) Without the mask, output n can attend to token n+1, the very token it is trained to predict, so it learns to copy it and the loss goes to almost zero. When generating text token n+1 does not exist yet, so the copying trick gives nothing and the model cannot predict.

(b) No. Output n = sum over m <= n of a_mn v_m, and a_mn depends only on q_n and k_m, so permuting tokens 0..n-1 among themselves just reorders the sum: output n stays the same. It knows which tokens precede it but not their order.'''

STYLES = {1: S1, 2: S2, 3: S3, 4: S4}

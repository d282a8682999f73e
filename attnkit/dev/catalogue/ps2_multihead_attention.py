"""Problem set 2 (UDL multihead attention) as students write it, right and wrong."""

# ruff: noqa: B905 - student code, written the way students write it

import numpy as np

from attnkit.dev.validate import entry

# The notebook's globals (cell ps2_data), as the student's later cells see them.
_seeded = np.random.RandomState(3)
N = 6
D = 8
X = _seeded.normal(size=(D, N))
H = 2
H_D = D // H
_seeded = np.random.RandomState(0)
omega_q1, omega_k1, omega_v1 = (_seeded.normal(size=(H_D, D)) for _ in range(3))
beta_q1, beta_k1, beta_v1 = (_seeded.normal(size=(H_D, 1)) for _ in range(3))
omega_q2, omega_k2, omega_v2 = (_seeded.normal(size=(H_D, D)) for _ in range(3))
beta_q2, beta_k2, beta_v2 = (_seeded.normal(size=(H_D, 1)) for _ in range(3))
omega_c = _seeded.normal(size=(D, D))


def softmax_cols(data_in):
    """The notebook's given softmax_cols."""
    exp_values = np.exp(data_in - data_in.max(axis=0, keepdims=True))
    return exp_values / exp_values.sum(axis=0, keepdims=True)


# ---------------------------------------------------------------- one head


def single_head_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """A correct head, reused by the multihead functions below."""
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))


entry("ps2_single_head", name="single_head_matrices")(single_head_attention)


@entry("ps2_single_head")
def single_head_token_loop(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Loops over the output tokens, one query at a time."""
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    out = np.zeros((V.shape[0], X.shape[1]))
    for n in range(X.shape[1]):
        scores = K.T @ Q[:, n] / np.sqrt(len(Q[:, n]))
        weights = np.exp(scores - np.max(scores))
        weights = weights / np.sum(weights)
        out[:, n] = V @ weights
    return out


@entry("ps2_single_head", wrong="scale sqrt(D)", says=("sqrt(8)", "sqrt(4)"))
def single_head_scaled_by_D(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Divides by sqrt(D), the size of the inputs, as in problem set 1."""
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(X.shape[0]))


@entry("ps2_single_head", wrong="no scaling")
def single_head_unscaled(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Forgot the scale."""
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q)


@entry("ps2_single_head", wrong="no square root", says=("sqrt(4) = 2",))
def single_head_divided_by_head_size(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Divides by D/H itself."""
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / Q.shape[0])


@entry("ps2_single_head", wrong="scale fixed at 2", says=("H_D",))
def single_head_scaled_by_global_head_size(X, omega_v, omega_q, omega_k, beta_v, beta_q,
                                           beta_k):
    """sqrt(H_D): the notebook's head size, right for its data only."""
    Q, K, V = beta_q + omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(H_D))


@entry("ps2_single_head", wrong="scale fixed at sqrt(8)", says=("notebook's D = 8",))
def single_head_scaled_by_global_D(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """sqrt(D) with the notebook's D = 8: right on no head of its data."""
    Q, K, V = beta_q + omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(D))


@entry("ps2_single_head", wrong="scale sqrt(D/2)", says=("two heads",))
def single_head_half_input_size(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """D_q = X.shape[0] / 2: D/H with H = 2 typed in."""
    Q, K, V = beta_q + omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(X.shape[0] / 2))


@entry("ps2_single_head", wrong="returned the attention too")
def single_head_returns_pair(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Copied from problem set 1: returns (X_prime, attentions)."""
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    attentions = softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))
    return V @ attentions, attentions


# ---------------------------------------------------------------- two heads


@entry("ps2_multihead_scaled")
def multihead_list_of_heads(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                            omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
    """A list of per-head parameter tuples, a loop, np.concatenate on axis 0."""
    params = [(omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
              (omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)]
    heads = []
    for p in params:
        heads.append(single_head_attention(X, *p))
    return omega_c @ np.concatenate(heads, axis=0)


@entry("ps2_multihead_scaled")
def multihead_stacked_einsum(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                             omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
    """All heads at once: H x D/H x D weight stacks and einsum."""
    Wq, Wk, Wv = np.stack([omega_q1, omega_q2]), np.stack([omega_k1, omega_k2]), \
        np.stack([omega_v1, omega_v2])
    bq, bk, bv = np.stack([beta_q1, beta_q2]), np.stack([beta_k1, beta_k2]), \
        np.stack([beta_v1, beta_v2])
    Q = np.einsum("hqd,dn->hqn", Wq, X) + bq
    K = np.einsum("hqd,dn->hqn", Wk, X) + bk
    V = np.einsum("hvd,dn->hvn", Wv, X) + bv
    S = np.einsum("hqm,hqn->hmn", K, Q) / np.sqrt(Q.shape[1])
    A = np.exp(S - S.max(axis=1, keepdims=True))
    A = A / A.sum(axis=1, keepdims=True)
    heads = np.einsum("hvm,hmn->hvn", V, A)
    return omega_c @ heads.reshape(-1, X.shape[1])


def _two(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
         omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, scale):
    """Two heads with a given scale rule (the part students vary)."""
    def head(omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
        Q = beta_q + omega_q @ X
        K = beta_k + omega_k @ X
        V = beta_v + omega_v @ X
        return V @ softmax_cols(K.T @ Q / scale(Q))
    return (head(omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
            head(omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2))


@entry("ps2_multihead_scaled", wrong="scale sqrt(D)", says=("sqrt(8)", "D/H = 8/2 = 4"))
def multihead_scaled_by_sqrt_D(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                               omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                               omega_c):
    """Each head divided by sqrt(D) of the whole input."""
    head1, head2 = _two(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1, omega_v2,
                        omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                        lambda Q: np.sqrt(X.shape[0]))
    return omega_c @ np.vstack([head1, head2])


@entry("ps2_multihead_scaled", wrong="scale fixed at sqrt(8)", says=("notebook's D = 8",))
def multihead_scaled_by_global_D(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                 omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                 omega_c):
    """The heads written out again, each divided by sqrt of the notebook's global D."""
    head1, head2 = _two(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1, omega_v2,
                        omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, lambda Q: np.sqrt(D))
    return omega_c @ np.vstack([head1, head2])


@entry("ps2_multihead_scaled", wrong="scale D")
def multihead_scaled_by_D(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                          omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
    """Each head divided by D."""
    head1, head2 = _two(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1, omega_v2,
                        omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, lambda Q: X.shape[0])
    return omega_c @ np.vstack([head1, head2])


@entry("ps2_multihead_scaled", wrong="no square root")
def multihead_scaled_by_head_size(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                  omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                  omega_c):
    """Each head divided by D/H without the root."""
    head1, head2 = _two(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1, omega_v2,
                        omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                        lambda Q: X.shape[0] / 2)
    return omega_c @ np.vstack([head1, head2])


@entry("ps2_multihead_scaled", wrong="no scaling")
def multihead_unscaled(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                       omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
    """Heads built from the unscaled attention of problem set 1."""
    head1, head2 = _two(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1, omega_v2,
                        omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, lambda Q: 1.0)
    return omega_c @ np.vstack([head1, head2])


@entry("ps2_multihead_scaled", wrong="heads reversed")
def multihead_reversed(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                       omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
    """Stacks head 2 above head 1."""
    head1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    return omega_c @ np.vstack([head2, head1])


@entry("ps2_multihead_scaled", wrong="head 2: arguments in q, k, v order",
       says=("head 2's matrices", "omega_v2, omega_q2, omega_k2"))
def multihead_scaled_head2_qkv_order(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                     omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                     omega_c):
    """Head 2's matrices in the data cell's order q, k, v; head 1 right."""
    head1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head2 = single_head_attention(X, omega_q2, omega_k2, omega_v2, beta_q2, beta_k2, beta_v2)
    return omega_c @ np.vstack([head1, head2])


@entry("ps2_multihead_scaled", wrong="head 1: arguments in q, k, v order",
       says=("head 1's matrices", "omega_v1, omega_q1, omega_k1"))
def multihead_scaled_head1_qkv_order(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                     omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                     omega_c):
    """Head 1's matrices in the data cell's order q, k, v; head 2 right."""
    head1 = single_head_attention(X, omega_q1, omega_k1, omega_v1, beta_q1, beta_k1, beta_v1)
    head2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    return omega_c @ np.vstack([head1, head2])


@entry("ps2_multihead_scaled", wrong="output projection omitted", says=("omega_c",))
def multihead_without_omega_c(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                              omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
    """Returns the stacked heads: omega_c never used."""
    head1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    return np.vstack([head1, head2])


@entry("ps2_multihead_scaled", wrong="output projection per head")
def multihead_omega_c_per_head(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                               omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                               omega_c):
    """Mixes each head with its own block of omega_c."""
    h = omega_q1.shape[0]
    head1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    return np.vstack([omega_c[:h, :h] @ head1, omega_c[h:, h:] @ head2])


@entry("ps2_multihead_scaled", wrong="heads joined along columns", says=("np.vstack",))
def multihead_hstack_reshaped(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                              omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
    """np.hstack gave a shape error, so the result was reshaped to D x N."""
    head1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    both = np.hstack([head1, head2]).reshape(X.shape[0], X.shape[1])
    return omega_c @ both


@entry("ps2_multihead_scaled", wrong="heads side by side", says=("np.vstack",))
def multihead_side_by_side(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                           omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
    """np.hstack([head1, head2]): omega_c cannot multiply a D/H x 2N matrix."""
    head1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    head2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    return omega_c @ np.hstack([head1, head2])


@entry("ps2_multihead_scaled", wrong="unstable softmax")
def multihead_textbook_softmax(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                               omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                               omega_c):
    """Heads with exp / sum exp, no shift."""
    def head(omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
        Q = beta_q + omega_q @ X
        K = beta_k + omega_k @ X
        V = beta_v + omega_v @ X
        e = np.exp(K.T @ Q / np.sqrt(Q.shape[0]))
        return V @ (e / e.sum(axis=0))
    return omega_c @ np.vstack([head(omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1),
                                head(omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)])


# ---------------------------------------------------------------- H heads


@entry("ps2_multihead_general")
def multihead_general_vstack(X, heads, omega_c):
    """The list of head outputs, stacked with np.vstack."""
    outputs = [single_head_attention(X, h["omega_v"], h["omega_q"], h["omega_k"],
                                     h["beta_v"], h["beta_q"], h["beta_k"]) for h in heads]
    return omega_c @ np.vstack(outputs)


@entry("ps2_multihead_general")
def multihead_general_array_reshape(X, heads, omega_c):
    """np.array of the outputs (H x D/H x N), reshaped to D x N."""
    outputs = np.array([single_head_attention(X, **{k: h[k] for k in
                                                    ("omega_v", "omega_q", "omega_k",
                                                     "beta_v", "beta_q", "beta_k")})
                        for h in heads])
    return omega_c @ outputs.reshape(-1, X.shape[1])


@entry("ps2_multihead_general")
def multihead_general_column_blocks(X, heads, omega_c):
    """omega_c split into column blocks: sum over heads of block_h @ head_h."""
    total = np.zeros((omega_c.shape[0], X.shape[1]))
    start = 0
    for h in heads:
        head = single_head_attention(X, h["omega_v"], h["omega_q"], h["omega_k"],
                                     h["beta_v"], h["beta_q"], h["beta_k"])
        total += omega_c[:, start:start + head.shape[0]] @ head
        start += head.shape[0]
    return total


@entry("ps2_multihead_general", wrong="hard-coded", says=("globals",))
def multihead_general_global_omega_c(X, heads, omega_c_argument):
    """Mixes with the notebook's omega_c instead of the argument."""
    outputs = [single_head_attention(X, h["omega_v"], h["omega_q"], h["omega_k"],
                                     h["beta_v"], h["beta_q"], h["beta_k"]) for h in heads]
    return omega_c @ np.vstack(outputs)


@entry("ps2_multihead_general", wrong="scale sqrt(D)", says=("D/H",))
def multihead_general_scaled_by_sqrt_D(X, heads, omega_c):
    """Every head divided by sqrt(D)."""
    outputs = []
    for h in heads:
        Q = h["beta_q"] + h["omega_q"] @ X
        K = h["beta_k"] + h["omega_k"] @ X
        V = h["beta_v"] + h["omega_v"] @ X
        outputs.append(V @ softmax_cols(K.T @ Q / np.sqrt(X.shape[0])))
    return omega_c @ np.vstack(outputs)


@entry("ps2_multihead_general", wrong="scale fixed at sqrt(8)", says=("notebook's D = 8",))
def multihead_general_scaled_by_global_D(X, heads, omega_c):
    """Every head divided by sqrt of the notebook's global D."""
    outputs = []
    for h in heads:
        Q = h["beta_q"] + h["omega_q"] @ X
        K = h["beta_k"] + h["omega_k"] @ X
        V = h["beta_v"] + h["omega_v"] @ X
        outputs.append(V @ softmax_cols(K.T @ Q / np.sqrt(D)))
    return omega_c @ np.vstack(outputs)


@entry("ps2_multihead_general", wrong="heads reversed")
def multihead_general_reversed(X, heads, omega_c):
    """Builds the stack by inserting each head at the top."""
    stack = np.zeros((0, X.shape[1]))
    for h in heads:
        head = single_head_attention(X, h["omega_v"], h["omega_q"], h["omega_k"],
                                     h["beta_v"], h["beta_q"], h["beta_k"])
        stack = np.vstack([head, stack])
    return omega_c @ stack


def mix_heads(stack):
    """Mixes the stacked heads with the notebook's omega_c, not the caller's."""
    return omega_c @ stack


@entry("ps2_multihead_general", wrong="hard-coded", says=("global `omega_c` (8 x 8 array)",))
def multihead_general_helper_reads_global(X, heads, omega_c):
    """Its helper mix_heads reads the notebook's omega_c: right on the notebook's data."""
    return mix_heads(np.vstack([single_head_attention(X, **head) for head in heads]))


@entry("ps2_multihead_general", wrong="notebook's head count", says=("heads[:H]",))
def multihead_general_first_H_heads(X, heads, omega_c):
    """Slices the list with the notebook's H = 2: right for one head or two."""
    return omega_c @ np.vstack([single_head_attention(X, **h) for h in heads[:H]])


@entry("ps2_multihead_general", wrong="notebook's head count", says=("heads[1]",))
def multihead_general_two_heads_only(X, heads, omega_c):
    """Uses heads[0] and heads[1] only, as in part 3."""
    h1, h2 = heads[0], heads[1]
    head1 = single_head_attention(X, h1["omega_v"], h1["omega_q"], h1["omega_k"],
                                  h1["beta_v"], h1["beta_q"], h1["beta_k"])
    head2 = single_head_attention(X, h2["omega_v"], h2["omega_q"], h2["omega_k"],
                                  h2["beta_v"], h2["beta_q"], h2["beta_k"])
    return omega_c @ np.vstack([head1, head2])


@entry("ps2_multihead_general", wrong="arguments in q, k, v order", says=("**head",))
def multihead_general_qkv_order(X, heads, omega_c):
    """Passes each head's matrices in the data cell's order q, k, v."""
    outputs = [single_head_attention(X, h["omega_q"], h["omega_k"], h["omega_v"],
                                     h["beta_q"], h["beta_k"], h["beta_v"]) for h in heads]
    return omega_c @ np.vstack(outputs)


@entry("ps2_multihead_general", wrong="last head dropped", says=("leaves out the last head",))
def multihead_general_off_by_one(X, heads, omega_c):
    """range(1, len(heads) - 1) after head 0: the last head is never stacked."""
    stacked = single_head_attention(X, **heads[0])
    for i in range(1, len(heads) - 1):
        stacked = np.vstack([stacked, single_head_attention(X, **heads[i])])
    return omega_c @ stacked


@entry("ps2_multihead_general", wrong="changes its arguments", says=("in-place",))
def multihead_general_scales_queries_in_place(X, heads, omega_c):
    """Folds 1/sqrt(d_q) into the caller's query weights with /=: right once, not twice."""
    outputs = []
    for head in heads:
        d_q = head["omega_q"].shape[0]
        head["omega_q"] /= np.sqrt(d_q)
        head["beta_q"] /= np.sqrt(d_q)
        Q = head["beta_q"] + head["omega_q"] @ X
        K = head["beta_k"] + head["omega_k"] @ X
        V = head["beta_v"] + head["omega_v"] @ X
        outputs.append(V @ softmax_cols(K.T @ Q))
    return omega_c @ np.vstack(outputs)


@entry("ps2_multihead_general", wrong="heads side by side", says=("np.vstack",))
def multihead_general_hstack(X, heads, omega_c):
    """np.hstack of the heads: the shapes do not fit omega_c."""
    return omega_c @ np.hstack([single_head_attention(X, **h) for h in heads])


@entry("ps2_multihead_general", wrong="scale fixed at 2; notebook's head count",
       says=("two mistakes", "H_D", "heads[1]"))
def multihead_general_notebook_globals(X, heads, omega_c):
    """range(H) with the notebook's H, and heads scaled by its H_D: two globals."""
    outputs = []
    for h in range(H):
        head = heads[h]
        Q = head["beta_q"] + head["omega_q"] @ X
        K = head["beta_k"] + head["omega_k"] @ X
        V = head["beta_v"] + head["omega_v"] @ X
        outputs.append(V @ softmax_cols(K.T @ Q / np.sqrt(H_D)))
    return omega_c @ np.vstack(outputs)


# ---------------------------------------------------------------- arguments mixed up


@entry("ps2_multihead_scaled", wrong="another head's parameter", says=("beta_v1",))
def multihead_head2_with_head1_value_bias(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1,
                                          beta_k1, omega_v2, omega_q2, omega_k2, beta_v2,
                                          beta_q2, beta_k2, omega_c):
    """A copied call: head 2 gets beta_v1."""
    h1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    h2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v1, beta_q2, beta_k2)
    return omega_c @ np.vstack([h1, h2])


@entry("ps2_multihead_scaled", wrong="arguments in the wrong order", says=("omega_k",))
def multihead_head1_keys_for_queries(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1,
                                     beta_k1, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2,
                                     beta_k2, omega_c):
    """Head 1's keys and queries passed the wrong way round."""
    h1 = single_head_attention(X, omega_v1, omega_k1, omega_q1, beta_v1, beta_k1, beta_q1)
    h2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    return omega_c @ np.vstack([h1, h2])


def _run_head(X, p):
    return single_head_attention(X, p["omega_v"], p["omega_k"], p["omega_q"],
                                 p["beta_v"], p["beta_k"], p["beta_q"])


@entry("ps2_multihead_general", wrong="arguments in the wrong order", says=("omega_q",))
def multihead_general_keys_for_queries(X, heads, omega_c):
    """A helper that passes (k, q) where single_head_attention takes (q, k)."""
    outs = np.array([_run_head(X, p) for p in heads])
    return omega_c @ outs.reshape(-1, X.shape[1])


@entry("ps2_multihead_general", wrong="first head skipped", says=("heads[0]",))
def multihead_general_from_one(X, heads, omega_c):
    """Heads numbered from 1 as in the text: range(1, len(heads))."""
    outputs = []
    for h in range(1, len(heads)):
        head = heads[h]
        outputs.append(single_head_attention(X, head["omega_v"], head["omega_q"],
                                             head["omega_k"], head["beta_v"], head["beta_q"],
                                             head["beta_k"]))
    return omega_c @ np.vstack(outputs)


# ---------------------------------------------------------------- blind class 4's families


@entry("ps2_single_head", wrong="scale sqrt(N)", says=("number of tokens",))
def single_head_token_count(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Divides by sqrt(Q.shape[1]), the number of tokens."""
    Q, K, V = beta_q + omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / np.sqrt(Q.shape[1]))


@entry("ps2_single_head", wrong="size ** 1/2 precedence", says=("binds tighter",))
def single_head_precedence(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """S / D_q ** 1/2 is (S / D_q) / 2."""
    Q, K, V = beta_q + omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q / Q.shape[0] ** 1/2)


@entry("ps2_multihead_scaled", wrong="arguments in q, k, v order", says=("q, k, v",))
def multihead_drawn_order(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                          omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2, omega_c):
    """Passes both heads' matrices in the order they were drawn: q, k, v."""
    h1 = single_head_attention(X, omega_q1, omega_k1, omega_v1, beta_q1, beta_k1, beta_v1)
    h2 = single_head_attention(X, omega_q2, omega_k2, omega_v2, beta_q2, beta_k2, beta_v2)
    return omega_c @ np.vstack([h1, h2])


@entry("ps2_multihead_general", wrong="heads rotated", says=("heads[i - 1]",))
def multihead_general_last_first(X, heads, omega_c):
    """heads[i - 1] for i in range(len(heads)): the last head first."""
    outputs = []
    for i in range(len(heads)):
        h = heads[i - 1]
        outputs.append(single_head_attention(X, h["omega_v"], h["omega_q"], h["omega_k"],
                                             h["beta_v"], h["beta_q"], h["beta_k"]))
    return omega_c @ np.vstack(outputs)


@entry("ps2_multihead_general", wrong="heads' values in dictionary order", says=("**head",))
def multihead_general_dict_values(X, heads, omega_c):
    """single_head_attention(X, *head.values()): the dictionary's order, not the signature's."""
    return omega_c @ np.vstack([single_head_attention(X, *head.values()) for head in heads])


@entry("ps2_multihead_general", wrong="omega_c transposed", says=("on the left",))
def multihead_general_mixed_on_the_right(X, heads, omega_c):
    """Tokens in rows for the mix: (stack^T omega_c)^T, which is omega_c^T stack."""
    stack = np.vstack([single_head_attention(X, **head) for head in heads])
    return (stack.T @ omega_c).T


@entry("ps2_multihead_scaled", wrong="omega_c transposed", says=("omega_c",))
def multihead_omega_c_transposed(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                 omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                 omega_c):
    """omega_c.T @ the stack."""
    h1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    h2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    return omega_c.T @ np.vstack([h1, h2])


@entry("ps2_multihead_scaled", wrong="mixed in rows order", says=("stack.T @ omega_c",))
def multihead_mixed_in_rows_order(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                  omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                  omega_c):
    """stack.T @ omega_c, as tokens in rows would have it: an N x D result."""
    h1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    h2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    return np.vstack((h1, h2)).T @ omega_c


@entry("ps2_multihead_scaled", wrong="omega_c on the right", says=("stack @ omega_c",))
def multihead_mixed_on_the_right(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1,
                                 omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2,
                                 omega_c):
    """stacked @ omega_c: a ValueError unless N = D."""
    h1 = single_head_attention(X, omega_v1, omega_q1, omega_k1, beta_v1, beta_q1, beta_k1)
    h2 = single_head_attention(X, omega_v2, omega_q2, omega_k2, beta_v2, beta_q2, beta_k2)
    return np.vstack([h1, h2]) @ omega_c


@entry("ps2_multihead_general", wrong="omega_c on the right", says=("stack @ omega_c",))
def multihead_general_mixed_on_the_right_side(X, heads, omega_c):
    """np.matmul(stack, omega_c) for any number of heads."""
    return np.matmul(np.vstack([single_head_attention(X, **h) for h in heads]), omega_c)


@entry("ps2_multihead_general", wrong="mixed in rows order", says=("stack.T @ omega_c",))
def multihead_general_mixed_in_rows_order(X, heads, omega_c):
    """stack.T @ omega_c for any number of heads."""
    stack = np.vstack([single_head_attention(X, **head) for head in heads])
    return stack.T @ omega_c


@entry("ps2_single_head", wrong="scaled after softmax", says=("after the softmax",))
def single_head_scaled_after_softmax(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """The head's output divided by sqrt(D_q), not its scores."""
    Q = beta_q + omega_q @ X
    K = beta_k + omega_k @ X
    V = beta_v + omega_v @ X
    return V @ softmax_cols(K.T @ Q) / np.sqrt(Q.shape[0])


@entry("ps2_single_head", wrong="first bias entry only", says=("beta[0]",))
def single_head_first_bias_entry(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Adds beta[0], one number, instead of the bias column."""
    Q = omega_q @ X + beta_q[0]
    K = omega_k @ X + beta_k[0]
    V = omega_v @ X + beta_v[0]
    return V @ softmax_cols(K.T @ Q / np.sqrt(Q.shape[0]))


@entry("ps2_single_head", wrong="query bias forgotten", says=("beta_q",))
def single_head_no_query_bias(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    """Q = omega_q @ X: the query's bias left out."""
    Q, K, V = omega_q @ X, beta_k + omega_k @ X, beta_v + omega_v @ X
    scores = K.T @ Q / np.sqrt(Q.shape[0])
    weights = np.exp(scores - scores.max(axis=0, keepdims=True))
    return V @ (weights / weights.sum(axis=0, keepdims=True))


def _head_arguments(head):
    """A head's six parameters for single_head_attention, the biases listed v, k, q."""
    return tuple(head[k] for k in ("omega_v", "omega_q", "omega_k", "beta_v", "beta_k", "beta_q"))


@entry("ps2_multihead_general", wrong="query and key biases swapped", says=("beta_k",))
def multihead_general_biases_swapped(X, heads, omega_c):
    """A helper that lists each head's biases as beta_v, beta_k, beta_q."""
    return omega_c @ np.vstack([single_head_attention(X, *_head_arguments(h)) for h in heads])


@entry("ps2_multihead_general", wrong="biases in another order", says=("beta_q, beta_v, beta_k",))
def multihead_general_biases_q_v_k(X, heads, omega_c):
    """Each head's biases named in the order q, v, k."""
    return omega_c @ np.vstack([single_head_attention(X, *(h[k] for k in (
        "omega_v", "omega_q", "omega_k", "beta_q", "beta_v", "beta_k"))) for h in heads])

"""Problem set 3 (the exam's attention layer, tokens in rows) as students write it.

A ``SelfAttention`` class answers two graded cells: ``ps3_init`` (the random
weights of ``__init__``) and ``ps3_forward`` (the hidden test sets W_q, W_k,
W_v, W_o itself, then calls ``forward``).
"""

# ruff: noqa: B905 - student code, written the way students write it

import numpy as np
import scipy.special

from attnkit.dev.validate import entry

dims = 4  # a global of the student's own, for trying the layer out


# ---------------------------------------------------------------- softmax (rows)


def softmax(X):
    """Row softmax, shifted by each row's max: what the classes below use."""
    e = np.exp(X - X.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


entry("ps3_softmax", name="softmax_rows_keepdims")(softmax)


@entry("ps3_softmax")
def softmax_scipy_rows(X):
    """scipy.special.softmax along axis 1."""
    return scipy.special.softmax(X, axis=1)


@entry("ps3_softmax")
def softmax_log_sum_exp(X):
    """exp(X - logsumexp(X)) with scipy's logsumexp."""
    return np.exp(X - scipy.special.logsumexp(X, axis=1, keepdims=True))


@entry("ps3_softmax")
def softmax_row_loop(X):
    """One row at a time."""
    out = []
    for row in X:
        e = np.exp(row - max(row))
        out.append(e / e.sum())
    return np.array(out)


@entry("ps3_softmax", wrong="arguments overwritten", says=("overwrote the argument `X`",))
def softmax_in_place(X):
    """Shifted, exponentiated and normalised in X itself: the caller's scores are gone."""
    X -= X.max(axis=1, keepdims=True)
    np.exp(X, out=X)
    X /= X.sum(axis=1, keepdims=True)
    return X


@entry("ps3_softmax")
def softmax_in_place_on_a_copy(X):
    """The same in-place steps on its own copy: the caller's scores are kept."""
    out = np.array(X, dtype=float)
    out -= out.max(axis=1, keepdims=True)
    np.exp(out, out=out)
    out /= out.sum(axis=1, keepdims=True)
    return out


@entry("ps3_softmax", wrong="divided by each column's sum", says=("each column's sum",))
def softmax_column_sums(X):
    """Each row shifted by its own maximum, then divided by the column sums."""
    e = np.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)


@entry("ps3_softmax", wrong="error", says=("along axis 0, which has only",))
def softmax_loop_over_columns(X):
    """Rows numbered up to the number of columns."""
    out = np.empty_like(X, dtype=float)
    for i in range(X.shape[1]):
        e = np.exp(X[i] - X[i].max())
        out[i] = e / e.sum()
    return out


@entry("ps3_softmax", wrong="softmax over columns", says=("row",))
def softmax_axis0(X):
    """axis=0: each column sums to 1."""
    e = np.exp(X - X.max(axis=0))
    return e / e.sum(axis=0)


@entry("ps3_softmax", wrong="no max subtraction", says=("each row's maximum",))
def softmax_rows_textbook(X):
    """No shift: nan for scores near 900."""
    e = np.exp(X)
    return e / e.sum(axis=1, keepdims=True)


@entry("ps3_softmax", wrong="one maximum for the whole matrix", says=("underflows",))
def softmax_rows_one_max(X):
    """Shifted by the largest entry of the whole matrix, normalised per row."""
    e = np.exp(X - np.max(X))
    return e / e.sum(axis=-1, keepdims=True)


@entry("ps3_softmax", wrong="softmax over all entries")
def softmax_whole_matrix(X):
    """Divides by the sum of every entry."""
    e = np.exp(X - X.max())
    return e / np.sum(e)


# ---------------------------------------------------------------- the layer


@entry("ps3_init", "ps3_forward")
class SelfAttention:
    """np.random.randn weights; the forward pass of the pseudocode."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.randn(dims, dims)
        self.W_k = np.random.randn(dims, dims)
        self.W_v = np.random.randn(dims, dims)
        self.W_o = np.random.randn(dims, dims)

    def forward(self, x):
        Q = x @ self.W_q
        K = x @ self.W_k
        V = x @ self.W_v
        scores = Q @ K.T / np.sqrt(self.dims)
        return softmax(scores) @ V @ self.W_o


@entry("ps3_init", "ps3_forward")
class SelfAttentionNormalEinsum:
    """np.random.normal(0, 1, size) weights; einsum forward; W_o applied to V first."""

    def __init__(self, dims):
        self.dims = dims
        for name in ("W_q", "W_k", "W_v", "W_o"):
            setattr(self, name, np.random.normal(0.0, 1.0, size=(dims, dims)))

    def forward(self, x):
        Q = np.einsum("nd,de->ne", x, self.W_q)
        K = np.einsum("nd,de->ne", x, self.W_k)
        V_out = np.einsum("nd,de,ef->nf", x, self.W_v, self.W_o)
        weights = softmax(np.einsum("ie,je->ij", Q, K) / self.dims ** 0.5)
        return weights @ V_out


@entry("ps3_init", "ps3_forward", wrong={"ps3_init": "unseeded generator"},
       says=("np.random.seed",))
class SelfAttentionGeneratorFloat32:
    """An unseeded numpy Generator for the weights (section 2 asks for np.random's, which
    np.random.seed makes repeatable); forward computed in float32."""

    def __init__(self, dims):
        self.dims = dims
        rng = np.random.default_rng()
        self.W_q, self.W_k, self.W_v, self.W_o = (rng.standard_normal((dims, dims))
                                                  for _ in range(4))

    def forward(self, x):
        x = x.astype(np.float32)
        W_q, W_k, W_v, W_o = (W.astype(np.float32) for W in
                              (self.W_q, self.W_k, self.W_v, self.W_o))
        scores = (x @ W_q) @ (x @ W_k).T / np.float32(np.sqrt(self.dims))
        return softmax(scores) @ (x @ W_v) @ W_o


@entry("ps3_forward")
class SelfAttentionRowLoop(SelfAttention):
    """forward one query (row) at a time."""

    def forward(self, x):
        K = x @ self.W_k
        V = x @ self.W_v
        rows = []
        for token in x:
            q = token @ self.W_q
            s = K @ q / np.sqrt(self.dims)
            w = np.exp(s - s.max())
            rows.append((w / w.sum()) @ V @ self.W_o)
        return np.array(rows)


@entry("ps3_init", "ps3_forward", wrong={"ps3_init": "init std 0.1"}, says=("0.1",))
class SelfAttentionSmallInit(SelfAttention):
    """The exam's sample answer: np.random.randn(dims, dims) * 0.1."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.randn(dims, dims) * 0.1
        self.W_k = np.random.randn(dims, dims) * 0.1
        self.W_v = np.random.randn(dims, dims) * 0.1
        self.W_o = np.random.randn(dims, dims) * 0.1


@entry("ps3_init", "ps3_forward", wrong={"ps3_init": "uniform init"}, says=("randn",))
class SelfAttentionUniformInit(SelfAttention):
    """np.random.rand (uniform on [0, 1)) instead of randn."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.rand(dims, dims)
        self.W_k = np.random.rand(dims, dims)
        self.W_v = np.random.rand(dims, dims)
        self.W_o = np.random.rand(dims, dims)


@entry("ps3_init", "ps3_forward", wrong={"ps3_init": "uniform with standard deviation 1"},
       says=("normal", "sqrt(3)"))
class SelfAttentionUniformUnitStd(SelfAttention):
    """Uniform on [-sqrt(3), sqrt(3)]: mean 0 and standard deviation 1, but not normal."""

    def __init__(self, dims):
        self.dims = dims
        bound = np.sqrt(3.0)
        self.W_q = np.random.uniform(-bound, bound, (dims, dims))
        self.W_k = np.random.uniform(-bound, bound, (dims, dims))
        self.W_v = np.random.uniform(-bound, bound, (dims, dims))
        self.W_o = np.random.uniform(-bound, bound, (dims, dims))


@entry("ps3_init", "ps3_forward", wrong={"ps3_init": "own generator"}, says=("np.random.seed",))
class SelfAttentionOwnGenerator(SelfAttention):
    """A generator seeded inside __init__: every layer has the same weights."""

    def __init__(self, dims):
        self.dims = dims
        rng = np.random.default_rng(42)
        self.W_q = rng.normal(0, 1, (dims, dims))
        self.W_k = rng.normal(0, 1, (dims, dims))
        self.W_v = rng.normal(0, 1, (dims, dims))
        self.W_o = rng.normal(0, 1, (dims, dims))


@entry("ps3_init", "ps3_forward", wrong={"ps3_init": "own generator"},
       says=("seed nothing in __init__",))
class SelfAttentionSeedsItself(SelfAttention):
    """np.random.seed(0) inside __init__: every layer has the same weights."""

    def __init__(self, dims):
        np.random.seed(0)
        super().__init__(dims)


@entry("ps3_init", "ps3_forward", wrong={"ps3_init": "identical weights"})
class SelfAttentionSharedInit(SelfAttention):
    """One random matrix assigned to all four attributes."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q = self.W_k = self.W_v = self.W_o = np.random.normal(size=(dims, dims))


@entry("ps3_forward", wrong="no scaling", says=("sqrt(dims)",))
class SelfAttentionUnscaled(SelfAttention):
    """Skips step 3's division."""

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T) @ V @ self.W_o


@entry("ps3_forward", wrong="no square root")
class SelfAttentionDividedByDims(SelfAttention):
    """Divides the scores by dims itself."""

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T / self.dims) @ V @ self.W_o


@entry("ps3_forward", wrong="scale sqrt(N)")
class SelfAttentionScaledByTokens(SelfAttention):
    """np.sqrt(len(x)): the number of tokens."""

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T / np.sqrt(len(x))) @ V @ self.W_o


@entry("ps3_forward", wrong="scale fixed at 2", says=("self.dims",))
class SelfAttentionGlobalDims(SelfAttention):
    """Reads its own global dims = 4 instead of self.dims."""

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T / np.sqrt(dims)) @ V @ self.W_o


@entry("ps3_forward", wrong="scaled after softmax")
class SelfAttentionScaledAfter(SelfAttention):
    """Divides the attention weights, not the scores."""

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T) / np.sqrt(self.dims) @ V @ self.W_o


@entry("ps3_forward", wrong="keys and queries swapped", says=("Q K^T",))
class SelfAttentionKQt(SelfAttention):
    """K Q^T instead of Q K^T."""

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(K @ Q.T / np.sqrt(self.dims)) @ V @ self.W_o


@entry("ps3_forward", wrong="output weights transposed", says=("self.W_o.T",))
class SelfAttentionOutputTransposed(SelfAttention):
    """Ends with @ self.W_o.T."""

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T / np.sqrt(self.dims)) @ V @ self.W_o.T


@entry("ps3_forward", wrong="keys and queries swapped; output weights transposed",
       says=("two mistakes", "K Q^T", "self.W_o.T"))
class SelfAttentionKQtOutputTransposed(SelfAttention):
    """K Q^T through einsum, and W_o transposed at the end."""

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        scores = np.einsum("id,jd->ji", Q, K) / np.sqrt(self.dims)
        return softmax(scores) @ V @ self.W_o.T


@entry("ps3_forward", wrong="softmax over columns")
class SelfAttentionColumnSoftmax(SelfAttention):
    """Normalises the attention matrix down its columns."""

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        scores = Q @ K.T / np.sqrt(self.dims)
        return softmax(scores.T).T @ V @ self.W_o


@entry("ps3_forward", wrong="output projection omitted", says=("W_o",))
class SelfAttentionNoOutput(SelfAttention):
    """Stops before W_o."""

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T / np.sqrt(self.dims)) @ V


@entry("ps3_forward", wrong="weighted sum of inputs")
class SelfAttentionWeightsTokens(SelfAttention):
    """Weights the tokens x, then W_o."""

    def forward(self, x):
        Q, K = x @ self.W_q, x @ self.W_k
        return softmax(Q @ K.T / np.sqrt(self.dims)) @ x @ self.W_o


@entry("ps3_forward", wrong="weights transposed")
class SelfAttentionLinearConvention(SelfAttention):
    """x @ W.T, the torch.nn.Linear habit."""

    def forward(self, x):
        Q, K, V = x @ self.W_q.T, x @ self.W_k.T, x @ self.W_v.T
        return softmax(Q @ K.T / np.sqrt(self.dims)) @ V @ self.W_o.T


@entry("ps3_forward", wrong="wrong weight matrix", says=("values", "W_k"))
class SelfAttentionValuesFromWk(SelfAttention):
    """V = x @ W_k: a copied line."""

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_k
        return softmax(Q @ K.T / np.sqrt(self.dims)) @ V @ self.W_o


@entry("ps3_forward", wrong="unstable softmax")
class SelfAttentionTextbookSoftmax(SelfAttention):
    """exp / sum exp without the shift inside forward."""

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        e = np.exp(Q @ K.T / np.sqrt(self.dims))
        return e / e.sum(axis=1, keepdims=True) @ V @ self.W_o


@entry("ps3_forward", wrong="one maximum for the whole matrix", says=("row's own maximum",))
class SelfAttentionOneMax(SelfAttention):
    """Its softmax subtracts one maximum for the whole score matrix."""

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        S = Q @ K.T / np.sqrt(self.dims)
        e = np.exp(S - S.max())
        return e / e.sum(axis=1, keepdims=True) @ V @ self.W_o


@entry("ps3_forward", wrong="keys not transposed", says=("Q @ K.T",))
class SelfAttentionKeysNotTransposed(SelfAttention):
    """Q @ K: runs only when n = dims."""

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K / np.sqrt(self.dims)) @ V @ self.W_o


@entry("ps3_forward", wrong="layer changed by forward", says=("self.W_q", "second call"))
class SelfAttentionScalesItsQueries(SelfAttention):
    """Folds 1/sqrt(dims) into self.W_q on every call: right once, smaller each time."""

    def forward(self, x):
        self.W_q = self.W_q / np.sqrt(self.dims)
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T) @ V @ self.W_o


@entry("ps3_forward", wrong="layer changed by forward", says=("in place",))
class SelfAttentionScalesQueriesInPlace(SelfAttention):
    """Divides self.W_q in place (/=) on every call: right once, smaller each time."""

    def forward(self, x):
        self.W_q /= np.sqrt(self.dims)
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T) @ V @ self.W_o


# A forward that reads dims, a name the notebook does not define, so reading it raises
# NameError (built in a namespace without dims, as the graded notebook is).
_NO_DIMS = {"np": np, "softmax": softmax, "SelfAttention": SelfAttention, "entry": entry}
exec('''
@entry("ps3_forward", wrong="notebook's dims", says=("self.dims",))
class SelfAttentionNotebookDims(SelfAttention):
    """Divides by np.sqrt(dims), a name the notebook does not define, not self.dims."""

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T / np.sqrt(dims)) @ V @ self.W_o
''', _NO_DIMS)
SelfAttentionNotebookDims = _NO_DIMS["SelfAttentionNotebookDims"]


# ---------------------------------------------------------------- softmax slips, generators


@entry("ps3_softmax", wrong="denominator not shifted", says=("unshifted",))
def softmax_rows_numerator_shifted(X):
    """Row maxima in the numerator only."""
    with np.errstate(all="ignore"):
        return np.exp(X - X.max(axis=1, keepdims=True)) / np.exp(X).sum(axis=1, keepdims=True)


@entry("ps3_softmax", wrong="clipped instead of shifted", says=("np.clip",))
def softmax_rows_clipped(X):
    """Scores clipped to [-700, 700]."""
    e = np.exp(np.clip(X, -700, 700))
    return e / e.sum(axis=1, keepdims=True)


@entry("ps3_softmax", wrong="overflow hidden by nan_to_num", says=("nan_to_num",))
def softmax_rows_nan_to_num(X):
    """The unshifted exp, inf and nan replaced by numbers."""
    with np.errstate(all="ignore"):
        e = np.exp(X)
        return np.nan_to_num(e / e.sum(axis=1, keepdims=True))


@entry("ps3_softmax", wrong="sums without keepdims", says=("keepdims=True",))
def softmax_rows_flat_sums(X):
    """Row maxima kept, row sums flattened: they line up with the columns."""
    e = np.exp(X - X.max(axis=1, keepdims=True))
    return e / e.sum(axis=1)


@entry("ps3_softmax", wrong="one maximum for the whole matrix; sums without keepdims",
       says=("two mistakes", "keepdims=True", "one maximum"))
def softmax_rows_one_max_flat_sums(X):
    """One maximum for the matrix and row sums without keepdims."""
    e = np.exp(X - X.max())
    return e / e.sum(axis=1)


@entry("ps3_forward", wrong="weights transposed", says=("x @ W_q.T",))
class SelfAttentionColumnHabit:
    """Q, K, V as (W @ x.T).T, problem set 1's columns; W_o used as written."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = np.random.normal(0.0, 1.0,
                                                                  size=(4, dims, dims))

    def forward(self, x):
        Q = (self.W_q @ x.T).T
        K = (self.W_k @ x.T).T
        V = (self.W_v @ x.T).T
        return softmax(Q @ K.T / np.sqrt(self.dims)) @ V @ self.W_o


# ---------------------------------------------------------------- blind class 4's families


@entry("ps3_softmax", wrong="each column's maximum subtracted", says=("each column's maximum",))
def softmax_rows_column_shift(X):
    """Shifts by each column's maximum, then normalises the rows."""
    z = np.asarray(X, dtype=float)
    e = np.exp(z - z.max(axis=0, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


@entry("ps3_softmax", wrong="maxima and sums without keepdims", says=("keepdims=True",))
def softmax_rows_no_keepdims(X):
    """Z.max(axis=1) and E.sum(axis=1) without keepdims."""
    Z = np.asarray(X, dtype=float)
    E = np.exp(Z - Z.max(axis=1))
    return E / E.sum(axis=1)


@entry("ps3_init", "ps3_forward", wrong={"ps3_forward": "size ** 1/2 precedence"},
       says=("binds tighter",))
class SelfAttentionPrecedence:
    """Divides by self.dims ** 1/2, which is (dims ** 1) / 2."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = (np.random.randn(dims, dims) for _ in range(4))

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T / self.dims ** 1/2) @ V @ self.W_o


@entry("ps3_init", "ps3_forward", wrong={"ps3_forward": "W_v for W_o"}, says=("W_o",))
class SelfAttentionValuesTwice:
    """Ends with @ self.W_v where W_o belongs."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = (np.random.randn(dims, dims) for _ in range(4))

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T / np.sqrt(self.dims)) @ V @ self.W_v


@entry("ps3_init", "ps3_forward", wrong={"ps3_forward": "no square root; W_v for W_o"},
       says=("two mistakes", "W_o"))
class SelfAttentionDimsAndValuesTwice:
    """Divides by dims, not its root, and ends with @ self.W_v."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = (np.random.randn(dims, dims) for _ in range(4))

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T / self.dims) @ V @ self.W_v


@entry("ps3_softmax", wrong="maxima without keepdims", says=("keepdims",))
def softmax_max_without_keepdims(X):
    """Row maxima without keepdims (sums with it): lined up with the last axis."""
    e = np.exp(X - X.max(axis=1))
    return e / e.sum(axis=1, keepdims=True)


@entry("ps3_forward", wrong="keys and values swapped", says=("W_v", "exchanged"))
class SelfAttentionProjectsQVK(SelfAttention):
    """A _project helper that returns x W_q, x W_v, x W_k, unpacked as Q, K, V."""

    def _project(self, x):
        return x @ self.W_q, x @ self.W_v, x @ self.W_k

    def forward(self, x):
        Q, K, V = self._project(x)
        return softmax(Q @ K.T / np.sqrt(self.dims)) @ V @ self.W_o


@entry("ps3_init", "ps3_forward", wrong={"ps3_init": "error"}, says=("first axis",))
class SelfAttentionUnpackedDraw:
    """One (dims, dims, 4) draw unpacked into four names: __init__ raises unless dims = 4;
    forward is right and keeps its points."""

    def __init__(self, dims):
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = np.random.normal(0.0, 1.0, (dims, dims, 4))

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T / np.sqrt(self.dims)) @ V @ self.W_o

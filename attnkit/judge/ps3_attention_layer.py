"""Grader side of ps3_attention_layer: its checks and demo class."""

from __future__ import annotations

from typing import Any

import numpy as np

from attnkit.judge import reference as ref
from attnkit.judge.check import Check, Sample, by_id
from attnkit.judge.misconceptions import (
    ONE_MAX_ROWS,
    OVERFLOW,
    Wrong,
    global_softmax,
    layer_variant,
    scales,
    swaps,
    variant,
)
from attnkit.judge.requirements import Requirement, overwritten_on
from attnkit.judge.softmaxes import softmax_family, softmax_mistakes
from attnkit.kernel.cases import Args, Case
from attnkit.kernel.ps3_attention_layer import PROBES as P
from attnkit.kernel.ps3_attention_layer import WEIGHTS


def init_statistics(got: list[Any], args: Args) -> str | None:
    """SelfAttention(dims): four distinct dims x dims matrices drawn from N(0, 1)."""
    dims = args["dims"]
    if not isinstance(got, list) or len(got) != 5:
        return "expected the attributes W_q, W_k, W_v, W_o and dims"
    got, stored = got[:4], got[4]
    if np.shape(stored) != () or stored != dims:
        return f"self.dims should be the layer size {dims}, got {stored}"
    for name, W in zip(("W_q", "W_k", "W_v", "W_o"), got, strict=True):
        if np.shape(W) != (dims, dims):
            return f"{name} has shape {np.shape(W)}; expected (dims, dims) = ({dims}, {dims})"
    if any(np.allclose(got[i], got[j]) for i in range(4) for j in range(i + 1, 4)):
        return "two of W_q, W_k, W_v, W_o are identical: draw each matrix separately"
    if dims * dims >= 1000:
        values = np.concatenate([np.ravel(W) for W in got])
        std, mean = float(values.std()), float(values.mean())
        if abs(std - 1) > 0.1:
            return (f"the weights have standard deviation {std:.3f}; the pseudocode asks for "
                    "N(0, 1), standard deviation 1")
        if abs(mean) > 0.1:
            return f"the weights have mean {mean:.3f}; the pseudocode asks for mean 0"
        p = normality(values)
        if p < NORMAL_P:
            tails = float(np.mean(np.abs(values) > 2))
            return (f"the weights have mean {mean:.3f} and standard deviation {std:.3f} but "
                    f"are not normal: {tails:.1%} of them lie beyond +-2 (N(0, 1): 4.6%), and "
                    f"a Kolmogorov-Smirnov test against N(0, 1) gives p = {p:.1e}")
    return None


NORMAL_P = 1e-6  # per layer size; benchmarks/init_false_alarms.py measures the false alarms


def normality(values: np.ndarray) -> float:
    """p-value of the Kolmogorov-Smirnov test of ``values`` against N(0, 1)."""
    from scipy.stats import kstest

    return float(kstest(values, "norm").pvalue)


def _same_draws(got: list[Any], cases: list[Case], records: list[dict]) -> str | None:
    """Two dims=5 layers made after different np.random.seed calls hold the same weights."""
    small = [(g, c) for g, c in zip(got, cases, strict=True)
             if c.args["dims"] == 5 and not c.args.get("repeat") and isinstance(g, list)
             and len(g) == 5]
    if len(small) == 2 and all(np.shape(w) == (5, 5) for g, _ in small for w in g[:4]):
        (first, a), (second, b) = small
        if np.allclose(_weights(first), _weights(second)):
            return (f"after np.random.seed({a.args['seed']}) and after "
                    f"np.random.seed({b.args['seed']}), SelfAttention(5) has the same weights")
    return None


SEEDED = Requirement(
    "own generator", _same_draws,
    "the weights look right, but {found}: __init__ sets its own seed, np.random.seed(...) "
    "inside it or a generator of its own such as np.random.default_rng(42), so every layer "
    "gets the same weights whatever seed the caller set. Section 2 asks for np.random's "
    "draws, which the caller's np.random.seed makes repeatable: seed nothing in __init__. "
    "You keep half the points")


def _not_repeated(got: list[Any], cases: list[Case], records: list[dict]) -> str | None:
    """Two dims=5 layers made after the same np.random.seed call hold different weights."""
    pair = [(g, c) for g, c in zip(got, cases, strict=True) if c.args["dims"] == 5
            and c.args["seed"] == cases[-1].args["seed"] and isinstance(g, list) and len(g) == 5]
    if len(pair) == 2 and all(np.shape(w) == (5, 5) for g, _ in pair for w in g[:4]):
        (first, a), (second, _) = pair
        if not np.allclose(_weights(first), _weights(second)):
            return (f"two SelfAttention(5) layers, each made right after "
                    f"np.random.seed({a.args['seed']}), hold different weights")
    return None


UNSEEDED = Requirement(
    "unseeded generator", _not_repeated,
    "the weights look right, but {found}: __init__ draws from a generator of its own that "
    "np.random.seed does not reach (np.random.default_rng() with no seed draws fresh numbers "
    "every time). The notebook seeds np.random so that the weights are repeatable: draw them "
    "with np.random.normal (or np.random.randn): you keep half the points")


def _layer_changed(got: list[Any], cases: list[Case], records: list[dict]) -> str | None:
    """forward changed the layer's weights or the tokens it was given (the probe hands the
    weights back after the call as arguments)."""
    if found := overwritten_on(cases, records):
        case, changed = found
        weights = [f"self.{n}" for n in changed if n in WEIGHTS]
        what = (f"forward changed the layer's own {', '.join(weights)}" if weights
                else "forward overwrote the tokens x it was given")
        return f"on {case.name} {what}"
    return None


LAYER_KEPT = Requirement(
    "layer changed by forward", _layer_changed,
    "the values are right, but {found}, so a second call on the same tokens gives other "
    "values: forward must leave the layer (and x) as they were. Scale a local array instead, "
    "e.g. scores = Q @ K.T / np.sqrt(self.dims), rather than assigning self.W_q or dividing "
    "it in place: you keep half the points", arguments=True)


_SCALE_LAYER = {
    "none": "the scores are not scaled: divide Q K^T by sqrt(dims) = sqrt({dims}) = "
            "{sqrt_dims} before the softmax (pseudocode step 3)",
    "Dq": "you divided Q K^T by dims = {dims}; divide by its square root, sqrt({dims}) = "
          "{sqrt_dims}",
    "sqrt_N": "you divided by sqrt(n) = sqrt({n}) = {sqrt_n}, the number of tokens (x.shape[0]); "
              "divide by sqrt(dims) = sqrt({dims}) = {sqrt_dims}, the size of one query",
    "two_Dq": "you divided Q K^T by 2 x dims = 2 x {dims}, not by sqrt(dims) = {sqrt_dims}: "
              "** binds tighter than /, so S / dims ** 1/2 is (S / dims ** 1) / 2. Write "
              "dims ** 0.5 (or dims ** (1/2)) or np.sqrt(self.dims)",
    "two": "you divided by 2 = sqrt(4), the notebook's dims, for every layer; for "
           "'{case}', dims = {dims}, so divide by sqrt({dims}) = {sqrt_dims} (use self.dims)",
}


def _undefined_dims(a: Args) -> Any:
    """A forward that reads dims, a name the notebook does not define."""
    raise NameError("name 'dims' is not defined")


def _weights(got: Any) -> np.ndarray:
    """W_q, W_k, W_v, W_o (the probe reports them first, then dims) as one flat array."""
    return np.concatenate([np.ravel(np.asarray(w, dtype=float)) for w in got[:4]])


def _identical(got: Any, a: Args) -> bool:
    return any(np.shape(got[i]) == np.shape(got[j]) and np.allclose(got[i], got[j])
               for i in range(4) for j in range(i + 1, 4))



_ROWS = softmax_family("X", -1)

CHECKS = by_id(
    Check(P["ps3_softmax"], lambda a: ref.softmax_rows(a["X"]),
          wrong=(
            Wrong("softmax over columns", lambda a: ref.softmax(a["X"], axis=0),
                  "each column of your result sums to 1; here each row is one set of scores and "
                  "must sum to 1: take the max, the exp and the sum along axis=-1 with "
                  "keepdims=True"),
            Wrong("softmax over all entries", lambda a: global_softmax(a["X"]),
                  "your whole matrix sums to 1: you divided by the sum of all its entries. Divide "
                  "each row by its own sum: np.sum(..., axis=-1, keepdims=True)"),
            variant("no max subtraction", _ROWS,
                    "on {case} the largest score is {zmax}: np.exp overflows to inf and inf / "
                    "inf gives nan. Subtract each row's maximum first (it changes nothing else): "
                    "you keep half the points", 0.5, shift="none"),
            variant("one maximum for the whole matrix", _ROWS, ONE_MAX_ROWS, 0.5,
                    shift="one max"),
            *softmax_mistakes(_ROWS, -1, "row", keepdims=True),
          ),
          label="softmax"),
    Check(P["ps3_init"], lambda a: None, statistical=init_statistics,
          wrong=(
            Wrong("identical weights", None,
                  "Create each of W_q, W_k, W_v, W_o with its own call to np.random.normal: "
                  "`a = b = ...` or reusing one matrix makes the projections the same",
                  test=_identical),
            Wrong("init std 0.1", None,
                  "Your weights have standard deviation 0.1, as in the exam's sample answer "
                  "np.random.normal(0.0, 0.1, (dims, dims)); the pseudocode asks for N(0, 1): "
                  "np.random.normal(0.0, 1.0, (dims, dims)) or np.random.randn(dims, dims)",
                  test=lambda got, a: 0.07 < _weights(got).std() < 0.13
                  and abs(_weights(got).mean()) < 0.05),
            Wrong("uniform with standard deviation 1", None,
                  "Your weights look uniform on [-sqrt(3), sqrt(3)] (mean 0 and standard "
                  "deviation 1, but flat, never beyond +-1.74); section 2 asks for the normal "
                  "distribution: np.random.normal(0.0, 1.0, (dims, dims)) or "
                  "np.random.randn(dims, dims). You keep half the points", credit=0.5,
                  test=lambda got, a: np.abs(_weights(got)).max() < 1.75
                  and (a["dims"] < 30 or 0.9 < _weights(got).std() < 1.1)),
            Wrong("uniform init", None,
                  "You used np.random.rand, which draws uniformly from [0, 1) (mean 0.5, "
                  "standard deviation 0.29); N(0, 1) is np.random.randn (with an n) or "
                  "np.random.normal",
                  test=lambda got, a: _weights(got).min() >= 0 and _weights(got).max() < 1
                  and 0.4 < _weights(got).mean() < 0.6),
          ),
          require=(SEEDED, UNSEEDED),
          label="init"),
    Check(P["ps3_forward"], lambda a: ref.layer_forward(
          a["x"], a["W_q"], a["W_k"], a["W_v"], a["W_o"]),
          wrong=(
            *scales(layer_variant, _SCALE_LAYER),
            variant("scaled after softmax", layer_variant,
                  "you divided after the softmax, so each row of weights sums to 1/sqrt(dims) = "
                  "{inv_sqrt_dims} instead of 1; divide the scores Q K^T by sqrt(dims) = "
                  "{sqrt_dims} before the softmax", after=True),
            variant("softmax over columns", layer_variant,
                  "each column of your n x n attention matrix sums to 1; with tokens in rows, row "
                  "i holds the weights of output i and must sum to 1: softmax along axis=-1",
                  axis=0),
            variant("keys and queries swapped", layer_variant,
                  "you softmaxed the transpose of the scores, K Q^T (or softmax(scores.T), "
                  "which runs the softmax down the columns of Q K^T, problem set 1's "
                  "convention): with tokens in rows the scores are Q K^T (entry (i, j) = "
                  "query i . key j), and row i, softmaxed along axis=-1, holds the weights "
                  "of output i: softmax(Q K^T / sqrt(dims)) @ V", order="KQt"),
            variant("keys not transposed", layer_variant,
                    "you multiplied Q @ K without transposing K: with tokens in rows Q and K "
                    "are both n x dims, so Q @ K runs only when n = dims (and is wrong then); "
                    "on '{case}' numpy raises ValueError. The scores are Q @ K.T (n x n, eq. 3)",
                    order="QK"),
            Wrong("notebook's dims", _undefined_dims,
                  "forward reads a name dims that the notebook does not define (a global of "
                  "your own, gone when the hidden test runs): the layer's own size is "
                  "self.dims, set in __init__. Divide by np.sqrt(self.dims)"),
            variant("output projection omitted", layer_variant,
                  "the result is not multiplied by W_o: the layer returns "
                  "softmax(Q K^T / sqrt(dims)) V W_o (pseudocode step 5)", output=False),
            variant("weighted sum of inputs", layer_variant,
                  "your outputs are weighted sums of the tokens x; they must be weighted sums of "
                  "the values V = x @ W_v", values="x"),
            variant("weights transposed", layer_variant,
                  "you multiplied by the transposed weights (x @ W.T, as in torch's Linear); with "
                  "tokens in rows the pseudocode computes Q = x @ W_q, K = x @ W_k, V = x @ W_v "
                  "and ends with @ W_o", transposed=True),
            variant("weights transposed", layer_variant,
                    "your queries, keys and values use the transposed weights: (W_q @ x.T).T is "
                    "x @ W_q.T, the column habit of problem set 1. With tokens in rows the "
                    "pseudocode computes Q = x @ W_q, K = x @ W_k, V = x @ W_v",
                    transposed="qkv"),
            variant("output weights transposed", layer_variant,
                    "your last step multiplies by W_o transposed: with tokens in rows the "
                    "layer returns softmax(Q K^T / sqrt(dims)) V W_o (pseudocode step 5), so "
                    "end with @ self.W_o, not @ self.W_o.T", transposed="o"),
            variant("keys and values swapped", layer_variant,
                    "your keys were computed with W_v and your values with W_k: keys and "
                    "values are exchanged (a helper that returns Q, V, K, or K and V unpacked "
                    "in the other order). The pseudocode computes K = x @ W_k and V = x @ W_v "
                    "(step 2): return and unpack them in one order, Q, K, V", use="qvk"),
            variant("W_v for W_o", layer_variant,
                    "your last step multiplies by W_v again where W_o belongs: the layer "
                    "returns softmax(Q K^T / sqrt(dims)) V W_o (pseudocode step 5), so end with "
                    "@ self.W_o", last="v"),
            variant("unstable softmax", layer_variant, OVERFLOW, 0.5, stable=False),
            variant("one maximum for the whole matrix", layer_variant, ONE_MAX_ROWS, 0.5,
                    stable="one max"),
            *swaps(layer_variant, "W_{}", None, "pseudocode step 2"),
          ),
          require=(LAYER_KEPT,),
          label="forward"),
)

SAMPLES: dict[str, Sample] = {
    "aisha": Sample("complete and correct"),
    "ben": Sample("handed in the blank notebook", blank=True),
    "chen": Sample(
        "the exam's sample answer: weights with std 0.1, softmax without the max shift",
        code={
            "ps3_softmax_code": """\
def softmax(X):
    e = np.exp(X)
    return e / np.sum(e, axis=1, keepdims=True)
""",
            "ps3_layer_code": """\
class SelfAttention:
    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.normal(0.0, 0.1, (dims, dims))
        self.W_k = np.random.normal(0.0, 0.1, (dims, dims))
        self.W_v = np.random.normal(0.0, 0.1, (dims, dims))
        self.W_o = np.random.normal(0.0, 0.1, (dims, dims))

    def forward(self, x):
        Q = np.dot(x, self.W_q)
        K = np.dot(x, self.W_k)
        V = np.dot(x, self.W_v)
        score = np.dot(Q, K.T) / np.sqrt(self.dims)
        return np.dot(np.dot(softmax(score), V), self.W_o)
""",
        },
        # forward overflows only through that softmax: follow-through, charged there
        expect={"ps3_softmax": 0.5, "ps3_init": 0.0},
    ),
    "dara": Sample(
        "softmax over columns (axis 0) in a row-major layer",
        code={"ps3_softmax_code": """\
def softmax(X):
    e = np.exp(X - X.max(axis=0))
    return e / e.sum(axis=0)
"""},
        expect={"ps3_softmax": 0.0},  # forward is right given that softmax: follow-through
    ),
    "emil": Sample(
        "forgets W_o and scales by dims",
        code={"ps3_layer_code": """\
class SelfAttention:
    def __init__(self, dims):
        self.dims = dims
        self.W_q = np.random.randn(dims, dims)
        self.W_k = np.random.randn(dims, dims)
        self.W_v = np.random.randn(dims, dims)
        self.W_o = np.random.randn(dims, dims)

    def forward(self, x):
        Q, K, V = x @ self.W_q, x @ self.W_k, x @ self.W_v
        return softmax(Q @ K.T / self.dims) @ V
"""},
        expect={"ps3_forward": 0.0},
    ),
}

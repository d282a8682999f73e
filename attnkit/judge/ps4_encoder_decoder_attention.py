"""Grader side of ps4_encoder_decoder_attention: its checks, mark scheme and demo class."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from attnkit.judge import reference as ref
from attnkit.judge.check import Check, Sample, Written, by_id
from attnkit.judge.misconceptions import (
    OVERFLOW,
    Wrong,
    naive_softmax,
    query_variant,
    scales,
    swaps,
)
from attnkit.judge.requirements import (
    Requirement,
    a_list,
    audit_case,
    ints,
    raised_on_audit,
    shape_is,
    shapes_are,
)
from attnkit.judge.softmaxes import softmax_family, softmax_mistakes
from attnkit.judge.wrong import variant
from attnkit.kernel.cases import Args
from attnkit.kernel.ps4_encoder_decoder_attention import PROBES as P

DIMENSIONS = {"head_W_shape": (4, 2), "concat_shape": (3, 4), "W_O_shape": (4, 4)}

_SCALE_QUERY = {
    "none": "the scores are not scaled: divide them by sqrt(d_k) = sqrt({d_k}) = {sqrt_d_k}, "
            "the size of one key (eq. 6)",
    "sqrt_D": "on {case}, you divided by sqrt(d) = sqrt({d}) = {sqrt_d}, the size of a token "
              "(d_model, tokens.shape[1]); divide by sqrt(d_k) = sqrt({d_k}) = {sqrt_d_k}, the "
              "size of one key (W_K.shape[1])",
    "sqrt_dv": "on {case}, you scaled by d_v, the size of one value (V.shape[-1], "
               "W_V.shape[1]); section 4 scales by d_k = {d_k}, the size of one key: divide by "
               "sqrt(d_k) = {sqrt_d_k} (pass W_K.shape[1] to scale_scores)",
    "sqrt_N": "on {case}, you scaled by the number of tokens T = {T} (len(tokens)); divide by "
              "sqrt(d_k) = sqrt({d_k}) = {sqrt_d_k}, the size of one key (W_K.shape[1])",
    "Dq": "you divided the scores by d_k = {d_k}; divide by its square root, sqrt({d_k}) = "
          "{sqrt_d_k}",
}

_CONTEXT_BUG = (
    "your result matches sum(attention_weights * hidden_encoder_matrix), the worksheet's "
    "code: numpy broadcasts the T weights along the feature axis, so weight j scales column j "
    "(this only runs when T = d), then the rows are added. The context vector is the weighted "
    "sum over tokens, sum_j alpha_j h_j: attention_weights @ hidden_encoder_matrix, or "
    "(attention_weights[:, None] * hidden_encoder_matrix).sum(axis=0)")


SCORES_1D = Requirement(
    "scores as a column", shape_is(lambda c: (len(c.args["matrix"]),), "your scores have shape"),
    "the values are right, but {found}: section 1 asks for the T scores \"as a 1-D array\" "
    "(one per row of the matrix); matrix @ vector with the 1-D vector gives shape (T,): "
    "you keep half the point")
NUMPY_ONLY = Requirement(
    "scipy used", raised_on_audit("scipy"),
    "the weights are right, but the function needs scipy: {found}. Section 3 asks for "
    "get_attention_weights \"with numpy only (no scipy)\": write the softmax with np.exp "
    "and np.sum: you keep half the point", audit=audit_case)

QUERY_1D = Requirement(
    "results not 1-D", shapes_are(lambda c: ((len(c.args["tokens"]),),
                                             (np.shape(c.args["W_V"])[1],)),
                                  ("the weights have shape", "the output")),
    "the values are right, but {found}: section 5 asks for 1-D results, \"weights of shape "
    "(T,) and an output of shape (d_v,)\", and to keep q a 1-D array (query_token @ W_Q, "
    "with no np.expand_dims or reshape): you keep half the points")
BLOCKS_LIST = Requirement(
    "blocks not a list", a_list("your result is"),
    "the blocks are right, but {found}: section 7 asks split_heads to return \"a list of the "
    "h column blocks of W\". Return a list, such as np.hsplit(W, h) or [W[:, i*k:(i+1)*k] "
    "for i in range(h)]: you keep half the points")
SHAPE_INTS = Requirement(
    "shape not ints", ints,
    "{found}: section 6 asks for \"tuples of two ints\", and d_model / h is true division, "
    "a float even when it divides exactly: use d_model // h: you keep half of this shape's "
    "point")


_ROWS = ("you cut W along the rows (axis 0), into blocks of consecutive rows: np.split(W, h) "
         "does so by default, and so does W[i*k:(i+1)*k, :]; the heads take blocks of columns: "
         "for '{case}', head i takes the {block} columns i*{block} to (i+1)*{block}, "
         "W[:, i*k:(i+1)*k] with k = {cols}/{n}, or np.split(W, h, axis=1)")


def _split_rows(a: Args) -> list[np.ndarray]:
    """Blocks of rows.shape[0] // n consecutive rows (np.split(W, n) where it divides)."""
    W, n = a["W"], a["n"]
    k = W.shape[0] // n
    return [W[i * k:(i + 1) * k, :] for i in range(n)]


def _split_reshape(a: Args) -> list[np.ndarray]:
    W, n = a["W"], a["n"]
    return list(W.reshape(n, W.shape[0], -1))


def _dims(answers: dict[str, tuple]) -> Callable[[Args], Any]:
    return lambda a: answers.get(a["name"])



_WEIGHTS = softmax_family("scores", -1)


def _context_of_T_entries(a: Args) -> np.ndarray:
    """The weighted states added up into an array of T entries (one per state, not per
    feature): numpy's broadcast error whenever T != d."""
    weights, H = a["attention_weights"], a["hidden_encoder_matrix"]
    context = np.zeros(H.shape[0])
    for j in range(H.shape[0]):
        context += weights[j] * H[j]
    return context


CHECKS = by_id(
    Check(P["ps4_get_scores"], lambda a: ref.get_scores(a["matrix"], a["vector"]),
          wrong=(
            Wrong("elementwise product", lambda a: a["matrix"] * a["vector"],
                  "you multiplied element by element (matrix * vector gives a {T} x {d} matrix); "
                  "score j is the dot product of row j with the vector: matrix @ vector gives "
                  "{T} scores"),
            Wrong("matrix transposed", lambda a: a["vector"] @ a["matrix"],
                  "you computed vector @ matrix, which combines the columns of the matrix (and "
                  "only runs when it is square); score j is row j . vector: matrix @ vector"),
            Wrong("last product left out", lambda a: a["matrix"][:, :-1] @ a["vector"][:-1],
                  "each of your scores leaves out the last product: score j is the sum of "
                  "matrix[j, k] * vector[k] over every k = 0 ... d - 1 (here d = {d}), and "
                  "range(len(vector) - 1) stops before d - 1. Loop over range(len(vector)) "
                  "(or compute matrix @ vector)"),
            Wrong("first product left out", lambda a: a["matrix"][:, 1:] @ a["vector"][1:],
                  "each of your scores leaves out the first product, k = 0: score j is the sum "
                  "of matrix[j, k] * vector[k] over every k = 0 ... d - 1 (here d = {d}), and "
                  "range(1, len(vector)) starts at the second. Loop over range(len(vector)) "
                  "(or compute matrix @ vector)"),
          ),
          require=(SCORES_1D,),
          label="scores"),
    Check(P["ps4_scale_scores"], lambda a: ref.scale_scores(a["scores"], a["n"]),
          wrong=(
            Wrong("no square root", lambda a: np.asarray(a["scores"]) / a["n"],
                  "you divided by n = {n}; divide by its square root, sqrt({n}) = {sqrt_n} "
                  "(eq. 2)"),
            Wrong("scale fixed at 2", lambda a: np.asarray(a["scores"]) / 2,
                  "you divided by 2 = sqrt(4), the notebook's n, for every input; for '{case}', "
                  "n = {n}, so divide by sqrt({n}) = {sqrt_n}: use np.sqrt(n)"),
            Wrong("divided by 2n", lambda a: np.asarray(a["scores"]) / a["n"] / 2,
                  "you divided by 2 n = 2 x {n}, not by sqrt({n}) = {sqrt_n}: ** binds tighter "
                  "than /, so scores / n**1/2 is (scores / n) / 2. Write n**0.5 (or n**(1/2)) "
                  "or np.sqrt(n)"),
            Wrong("divided by the number of scores",
                  lambda a: np.asarray(a["scores"]) / np.sqrt(len(a["scores"])),
                  "you divided by sqrt(len(scores)), the square root of the number of scores, "
                  "and never used the argument n = {n}: the scores are divided by sqrt(n), the "
                  "size of a key, which has nothing to do with how many scores there are "
                  "(eq. 2): np.asarray(scores) / np.sqrt(n)"),
            Wrong("divided by n/2", lambda a: np.asarray(a["scores"]) / (a["n"] / 2),
                  "you divided by n/2 = {n}/2, not by sqrt({n}) = {sqrt_n}: ** binds tighter "
                  "than /, so n ** 1/2 is (n ** 1) / 2, which equals sqrt(n) only for n = 4 "
                  "(the notebook's). Write n ** 0.5 (or n ** (1/2)) or np.sqrt(n)"),
          ),
          label="scale"),
    Check(P["ps4_attention_weights"], lambda a: ref.softmax(a["scores"]),
          wrong=(
            Wrong("no max subtraction", lambda a: naive_softmax(a["scores"]),
                  "on {case} the largest score is {zmax}: np.exp overflows to inf and inf / inf "
                  "gives nan. Subtract the largest score before np.exp (it changes nothing "
                  "else): you keep half the points", credit=0.5),
            variant("centred on the mean", _WEIGHTS,
                    "you subtracted the mean of the scores, not their maximum: on {case} the "
                    "largest score sits far above the mean, so np.exp still overflows to inf "
                    "and inf / inf gives nan. Subtract the largest score (softmax(z) = "
                    "softmax(z - max z)): every exponent is then at most 0: you keep half the "
                    "points", 0.5, shift="mean"),
            variant("smallest score subtracted", _WEIGHTS,
                    "you subtracted the smallest score, not the largest: every exponent is then "
                    "at least 0, and on {case} the scores run from {zmin} to {zmax}, so "
                    "np.exp(z - min z) reaches exp({zspan}) = inf (np.exp overflows above 709) "
                    "and inf / inf gives nan. Subtract the largest score: every exponent is then "
                    "at most 0 (softmax(z) = softmax(z - max z)): you keep half the points", 0.5,
                    shift="min"),
            variant("first score subtracted", _WEIGHTS,
                    "you subtracted the first score, scores[0], not the largest: a shift by any "
                    "one score gives the same weights where np.exp stays finite, but on {case} "
                    "the first score sits far below the largest (the scores run from {zmin} to "
                    "{zmax}), so np.exp overflows to inf and inf / inf gives nan. Subtract the "
                    "largest score, np.max(scores): you keep half the points", 0.5,
                    shift="first"),
            *softmax_mistakes(_WEIGHTS, -1, ""),
          ),
          require=(NUMPY_ONLY,),
          label="weights"),
    Check(P["ps4_context_vector"], lambda a: ref.get_context_vector(
          a["attention_weights"], a["hidden_encoder_matrix"]),
          wrong=(
            Wrong("broadcast instead of weighted sum",
                  lambda a: sum(a["attention_weights"] * a["hidden_encoder_matrix"]), _CONTEXT_BUG),
            Wrong("summed to a number",
                  lambda a: np.sum(a["attention_weights"][:, None] * a["hidden_encoder_matrix"]),
                  "you added up everything and got one number; sum the weighted states over the "
                  "tokens only (axis=0) to get a vector of size d = {d}"),
            Wrong("weighted states summed within each state",
                  lambda a: (a["attention_weights"][:, None]
                             * a["hidden_encoder_matrix"]).sum(axis=1),
                  "you weighted each state, then added along axis 1, within each state (over "
                  "its d features): one number per state, T = {T} entries. Add the weighted "
                  "states along axis 0, across the tokens, to get one vector of size d = {d}: "
                  "(attention_weights[:, None] * hidden_encoder_matrix).sum(axis=0), or "
                  "attention_weights @ hidden_encoder_matrix (eq. 4)"),
            Wrong("rows weighted, not summed",
                  lambda a: a["attention_weights"][:, None] * a["hidden_encoder_matrix"],
                  "you weighted each state but did not add them up: sum the {T} weighted rows "
                  "(axis=0) to get one vector of size d = {d}"),
            Wrong("operands swapped", lambda a: a["hidden_encoder_matrix"] @ a["attention_weights"],
                  "you computed hidden_encoder_matrix @ attention_weights: weight j then scales "
                  "column j, a feature, not row j, a token's state, and it raises ValueError "
                  "when T != d (on '{case}', T = {T} tokens, d = {d}). The context vector is "
                  "the weighted sum of the rows, attention_weights @ hidden_encoder_matrix "
                  "(eq. 4)", same_errors=True),
            Wrong("context sized by the tokens", _context_of_T_entries,
                  "your context vector starts with T = {T} entries, one per state, but it needs "
                  "d = {d}, one per feature (the size of one state, "
                  "hidden_encoder_matrix.shape[1]): adding a weighted state (d entries) to it "
                  "raises ValueError whenever T != d, as on '{case}'. Start from np.zeros(d), "
                  "or compute attention_weights @ hidden_encoder_matrix (eq. 4)",
                  same_errors=True),
            Wrong("summed over the features",
                  lambda a: a["hidden_encoder_matrix"] @ a["attention_weights"],
                  "each entry of your result is one row of hidden_encoder_matrix dotted with "
                  "the weights: you summed along axis 1, over the d features (as "
                  "np.apply_along_axis(f, 1, H) does), so weight j multiplies feature j, and "
                  "it runs only when T = d (on '{case}', T = {T} tokens, d = {d}). The context "
                  "vector sums over the tokens, axis 0: sum_j alpha_j h_j, the weighted sum of "
                  "the rows, attention_weights @ hidden_encoder_matrix (eq. 4)"),
          ),
          label="context"),
    Check(P["ps4_single_query"], lambda a: ref.single_query_attention(
          a["query_token"], a["tokens"], a["W_Q"], a["W_K"], a["W_V"]),
          wrong=(
            *scales(query_variant, _SCALE_QUERY),
            variant("weighted sum of inputs", query_variant,
                    "your output is a weighted sum of the tokens; it must be a weighted sum of "
                    "the values V = tokens @ W_V (eq. 6)", values="tokens"),
            Wrong("unstable softmax", lambda a: query_variant(a, stable=False), OVERFLOW,
                  credit=0.5),
            variant("keys and values swapped", query_variant,
                    "your keys were computed with W_V and your values with W_K: keys and "
                    "values are exchanged (K and V unpacked in the other order, or a helper "
                    "returning them so). K = tokens @ W_K and V = tokens @ W_V (eq. 5)",
                    use="qvk"),
            *swaps(query_variant, "W_{}", None, "eq. 5", letters="QKV"),
          ),
          require=(QUERY_1D,),
          label="query"),
    Check(P["ps4_split_heads"], lambda a: ref.split_heads(a["W"], a["n"]),
          wrong=(
            Wrong("reshape without transpose", _split_reshape,
                  "W.reshape(h, rows, -1) does not cut W into column blocks: reshape reads the "
                  "entries row by row. For '{case}', head i takes the {block} consecutive "
                  "columns i*{block} to (i+1)*{block}: W[:, i*k:(i+1)*k] with k = {cols}/{n}, or "
                  "np.split(W, h, axis=1)"),
            *(Wrong("split along rows", rows, _ROWS) for rows in (
                _split_rows, lambda a: np.split(a["W"], a["n"]))),
            Wrong("blocks counted by their width",
                  lambda a: [a["W"][:, i * b:(i + 1) * b] for b in [a["W"].shape[1] // a["n"]]
                             for i in range(b)],
                  "you made one block per column of a block, range(d) with d = {cols}/{n} = "
                  "{block}, instead of one per head, range(h): on '{case}' that gives {block} "
                  "blocks, not {n}. Loop over the heads: [W[:, i*d:(i+1)*d] for i in range(h)]"),
            Wrong("split into cols/h pieces",
                  lambda a: np.hsplit(a["W"], a["W"].shape[1] // a["n"]),
                  "you split W into {cols}/{n} = {block} pieces (np.hsplit(W, cols // h)): the "
                  "second argument of np.hsplit is the number of pieces, not their width, so "
                  "on '{case}' you get {block} blocks instead of h = {n}. Write np.hsplit(W, h)",
                  same_errors=True),
            Wrong("block width h",
                  lambda a: [a["W"][:, i * a["n"]:(i + 1) * a["n"]] for i in range(a["n"])],
                  "you used h = {n} as the width of each block (W[:, i*h:(i+1)*h]); the width "
                  "is the number of columns per head, k = {cols} // {n} = {block}: "
                  "W[:, i*k:(i+1)*k] for i in range(h) (the two agree only when h * h equals "
                  "the number of columns)"),
            Wrong("strided columns", lambda a: [a["W"][:, i::a["n"]] for i in range(a["n"])],
                  "W[:, i::h] takes every h-th column; head i takes {block} consecutive columns, "
                  "W[:, i*{block}:(i+1)*{block}] (for '{case}')"),
          ),
          require=(BLOCKS_LIST,),
          label="split"),
    Check(P["ps4_dimensions"], lambda a: DIMENSIONS[a["name"]], per_case=True,
          wrong=(
            Wrong("head weights = full matrix", _dims({"head_W_shape": (4, 4)}),
                  "head_W_shape: (4, 4) is the full W^Q before the split; each head's W^Q_i maps "
                  "a token (d_model = 4) to that head's query of size d_k = d_model / h = 2"),
            Wrong("head weights = head output", _dims({"head_W_shape": (3, 2)}),
                  "head_W_shape: (3, 2) is the shape of one head's output (T x d_k), not of its "
                  "weight matrix, which maps d_model = 4 features to d_k = 2"),
            Wrong("head weights transposed", _dims({"head_W_shape": (2, 4)}),
                  "head_W_shape: (2, 4) is transposed; tokens are rows, so X W^Q_i needs "
                  "d_model = 4 rows and d_k = 2 columns"),
            Wrong("concatenated weights", _dims({"concat_shape": (4, 4)}),
                  "concat_shape: (4, 4) is the weight blocks side by side; Concat joins the heads' "
                  "outputs, each T x d_v = 3 x 2"),
            Wrong("concatenation = one head", _dims({"concat_shape": (3, 2)}),
                  "concat_shape: (3, 2) is one head's output, T x d_v; Concat joins the h = 2 "
                  "heads' outputs side by side, so each token's row gets h * d_v = 4 entries: "
                  "(3, 4)"),
            Wrong("tokens in columns", _dims({"concat_shape": (4, 3)}),
                  "concat_shape: (4, 3) is d_model x T, problem set 2's convention with tokens in "
                  "columns; here tokens are rows (X is T x d_model), so the heads' outputs, each "
                  "T x d_v = 3 x 2, side by side make T x (h * d_v) = (3, 4)"),
            Wrong("heads stacked vertically", _dims({"concat_shape": (6, 2)}),
                  "concat_shape: (6, 2) stacks the heads on top of each other; Concat puts them "
                  "side by side, so each token's row gets h * d_v = 4 entries"),
            Wrong("W^O from one head", _dims({"W_O_shape": (2, 4)}),
                  "W_O_shape: (2, 4) has one head's d_v = 2 rows; W^O multiplies the h heads "
                  "concatenated, h * d_v = 4 features per token, and maps them to d_model = 4"),
            Wrong("W^O = output shape", _dims({"W_O_shape": (3, 4)}),
                  "W_O_shape: (3, 4) is the shape of the layer's output (T x d_model); W^O maps "
                  "the h * d_v = 4 concatenated features to d_model = 4"),
          ),
          require=(SHAPE_INTS,),
          label="dims"),
)

WRITTEN = by_id(
    Written("ps4_heads_answer", """\
**Mark scheme (TAs only, 2 points)**: *benefits of several heads over one.*

- **1 point**: each head has its own W_Q, W_K, W_V, so it computes its **own attention
  pattern**: different heads can attend to different relations (syntax, coreference,
  nearby vs distant tokens) in different learned subspaces; one head averages them into a
  single softmax.
- **1 point**: at about the **same cost** as one full-size head: each head works in
  d_model / h dimensions, and W^O mixes the concatenated heads back to d_model (so the
  layer stays dimension preserving).
- Do not award: "multiple heads make training parallel / cheaper" alone (a single head is
  just as parallel over tokens; the worksheet's sample answer is wrong here), or "smaller
  chunks of the sequence" (heads split the *features*, not the tokens).
"""),
)

SAMPLES: dict[str, Sample] = {
    "aisha": Sample("complete and correct"),
    "ben": Sample("handed in the blank notebook", blank=True),
    "chen": Sample(
        "the worksheet's own answers: broadcast context vector, its dimension answers",
        code={
            "ps4_context_vector_code": """\
def get_context_vector(attention_weights, hidden_encoder_matrix):
    return sum(attention_weights * hidden_encoder_matrix)
""",
            "ps4_dimensions_code": """\
head_W_shape = (3, 2)
concat_shape = (4, 4)
W_O_shape = (4, 4)
""",
        },
        expect={"ps4_context_vector": 0.0, "ps4_dimensions": 1 / 3},
    ),
    "dara": Sample(
        "splits heads with a reshape, scales by the token size instead of d_k",
        code={
            "ps4_split_heads_code": """\
def split_heads(W, h):
    return list(W.reshape(h, W.shape[0], W.shape[1] // h))
""",
            "ps4_single_query_code": """\
def single_query_attention(query_token, tokens, W_Q, W_K, W_V):
    q = query_token @ W_Q
    K = tokens @ W_K
    V = tokens @ W_V
    weights = get_attention_weights(scale_scores(K @ q, tokens.shape[1]))
    return weights, weights @ V
""",
        },
        expect={"ps4_split_heads": 0.0, "ps4_single_query": 0.0},
    ),
    "emil": Sample(
        "softmax without the max shift",
        code={"ps4_attention_weights_code": """\
def get_attention_weights(scores):
    return np.exp(scores) / np.sum(np.exp(scores))
"""},
        expect={"ps4_attention_weights": 0.5},  # single_query: follow-through
    ),
}

"""Grader side of ps1_self_attention: its checks, mark scheme and demo class."""

from __future__ import annotations

from functools import partial

import numpy as np

from attnkit.judge import reference as ref
from attnkit.judge.check import Check, Sample, Written, by_id
from attnkit.judge.misconceptions import (
    AFTER_UDL,
    ONE_MAX_COLS,
    SCALE_UDL,
    UDL_PARAMS,
    Wrong,
    attention_variant,
    global_softmax,
    loop_variant,
    naive_softmax,
    scaled,
    scales,
    udl_attention,
    udl_common,
)
from attnkit.judge.requirements import Requirement, shape_is
from attnkit.judge.softmaxes import softmax_family, softmax_mistakes, softmax_variant
from attnkit.judge.wrong import variant
from attnkit.kernel.cases import Args
from attnkit.kernel.ps1_self_attention import PROBES as P
from attnkit.kernel.ps1_self_attention import equivariance_function


def inverse_variant(a: Args) -> bool:
    """Compares f(X[:, perm]) with f(X)[:, argsort(perm)]: the inverse permutation."""
    f, X, perm = equivariance_function(a), a["X"], list(a["perm"])
    return bool(np.allclose(f(X[:, perm]), f(X)[:, np.argsort(perm)]))


def compared_by(a: Args, test: str) -> bool:
    """Compares f(X[:, perm]) with f(X)[:, perm] exactly, within a fixed 1e-12, or within a
    loose 1e-3."""
    f, X, perm = equivariance_function(a), a["X"], list(a["perm"])
    left, right = f(X[:, perm]), f(X)[:, perm]
    if test == "exact":
        return bool(np.array_equal(left, right))
    if test == "loose":
        return bool(np.allclose(left, right, atol=1e-3))
    return bool(np.max(np.abs(left - right)) < 1e-12)


def compared_signed(a: Args, how: str) -> bool:
    """Differences f(X[:, perm]) - f(X)[:, perm] summed with their signs (then |.|), so that
    they cancel; or the first output column compared only."""
    f, X, perm = equivariance_function(a), a["X"], list(a["perm"])
    left, right = f(X[:, perm]), f(X)[:, perm]
    if how == "first column":
        return bool(np.allclose(left[:, 0], right[:, 0]))
    diff = left - right
    tol = 1e-6 * (1 + float(np.max(np.abs(right))))
    return bool(abs(np.sum(diff)) < tol)


_SIGNED = {
    "sum": ("signed differences summed",
            "you added up the signed differences f(X[:, perm]) - f(X)[:, perm] before taking "
            "the absolute value, so they cancel: for '{case}' the two sides hold the same "
            "numbers in other places, the differences sum to 0, and you answered True. Compare "
            "entry by entry: np.allclose(f(X[:, perm]), f(X)[:, perm]) (or "
            "np.max(np.abs(difference)) < tol)"),
    "first column": ("first column only",
                     "you compared only the first output column (f(X[:, perm])[:, 0] with "
                     "f(X)[:, perm[0]]): on '{case}' that column agrees but a later one does "
                     "not. Equivariance needs every column: np.allclose(f(X[:, perm]), "
                     "f(X)[:, perm])"),
}


def aliased_outputs(a: Args) -> list[np.ndarray]:
    """One output array reused for every token: each list entry is the last output."""
    outputs = loop_variant(a)
    return [outputs[-1]] * len(outputs)


_COLS = softmax_family("data_in", 0)  # softmax_cols's mistakes, one family: they compose


def rows_permuted(a: Args) -> bool:
    """Permutes the rows of the output: compares f(X[:, perm]) with f(X)[perm]."""
    f, X, perm = equivariance_function(a), a["X"], list(a["perm"])
    return bool(np.allclose(f(X[:, perm]), f(X)[perm]))


def equivariance_variant(a: Args) -> bool:
    """Permutes only the input: compares f(X[:, perm]) with f(X)."""
    f, X, perm = equivariance_function(a), a["X"], list(a["perm"])
    return bool(np.allclose(f(X[:, perm]), f(X)))



TRANSPOSED = (
    "X' is right, but you returned the attention matrix transposed (attentions.T: row n holds "
    "output n's weights): with tokens in columns, column n of the N x N matrix holds the "
    "weights of output n (X' = V A, eq. 12.8), so each column sums to 1. Return the matrix you "
    "multiplied V by, not its transpose")

LOOP_COLUMNS = Requirement(
    "outputs not columns", shape_is(lambda c: (len(c.args["all_x"][0]), 1), "an output has shape"),
    "the values are right, but {found}: section 2 asks for \"the list of the N outputs, each a "
    "D x 1 column\", like the inputs in all_x (a 1-D array of shape (D,) is not a column): "
    "you keep half the points")

def _float_of_column_product(a: Args) -> float:
    """UDL's float(k.T @ q) on D x 1 columns (a TypeError since numpy 2)."""
    k = q = a["all_x"][0]
    return float(k.T @ q)


def _row_maxima(a: Args) -> np.ndarray:
    """Row maxima without keepdims, broadcast along the columns (square matrices only)."""
    e = np.exp(a["data_in"] - np.max(a["data_in"], axis=1))
    return e / np.sum(e, axis=0)


def _columns_of_row_count(a: Args) -> np.ndarray:
    """A loop over range(number of rows) where each pass softmaxes column n: the columns past
    that count stay 0, and a matrix with more rows than columns raises IndexError."""
    Z = np.asarray(a["data_in"], dtype=float)
    out = np.zeros_like(Z)
    for n in range(Z.shape[0]):
        out[:, n] = ref.softmax(Z[:, n])
    return out


CHECKS = by_id(
    Check(P["ps1_softmax"], lambda a: ref.softmax(np.asarray(a["items_in"], dtype=float)),
          wrong=(
            Wrong("no max subtraction", lambda a: naive_softmax(a["items_in"]),
                  "on {case} the largest score is {zmax}: np.exp overflows to inf and inf / inf "
                  "gives nan. Subtract the largest score before np.exp (softmax(z) = "
                  "softmax(z - max z), so nothing else changes): you keep half the points",
                  credit=0.5),
            Wrong("smallest score subtracted",
                  lambda a: softmax_variant(a["items_in"], shift="min"),
                  "on {case} the scores run from {zmin} to {zmax}: you subtracted the smallest "
                  "score, so every exponent is at least 0: np.exp(z - min z) reaches "
                  "exp({zspan}) = inf (np.exp overflows above 709) and inf / inf gives nan. "
                  "Subtract the largest score instead: every exponent is then at most 0 and "
                  "cannot overflow (softmax(z) = softmax(z - max z)): you keep half the points",
                  credit=0.5),
            *softmax_mistakes(softmax_family("items_in", -1), -1, "",
                              shifts=("mean", "first", "floor")),
          ),
          label="softmax"),
    Check(P["ps1_self_attention_loop"], lambda a: ref.self_attention_loop(
          a["all_x"], *(a[k] for k in UDL_PARAMS)),
          wrong=(
            Wrong("scaled", lambda a: loop_variant(a, scale="sqrt_Dq"),
                  "this part is the unscaled attention of eqs. 12.2-12.5: do not divide the dot "
                  "products by sqrt(D_q) = sqrt({Dq}) = {sqrt_Dq}"),
            *udl_common(loop_variant),
            Wrong("float of a 1 x 1 array", _float_of_column_product,
                  "float(k.T @ q) raised TypeError: k.T @ q is a 1 x 1 array, not a number, and "
                  "numpy 2 converts only 0-dimensional arrays with float(). Take its number with "
                  "(k.T @ q).item(), as section 2 says"),
            Wrong("outputs alias one array", aliased_outputs,
                  "every entry of your list is the last output: you appended the same array "
                  "each time and overwrote it in place (x_prime[:] = 0, +=) for the next token, "
                  "so all {N} entries show the last token's output. Make a new array for each "
                  "output (x_prime = np.zeros(...) inside the loop, or x_prime = a_m * v_m + ...)"),
          ),
          require=(LOOP_COLUMNS,),
          label="loop"),
    Check(P["ps1_softmax_cols"], lambda a: ref.softmax_cols(a["data_in"]),
          wrong=(
            variant("softmax over rows", _COLS,
                    "each row of your result sums to 1; softmax_cols must make each column sum "
                    "to 1: take the max, the exp and the sum along axis 0 (with keepdims=True)",
                    axis=1),
            Wrong("softmax over all entries", lambda a: global_softmax(a["data_in"]),
                  "your whole matrix sums to 1: you divided by the sum of all its entries. Divide "
                  "each column by its own sum: np.sum(..., axis=0, keepdims=True)"),
            variant("no max subtraction", _COLS,
                    "on {case} the largest entry is {zmax}: np.exp overflows to inf and inf / "
                    "inf gives nan. Subtract each column's maximum first (it changes nothing "
                    "else): you keep half the points", 0.5, shift="none"),
            variant("one maximum for the whole matrix", _COLS, ONE_MAX_COLS, 0.5,
                    shift="one max"),
            Wrong("row maxima without keepdims", _row_maxima,
                  "you subtracted np.max(data_in, axis=1): the maximum of each row, a 1-D array "
                  "that numpy lines up with the columns. On a square matrix it runs but shifts "
                  "column n by row n's maximum; on {case} it raises ValueError. Take each "
                  "column's maximum: np.max(data_in, axis=0, keepdims=True)"),
            Wrong("loop over the rows' count", _columns_of_row_count,
                  "your loop runs n over range(n_rows), the number of rows, but each pass "
                  "softmaxes column n: a softmax_cols needs one pass per column, "
                  "range(data_in.shape[1]). The notebook's 3 x 3 matrix hides it; on '{case}' "
                  "the columns past the number of rows keep their zeros (with more rows than "
                  "columns, data_in[:, n] raises IndexError)"),
            *softmax_mistakes(_COLS, 0, "column"),
          ),
          label="cols"),
    Check(P["ps1_self_attention"], udl_attention(scaled=False),
          wrong=(
            variant("attention returned transposed", attention_variant, TRANSPOSED,
                    transpose=True),
            Wrong("scaled", lambda a: attention_variant(a, scale="sqrt_Dq"),
                  "this part is the unscaled attention of eq. 12.8: do not divide K^T Q by "
                  "sqrt(D_q) = sqrt({Dq}) = {sqrt_Dq} yet (that is the next part)"),
            *udl_common(attention_variant),
          ),
          label="attn"),
    Check(P["ps1_scaled_attention"], udl_attention(scaled=True),
          wrong=(
            *scales(attention_variant, SCALE_UDL),
            Wrong("scaled after softmax",
                  lambda a: attention_variant(a, scale="sqrt_Dq", after=True), AFTER_UDL),
            variant("attention returned transposed", scaled(attention_variant, "sqrt_Dq"),
                    TRANSPOSED, transpose=True),
            variant("unscaled attention returned", scaled(attention_variant, "sqrt_Dq"),
                    "X' is computed with scaled weights, but the attention matrix you return is "
                    "the softmax of the unscaled scores K^T Q: return the weights you "
                    "multiplied V by, softmax_cols(K^T Q / sqrt(D_q)) (eq. 12.9), not a second "
                    "softmax_cols of K^T Q", returned="unscaled"),
            *udl_common(scaled(attention_variant, "sqrt_Dq")),
          ),
          label="scaled"),
    Check(P["ps1_equivariance"], lambda a: ref.is_equivariant(
          equivariance_function(a), a["X"], list(a["perm"])),
          wrong=(
            Wrong("one side not permuted", equivariance_variant,
                  "you compared f(X[:, perm]) with f(X) (or f(X) with f(X)[:, perm]): only one "
                  "side was permuted. Equivariance means f(X[:, perm]) equals f(X)[:, perm]: "
                  "permute the input on one side and the output on the other"),
            Wrong("output rows permuted", rows_permuted,
                  "you permuted rows where the tokens are columns: f(X)[perm] (and X[perm], "
                  "if the input was permuted the same way) reorders the features. With tokens "
                  "in columns a permutation moves the columns, so compare f(X[:, perm]) with "
                  "f(X)[:, perm] (on {case} f(X) has fewer rows than perm has entries, hence "
                  "the IndexError)", same_errors=True),
            Wrong("inverse permutation", inverse_variant,
                  "you compared f(X[:, perm]) with f(X)[:, np.argsort(perm)], the inverse "
                  "permutation. X[:, perm] puts token perm[i] at position i, and an equivariant "
                  "f moves its outputs the same way: compare with f(X)[:, perm] itself. The "
                  "two agree only for a perm that undoes itself, such as two tokens swapped"),
            *(Wrong(name, partial(compared_signed, how=how), hint)
              for how, (name, hint) in _SIGNED.items()),
            Wrong("exact comparison", lambda a: compared_by(a, "exact"),
                  "you compared f(X[:, perm]) and f(X)[:, perm] exactly (np.array_equal or "
                  "==): for '{case}' f is equivariant, but the permuted input adds the same "
                  "numbers in another order, so the two differ in the last digits. Compare "
                  "floats with a tolerance: np.allclose(f(X[:, perm]), f(X)[:, perm])"),
            Wrong("fixed absolute tolerance", lambda a: compared_by(a, "absolute"),
                  "you compared with a fixed absolute tolerance (such as 1e-12): for '{case}' "
                  "f is equivariant, but its outputs are large, and rounding in another order "
                  "moves them by more than that tolerance. Use a tolerance relative to the "
                  "size of the outputs: np.allclose(f(X[:, perm]), f(X)[:, perm])"),
            Wrong("tolerance too loose", lambda a: compared_by(a, "loose"),
                  "your tolerance is too loose (about 1e-3, such as np.allclose(..., "
                  "atol=1e-3)): on '{case}' f is not equivariant, but its two sides differ by "
                  "only about 3e-4, which that tolerance lets through, so you answered True. "
                  "Keep np.allclose's defaults (rtol=1e-5, atol=1e-8): they forgive rounding "
                  "in the last digits, not a real difference"),
          ),
          label="equiv"),
)

WRITTEN = by_id(
    Written("ps1_positional_answer", """\
**Mark scheme (TAs only, 2 points)**: *would self-attention stay permutation equivariant
with positional encodings?*

- **1 point**: says **no** (not equivariant once positional encodings are added).
- **1 point**: the reason: the encoding is tied to the *position*, not to the token. Adding
  a matrix **P** gives Sa[X + P]; permuting the columns of X moves the tokens but not the
  columns of P, so Sa[XΠ + P] ≠ Sa[X + P]Π in general. Each token now carries where it sits,
  which is the point of positional encodings (word order matters).
- Accept: "equivariant only if P is permuted too" or "only if all columns of P are equal"
  (then P carries no position). Do not award the reason for "attention itself changes" or
  for answers that only restate the definition.
"""),
)

SAMPLES: dict[str, Sample] = {
    "aisha": Sample("complete and correct"),
    "ben": Sample("handed in the blank notebook", blank=True),
    "chen": Sample(
        "softmax without the max shift; scaled by D instead of sqrt(D_q)",
        code={
            "ps1_softmax_code": """\
def softmax(items_in):
    e = np.exp(np.array(items_in, dtype=float))
    return e / np.sum(e)
""",
            "ps1_scaled_code": """\
def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X + beta_q
    K = omega_k @ X + beta_k
    V = omega_v @ X + beta_v
    attentions = softmax_cols(K.T @ Q / X.shape[0])
    X_prime = V @ attentions
    return X_prime, attentions
""",
        },
        # the loop overflows only through that softmax: follow-through, charged there
        expect={"ps1_softmax": 0.5, "ps1_scaled_attention": 0.0},
    ),
    "dara": Sample(
        "softmax_cols normalises rows; both attention functions, right given it, keep their "
        "points (follow-through)",
        code={"ps1_softmax_cols_code": """\
def softmax_cols(data_in):
    e = np.exp(data_in - np.max(data_in))
    return e / e.sum(axis=1, keepdims=True)
"""},
        expect={"ps1_softmax_cols": 0.0},
    ),
    "emil": Sample(
        "Q^T K instead of K^T Q; an equivariance check that always says yes",
        code={
            "ps1_self_attention_code": """\
def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X + beta_q
    K = omega_k @ X + beta_k
    V = omega_v @ X + beta_v
    attentions = softmax_cols(Q.T @ K)
    X_prime = V @ attentions
    return X_prime, attentions
""",
            "ps1_equivariance_code": """\
def check_equivariance(f, X, perm):
    return True
""",
        },
        expect={"ps1_self_attention": 0.0, "ps1_equivariance": 0.0},
    ),
}

"""Grader side of ps5_masked_attention: its checks, mark scheme and demo class.

Tokens are the columns of X (UDL). The variants below compute what a student with one
misconception returns: a mask applied after the softmax, with 0 instead of -inf, transposed or
without its diagonal; nan or uniform weights on a fully masked column; Vaswani et al.'s
sinusoids with sin and cos swapped, another frequency base or positions from 1; equivariance
measured with one side unpermuted or with the encoding moved along with the tokens.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from attnkit.judge import reference as ref
from attnkit.judge.check import Check, Sample, Written, by_id
from attnkit.judge.misconceptions import (
    AFTER_UDL,
    SCALE_UDL,
    Swap,
    Wrong,
    divisor,
    projections,
    scales,
    udl_common,
    variant,
)
from attnkit.judge.requirements import Requirement, dtype_is
from attnkit.judge.variants import gaps_variant, positional_variant
from attnkit.judge.wrong import helped
from attnkit.kernel.cases import Args
from attnkit.kernel.ps5_masked_attention import PROBES as P

_UDL = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")


COLUMN_MAX = ("column max", "column max, allowed only")  # shifts by masked scores too


def masked_softmax_variant(S: np.ndarray, mask: np.ndarray, *, fill: str = "-inf",
                           empty: str = "zero", after: bool | str = False, axis: int = 0,
                           stable: bool | str = True, invert: bool = False) -> np.ndarray:
    """The masked column softmax with one thing done wrong.

    ``fill`` is what the masked scores are replaced by; ``empty="raw"`` keeps whatever a
    fully masked column gives (nan for -inf, uniform weights for -1e9) instead of zeros;
    ``after="renormalised"`` zeroes the masked weights after the softmax and divides by
    what is left; ``stable="column max"`` shifts each column by its largest score, masked
    ones included (", allowed only": and writes the allowed weights alone).
    """
    S, mask = np.asarray(S, dtype=float), np.asarray(mask, dtype=bool)
    if invert:
        mask = ~mask
    if after and (fill != "-inf" or stable is not True):
        raise ValueError("no scores are filled, nor exponentiated by hand, after the softmax")
    if after:  # the softmax of every score, then the masked weights set to 0
        W = np.where(mask, ref.softmax(S, axis=axis), 0.0)
        if after != "renormalised":
            return W
        total = W.sum(axis=axis, keepdims=True)  # 0 where every allowed weight underflowed
        if empty == "raw":
            return W / total
        return np.where(total > 0, W / np.where(total > 0, total, 1.0), 0.0)
    Z = np.where(mask, S, {"-inf": -np.inf, "zero": 0.0, "-1e9": -1e9}[fill])
    top = (Z.max() if stable == "one max" else
           S.max(axis=axis, keepdims=True) if stable in COLUMN_MAX else
           Z.max(axis=axis, keepdims=True))
    e = np.exp(Z - top) if stable else np.exp(Z)
    W = e / e.sum(axis=axis, keepdims=True)
    if stable == "column max, allowed only":  # weights written at the allowed entries alone
        W = np.where(mask, W, 0.0)
    if empty == "raw":
        return W
    return np.where(mask.any(axis=axis, keepdims=True), W, 0.0)


NOTEBOOK_D, NOTEBOOK_N = 4, 5  # the notebook's globals D and N (its data cell)

_MASKS = {"causal": lambda N: np.triu(np.ones((N, N), dtype=bool)),
          "transposed": lambda N: np.tril(np.ones((N, N), dtype=bool)),
          "strict": lambda N: np.triu(np.ones((N, N), dtype=bool), k=1),
          "none": lambda N: np.ones((N, N), dtype=bool)}


def _mask(mask: str, X: np.ndarray) -> np.ndarray:
    """The mask a variant uses on X's scores: a causal one (of X's N, of its D, or of the
    notebook's N) is the student's causal_mask where it was called with that size."""
    N = X.shape[1]
    size = {"causal": N, "from D": X.shape[0], "notebook": NOTEBOOK_N}.get(mask)
    if size is None:
        return _MASKS[mask](N)
    M = np.asarray(helped("causal_mask", size, otherwise=lambda: _MASKS["causal"](size)))
    if mask == "notebook" and M.shape != (N, N):
        raise IndexError(f"a {NOTEBOOK_N} x {NOTEBOOK_N} mask on {N} tokens")
    return M


def masked_attention_variant(a: Args, *, mask: str = "causal", fill: str = "-inf",
                             empty: str = "zero", after: bool | str = False,
                             scale: str = "sqrt_Dq",
                             axis: int = 0, order: str = "KtQ", biases: str = "qkv",
                             values: str = "V", stable: bool | str = True,
                             swap: Swap | None = None, use: str = "qkv",
                             weights_by: str = "A", late: bool = False
                             ) -> tuple[np.ndarray, np.ndarray]:
    """Causal UDL attention (tokens in columns) with one thing done wrong; returns (X', A).
    ``mask="from D"`` sizes the causal mask by the rows of X (D) instead of its columns;
    ``use`` and ``weights_by`` as in ``attention_variant``; ``late``: the weights divided
    by the scale after the softmax."""
    X = a["X"]
    Q, K, V = projections(a, biases, swap, use=use)
    by = divisor(scale, D=X.shape[0], Dq=Q.shape[0], N=X.shape[1])
    S = (K.T @ Q if order == "KtQ" else Q.T @ K) / (1.0 if late else by)
    M = _mask(mask, X)
    def own() -> np.ndarray:
        return masked_softmax_variant(S, M, fill=fill, empty=empty, after=after, axis=axis,
                                      stable=stable)
    standard = (fill, empty, after, axis, stable) == ("-inf", "zero", False, 0, True)
    A = np.asarray(helped("masked_softmax_cols", S, M, otherwise=own) if standard else own(),
                   dtype=float) / (by if late else 1.0)
    return (X if values == "X" else V) @ (A.T if weights_by == "At" else A), A


_AFTER_MASK = ("you applied the mask after the softmax: the softmax already gave weight to the "
               "masked entries, so once they are set to 0 each column sums to less than 1. "
               "Mask the scores before the softmax: put -inf where the mask is False, so "
               "exp(-inf) = 0 and the allowed weights alone sum to 1")
def _renormalised(example: str = "") -> str:
    """The late-masking hint; ``example`` names the check's own far-above case."""
    return ("you took the softmax of every score, then zeroed the masked weights and "
            "divided by what was left (or, the same numbers, shifted each column by its "
            "largest score, masked ones included). In exact arithmetic that is right, but "
            f"where a masked score is far above the allowed ones{example} their weights "
            "underflow to 0 before you renormalise, and the column loses all its weight. Mask "
            "the scores before the softmax (np.where(mask, scores, -np.inf)), so the shift is "
            "the largest allowed score: you keep half the points")


_RENORMALISED = _renormalised(" (the hidden test has one of 900)")
_COLUMN_MAX = ("you shifted each column by its largest score, masked ones included: where a "
               "masked score lies far above the allowed ones (on {case}), every allowed "
               "exponent underflows to 0 and 0 / 0 gives nan. (M2) subtracts the largest "
               "allowed score: "
               "mask first, then take the maximum, np.where(mask, scores, -np.inf).max(axis=0, "
               "keepdims=True): you keep half the points")
_ZERO_MASK = ("you replaced the masked scores by 0, but a score of 0 still gets weight "
              "exp(0) = 1 before normalising, so masked entries keep a share. Replace them by "
              "-inf (np.where(mask, scores, -np.inf)): exp(-inf) = 0")
_NAN_EMPTY = ("on {case}, column {empty} has no allowed entry and your weights there are nan "
              "(with -inf scores the column's maximum is -inf and -inf - (-inf) = nan; a sum "
              "of zero weights gives 0 / 0 = nan), and nan spreads into everything computed "
              "from it. Give a fully masked column zero weights, e.g. "
              "np.where(mask.any(axis=0), weights, 0): you keep half the points")
_UNIFORM_EMPTY = ("on {case}, column {empty} has no allowed entry, and your weights there are "
                  "uniform: filling with a large negative number (-1e9) instead of -inf makes "
                  "every entry of that column equal, so it averages tokens it must not see. "
                  "A fully masked column gets zero weights: you keep half the points")
_MASK_T = ("your mask lets output n see the later inputs m > n and hides the earlier ones: "
           "it is transposed (np.tril instead of np.triu). With tokens in columns, entry (m, n) "
           "of K^T Q is k_m . q_n, input m against output n, so the allowed entries m <= n are "
           "on and above the diagonal: np.triu")
_STRICT = ("your mask also hides the diagonal (m < n instead of m <= n), so output n cannot "
           "see its own token and output 0 sees nothing at all. Each output attends to itself "
           "and the earlier tokens: np.triu(np.ones((N, N), dtype=bool)) keeps the diagonal "
           "(k=0)")
_PE_FACTS = "(first seen on '{case}')"
_HALF_EXPONENT = (", or, the same numbers, the exponent i/D where the formula has 2i/D "
                  "(10000^(i/D) = 100^(2i/D): the 2 left out)")


def _masked_softmax(a: Args, **kw: Any) -> np.ndarray:
    """A masked-softmax variant on a case's scores and mask (the family that composes)."""
    return masked_softmax_variant(a["scores"], a["mask"], **kw)


def _pe(hint: str) -> str:
    return hint + " " + _PE_FACTS


MASK_BOOL = Requirement(
    "mask not boolean", dtype_is("b", "your mask has"),
    "the pattern is right, but {found}: section 1 asks for \"an N x N boolean matrix\" "
    "(True where output n may attend to input m). A 0/1 float matrix is not one: ~mask and "
    "np.where(mask, ...) need booleans. Use dtype=bool or a comparison such as m <= n: "
    "you keep half the point")

CHECKS = by_id(
    Check(P["ps5_causal_mask"], lambda a: ref.causal_mask(a["N"]),
          wrong=(
            Wrong("mask transposed", lambda a: _MASKS["transposed"](a["N"]), _MASK_T),
            Wrong("diagonal masked", lambda a: _MASKS["strict"](a["N"]), _STRICT),
          ),
          require=(MASK_BOOL,),
          label="mask"),
    Check(P["ps5_masked_softmax"], lambda a: ref.masked_softmax_cols(a["scores"], a["mask"]),
          wrong=(
            variant("mask after the softmax", _masked_softmax, _AFTER_MASK, after=True),
            variant("renormalised after the softmax", _masked_softmax, _RENORMALISED, 0.5,
                    after="renormalised"),
            *(variant("shifted by the column's maximum, masked included", _masked_softmax,
                      _COLUMN_MAX, 0.5, stable=form) for form in COLUMN_MAX),
            variant("masked with 0 instead of -inf", _masked_softmax, _ZERO_MASK, fill="zero",
                    empty="raw"),
            variant("nan on a fully masked column", _masked_softmax, _NAN_EMPTY, 0.5,
                    empty="raw"),
            variant("uniform weights on a fully masked column", _masked_softmax,
                    _UNIFORM_EMPTY, 0.5, fill="-1e9", empty="raw"),
            variant("mask inverted", _masked_softmax,
                    "your weights sit where the mask is False: True means 'may attend' (keep "
                    "the score), False means 'masked' (score -inf). Use np.where(mask, scores, "
                    "-np.inf), not np.where(mask, -np.inf, scores)", invert=True),
            variant("softmax over rows", _masked_softmax,
                    "each row of your weights sums to 1; with tokens in columns each column "
                    "holds the weights of one output and must sum to 1 (over its allowed "
                    "entries): take the max, the exp and the sum along axis 0", axis=1),
            variant("no max subtraction", _masked_softmax,
                    "on {case} the largest score is {zmax}: np.exp overflows to inf and inf / "
                    "inf gives nan. Subtract each column's largest allowed score first (it "
                    "changes nothing else): you keep half the points", 0.5, stable=False),
          ),
          label="m.softmax"),
    Check(P["ps5_masked_attention"], lambda a: ref.masked_self_attention(
          a["X"], *(a[k] for k in _UDL)),
          wrong=(
            *scales(masked_attention_variant, {k: SCALE_UDL[k] for k in (
                "sqrt_D", "D", "Dq", "sqrt_N", "two", "four")}),
            variant("notebook's N for the mask", masked_attention_variant,
                    "you built the mask with the notebook's N = 5, whatever X holds: on "
                    "'{case}' X has N = {N} columns, so the 5 x 5 mask does not fit the {N} x "
                    "{N} scores. Take the size from the argument: causal_mask(X.shape[1])",
                    mask="notebook"),
            variant("mask sized from D", masked_attention_variant,
                    "your mask is D x D = {D} x {D} (causal_mask(X.shape[0]), the size of one "
                    "token), but the scores are N x N = {N} x {N}: one row and column per token. "
                    "Size the mask from the number of tokens, causal_mask(X.shape[1])",
                    mask="from D"),
            Wrong("mask after the softmax", lambda a: masked_attention_variant(a, after=True),
                  _AFTER_MASK),
            Wrong("scaled after softmax", lambda a: masked_attention_variant(a, late=True),
                  AFTER_UDL),
            variant("renormalised after the softmax", masked_attention_variant,
                    _renormalised(), 0.5,
                    after="renormalised", empty="raw"),
            Wrong("masked with 0 instead of -inf",
                  lambda a: masked_attention_variant(a, fill="zero", empty="raw"), _ZERO_MASK),
            Wrong("mask transposed", lambda a: masked_attention_variant(a, mask="transposed"),
                  _MASK_T),
            Wrong("diagonal masked",
                  lambda a: masked_attention_variant(a, mask="strict", empty="raw"), _STRICT),
            Wrong("diagonal masked", lambda a: masked_attention_variant(a, mask="strict"),
                  _STRICT),
            Wrong("no mask", lambda a: masked_attention_variant(a, mask="none"),
                  "your result is plain scaled attention: every output sees every token, the "
                  "later ones too. Output n may only attend to inputs m <= n: set the scores of "
                  "the entries m > n to -inf before the softmax (masked_softmax_cols with "
                  "causal_mask(N))"),
            Wrong("no scaling", lambda a: masked_attention_variant(a, scale="none"),
                  SCALE_UDL["none"]),
            *udl_common(masked_attention_variant),
          ),
          label="m.attn"),
    Check(P["ps5_positional_encoding"], lambda a: ref.positional_encoding(a["D"], a["N"]),
          wrong=(
            variant("sin and cos swapped", positional_variant, _pe(
                  "your even rows hold cosines and your odd rows sines; Vaswani et al. put "
                  "sin(n / 10000^(2i/D)) in row 2i and cos(n / 10000^(2i/D)) in row 2i + 1"),
                    swap=True),
            *(variant("wrong frequency base", positional_variant, _pe(
                    f"your frequencies use the base {base:g} instead of 10000{also}: the angle "
                    "of rows 2i and 2i + 1 is n / 10000^(2i/D), so the wavelengths grow "
                    "geometrically from 2 pi (rows 0 and 1) towards 10000 x 2 pi"), base=base)
              for base, also in ((1000.0, ""), (100.0, _HALF_EXPONENT))),
            variant("pair index doubled", positional_variant, _pe(
                  "your loop runs over the even rows i = 0, 2, 4, ... (already the 2i of the "
                  "formula) and still uses the exponent 2i/D, so rows 2k and 2k + 1 get "
                  "10000^(4k/D). With i the even row index the exponent is i/D: "
                  "n / 10000^(i/D) for rows i and i + 1"), exponent="twice"),
            variant("row index as exponent", positional_variant, _pe(
                  "your cosine rows use their own index in the exponent, 10000^((2i+1)/D); "
                  "each pair of rows 2i and 2i + 1 shares one frequency, 1 / 10000^(2i/D) (the "
                  "i in the formula counts pairs, not rows)"), exponent="row"),
            variant("positions from 1", positional_variant, _pe(
                  "your positions start at 1; the first token is position 0, so column 0 is "
                  "sin(0) = 0 and cos(0) = 1 alternating: use np.arange(N)"), start=1),
            variant("sin and cos in halves", positional_variant, _pe(
                  "your sines fill the top half of the rows and your cosines the bottom half "
                  "(the tensor2tensor layout); Vaswani et al. interleave them: row 2i is "
                  "sin(n / 10000^(2i/D)) and row 2i + 1 is cos of the same angle (Pi[0::2] and "
                  "Pi[1::2])"), layout="halves"),
            variant("multiplied by the wavelength", positional_variant,
                    _pe("you multiplied the position by 10000^(2i/D); the angle is the "
                        "position divided by it, n / 10000^(2i/D), so higher rows turn more "
                        "slowly"), multiply=True),
            variant("notebook's D in the exponent", positional_variant, _pe(
                    "your exponent divides by 4, the notebook's D, whatever D the encoding is "
                    "made for; the angle of rows 2i and 2i + 1 is n / 10000^(2i/D) with the D "
                    "passed in: on {case} D = {D}"), fixed_D=4),
            Wrong("tokens in rows", lambda a: positional_variant(a, rows=True),
                  "your encoding is N x D = {N} x {D}, one row per position; in this course "
                  "tokens are the columns of X, so Pi is D x N = {D} x {N} with position n in "
                  "column n (X + Pi must add up)"),
          ),
          label="PE"),
    Check(P["ps5_equivariance"], lambda a: ref.equivariance_gaps(
          a["X"], a["perm"], *(a[k] for k in _UDL)),
          wrong=(
            Wrong("one side not permuted", partial(gaps_variant, compare="input only"),
                  "you compared f(X[:, perm]) with f(X): only one side was permuted, so even "
                  "plain attention shows a gap. Equivariance compares f(X[:, perm]) with "
                  "f(X)[:, perm]"),
            Wrong("inverse permutation", partial(gaps_variant, compare="inverse"),
                  "you permuted the output with the inverse permutation (np.argsort(perm)); "
                  "f(X[:, perm]) must be compared with f(X)[:, perm], the same perm on both "
                  "sides, and then plain attention's gap is 0"),
            Wrong("encoding permuted with the tokens", partial(gaps_variant, positions="moved"),
                  "your positional gap is 0 because you permuted X + Pi as a whole, so each "
                  "token took its encoding along. The encoding belongs to the positions: "
                  "permute X only, f(X) = Sa[X + Pi], and compare f(X[:, perm]) with "
                  "f(X)[:, perm]"),
            Wrong("notebook's D and N for the encoding",
                  partial(gaps_variant, sizes=(NOTEBOOK_D, NOTEBOOK_N)),
                  f"your encoding is positional_encoding(D, N) with the notebook's globals "
                  f"D = {NOTEBOOK_D} and N = {NOTEBOOK_N}, whatever X holds: on the hidden "
                  f"test's X of other sizes that {NOTEBOOK_D} x {NOTEBOOK_N} Pi does not fit "
                  "and X + Pi raises ValueError. Replace the globals D and N by X's own "
                  "sizes: D, N = X.shape, then positional_encoding(D, N)"),
            Wrong("Frobenius norm", partial(gaps_variant, size="frobenius"),
                  "your gaps match the Frobenius norm of the difference, np.linalg.norm(f(X[:, "
                  "perm]) - f(X)[:, perm]): the square root of the sum of every squared entry. "
                  "Equation (G) takes the largest entry in absolute value: "
                  "np.abs(f(X[:, perm]) - f(X)[:, perm]).max()"),
            Wrong("largest signed difference", partial(gaps_variant, size="signed"),
                  "your gaps match np.max(f(X[:, perm]) - f(X)[:, perm]), the largest signed "
                  "difference: without np.abs a gap whose largest deviation is negative is "
                  "under-reported (even below 0). Equation (G) takes the largest entry in "
                  "absolute value: np.abs(f(X[:, perm]) - f(X)[:, perm]).max()"),
          ),
          label="gaps"),
)

WRITTEN = by_id(
    Written("ps5_decoder_answer", """\

**Mark scheme (TAs only, 2 points)**: *(a) why a decoder needs the causal mask; (b) does a
causal layer know the order of the earlier tokens?*

- **1 point (a)**: without the mask output n sees token n + 1, the token it is trained to
  predict, so it learns to **copy the next token** (the training loss drops to almost zero);
  when generating, that token does not exist yet, so the model is useless there. Accept
  "it cheats / looks at the answer" if the reason (the target is visible) is given.
- **1 point (b)**: **no**: output n = sum over m <= n of a_mn v_m is a weighted sum over the
  *set* of earlier tokens, so permuting tokens 0, ..., n - 1 among themselves leaves output n
  unchanged; the mask only tells which tokens came before, not their order, which must come
  from the positional encoding. Also accept that stacked layers can infer positions only
  indirectly (e.g. by counting how many tokens are visible). Do not award "yes, because the
  mask is not equivariant" (the gap comes from the mask's shape, not from order information).
"""),
)

SAMPLES: dict[str, Sample] = {
    "aisha": Sample("complete and correct"),
    "ben": Sample("handed in the blank notebook", blank=True),
    "chen": Sample(
        "masks after the softmax; cosines in the even rows of the encoding",
        code={
            "ps5_masked_attention_code": """\
def masked_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    Q = omega_q @ X + beta_q
    K = omega_k @ X + beta_k
    V = omega_v @ X + beta_v
    attentions = softmax_cols(K.T @ Q / np.sqrt(Q.shape[0])) * causal_mask(X.shape[1])
    X_prime = V @ attentions
    return X_prime, attentions
""",
            "ps5_positional_encoding_code": """\
def positional_encoding(D, N):
    Pi = np.zeros((D, N))
    for n in range(N):
        for i in range(D // 2):
            Pi[2 * i, n] = np.cos(n / 10000 ** (2 * i / D))
            Pi[2 * i + 1, n] = np.sin(n / 10000 ** (2 * i / D))
    return Pi
""",
        },
        expect={"ps5_masked_attention": 0.0, "ps5_positional_encoding": 0.0},
    ),
    "dara": Sample(
        "-inf and a stable softmax: nan on a fully masked column",
        code={"ps5_masked_softmax_code": """\
def masked_softmax_cols(scores, mask):
    masked = np.where(mask, scores, -np.inf)
    e = np.exp(masked - masked.max(axis=0, keepdims=True))
    return e / e.sum(axis=0, keepdims=True)
"""},
        expect={"ps5_masked_softmax": 0.5},
    ),
    "emil": Sample(
        "the lower-triangular mask of a rows-convention tutorial",
        code={"ps5_causal_mask_code": """\
def causal_mask(N):
    return np.tril(np.ones((N, N), dtype=bool))
"""},
        expect={"ps5_causal_mask": 0.0},  # the cells using the mask: follow-through
    ),
}

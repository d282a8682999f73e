"""The grader's half of each hidden check: verdicts computed outside the kernel.

``judge`` rebuilds a check's inputs from the grading seed, computes the
reference answer, and compares the outputs the probe reported. A failing
answer is compared with known misconceptions so the feedback can name the
likely mistake; otherwise invariants (shape, finiteness) explain it.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from attnkit import reference as ref
from attnkit.cases import SPECS, Args, Case, equivariance_function
from attnkit.misconceptions import WRONG, Wrong


@dataclass(frozen=True)
class Check:
    """How one graded test cell is judged."""

    reference: Callable[[Args], Any]
    per_case: bool = False  # partial credit case by case (independent questions)
    statistical: Callable[[list[Any], Args], str | None] | None = None


@dataclass
class Verdict:
    check: str
    score: float
    points: float
    message: str
    passed: list[bool] = field(default_factory=list)
    misconception: str | None = None

    @property
    def full(self) -> bool:
        return self.score >= self.points


def decode(value: Any) -> Any:
    """Inverse of ``attnkit.probe.encode``; tolerant of hostile payloads."""
    if not isinstance(value, dict):
        raise ValueError("malformed probe record")
    if "items" in value:
        return [decode(v) for v in value["items"][:64]]
    shape = tuple(int(s) for s in value["shape"])
    raw = base64.b64decode(value["b64"], validate=True)
    if len(raw) != 8 * int(np.prod(shape, dtype=np.int64)):
        raise ValueError("probe record size does not match its shape")
    return np.frombuffer(raw, dtype="<f8").reshape(shape)


def same(got: Any, want: Any) -> bool:
    """Equal up to float tolerance; tuples and lists alike; size-1 axes ignored."""
    if isinstance(want, (list, tuple)):
        return (isinstance(got, (list, tuple)) and len(got) == len(want)
                and all(same(g, w) for g, w in zip(got, want, strict=True)))
    if isinstance(got, (list, tuple)):
        try:
            got = np.stack([np.asarray(g, dtype=float) for g in got])
        except ValueError:
            return False
    got, want = np.squeeze(np.asarray(got, dtype=float)), np.squeeze(np.asarray(want, dtype=float))
    if got.shape != want.shape:
        return False
    finite = np.abs(want[np.isfinite(want)])
    scale = 1.0 + (finite.max() if finite.size else 0.0)
    return bool(np.allclose(got, want, rtol=1e-4, atol=1e-6 * scale, equal_nan=True))


def shape_of(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)}" + (f" arrays of shape {np.shape(value[0])}" if value else "")
    return f"shape {np.shape(value)}"


def _shape(value: Any) -> tuple:
    """Shape with size-1 axes dropped; lists as a leading axis."""
    if isinstance(value, (list, tuple)):
        return (len(value), *(_shape(value[0]) if value else ()))
    return np.squeeze(np.asarray(value, dtype=float)).shape


def _quietly(fn: Callable[[Args], Any], args: Args) -> Any:
    with np.errstate(all="ignore"):
        return fn(args)


# ------------------------------------------------------------ statistical check


def init_statistics(got: list[Any], args: Args) -> str | None:
    """SelfAttention(dims): four distinct dims x dims matrices drawn from N(0, 1)."""
    dims = args["dims"]
    if not isinstance(got, list) or len(got) != 4:
        return "expected the four attributes W_q, W_k, W_v, W_o"
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
    return None


# ------------------------------------------------------------ the registry

_UDL = ("omega_v", "omega_q", "omega_k", "beta_v", "beta_q", "beta_k")


def _attention(scaled: bool) -> Callable[[Args], Any]:
    return lambda a: ref.self_attention(a["X"], *(a[k] for k in _UDL), scaled=scaled)


def _multihead(a: Args) -> Any:
    heads = [{k: a[f"{k}{h}"] for k in _UDL} for h in (1, 2)]
    return ref.multihead_self_attention(a["X"], heads, a["omega_c"])


DIMENSIONS = {"head_W_shape": (4, 2), "concat_shape": (3, 4), "W_O_shape": (4, 4)}

CHECKS: dict[str, Check] = {
    "ps1_softmax": Check(lambda a: ref.softmax(np.asarray(a["items_in"], dtype=float))),
    "ps1_self_attention_loop": Check(lambda a: ref.self_attention_loop(
        a["all_x"], *(a[k] for k in _UDL))),
    "ps1_softmax_cols": Check(lambda a: ref.softmax_cols(a["data_in"])),
    "ps1_self_attention": Check(_attention(scaled=False)),
    "ps1_scaled_attention": Check(_attention(scaled=True)),
    "ps1_equivariance": Check(lambda a: ref.is_equivariant(
        equivariance_function(a), a["X"], list(a["perm"]))),
    "ps2_single_head": Check(lambda a: _attention(scaled=True)(a)[0]),
    "ps2_multihead_scaled": Check(_multihead),
    "ps2_multihead_general": Check(lambda a: ref.multihead_self_attention(
        a["X"], a["heads"], a["omega_c"])),
    "ps3_softmax": Check(lambda a: ref.softmax_rows(a["X"])),
    "ps3_init": Check(lambda a: None, statistical=init_statistics),
    "ps3_forward": Check(lambda a: ref.layer_forward(
        a["x"], a["W_q"], a["W_k"], a["W_v"], a["W_o"])),
    "ps4_get_scores": Check(lambda a: ref.get_scores(a["matrix"], a["vector"])),
    "ps4_scale_scores": Check(lambda a: ref.scale_scores(a["scores"], a["n"])),
    "ps4_attention_weights": Check(lambda a: ref.softmax(a["scores"])),
    "ps4_context_vector": Check(lambda a: ref.get_context_vector(
        a["attention_weights"], a["hidden_encoder_matrix"])),
    "ps4_single_query": Check(lambda a: ref.single_query_attention(
        a["query_token"], a["tokens"], a["W_Q"], a["W_K"], a["W_V"])),
    "ps4_split_heads": Check(lambda a: ref.split_heads(a["W"], a["n"])),
    "ps4_dimensions": Check(lambda a: DIMENSIONS[a["name"]], per_case=True),
}


# ------------------------------------------------------------ verdicts


def _explain(check_id: str, cases: list[Case], got: list[Any], ok: list[bool],
             expected: list[Any]) -> tuple[str, float, str | None]:
    """Why a check failed: (hint, fraction of the points kept, misconception name)."""
    for wrong in WRONG.get(check_id, ()):
        if all(same(g, _quietly(wrong.fn, c.args)) for g, c in zip(got, cases, strict=True)):
            return wrong.hint, wrong.credit, wrong.name
    first = next(i for i, passed in enumerate(ok) if not passed)
    case, value, want = cases[first], got[first], expected[first]
    if all(p or c.large for p, c in zip(ok, cases, strict=True)) and not _finite(value):
        return (f"your result contains inf or nan on {case.name}: np.exp overflows there; "
                "subtract the maximum score before exponentiating", 0.5, "overflow")
    pinned = [p for p, c in zip(ok, cases, strict=True) if c.pinned]
    fresh = [p for p, c in zip(ok, cases, strict=True) if not c.pinned]
    if pinned and all(pinned) and not any(fresh):
        return (f"correct on the notebook's data but wrong on fresh inputs ({case.name}): "
                "the function must use its arguments (not notebook globals or hard-coded "
                "numbers) and work for any shape", 0.0, "hard-coded")
    if _shape(value) != _shape(want):
        return (f"on {case.name} your result has {shape_of(value)}, expected "
                f"{shape_of(want)}", 0.0, None)
    if not _finite(value):
        return f"your result contains inf or nan on {case.name}", 0.0, None
    return f"values differ from the reference on {case.name}", 0.0, None


def _finite(value: Any) -> bool:
    values = value if isinstance(value, (list, tuple)) else [value]
    return all(np.all(np.isfinite(np.asarray(v, dtype=float))) for v in values)


def judge(check_id: str, seed: int, records: list[dict], points: float) -> Verdict:
    """Score one graded cell from the probe records its execution displayed."""
    check, spec = CHECKS[check_id], SPECS[check_id]
    cases = spec.cases(seed)
    by_case: dict[int, dict] = {}
    for record in records:
        if record.get("check") == check_id and isinstance(record.get("case"), int):
            by_case.setdefault(record["case"], record)  # first report of a case counts
    if not by_case:
        return Verdict(check_id, 0.0, points, "the hidden check did not run: make sure the "
                       "cells above run without errors and define the required names")
    got: list[Any] = []
    for index, case in enumerate(cases):
        record = by_case.get(index)
        if record is None:
            return Verdict(check_id, 0.0, points, f"the check stopped before case '{case.name}' "
                           "(time limit or crash)")
        if "error" in record:
            return Verdict(check_id, 0.0, points,
                           f"your code raised {str(record['error'])[:300]} on {case.name}")
        try:
            got.append(decode(record.get("value")))
        except (ValueError, KeyError, TypeError) as error:
            return Verdict(check_id, 0.0, points, f"unreadable result on {case.name}: {error}")
    if check.statistical:
        for value, case in zip(got, cases, strict=True):
            problem = check.statistical(value, case.args)
            if problem:
                return Verdict(check_id, 0.0, points, f"{case.name}: {problem}")
        return Verdict(check_id, points, points, f"correct on all {len(cases)} cases",
                       [True] * len(cases))
    expected = [_quietly(check.reference, c.args) for c in cases]
    ok = [same(g, w) for g, w in zip(got, expected, strict=True)]
    if all(ok):
        return Verdict(check_id, points, points, f"correct on all {len(cases)} cases", ok)
    if check.per_case:
        wrong = [c.name for c, passed in zip(cases, ok, strict=True) if not passed]
        score = round(points * sum(ok) / len(ok), 2)
        return Verdict(check_id, score, points, "not yet right: " + ", ".join(wrong), ok)
    hint, credit, name = _explain(check_id, cases, got, ok, expected)
    return Verdict(check_id, round(points * credit, 2), points, hint, ok, name)


__all__ = ["CHECKS", "Check", "Verdict", "Wrong", "decode", "judge", "same"]

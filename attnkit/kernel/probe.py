"""Kernel half of a hidden check: run the student's code, report raw outputs.

A hidden test cell holds one thin call, ``probe("ps1_softmax", softmax)``. The
probe calls the student's code on every case of that check and displays what
came back under a private MIME type. It decides nothing: the verdict is
computed outside the kernel by ``attnkit.pipeline.preprocessors.JudgeProbes`` with the
cell's ``attnkit.judge`` check, which rebuilds the same inputs from the grading
seed and compares against the reference. Patching numpy, ``assert`` or this
module inside the kernel can only change what is reported, never what it is
compared with.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import io
import os
import secrets
import warnings
from typing import Any

import numpy as np

from attnkit.kernel.carry import HELPERS, origins, recording
from attnkit.kernel.cases import probes

MIME = "application/vnd.attnkit.probe+json"
SEED_ENV = "ATTNKIT_SEED"
MAX_ELEMENTS = 100_000


def encode(value: Any) -> dict:
    """A JSON-safe, bit-exact copy of a numeric result (arrays, lists, tuples, bools)."""
    if isinstance(value, (list, tuple)):
        return {"items": [encode(v) for v in value[:64]], "kind": type(value).__name__}
    array = np.asarray(value)
    if array.dtype == object or array.dtype.kind not in "biuf":
        raise TypeError(f"returned {type(value).__name__} with dtype {array.dtype}, "
                        "not a numeric array")
    if array.size > MAX_ELEMENTS:
        raise ValueError(f"returned an array of {array.size} elements")
    data = np.ascontiguousarray(array, dtype="<f8")
    return {"shape": list(array.shape), "dtype": str(array.dtype),
            "b64": base64.b64encode(data.tobytes()).decode("ascii")}


def overwritten(before: Any, after: Any) -> bool:
    """Whether an argument (an array, or a list, tuple or dict of them) came back changed."""
    if isinstance(before, np.ndarray):
        try:
            return not (isinstance(after, np.ndarray) and before.shape == after.shape
                        and np.array_equal(before, after, equal_nan=before.dtype.kind in "fc"))
        except TypeError:
            return False
    if isinstance(before, float):  # an entry of a list of scores
        return not (after == before or (before != before and after != after))
    if isinstance(before, (list, tuple)) and isinstance(after, (list, tuple)):
        return len(before) != len(after) or any(map(overwritten, before, after))
    if isinstance(before, dict) and isinstance(after, dict):
        return any(overwritten(v, after.get(k)) for k, v in before.items())
    return False


def run_case(spec_call, targets: tuple, args: dict, watch: bool = True) -> dict:
    """Call the student's code once; return its encoded output or its error and, with
    ``watch``, the names of the arguments it overwrote (``changed``: a caller reading them
    again would be hurt; the judge reads it on the student's own run only)."""
    captured = io.StringIO()
    state = np.random.get_state()
    given = copy.deepcopy(args)
    try:
        with contextlib.redirect_stdout(captured), contextlib.redirect_stderr(captured), \
                warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            out = {"value": encode(spec_call(targets, given))}
        changed = [k for k, v in args.items() if watch and overwritten(v, given.get(k))]
        return {**out, "changed": changed} if changed else out
    except Exception as error:  # noqa: BLE001 - any student error is a result
        return {"error": f"{type(error).__name__}: {error}"[:500]}
    finally:
        np.random.set_state(state)


def records(check: str, targets: tuple, seed: int) -> list[dict]:
    """One call's records: the outputs of ``targets`` on every case of ``check``."""
    spec = probes()[check]
    state = np.random.get_state()
    cases = spec.cases(seed)
    np.random.set_state(state)
    call = secrets.token_hex(8)  # ties this call's records together
    out = []
    for index, case in enumerate(cases):
        record = {"check": check, "seed": seed, "call": call, "case": index}
        if index == 0:
            record["cells"] = origins(targets)
        if check in HELPERS:
            record.update(carried_case(check, targets, case.args, seed, index))
        else:
            record.update(run_case(spec.call, targets, case.args))
        out.append(record)
    return out


def carried_case(check: str, targets: tuple, args: dict, seed: int, index: int) -> dict:
    """One case of a caller: its output with its helper calls recorded, then its output and
    calls again with every helper result nudged (``attnkit.kernel.carry``)."""
    spec = probes()[check]
    calls: list = []
    with recording(check, targets, calls, encode):
        result = run_case(spec.call, targets, args)
    nudge: list = []
    rng = np.random.default_rng([seed % 2**32, index, 37])
    with recording(check, targets, nudge, encode, rng):
        again = run_case(spec.call, targets, args, watch=False)
    out = {**result, "calls": calls, "nudged": {**again, "calls": nudge}}
    if "error" in result:  # the student's helpers gave it nothing to go on: working ones
        faked: list = []
        with recording(check, targets, faked, encode, seed=seed % 2**32 + index):
            out["substituted"] = {**run_case(spec.call, targets, args, watch=False),
                                  "calls": faked}
    return out


def probe(check: str, *targets: Any) -> None:
    """Run every case of ``check`` on the student's ``targets`` and display the outputs."""
    from IPython.display import display

    for record in records(check, targets, int(os.environ.get(SEED_ENV, "0"))):
        display({MIME: record}, raw=True)

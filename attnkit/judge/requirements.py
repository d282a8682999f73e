"""Requirements a cell states beyond the numbers: a shape, a dtype, a library, a generator.

A ``Requirement`` is checked at the cell that states it, on the probe's records as they
came back (shapes and dtypes intact, unlike the values ``same`` compares). When the maths
is right and a requirement is broken, the cell keeps ``credit`` of its points and the hint
says which requirement and where the notebook states it. Cases marked ``audit`` (for
example a call with scipy unavailable) test the requirement only, not the maths.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from attnkit.judge.misconceptions import Raised
from attnkit.kernel.cases import Case


def _never(case: Case) -> bool:
    return False


@dataclass(frozen=True)
class Requirement:
    """One stated requirement of a check.

    ``broken(got, cases, records)`` returns what is wrong (a fact, filled into ``hint``
    as ``{found}``) or None; ``got`` holds the decoded outputs with their own shapes (None
    where the values are wrong), ``records`` the probe's raw records (their ``value``
    carries the dtype).
    """

    name: str
    broken: Callable[[list[Any], list[Case], list[dict]], str | None]
    hint: str
    credit: float = 0.5
    audit: Callable[[Case], bool] = _never
    arguments: bool = False  # it judges what the call does to its arguments

    def message(self, found: str) -> str:
        return self.hint.replace("{found}", found)


def shape_is(expected: Callable[[Case], tuple], what: str
             ) -> Callable[[list[Any], list[Case], list[dict]], str | None]:
    """Every result (or every item of a list result) has the shape ``expected(case)``."""
    def broken(got: list[Any], cases: list[Case], records: list[dict]) -> str | None:
        for value, case in zip(got, cases, strict=True):
            if isinstance(value, Raised) or value is None:
                continue
            items = value if isinstance(value, list) else [value]
            want = expected(case)
            for item in items:
                if np.shape(item) != want:
                    return f"on {case.name} {what} {np.shape(item)}; expected {want}"
        return None
    return broken


def shapes_are(expected: Callable[[Case], tuple[tuple, ...]], what: tuple[str, ...]
               ) -> Callable[[list[Any], list[Case], list[dict]], str | None]:
    """Item i of every tuple result (``(weights, output)``) has the shape ``expected(case)[i]``."""
    def broken(got: list[Any], cases: list[Case], records: list[dict]) -> str | None:
        for value, case in zip(got, cases, strict=True):
            if not isinstance(value, list) or len(value) != len(what):
                continue
            found, want = tuple(np.shape(v) for v in value), expected(case)
            if found != want:
                shapes = " and ".join(f"{w} {f}" for w, f in zip(what, found, strict=True))
                return f"on {case.name} {shapes}; expected {' and '.join(map(str, want))}"
        return None
    return broken


def a_list(what: str) -> Callable[[list[Any], list[Case], list[dict]], str | None]:
    """Every result is a list (or a tuple) of items, not one array stacking them."""
    def broken(got: list[Any], cases: list[Case], records: list[dict]) -> str | None:
        for value, case in zip(got, cases, strict=True):
            if isinstance(value, np.ndarray):
                return f"on {case.name} {what} one array of shape {value.shape}, not a list"
        return None
    return broken


def ints(got: list[Any], cases: list[Case], records: list[dict]) -> str | None:
    """Every entry of every tuple result is an int (the dtypes the probe recorded)."""
    for value, case, record in zip(got, cases, records, strict=False):
        raw = record.get("value") if isinstance(record, dict) else None
        if value is None or isinstance(value, Raised) or not isinstance(raw, dict):
            continue
        items = raw["items"] if isinstance(raw.get("items"), list) else [raw]
        kinds = [np.dtype(str(i["dtype"])).kind if isinstance(i, dict) and "dtype" in i
                 else "?" for i in items]
        if all(k in "iu" for k in kinds):
            continue
        numbers = np.ravel(np.asarray(value, dtype=float))
        shown = ", ".join(str(int(x)) if k in "iu" else repr(float(x))
                          for x, k in zip(numbers, kinds, strict=False))
        return f"{case.name} = ({shown}) holds a float"
    return None


def dtype_is(kind: str, what: str) -> Callable[[list[Any], list[Case], list[dict]], str | None]:
    """Every result's dtype is of numpy kind ``kind`` ("b" for bool)."""
    def broken(got: list[Any], cases: list[Case], records: list[dict]) -> str | None:
        for record, case in zip(records, cases, strict=False):
            value = record.get("value") if isinstance(record, dict) else None
            if not isinstance(value, dict) or "dtype" not in value:
                continue
            try:
                found = np.dtype(str(value["dtype"]))
            except TypeError:
                return f"on {case.name} {what} an unreadable dtype"
            if found.kind != kind:
                return f"on {case.name} {what} dtype {found}"
        return None
    return broken


def raised_on_audit(word: str) -> Callable[[list[Any], list[Case], list[dict]], str | None]:
    """An audit case raised an error that names ``word`` (a library made unavailable)."""
    def broken(got: list[Any], cases: list[Case], records: list[dict]) -> str | None:
        for value, case in zip(got, cases, strict=True):
            if case.args.get("audit") and isinstance(value, Raised) and word in value.message:
                return f"with {word} unavailable it raised {value.message[:200]}"
        return None
    return broken


def audit_case(case: Case) -> bool:
    return bool(case.args.get("audit"))


def overwritten_on(cases: list[Case], records: list[dict]) -> tuple[Case, list[str]] | None:
    """The first case whose call overwrote arguments, and their names (the probe compares
    each argument after the call with a copy taken before)."""
    for record, case in zip(records, cases, strict=False):
        changed = record.get("changed") if isinstance(record, dict) else None
        if isinstance(changed, list) and changed:
            return case, [name for name in changed if isinstance(name, str)]
    return None


def arguments_kept(got: list[Any], cases: list[Case], records: list[dict]) -> str | None:
    """No call overwrote an array it was given."""
    if found := overwritten_on(cases, records):
        case, changed = found
        names = ", ".join(f"`{name}`" for name in changed[:4])
        return f"on {case.name} it overwrote the argument {names} it was given"
    return None


KEEPS_ARGUMENTS = Requirement(
    "arguments overwritten", arguments_kept,
    "the values are right, but {found}: a caller that reads its array again (as the "
    "attention cells read their scores) finds your result in it, and the notebook's "
    "introduction asks you to \"leave the arrays it is given as they were\". Work on a new "
    "array: z = z - z.max(...) or z = z / np.sqrt(n) rather than z -= ... or z /= ..., and "
    "no out= or [...] = on an argument (z = np.asarray(x) or z = x is the same array, "
    "np.array(x) a copy): you keep half the points", arguments=True)


def broken_requirements(require: tuple[Requirement, ...], got: list[Any], cases: list[Case],
                        records: list[dict]) -> list[tuple[Requirement, str]]:
    """The requirements these outputs break, with what was found (``got`` holds None where
    the values are wrong: a shape is judged on right values only)."""
    out = []
    for requirement in require:
        try:
            found = requirement.broken(got, cases, records)
        except Exception:  # noqa: BLE001 - malformed output: the values will say so
            found = None
        if found:
            out.append((requirement, found))
    return out


def unmet(broken: list[tuple[Requirement, str]]) -> tuple[str, float, str]:
    """Right maths, broken requirements: (every requirement's hint, the lowest credit,
    their names)."""
    return ("; ".join(r.message(found) for r, found in broken),
            min(r.credit for r, _ in broken), "; ".join(r.name for r, _ in broken))

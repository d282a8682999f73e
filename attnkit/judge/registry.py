"""Every assignment's definitions, found by grade id: the ``CHECKS``, ``WRITTEN`` and
``SAMPLES`` of each module of ``attnkit.judge`` (one module per assignment, named after it)."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache
from types import ModuleType

from attnkit.judge.check import Check, Sample, Written
from attnkit.judge.misconceptions import GENERIC


@cache
def assignments() -> dict[str, ModuleType]:
    """Assignment name -> its judge module (a module that defines ``CHECKS``)."""
    import attnkit.judge as package

    found = {}
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        if hasattr(module, "CHECKS"):
            found[info.name] = module
    return found


def _merged(attribute: str) -> dict:
    out: dict = {}
    for name, module in assignments().items():
        for grade_id, item in getattr(module, attribute, {}).items():
            if grade_id in out:
                raise ValueError(f"the grade id {grade_id!r} is defined twice ({name})")
            out[grade_id] = item
    return out


@cache
def checks() -> dict[str, Check]:
    """Grade id of an autograded test cell -> its check."""
    return _merged("CHECKS")


@cache
def written() -> dict[str, Written]:
    """Grade id of a manually graded answer -> its mark scheme."""
    return _merged("WRITTEN")


def reset() -> None:
    """Back to the kit's own checks and mark schemes, before a course's config (which may
    replace some in ``checks()``) runs again in this process."""
    checks.cache_clear()
    written.cache_clear()


def mark_schemes() -> dict[str, str]:
    return {grade_id: w.mark_scheme for grade_id, w in written().items()}


def assignment_of(grade_id: str) -> str:
    """The assignment whose module defines the check ``grade_id``."""
    return next(name for name, module in assignments().items()
                if grade_id in module.CHECKS)


def samples() -> dict[str, dict[str, Sample]]:
    """Assignment -> the demo class's submissions (student -> ``Sample``)."""
    return {name: dict(module.SAMPLES) for name, module in assignments().items()
            if getattr(module, "SAMPLES", None)}


def names() -> set[str]:
    """Every misconception the kit can name (variants, requirements, generic categories)."""
    return ({w.name for check in checks().values() for w in check.wrong}
            | {r.name for check in checks().values() for r in check.requirements} | set(GENERIC))

"""The objects an assignment's module defines: a ``Check`` per autograded test cell, a
``Written`` per manually graded answer, a ``Sample`` per demo student."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from attnkit.judge.misconceptions import Wrong
from attnkit.judge.requirements import KEEPS_ARGUMENTS, Requirement
from attnkit.kernel.cases import Args, Case, Probe


@dataclass(frozen=True)
class Check:
    """Everything about one autograded test cell, found by the cell's grade id.

    ``probe`` (kernel side) gives the inputs and how the student's code is called;
    ``reference(args)`` is the right answer on one case; ``wrong`` the known
    misconceptions, tried in order when an answer fails. ``per_case``: partial credit
    case by case (independent questions). ``statistical(output, args)`` replaces the
    reference for random outputs: it returns what is wrong, or None. An answer is right
    when it is within ``rtol`` plus ``atol`` x (1 + the largest |expected| entry).
    ``label`` heads the check's column in the kill matrix; ``require`` the requirements
    the cell states beyond the values (shapes, dtypes, libraries), checked on the records.
    """

    probe: Probe
    reference: Callable[[Args], Any]
    wrong: tuple[Wrong, ...] = ()
    per_case: bool = False
    statistical: Callable[[Any, Args], str | None] | None = None
    rtol: float = 1e-4
    atol: float = 1e-6
    label: str = ""
    require: tuple[Requirement, ...] = ()

    @property
    def id(self) -> str:
        return self.probe.id

    @property
    def requirements(self) -> tuple[Requirement, ...]:
        """``require`` and the one every function meets: its arguments left as they were
        (unless the cell states its own requirement on them)."""
        if any(r.arguments for r in self.require):
            return self.require
        return (*self.require, KEEPS_ARGUMENTS)

    def cases(self, seed: int) -> list[Case]:
        return self.probe.cases(seed)


@dataclass(frozen=True)
class Written:
    """A manually graded answer cell: the mark scheme TAs see under it in formgrader."""

    id: str
    mark_scheme: str


@dataclass(frozen=True)
class Sample:
    """A demo student: the release with some solution cells replaced by ``code``."""

    about: str
    code: dict[str, str] = field(default_factory=dict)  # solution grade_id -> student code
    expect: dict[str, float] = field(default_factory=dict)  # test grade_id -> score fraction
    blank: bool = False  # hand in the release untouched


T = TypeVar("T", Check, Written)


def by_id(*items: T) -> dict[str, T]:
    """An assignment's ``CHECKS`` or ``WRITTEN``: its objects keyed by grade id."""
    out: dict[str, T] = {}
    for item in items:
        if item.id in out:
            raise ValueError(f"two definitions for the grade id {item.id!r}")
        out[item.id] = item
    return out

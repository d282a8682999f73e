"""The sandboxed kernel's own cap on what one cell prints (copied into the sandbox beside
``attnkit.probe``; never imported by the grader).

The rest of a huge print is dropped here, inside the sandbox, with a note the student reads in
their feedback, so it never travels to the grader. The student's code can undo this cap (it
runs in the same process); the grader's limit on message size (``attnkit.pipeline.budgets``)
is the one it cannot.
"""

from __future__ import annotations

import os

from ipykernel.iostream import OutStream

LIMIT_ENV = "ATTNKIT_OUTPUT_LIMIT"  # characters per cell and stream; unset or 0: no cap
# (attnkit.sandbox.OUTPUT_LIMIT_ENV: this module cannot import the sandbox's)
CUT = ("\n[output cut: this cell printed more than {limit:,} characters to {name}; "
       "the rest was not kept]\n")


class CappedOutStream(OutStream):
    """ipykernel's stdout or stderr, keeping at most ``$ATTNKIT_OUTPUT_LIMIT`` characters of
    each cell's output and noting once where it cut."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._limit = int(os.environ.get(LIMIT_ENV) or 0)
        self._cell: object = None  # the execute request being answered
        self._left = self._limit

    def write(self, string: str) -> int | None:  # type: ignore[override]
        if not self._limit or not isinstance(string, str):
            return super().write(string)
        cell = self.parent_header.get("msg_id")
        if cell != self._cell:
            self._cell, self._left = cell, self._limit
        if self._left < 0:  # already cut in this cell
            return len(string)
        if len(string) <= self._left:
            self._left -= len(string)
            return super().write(string)
        super().write(string[:self._left] + CUT.format(limit=self._limit, name=self.name))
        self._left = -1
        return len(string)

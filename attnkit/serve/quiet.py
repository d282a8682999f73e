"""Warnings a student can cause, kept to a few lines a minute: every folder planted in inbound
under another student's name is worth a line to the instructor, but not fifty thousand."""

from __future__ import annotations

import logging
import time


class Throttled:
    """At most ``lines`` warnings per ``period`` seconds; the rest are counted and summed up
    in one line when the next period opens."""

    def __init__(self, log: logging.Logger, lines: int = 20, period: float = 60.0) -> None:
        self.log, self.lines, self.period = log, lines, period
        self._opened, self._said, self._held = 0.0, 0, 0

    def warning(self, message: str, *args: object) -> None:
        now = time.monotonic()
        if now - self._opened >= self.period:
            if self._held:
                self.log.warning("%d more warnings like the above in the last %g s, not shown",
                                 self._held, self.period)
            self._opened, self._said, self._held = now, 0, 0
        if self._said < self.lines:
            self._said += 1
            self.log.warning(message, *args)
        else:
            self._held += 1

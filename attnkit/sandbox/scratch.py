"""The kernel's working dir, ``/home/student``: a size-limited tmpfs in the sandbox's own
mount namespace, filled from a read-only copy of the submission as the kernel starts.

A writable bind of a host folder would let a kernel write until the grader's disk is full:
RLIMIT_FSIZE bounds one file, not how many. The tmpfs goes with the sandbox; its pages are
memory, so its size (``SandboxProvisioner.scratch_limit``) is kept moderate.
"""

from __future__ import annotations

import shutil

WORK_DIR = "/home/student"  # the kernel's cwd and $HOME, inside the sandbox
SEED_DIR = "/opt/submission"  # the box's copy of the kernel's cwd, read-only, inside the sandbox


def scratch_plan(copy: str, size: int) -> list[list]:
    """Mount steps: the host copy ``copy`` read-only at SEED_DIR, an empty tmpfs of ``size``
    bytes at WORK_DIR (the forkserver gives it to the kernel's uid, as bubblewrap does)."""
    return [["ro", copy, SEED_DIR], ["tmpfs", WORK_DIR, size]]


def seeded(cmd: list[str]) -> list[str]:
    """``cmd`` run, inside bubblewrap and in WORK_DIR, once the copy is there (before the
    rlimits, which ``cmd`` sets: a data file may exceed RLIMIT_FSIZE). The forkserver copies
    it itself (the request's ``seed``)."""
    sh = shutil.which("sh") or "/bin/sh"
    return [sh, "-c", f'cp -a {SEED_DIR}/. . && exec "$@"', "sh", *cmd]

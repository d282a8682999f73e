"""This account's private (0700) temporary folders: the kernels' boxes, the warm-kernel
servers' sockets, the ipc dirs and Dask's scratch.

Each is named after the process that made it, so one left behind by a process killed
outright is recognised and removed by the next (``sweep_stale``); and a folder is trusted
only once it is known to be ours and closed to everyone else (``is_private_dir``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import tempfile
from pathlib import Path

TEMP_PREFIXES = ("attnkit-k-", "attnkit-ks-", "attnkit-ipc-", "attnkit-dask-")


def is_private_dir(path: Path) -> bool:
    """Whether ``path`` is a directory (not a link) of ours that no one else may enter."""
    info = path.lstat()
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid() and not info.st_mode & 0o077


def ensure_private_dir(path: Path) -> None:
    """Create ``path`` as a 0700 directory of ours, refusing one planted by someone else."""
    path.mkdir(mode=0o700, parents=True, exist_ok=True)
    if not is_private_dir(path):
        raise RuntimeError(f"{path} must be a directory owned by uid {os.geteuid()}, mode 0700")


def private_dir(prefix: str) -> Path:
    """A private (0700) temporary folder named after this process, so that one left behind
    by a process killed outright is removed by the next (``sweep_stale``)."""
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-"))


def sweep_stale() -> None:
    """Remove this account's ``private_dir`` folders whose process has gone."""
    with os.scandir(tempfile.gettempdir()) as entries:
        for entry in entries:
            prefix = next((p for p in TEMP_PREFIXES if entry.name.startswith(p)), "")
            pid = entry.name[len(prefix):].split("-", 1)[0]
            if not prefix or not pid.isdigit() or _alive(int(pid)):
                continue
            with contextlib.suppress(OSError):
                info = entry.stat(follow_symlinks=False)
                if info.st_uid == os.geteuid() and stat.S_ISDIR(info.st_mode):
                    shutil.rmtree(entry.path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another account's
        return True
    return True

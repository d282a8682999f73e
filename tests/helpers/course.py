"""The course directory, the venv's commands and the grading account the tests share."""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
ENV = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"}


def copy_course(dest: Path) -> Path:
    """The course's committed files (no gradebook, no submissions) under ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    for name in ("source", "release"):
        shutil.copytree(ROOT / name, dest / name)
    shutil.copy(ROOT / "nbgrader_config.py", dest)
    return dest


def run(args: list[str], cwd: Path, check: bool = True, **kw) -> subprocess.CompletedProcess:
    """A command from the venv, in ``cwd``, output captured."""
    result = subprocess.run(args, cwd=cwd, env={**ENV, **kw.pop("env", {})}, text=True,
                            capture_output=True, **kw)
    if check and result.returncode != 0:
        raise AssertionError(f"{' '.join(args)} failed ({result.returncode}):\n"
                             f"{result.stdout[-3000:]}\n{first_error(result.stderr)}"
                             f"{result.stderr[-3000:]}")
    return result


def first_error(log: str) -> str:
    """The first traceback or ERROR line of ``log`` and what follows it, when the tail the
    message keeps would cut it off: a failing command's cause is often far above its end."""
    starts = [i for i in (log.find("Traceback"), log.find("| ERROR]")) if i >= 0]
    start = min(starts, default=-1)
    if start < 0 or start >= len(log) - 3000:
        return ""
    return f"{log[start:start + 4000]}\n[...]\n"


INSTRUCTOR = "attnkit-instructor"


@dataclass(frozen=True)
class Grader:
    """Who runs grading commands: as root, a real local user with no privileges (as an
    instructor on a JupyterHub is); otherwise whoever runs the tests."""

    account: pwd.struct_passwd
    prefix: list[str]  # a command runs as the grader when prefixed with this

    def run(self, args: list[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess:
        env = {"HOME": self.account.pw_dir, "USER": self.account.pw_name}
        return run([*self.prefix, *args], cwd, check=check, env=env)

    def workspace(self, name: str) -> Path:
        """A fresh directory the grader owns (pytest's own are private to root)."""
        path = Path(tempfile.mkdtemp(prefix=f"attnkit-{name}-", dir="/var/tmp"))
        os.chown(path, self.account.pw_uid, self.account.pw_gid)
        return path

    def own(self, path: Path) -> None:
        """Hand ``path`` and everything under it to the grader."""
        for item in [path, *path.rglob("*")]:
            os.chown(item, self.account.pw_uid, self.account.pw_gid, follow_symlinks=False)


def terminate(procs: list, timeout: float = 5) -> None:
    """SIGTERM each psutil process, then SIGKILL whatever is left after ``timeout``."""
    import psutil

    for proc in procs:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.terminate()
    _, alive = psutil.wait_procs(procs, timeout=timeout)
    for proc in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.kill()

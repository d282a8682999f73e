"""The sandbox's guarantees hold for an instructor who is not root, as on a JupyterHub.

``tests/test_sandbox.py`` (both kernel paths) and ``tests/test_kernel_server.py`` run again,
unchanged, as a real local user with no privileges; their tests marked ``root`` (they switch
users themselves) are left out.
The hostile suite always grades as that user (``tests/test_hostile.py``)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.course import Grader

REPO = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.slow, pytest.mark.kernel, pytest.mark.root]


def test_sandbox_suite_passes_as_an_ordinary_instructor(grader: Grader,
                                                        capsys: pytest.CaptureFixture) -> None:
    assert grader.prefix, "switches to an ordinary user: run the suite as root (`make test`)"
    home, name = Path(grader.account.pw_dir), grader.account.pw_name
    cmd = [*grader.prefix, sys.executable, "-m", "pytest", "-q", "-rP", "-p", "no:cacheprovider",
           "-m", "not root", "--basetemp", str(home / "pytest-sandbox"), "tests/test_sandbox.py",
           "tests/test_kernel_server.py"]
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(home),
           "USER": name, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
    run = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        stdout, stderr = run.communicate(timeout=800)
    finally:  # on a timeout too: no process of the instructor's run outlives the test
        with contextlib.suppress(ProcessLookupError):
            os.killpg(run.pid, signal.SIGKILL)
    lines = stdout.splitlines()
    with capsys.disabled():
        print(f"\n--- tests/test_sandbox.py and tests/test_kernel_server.py as {name} "
              f"(uid {grader.account.pw_uid}) ---")
        print(lines[-1] if lines else stderr[-2000:])
    assert run.returncode == 0, stdout[-6000:] + stderr[-3000:]
    assert " passed" in lines[-1] and "skipped" not in lines[-1] and "failed" not in lines[-1]

"""The sandbox's guarantees hold for an instructor who is not root, as on a JupyterHub.

The sandbox suite (both kernel paths) and the hostile suite (stock ``nbgrader autograde``
and ``attnkit autograde``) run again, unchanged, as a real local user with no privileges.
Left out of that run: tests marked ``root`` (they switch users themselves) and ``browser``
(page rendering, which does not depend on who grades)."""

from __future__ import annotations

import os
import pwd
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
INSTRUCTOR = "attnkit-instructor"
pytestmark = [pytest.mark.slow, pytest.mark.kernel, pytest.mark.root]


@pytest.fixture(scope="module")
def instructor() -> Iterator[pwd.struct_passwd]:
    """A real local user with a home and no privileges (created here when missing)."""
    assert os.geteuid() == 0, "creates a local user: run the suite as root (`make test` does)"
    created = subprocess.run(["id", "-u", INSTRUCTOR], capture_output=True).returncode != 0
    if created:
        subprocess.run(["useradd", "--create-home", "--user-group", "--shell", "/bin/bash",
                        INSTRUCTOR], check=True)
    try:
        yield pwd.getpwnam(INSTRUCTOR)
    finally:
        if created:
            subprocess.run(["userdel", "--remove", INSTRUCTOR], capture_output=True)


@pytest.mark.parametrize("module", ["test_sandbox.py", "test_hostile.py"])
def test_suite_passes_as_an_ordinary_instructor(module: str, instructor: pwd.struct_passwd,
                                                capsys: pytest.CaptureFixture) -> None:
    home = Path(instructor.pw_dir)
    cmd = ["setpriv", f"--reuid={instructor.pw_uid}", f"--regid={instructor.pw_gid}",
           "--init-groups", "--", sys.executable, "-m", "pytest", "-q", "-rP",
           "-p", "no:cacheprovider", "-m", "not root and not browser",
           "--basetemp", str(home / f"pytest-{module}"), f"tests/{module}"]
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(home),
           "USER": INSTRUCTOR, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
    result = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True,
                            timeout=1800)
    lines = result.stdout.splitlines()
    with capsys.disabled():  # the hostile table and the summary, as the instructor saw them
        print(f"\n--- tests/{module} as {INSTRUCTOR} (uid {instructor.pw_uid}) ---")
        print("\n".join(line for line in lines if "[ok]" in line or "[FAIL]" in line
                        or line.startswith(("submission", "kernel start"))))
        print(lines[-1] if lines else result.stderr[-2000:])
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert " passed" in lines[-1] and "skipped" not in lines[-1] and "failed" not in lines[-1]

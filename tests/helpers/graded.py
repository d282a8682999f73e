"""ps1 graded by stock ``nbgrader autograde`` for three sample students and two broken
hand-ins: what the report, exports and cluster tests read."""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

from attnkit.samples import SAMPLES, write_submissions
from helpers.course import copy_course, run

ASSIGNMENT = "ps1_self_attention"
NOTEBOOK = f"{ASSIGNMENT}.ipynb"
GRADED = ("aisha", "chen", "dara")  # sample students nbgrader really grades
BROKEN_JSON, RENAMED = "fay", "gus"  # submissions that cannot grade


def build_graded(root: Path) -> Path:
    """A course with ps1 autograded (plain kernel) for GRADED and the broken submissions.

    Built once per session (the ``graded_ps1`` fixture) and shared: copy it (``copy_graded``)
    before changing it.
    """
    copy_course(root)
    with (root / "nbgrader_config.py").open("a") as config:
        # graded without the kit's intake, so two submissions really fail to grade:
        # what the report's failure section and the exports' "never a 0" are about
        config.write("\nc.Autograde.pre_convert_hook = None\n")
    run(["nbgrader", "generate_assignment", ASSIGNMENT, "--force"], root)
    write_submissions(root, [ASSIGNMENT])
    for student in set(SAMPLES[ASSIGNMENT]) - set(GRADED):
        shutil.rmtree(root / "submitted" / student)
    released = (root / "release" / ASSIGNMENT / NOTEBOOK).read_text()
    broken = root / "submitted" / BROKEN_JSON / ASSIGNMENT
    broken.mkdir(parents=True)
    (broken / NOTEBOOK).write_text(released[: len(released) // 2])  # cut off mid-file
    renamed = root / "submitted" / RENAMED / ASSIGNMENT
    renamed.mkdir(parents=True)
    (renamed / f"{ASSIGNMENT} (1).ipynb").write_text(released)
    # nbgrader exits non-zero because two submissions fail: that is the point
    result = run(["nbgrader", "autograde", ASSIGNMENT], root, check=False,
                 env={"ATTNKIT_KERNEL": "python3"})
    for student in GRADED:
        assert (root / "autograded" / student / ASSIGNMENT / NOTEBOOK).is_file(), (
            result.stdout[-3000:] + result.stderr[-3000:])
    return root


def copy_graded(source: Path, dest: Path) -> Path:
    shutil.copytree(source, dest, symlinks=True)
    for path in (dest / "autograded").rglob("*"):
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
    return dest

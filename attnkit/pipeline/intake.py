"""Submission intake: make every submission gradable before nbgrader sees it.

Stock ``nbgrader autograde`` gives up on a notebook that is not valid JSON,
not UTF-8, empty or misnamed, and records no grade for it. Intake repairs
what it can (decodes other encodings, upgrades old nbformat versions, finds
a renamed notebook by its cell ids) and otherwise substitutes the blank
release, so the student still gets a grade row and feedback that says why.
The student's original bytes are kept in ``.attnkit-original/``. Anything in the
submission that is not a regular file or folder (a symbolic link to the gradebook or the
master notebook, a fifo, a device) is removed before nbgrader copies the folder, since
nbgrader's copy follows links.

``pre_convert_hook`` runs the same intake inside stock ``nbgrader autograde`` (and so
formgrader's Autograde button), switched on in ``nbgrader_config.py``.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import nbformat

ORIGINALS = ".attnkit-original"
NOTE = "attnkit_intake_note"


@dataclass(frozen=True)
class Repair:
    notebook: str
    reason: str


def _grade_ids(nb: nbformat.NotebookNode) -> set[str]:
    return {c.metadata.get("nbgrader", {}).get("grade_id") for c in nb.cells} - {None}


def _read(raw: bytes) -> tuple[nbformat.NotebookNode | None, str | None]:
    """Parse notebook bytes; returns (notebook, problem) with at most one of them None."""
    if not raw.strip():
        return None, "the file is empty"
    try:
        text, problem = raw.decode("utf-8"), None
    except UnicodeDecodeError as error:
        text = raw.decode("latin-1")
        problem = f"the file is not UTF-8 text ({error.reason} at byte {error.start}); " \
                  "it was read as Latin-1"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return None, f"the file is not a valid notebook: JSON error at line {error.lineno}, " \
                     f"column {error.colno}: {error.msg}"
    try:
        nb = nbformat.reads(json.dumps(data), as_version=nbformat.NO_CONVERT)
        version = nb.get("nbformat", 4)
        nb = nbformat.convert(nb, 4)
        nbformat.validate(nb)
    except Exception as error:  # noqa: BLE001 - any malformed notebook is a problem to report
        return None, f"the file is not a valid notebook: {str(error).splitlines()[0][:200]}"
    if version < 4:
        problem = (problem + "; " if problem else "") + \
            f"it used notebook format {version} and was upgraded to format 4"
    return nb, problem


def _with_note(nb: nbformat.NotebookNode, reason: str) -> nbformat.NotebookNode:
    note = nbformat.v4.new_markdown_cell(
        f"**Grading note.** {reason}", metadata={NOTE: True})
    nb.cells.insert(0, note)
    return nb


def _kind(mode: int) -> str:
    return ("a symbolic link" if stat.S_ISLNK(mode) else "a fifo" if stat.S_ISFIFO(mode)
            else "a socket" if stat.S_ISSOCK(mode) else "a device file")


def remove_special_files(folder: Path) -> list[str]:
    """Delete every entry under ``folder`` that is not a regular file or a real directory
    (never following a link); returns one sentence per entry removed."""
    removed: list[str] = []
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        removed.append(f"the submission folder itself was {_kind(folder.lstat().st_mode)}")
        folder.unlink()
        folder.mkdir()
        return removed
    if not folder.exists():
        return removed
    for top, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            path = Path(top) / name
            mode = path.lstat().st_mode
            if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
                continue
            target = f" to {os.readlink(path)}" if stat.S_ISLNK(mode) else ""
            removed.append(f"{path.relative_to(folder)} was {_kind(mode)}{target}, not a file: "
                           "it was removed unread")
            path.unlink()  # os.walk lists a linked folder but never enters it
    return removed


def prepare(root: Path, assignment: str, student: str) -> list[Repair]:
    """Repair one student's submission in place; returns what was repaired and why."""
    folder = root / "submitted" / student / assignment
    removed = remove_special_files(folder)
    repairs: list[Repair] = []
    for release in sorted((root / "release" / assignment).glob("*.ipynb")):
        target = folder / release.name
        expected = _grade_ids(nbformat.read(release, as_version=4))
        reason, nb = None, None
        if not target.exists():
            renamed = _find_renamed(folder, expected, exclude=release.name)
            if renamed is None:
                reason = f"no notebook named {release.name} was submitted"
            else:
                nb, problem = _read(renamed.read_bytes())
                reason = f"the notebook was submitted as {renamed.name} instead of " \
                         f"{release.name}" + (f"; {problem}" if problem else "")
                _keep_original(folder, renamed)
        else:
            nb, reason = _read(target.read_bytes())
            if reason:
                _keep_original(folder, target)
        if removed:
            reason = "; ".join([*removed, *([reason] if reason else [])])
        if reason is None:
            continue
        if nb is None:
            reason += ". It was graded as the blank release notebook."
            nb = nbformat.read(release, as_version=4)
        nbformat.write(_with_note(nb, reason), target)
        repairs.append(Repair(release.name, reason))
    return repairs


def _find_renamed(folder: Path, expected: set[str], exclude: str) -> Path | None:
    """The one submitted notebook that carries this notebook's cell ids."""
    for path in sorted(folder.glob("*.ipynb")) if folder.is_dir() else []:
        nb, _ = _read(path.read_bytes())
        if path.name != exclude and nb is not None and _grade_ids(nb) & expected:
            return path
    return None


def _keep_original(folder: Path, path: Path) -> None:
    keep = folder / ORIGINALS
    keep.mkdir(exist_ok=True)
    if not (keep / path.name).exists():
        shutil.copy2(path, keep / path.name)
    if path.suffix == ".ipynb" and path.parent == folder:
        path.unlink()


def pre_convert_hook(root: str | Path, assignment: str, student: str,
                     notebooks: Sequence[str]) -> None:
    """Intake inside stock ``nbgrader autograde``: ``c.Autograde.pre_convert_hook`` (with
    ``root`` bound), called once per submission before nbgrader copies its folder.

    nbgrader passes its own list of the submission's notebook paths, globbed before the hook,
    and converts what that list holds afterwards; intake may rename or replace notebooks, so
    the list is refreshed in place. ``tests/test_intake.py`` checks that nbgrader still hands
    the hook that very list (``BaseConverter.run_pre_convert_hook``)."""
    folders = {Path(path).parent for path in notebooks}
    for folder in folders:
        repairs = prepare(Path(root), folder.name, folder.parent.name)
        for repair in repairs:
            print(f"attnkit intake {folder.parent.name}/{folder.name}/{repair.notebook}: "
                  f"{repair.reason}")
    if isinstance(notebooks, list):
        notebooks[:] = sorted(str(p) for folder in folders for p in folder.glob("*.ipynb"))

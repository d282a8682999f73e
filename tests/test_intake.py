"""Intake on its own (no kernel): planted links and special files, and the hook through which
stock ``nbgrader autograde`` runs it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbformat
from helpers.course import ROOT
from nbgrader.converters import Autograde
from nbgrader.coursedir import CourseDirectory

from attnkit.pipeline import intake

A = "ps1_self_attention"
NB = f"{A}.ipynb"


def course(tmp_path: Path) -> Path:
    root = tmp_path / "course"
    shutil.copytree(ROOT / "release" / A, root / "release" / A)
    shutil.copytree(ROOT / "source" / A, root / "source" / A)
    (root / "gradebook.db").write_text("secret grades")
    return root


def test_planted_links_and_fifos_are_removed_before_nbgrader_copies(tmp_path: Path) -> None:
    """The attack: nbgrader's copy follows links, so the kernel read the gradebook."""
    root = course(tmp_path)
    folder = root / "submitted" / "s1" / A
    folder.mkdir(parents=True)
    shutil.copy(root / "release" / A / NB, folder / NB)
    os.symlink("../../../gradebook.db", folder / "db")
    (folder / "data").mkdir()
    os.symlink(root / "source", folder / "data" / "src")
    os.mkfifo(folder / "pipe")
    repairs = intake.prepare(root, A, "s1")
    assert sorted(p.name for p in folder.rglob("*")) == ["data", NB]
    (note,) = repairs
    assert "db was a symbolic link to ../../../gradebook.db" in note.reason
    assert "pipe was a fifo" in note.reason and "data/src was a symbolic link" in note.reason
    first = nbformat.read(folder / NB, as_version=4).cells[0]
    assert first.metadata.get(intake.NOTE) and "symbolic link" in first.source


def test_a_notebook_that_links_to_the_master_is_graded_as_the_blank_release(
        tmp_path: Path) -> None:
    root = course(tmp_path)
    folder = root / "submitted" / "s1" / A
    folder.mkdir(parents=True)
    os.symlink(root / "source" / A / NB, folder / NB)
    (note,) = intake.prepare(root, A, "s1")
    assert not (folder / NB).is_symlink()
    assert "was a symbolic link" in note.reason and "blank release" in note.reason
    submitted = nbformat.read(folder / NB, as_version=4)
    assert "BEGIN SOLUTION" not in nbformat.writes(submitted)


def test_a_linked_submission_folder_is_removed(tmp_path: Path) -> None:
    root = course(tmp_path)
    (root / "submitted" / "s1").mkdir(parents=True)
    os.symlink(root / "source" / A, root / "submitted" / "s1" / A)
    (note,) = intake.prepare(root, A, "s1")
    assert "submission folder itself was a symbolic link" in note.reason
    assert (root / "source" / A / NB).exists()  # the link's target is untouched


def test_nbgrader_hands_the_hook_its_own_list_of_notebooks(tmp_path: Path) -> None:
    """Canary for ``intake.pre_convert_hook``: it refreshes nbgrader's list in place, which
    works only while ``BaseConverter.run_pre_convert_hook`` passes ``self.notebooks`` itself."""
    seen = []
    converter = Autograde(coursedir=CourseDirectory(root=str(tmp_path)),
                          pre_convert_hook=lambda **kw: seen.append(kw["notebooks"]))
    converter.notebooks = ["a.ipynb"]
    converter.run_pre_convert_hook()
    assert seen and seen[0] is converter.notebooks


def test_the_hook_repairs_and_refreshes_the_list(tmp_path: Path) -> None:
    root = course(tmp_path)
    folder = root / "submitted" / "s1" / A
    folder.mkdir(parents=True)
    shutil.copy(root / "release" / A / NB, folder / "ps1 (1).ipynb")
    notebooks = [str(folder / "ps1 (1).ipynb")]
    intake.pre_convert_hook(root, assignment=A, student="*", notebooks=notebooks)
    assert notebooks == [str(folder / NB)]

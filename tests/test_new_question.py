"""A new question touches four places: shown by adding one to ps5 in a scratch copy of the kit.

The question, ``visible_counts(mask)`` (how many inputs each output may attend to), is added by
editing only the master notebook (a solution cell and a test cell), the kernel module (one
``Probe``), the judge module (one ``Check``) and the catalogue (one right and one wrong entry).
In the copy, with nothing else registered: the registry agrees with the notebooks, no pinned
value lacks a recomputation, the kill matrix catches the wrong entry and keeps the right one,
stock ``nbgrader generate_assignment`` releases it, and ``attnkit autograde`` scores the new
cell 1 for a right answer and 0 for the wrong one, with the misconception named.
"""

from __future__ import annotations

import compileall
import hashlib
import os
import shutil
import subprocess
from pathlib import Path

import nbformat
import pytest
from helpers.course import ROOT, run
from nbgrader.api import Gradebook

from attnkit.samples import Sample, build_submission

pytestmark = pytest.mark.slow

A = "ps5_masked_attention"
ID = "ps5_visible_counts"
KIT = ("attnkit", "tests", "source", "release", "nbgrader_config.py", "pyproject.toml",
       "requirements.txt")
TOUCHED = {f"source/{A}/{A}.ipynb", f"attnkit/kernel/{A}.py", f"attnkit/judge/{A}.py",
           f"attnkit/dev/catalogue/{A}.py"}

SOLUTION = '''\
def visible_counts(mask):
    """How many inputs each output may attend to: mask[m, n] is True when input m is
    visible to output n (outputs are the columns). One count per column."""
    ### BEGIN SOLUTION
    return np.sum(np.asarray(mask, dtype=bool), axis=0)
    ### END SOLUTION'''
TEST = f'''\
# Test cell: visible_counts (1 point). Do not edit.
### BEGIN HIDDEN TESTS
from attnkit.probe import probe
probe("{ID}", visible_counts)
### END HIDDEN TESTS
example = np.array([[True, True, False], [False, True, True], [False, False, True]])
counts = visible_counts(example)
print("yours:", counts, "  expected: [1 2 2]")
assert np.shape(counts) == (3,), f"one count per output (column), got {{np.shape(counts)}}"'''
CASES = f'''

def visible_counts_cases(seed: int) -> list[Case]:
    rng = seeded_rng(seed, "{ID}")
    example = [[True, True, False], [False, True, True], [False, False, True]]
    return [Case("the notebook's 3 x 3 example", {{"mask": np.array(example)}}),
            Case("a single entry", {{"mask": np.ones((1, 1), dtype=bool)}}),
            *(Case(f"a random {{rows}} x {{cols}} mask", {{"mask": rng.random((rows, cols)) < 0.5}})
              for rows, cols in ((5, 7), (6, 3)))]


PROBES = by_id('''
PROBE = f'    Probe("{ID}", visible_counts_cases, named("mask")),\n'
CHECK = f'''\
    Check(P["{ID}"], lambda a: np.sum(a["mask"], axis=0),
          wrong=(Wrong("counted over rows", lambda a: np.sum(a["mask"], axis=1),
                       "on {{case}} your counts are the rows' sums, what each input reaches: "
                       "output n is column n, so count down the columns, axis=0"),),
          label="counts"),
'''
CATALOGUE = f'''

# ---------------------------------------------------------------- visible counts


@entry("{ID}")
def visible_counts_loops(mask):
    """Two loops down the columns."""
    rows, cols = np.shape(mask)
    return np.array([sum(bool(mask[m][n]) for m in range(rows)) for n in range(cols)])


@entry("{ID}", wrong="counted over rows", says=("axis=0",))
def visible_counts_rows(mask):
    """Sums each row: what each input reaches."""
    return np.sum(mask, axis=1)
'''
WRONG = "def visible_counts(mask):\n    return np.sum(mask, axis=1)\n"


def digests(root: Path) -> dict[str, str]:
    return {str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for name in KIT for p in sorted((root / name).rglob("*")) + [root / name]
            if p.is_file() and "__pycache__" not in p.parts}


def add_question(root: Path) -> None:
    """The lecturer's edits, in the four places the guide names and nowhere else."""
    master = root / "source" / A / f"{A}.ipynb"
    nb = nbformat.read(master, as_version=4)
    last = max(i for i, c in enumerate(nb.cells) if c.metadata.get("nbgrader", {}).get("points")
               and c.cell_type == "code")
    nb.cells[last + 1:last + 1] = [
        nbformat.v4.new_code_cell(SOLUTION, metadata={"nbgrader": {
            "grade": False, "grade_id": f"{ID}_code", "locked": False, "schema_version": 3,
            "solution": True}}),
        nbformat.v4.new_code_cell(TEST, metadata={"nbgrader": {
            "grade": True, "grade_id": ID, "locked": True, "points": 1, "schema_version": 3,
            "solution": False}})]
    nbformat.write(nb, master)

    def edit(path: Path, old: str, new: str) -> None:
        text = path.read_text()
        assert text.count(old) == 1, f"{path}: {old!r}"
        path.write_text(text.replace(old, new))

    edit(root / "attnkit" / "kernel" / f"{A}.py", "\n\nPROBES = by_id(\n", CASES + "\n" + PROBE)
    edit(root / "attnkit" / "judge" / f"{A}.py", "CHECKS = by_id(\n", "CHECKS = by_id(\n" + CHECK)
    catalogue = root / "attnkit" / "dev" / "catalogue" / f"{A}.py"
    catalogue.write_text(catalogue.read_text() + CATALOGUE)


@pytest.fixture(scope="module")
def kit(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, set[str]]:
    """A copy of the kit and course with the question added; and the files that changed."""
    root = tmp_path_factory.mktemp("kit")
    ignore = shutil.ignore_patterns("__pycache__", "gradebook.db", ".pytest_cache")
    for name in KIT:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=ignore)
        else:
            shutil.copy(source, root / name)
    before = digests(root)
    add_question(root)
    after = digests(root)
    changed = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    for name in ("attnkit", "tests"):  # once, for the several processes below
        compileall.compile_dir(root / name, quiet=1)
    return root, changed


def in_copy(args: list[str], root: Path) -> subprocess.CompletedProcess:
    """A command run in the copy, importing the copy's attnkit (and tests' helpers)."""
    env = {"PYTHONPATH": f"{root}{os.pathsep}{root / 'tests'}"}
    return run(args, root, env=env)


def test_a_new_question_touches_four_files_and_is_graded(kit: tuple[Path, set[str]]) -> None:
    root, changed = kit
    assert changed == TOUCHED, changed

    # the registry agrees with the notebook; nothing pinned lacks a recomputation
    consistency = "tests/test_consistency.py::"
    in_copy(["python", "-m", "pytest", "-q", "-p", "no:cacheprovider",
             f"{consistency}test_graded_cells_checks_and_probes_agree",
             f"{consistency}test_every_wrong_variant_has_a_catalogue_implementation",
             f"{consistency}test_each_notebooks_data_is_its_checks_pinned_case[{A}]",
             f"tests/test_pinned.py::test_every_pinned_value_is_recomputed[{A}]"], root)

    # the kill matrix runs the new entries: the wrong one caught, the right one kept
    matrix = in_copy(["python", "-m", "attnkit.dev.validate", "--plain", "--no-chains",
                      "--seeds", "0"], root).stdout
    rows = {line.split("│")[1].strip(): line for line in matrix.splitlines()
            if line.count("│") > 3}
    assert rows["visible_counts_loops"].rstrip("│ ").endswith("ok"), matrix[-3000:]
    assert rows["visible_counts_rows"].rstrip("│ ").endswith("ok"), matrix[-3000:]
    assert "correct solutions wrongly marked down: 0/" in matrix

    # stock nbgrader releases it (the kit's config refuses an unregistered graded cell)
    in_copy(["nbgrader", "generate_assignment", A, "--force"], root)
    released = nbformat.read(root / "release" / A / f"{A}.ipynb", as_version=4)
    assert any(c.metadata.get("nbgrader", {}).get("grade_id") == ID for c in released.cells)

    # a real autograde: a right and a wrong answer to the new cell
    master, release = root / "source" / A / f"{A}.ipynb", root / "release" / A / f"{A}.ipynb"
    for student, sample in (("right", Sample("complete and correct")),
                            ("rows", Sample("counts over rows", {f"{ID}_code": WRONG}))):
        out = root / "submitted" / student / A / f"{A}.ipynb"
        out.parent.mkdir(parents=True)
        nbformat.write(build_submission(master, release, sample), out)
    in_copy(["attnkit", "autograde", A, "--force", "--no-progress"], root)
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}") as gb:
        scores = {s: {g.name: (g.score, g.max_score) for g in
                      gb.find_submission_notebook(A, A, s).grades if g.auto_score is not None}
                  for s in ("right", "rows")}
    assert scores["right"][ID] == (1, 1)
    assert scores["rows"][ID] == (0, 1)
    assert all(score == full for score, full in scores["right"].values()), scores["right"]
    assert all(score == full for cell, (score, full) in scores["rows"].items() if cell != ID)
    graded = nbformat.read(root / "autograded" / "rows" / A / f"{A}.ipynb", as_version=4)
    verdict = next(c for c in graded.cells
                   if c.metadata.get("nbgrader", {}).get("grade_id") == ID).metadata["attnkit"]
    assert "axis=0" in verdict["message"], verdict

"""Hostile and broken ps1 submissions, each with the outcome the kit must give it.

Every submission starts from a complete, correct ps1 and changes one thing.
``zero`` lists the test cells that must score nothing; every other autograded
cell must keep full marks (so an attack or a crash disturbs nothing else).
``reason`` is a pattern the student's feedback must show (case-insensitive).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from attnkit.samples import Sample, build_submission

A = "ps1_self_attention"
NB = f"{A}.ipynb"
ALL = ["ps1_softmax", "ps1_self_attention_loop", "ps1_softmax_cols", "ps1_self_attention",
       "ps1_scaled_attention", "ps1_equivariance"]
ATTENTION = ["ps1_self_attention", "ps1_scaled_attention"]
SOFTMAX = ["ps1_softmax", "ps1_self_attention_loop"]  # the loop calls the student's softmax
BLANK_SOFTMAX = "def softmax(items_in):\n    raise NotImplementedError()\n"


@dataclass(frozen=True)
class Hostile:
    student: str
    attack: str
    zero: list[str]
    reason: str = ""
    code: dict[str, str] = field(default_factory=dict)  # solution grade_id -> code
    edit: Callable[[nbformat.NotebookNode], None] | None = None
    raw: Callable[[nbformat.NotebookNode, Path], None] | None = None  # writes the files itself


def cell(nb: nbformat.NotebookNode, grade_id: str) -> nbformat.NotebookNode:
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def _edit_test(nb):
    cell(nb, "ps1_softmax").source = "print('all tests passed')"


def _delete_test(nb):
    nb.cells.remove(cell(nb, "ps1_softmax"))


def _retype_test(nb):
    index = nb.cells.index(cell(nb, "ps1_softmax"))
    old = nb.cells[index]
    nb.cells[index] = nbformat.v4.new_markdown_cell("nothing to test", metadata=old.metadata)


def _duplicate(nb):
    test = cell(nb, "ps1_softmax")
    copy = nbformat.from_dict(json.loads(json.dumps(test)))
    copy.source = "pass"
    copy.pop("id", None)
    nb.cells.insert(nb.cells.index(test), copy)


def _write(nb, folder: Path, name: str = NB, data: bytes | None = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data if data is not None else nbformat.writes(nb).encode())


SUITE: list[Hostile] = [
    Hostile("h01_edit_test", "edits the softmax test cell to print 'all tests passed'",
            SOFTMAX, code={"ps1_softmax_code": BLANK_SOFTMAX}, edit=_edit_test),
    Hostile("h02_delete_test", "deletes the softmax test cell", SOFTMAX,
            code={"ps1_softmax_code": BLANK_SOFTMAX}, edit=_delete_test),
    Hostile("h03_retype_test", "turns the softmax test cell into markdown", SOFTMAX,
            code={"ps1_softmax_code": BLANK_SOFTMAX}, edit=_retype_test),
    Hostile("h04_duplicate_test", "adds a copy of the test cell (same metadata) that passes",
            SOFTMAX, code={"ps1_softmax_code": BLANK_SOFTMAX}, edit=_duplicate),
    # the patched np.allclose also breaks the student's own check_equivariance
    Hostile("h05_patch_numpy", "patches np.allclose, np.testing and np.isfinite",
            [*SOFTMAX, "ps1_equivariance"], code={"ps1_softmax_code": """\
np.allclose = lambda *a, **k: True
np.isclose = lambda *a, **k: True
np.isfinite = lambda *a, **k: np.array(True)
np.testing.assert_allclose = lambda *a, **k: None

def softmax(items_in):
    return np.ones(len(items_in)) / len(items_in)
"""}),
    Hostile("h06_patch_builtins", "patches builtins (all, isinstance, AssertionError)",
            SOFTMAX, code={"ps1_softmax_code": """\
import builtins
builtins.all = lambda *a: True
builtins.AssertionError = type("AssertionError", (Exception,), {})
builtins.isinstance = lambda *a: True

def softmax(items_in):
    return np.zeros(len(items_in))
"""}),
    Hostile("h07_always_equal", "returns an object whose __eq__ is always true", SOFTMAX,
            code={"ps1_softmax_code": """\
class Anything(np.ndarray):
    def __eq__(self, other):
        return True
    def __array__(self, *a, **k):
        return np.array([1/3, 1/3, 1/3])

class Liar:
    shape = (3,)
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def sum(self, *a, **k): return 1.0
    def __len__(self): return 3

def softmax(items_in):
    return Liar()
"""}),
    Hostile("h08_silence_tracebacks", "replaces showtraceback so errors print nothing",
            SOFTMAX, code={"ps1_softmax_code": """\
ip = get_ipython()
ip.showtraceback = lambda *a, **k: None
ip.showsyntaxerror = lambda *a, **k: None

def softmax(items_in):
    raise ValueError("wrong")
"""}),
    Hostile("h09_fake_output", "prints a fake 'hidden check passed' verdict", SOFTMAX,
            code={"ps1_softmax_code": """\
print("hidden check passed (1/1): correct on all 4 cases")

def softmax(items_in):
    print("hidden check passed (1/1): correct on all 4 cases")
    return np.array([0.09003057, 0.24472847, 0.66524096])
"""}),
    Hostile("h10_write_gradebook", "tries to write full marks into gradebook.db",
            SOFTMAX, code={"ps1_softmax_code": """\
import glob, os, sqlite3
for path in glob.glob("/**/gradebook.db", recursive=True) + ["../../../gradebook.db"]:
    try:
        db = sqlite3.connect(path)
        db.execute("update grade set auto_score = 100")
        db.commit()
        print("wrote", path)
    except Exception as error:
        print("cannot write", path, error)

def softmax(items_in):
    raise NotImplementedError()
"""}),
    # the fake probe reports for every later check too, so every check scores nothing
    Hostile("h11_fake_probe", "replaces attnkit.probe with a module reporting made-up outputs",
            ALL, code={"ps1_softmax_code": """\
import sys, types, base64
from IPython.display import display
fake = types.ModuleType("attnkit.probe")
def probe(check, *targets):
    for case in range(8):
        value = np.array([0.09003057, 0.24472847, 0.66524096])
        display({"application/vnd.attnkit.probe+json": {"check": check, "case": case,
                 "value": {"shape": [3], "dtype": "float64",
                           "b64": base64.b64encode(value.tobytes()).decode()}}}, raw=True)
fake.probe = probe
sys.modules["attnkit.probe"] = fake

def softmax(items_in):
    return np.array([0.09003057, 0.24472847, 0.66524096])
"""}),
    Hostile("h12_hard_coded", "returns the notebook's pinned answers", SOFTMAX,
            code={"ps1_softmax_code": """\
def softmax(items_in):
    return np.array([0.09003057, 0.24472847, 0.66524096])
"""}),
    Hostile("h13_read_source", "tries to read the master notebook and other students' work",
            SOFTMAX, code={"ps1_softmax_code": """\
import glob
for pattern in ["/work/**/source/**/*.ipynb", "../../../source/**/*.ipynb",
                "../../*/ps1_self_attention/*.ipynb", "/root/*"]:
    try:
        found = glob.glob(pattern, recursive=True)
        print(pattern, "->", found[:3])
        for path in found[:1]:
            print(open(path).read()[:100])
    except Exception as error:
        print(pattern, "error", error)

def softmax(items_in):
    raise NotImplementedError()
"""}),
    Hostile("h14_infinite_loop", "self_attention_loop never returns",
            ["ps1_self_attention_loop"], reason="time limit",
            code={"ps1_loop_code": """\
def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):
    while True:
        pass
"""}),
    Hostile("h15_memory_bomb", "allocates memory until it runs out",
            ["ps1_softmax_cols", *ATTENTION], reason="MemoryError|kernel", code={
                "ps1_softmax_cols_code": """\
hoard = []
while True:
    hoard.append(np.ones(10**8))
"""}),
    Hostile("h16_fork_bomb", "forks until the process limit stops it", ["ps1_equivariance"],
            reason="can't start new thread", code={
        "ps1_equivariance_code": """\
import os, time
children = 0
try:
    while True:
        if os.fork() == 0:
            time.sleep(20)
            os._exit(0)
        children += 1
except OSError as error:
    print(f"fork stopped after {children} children: {error}")

def check_equivariance(f, X, perm):
    return bool(np.allclose(f(X[:, perm]), f(X)[:, perm]))
"""}),
    Hostile("h17_sys_exit", "calls sys.exit() after defining softmax", [], code={
        "ps1_softmax_code": """\
import sys
def softmax(items_in):
    z = np.asarray(items_in, dtype=float).ravel()
    e = np.exp(z - z.max())
    return e / e.sum()
sys.exit()
"""}),
    Hostile("h18_os_exit", "kills the kernel with os._exit in softmax_cols' cell",
            ["ps1_softmax_cols", *ATTENTION], reason="crashed the Python kernel",
            code={"ps1_softmax_cols_code": "import os\nos._exit(1)\n"}),
    Hostile("h19_segfault", "segfaults the kernel in the scaled attention cell",
            ["ps1_scaled_attention"], reason="crashed the Python kernel",
            code={"ps1_scaled_code": "import ctypes\nctypes.string_at(0)\n"}),
    Hostile("h20_huge_output", "prints two million lines at once", [], code={
        "ps1_softmax_code": """\
print("spam\\n" * 2_000_000)

def softmax(items_in):
    z = np.asarray(items_in, dtype=float).ravel()
    e = np.exp(z - z.max())
    return e / e.sum()
"""}),
    Hostile("h21_invalid_json", "hands in a truncated file (not valid JSON)", ALL,
            reason="not a valid notebook",
            raw=lambda nb, d: _write(nb, d, data=nbformat.writes(nb).encode()[:5000])),
    Hostile("h22_empty_file", "hands in an empty file", ALL, reason="the file is empty",
            raw=lambda nb, d: _write(nb, d, data=b"")),
    Hostile("h23_renamed", "hands in the notebook under another name", [],
            reason="instead of", raw=lambda nb, d: _write(nb, d, name="ps1 (1).ipynb")),
    Hostile("h24_missing", "hands in no notebook at all", ALL, reason="no notebook named",
            raw=lambda nb, d: (d.mkdir(parents=True, exist_ok=True),
                               (d / "notes.txt").write_text("sorry"))),
    Hostile("h25_nbformat_v3", "hands in an nbformat 3 notebook", [],
            reason="notebook format 3",
            raw=lambda nb, d: _write(nb, d, data=nbformat.writes(
                nbformat.convert(nb, 3), version=3).encode())),
    Hostile("h26_latin1", "hands in Latin-1 text (not UTF-8)", [], reason="not UTF-8",
            raw=lambda nb, d: _write(nb, d, data=nbformat.writes(_accented(nb)).encode(
                "latin-1", errors="replace"))),
    Hostile("h27_honest", "an honest, complete submission graded alongside", []),
]


def _accented(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    nb.cells.insert(1, nbformat.v4.new_markdown_cell("Réponses de Zoé, café au lait"))
    return nb


def write_suite(root: Path) -> list[Hostile]:
    """Write every hostile submission under ``root/submitted``."""
    master, release = root / "source" / A / NB, root / "release" / A / NB
    for hostile in SUITE:
        nb = build_submission(master, release, Sample(hostile.attack, code=hostile.code))
        folder = root / "submitted" / hostile.student / A
        if hostile.edit:
            hostile.edit(nb)
        if hostile.raw:
            hostile.raw(nb, folder)
        else:
            _write(nb, folder)
    return SUITE

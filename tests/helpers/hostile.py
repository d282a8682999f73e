"""Hostile and broken submissions for every assignment, each with the outcome the kit must give.

Every submission starts from a complete, correct notebook and changes one thing, usually in
the assignment's first graded function (its ``Target``). ``zero`` lists the test cells that
must score nothing; every other autograded cell outside the target's reach must keep full
marks, so an attack or a crash disturbs nothing else. ``reason`` is a pattern the student's
feedback must show (case-insensitive). Rows are written per assignment from templates, and
each assignment's ``Target`` is read from its master notebook (``target_of``), so an
assignment added later gets the whole suite with nothing to register.
"""

from __future__ import annotations

import ast
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import nbformat
import numpy as np

from attnkit.judge.chains import CHAINS
from attnkit.judge.registry import checks
from attnkit.samples import Sample, build_submission, solution_code
from helpers.course import ROOT
from helpers.questions import questions

ALL = "all"  # every autograded test cell of the assignment
REACH = "reach"  # the target's test cell and the cells whose code calls the target


@dataclass(frozen=True)
class Target:
    """The function most attacks go through: its solution cell, test cell and signature."""

    code: str  # solution grade id
    test: str  # test grade id
    name: str
    params: str
    reach: tuple[str, ...]  # test cells that fail when the function is missing or wrong


@cache
def target_of(assignment: str, root: Path = ROOT) -> Target:
    """The assignment's first question whose probe is handed one function of its solution
    cell. Its reach is its own test cell and every cell whose follow-through chain
    (``attnkit/judge/chains.py``) lists it as a helper and whose solution calls it, directly
    or through another caller."""
    found = questions(root, assignment)
    first = next((q for q in found if q.function), None)
    if first is None:
        raise ValueError(f"{assignment}: no test cell probes a single function of its "
                         "solution cell, so the hostile suite has no target")
    nb = nbformat.read(root / "source" / assignment / f"{assignment}.ipynb", as_version=4)
    sources = {c.metadata["nbgrader"]["grade_id"]: c.source for c in nb.cells
               if c.metadata.get("nbgrader", {}).get("solution")}
    code_of = {q.test: q.code for q in found}

    def calls(check: str, helper: str) -> bool:  # the solution of ``check`` calls ``helper``
        tree = ast.parse(sources.get(code_of.get(check) or "", ""))
        return any(isinstance(node, ast.Call) and helper in (getattr(node.func, "id", None),
                                                              getattr(node.func, "attr", None))
                   for node in ast.walk(tree))

    reached = {first.test}
    while grown := {c.check for c in CHAINS.values() if c.check not in reached
                    and any(test in reached and calls(c.check, helper)
                            for helper, test in c.helpers.items())}:
        reached |= grown
    return Target(first.code, first.test, first.function, first.params,
                  tuple(q.test for q in found if q.test in reached))


@dataclass(frozen=True)
class Hostile:
    student: str
    attack: str
    zero: str | tuple[str, ...] = ()  # ALL, REACH or test grade ids
    reason: str = ""
    may: str | tuple[str, ...] = ()  # cells that may lose points but need not
    prefix: str = ""  # code put before the target's correct definition
    suffix: str = ""  # code put after it
    stub: bool = False  # the target raises NotImplementedError instead
    only: str = ""  # one assignment only
    # graded on every assignment: it games that assignment's own checks. The others attack
    # the grader, not a check, and are graded once, spread over the assignments
    each: bool = False
    # cells of ``zero`` that follow-through may credit: right given the broken helper
    carried: tuple[str, ...] = ()
    edit: Callable[[nbformat.NotebookNode, Target, str], None] | None = None
    raw: Callable[[nbformat.NotebookNode, Path, str, Path], None] | None = None


def cell(nb: nbformat.NotebookNode, grade_id: str) -> nbformat.NotebookNode:
    return next(c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)


def graded_cells(nb: nbformat.NotebookNode) -> list[str]:
    return [c.metadata["nbgrader"]["grade_id"] for c in nb.cells
            if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("grade")
            and not c.metadata["nbgrader"].get("solution")]


def cells_of(spec: str | tuple[str, ...], target: Target, all_tests: list[str]) -> list[str]:
    if spec == ALL:
        return list(all_tests)
    if spec == REACH:
        return list(target.reach)
    return list(spec)


# ------------------------------------------------------------------------ notebook edits

def _edit_test(nb, t, a):
    cell(nb, t.test).source = "print('all tests passed')"


def _delete_test(nb, t, a):
    nb.cells.remove(cell(nb, t.test))


def _delete_every_test(nb, t, a):
    nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id")
                not in graded_cells(nb)]


def _retype_test(nb, t, a):
    index = nb.cells.index(cell(nb, t.test))
    nb.cells[index] = nbformat.v4.new_markdown_cell("nothing to test",
                                                    metadata=nb.cells[index].metadata)


def _duplicate(nb, t, a):
    test = cell(nb, t.test)
    copy = nbformat.from_dict(json.loads(json.dumps(test)))
    copy.source = "pass"
    copy.pop("id", None)
    nb.cells.insert(nb.cells.index(test), copy)


def _forge_graded_cell(nb, t, a):
    nb.cells.append(nbformat.v4.new_code_cell("print('bonus')", metadata={"nbgrader": {
        "grade": True, "solution": False, "locked": True, "points": 50,
        "grade_id": "bonus_points", "schema_version": 3}}))


def _unclosed_marker(nb, t, a):
    nb.cells.append(nbformat.v4.new_markdown_cell("### BEGIN HIDDEN TESTS\nmy notes"))


def _print_history(nb, t, a):
    nb.cells.append(nbformat.v4.new_code_cell(
        "import glob\nprint(In)\nprint(_ih[-3:])\n"
        "for path in glob.glob('**/*', recursive=True):\n"
        "    try:\n        print(path, open(path).read()[:20000])\n"
        "    except Exception as error:\n        print(path, error)\n"))


XSS = "window.__pwned = 1"


def _active_content(nb, t, a):
    nb.cells.append(nbformat.v4.new_markdown_cell(
        f'My answer <img src=x onerror="{XSS}"> <script>{XSS}</script>'))
    nb.cells.append(nbformat.v4.new_code_cell(
        "from IPython.display import HTML, Javascript, Markdown, display\n"
        f"display(HTML('<img src=x onerror=\"{XSS}\">'))\n"
        f"display(Javascript('{XSS}'))\n"
        f"display(Markdown('<script>{XSS}</script>'))\n"))


# ------------------------------------------------------------------------ raw file writes

def _write(nb, folder: Path, name: str, data: bytes | None = None) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(data if data is not None else nbformat.writes(nb).encode())


def _truncated(nb, d, name, root):
    _write(nb, d, name, nbformat.writes(nb).encode()[:5000])


def _empty(nb, d, name, root):
    _write(nb, d, name, b"")


def _renamed(nb, d, name, root):
    _write(nb, d, name.replace(".ipynb", " (1).ipynb"))


def _missing(nb, d, name, root):
    d.mkdir(parents=True, exist_ok=True)
    (d / "notes.txt").write_text("sorry")


def _nbformat3(nb, d, name, root):
    _write(nb, d, name, nbformat.writes(nbformat.convert(nb, 3), version=3).encode())


def _latin1(nb, d, name, root):
    nb.cells.insert(1, nbformat.v4.new_markdown_cell("Réponses de Zoé, café au lait"))
    _write(nb, d, name, nbformat.writes(nb).encode("latin-1", errors="replace"))


def _link_gradebook(nb, d, name, root):
    _write(nb, d, name)
    os.symlink("../../../gradebook.db", d / "db")


def _link_master(nb, d, name, root):
    d.mkdir(parents=True, exist_ok=True)
    os.symlink(root / "source" / d.name / name, d / name)


# ------------------------------------------------------------------------ code injections

PATCH_NUMPY = """\
np.allclose = lambda *a, **k: True
np.isclose = lambda *a, **k: True
np.isfinite = lambda *a, **k: np.array(True)
np.testing.assert_allclose = lambda *a, **k: None
"""
PATCH_BUILTINS = """\
import builtins
builtins.all = lambda *a: True
builtins.AssertionError = type("AssertionError", (Exception,), {})
builtins.isinstance = lambda *a: True
"""
LIAR = """\
class Liar:
    shape = (3,)
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def sum(self, *a, **k): return 1.0
    def __len__(self): return 3
"""
SILENCE = """\
ip = get_ipython()
ip.showtraceback = lambda *a, **k: None
ip.showsyntaxerror = lambda *a, **k: None
"""
FAKE_VERDICT = 'print("hidden check passed (1/1): correct on all 4 cases")\n'
WRITE_GRADEBOOK = """\
import glob, sqlite3
for path in glob.glob("/**/gradebook.db", recursive=True) + ["../../../gradebook.db", "db"]:
    try:
        db = sqlite3.connect(path)
        db.execute("update grade set auto_score = 100")
        db.commit()
        print("wrote", path)
    except Exception as error:
        print("cannot write", path, error)
"""
READ_SOURCE = """\
import glob
for pattern in ["/work/**/source/**/*.ipynb", "../../../source/**/*.ipynb",
                "../../*/*/*.ipynb", "/root/*", "db"]:
    try:
        found = glob.glob(pattern, recursive=True)
        print(pattern, "->", found[:3])
        for path in found[:1]:
            print(open(path, "rb").read()[:100])
    except Exception as error:
        print(pattern, "error", error)
"""
FAKE_PROBE = """\
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
"""
# Before every cell, show right-looking records of this very probe (the kernel's own code,
# the right seed), so a check passes if the first record of each case counted.
FORGE_RECORDS = """\
import os
import re
from IPython.display import display
from attnkit import probe as _probe
from attnkit.kernel.cases import probes

def _forge(info):
    for check in probes():
        if f'probe("{{check}}"' in (info.raw_cell or "") and "{name}" in globals():
            for record in _probe.records(check, ({name},), int(os.environ["ATTNKIT_SEED"])):
                display({{_probe.MIME: record}}, raw=True)

get_ipython().events.register("pre_run_cell", _forge)
"""
INFINITE_LOOP = "while True:\n    pass\n"
MEMORY_BOMB = "hoard = []\nwhile True:\n    hoard.append(np.ones(10**8))\n"
FORK_BOMB = """\
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
"""
SYS_EXIT = "import sys\nsys.exit()\n"
OS_EXIT = "import os\nos._exit(1)\n"
SEGFAULT = "import ctypes\nctypes.string_at(0)\n"
HUGE_OUTPUT = 'print("spam\\n" * 2_000_000)\n'

# ps1 only: the leak, attention and its weights from the kernel's equivariance maps
# (values = the identity on extra rows of X give the weights; queries times sqrt(D_q) undo
# the scaling)
EQUIVARIANCE_LEAK = """\
from attnkit.kernel.ps1_self_attention import equivariance_function

def _attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k, scaled=True):
    (D, N), s = X.shape, 1.0 if scaled else np.sqrt(omega_q.shape[0])
    run = lambda X, **p: equivariance_function({"kind": "attention", "params": p})(X)
    pad = lambda W: np.hstack([W, np.zeros((W.shape[0], N))])
    out = run(X, omega_v=omega_v, omega_q=s * omega_q, omega_k=omega_k, beta_v=beta_v,
              beta_q=s * beta_q, beta_k=beta_k)
    weights = run(np.vstack([X, np.eye(N)]), omega_v=np.hstack([np.zeros((N, D)), np.eye(N)]),
                  omega_q=pad(s * omega_q), omega_k=pad(omega_k), beta_v=np.zeros((N, 1)),
                  beta_q=s * beta_q, beta_k=beta_k)
    return out, weights
"""
# ps1 only: the forged equivariance answers (the old, seed-independent pattern)
FORGE_EQUIVARIANCE = """\
import os
import re
from IPython.display import display
from attnkit import probe as _probe

def _forge(info):
    if 'probe("ps1_equivariance"' in (info.raw_cell or ""):
        seed = int(os.environ["ATTNKIT_SEED"])
        for case, answer in enumerate([True, False, False, True, True]):
            display({_probe.MIME: {"check": "ps1_equivariance", "seed": seed, "case": case,
                                   "value": _probe.encode(answer)}}, raw=True)

get_ipython().events.register("pre_run_cell", _forge)
"""

SUITE: list[Hostile] = [
    Hostile("h01_edit_test", "edits the test cell to print 'all tests passed'", REACH,
            stub=True, edit=_edit_test),
    Hostile("h02_delete_test", "deletes the test cell", REACH, stub=True, edit=_delete_test),
    Hostile("h03_retype_test", "turns the test cell into markdown", REACH, stub=True,
            edit=_retype_test),
    Hostile("h04_duplicate_test", "adds a copy of the test cell (same metadata) that passes",
            REACH, stub=True, edit=_duplicate),
    Hostile("h05_patch_numpy", "patches np.allclose, np.testing and np.isfinite", REACH,
            prefix=PATCH_NUMPY, stub=True,
            may=("ps1_equivariance",),  # the student's own check uses the patched allclose
            each=True),
    Hostile("h06_patch_builtins", "patches builtins (all, isinstance, AssertionError)", REACH,
            prefix=PATCH_BUILTINS, stub=True),
    Hostile("h07_always_equal", "returns an object whose __eq__ is always true", REACH,
            prefix=LIAR, suffix="{name} = lambda *a, **k: Liar()\n",
            # a Liar mask leaves masked_self_attention plain attention, a real function the
            # (correct) equivariance gaps are right given: follow-through, not the Liar
            carried=("ps5_equivariance",), each=True),
    Hostile("h08_silence_tracebacks", "replaces showtraceback so errors print nothing", REACH,
            prefix=SILENCE, stub=True),
    Hostile("h09_fake_output", "prints a fake 'hidden check passed' verdict", REACH,
            prefix=FAKE_VERDICT, stub=True),
    Hostile("h10_write_gradebook", "tries to write full marks into gradebook.db", REACH,
            prefix=WRITE_GRADEBOOK, stub=True),
    Hostile("h11_fake_probe", "replaces attnkit.probe with a module reporting made-up outputs",
            ALL, prefix=FAKE_PROBE, each=True),
    Hostile("h12_hard_coded", "returns the notebook's pinned answers", REACH,
            suffix="{name} = lambda *a, **k: {pinned}\n", each=True,
            # correct callers stop where the pinned helper does not fit fresh inputs: the
            # hard-coding is charged once, at the helper (follow-through)
            carried=("ps3_forward", "ps5_masked_attention", "ps5_equivariance")),
    Hostile("h13_read_source", "tries to read the master notebook and other students' work",
            REACH, prefix=READ_SOURCE, stub=True),
    Hostile("h14_infinite_loop", "loops forever before defining the function", REACH,
            reason="time limit", prefix=INFINITE_LOOP),
    Hostile("h15_memory_bomb", "allocates memory until it runs out", REACH,
            reason="MemoryError|kernel", prefix=MEMORY_BOMB),
    Hostile("h16_fork_bomb", "forks until the process limit stops it", may=ALL,
            prefix=FORK_BOMB),
    Hostile("h17_sys_exit", "calls sys.exit() after defining the function", suffix=SYS_EXIT),
    Hostile("h18_os_exit", "kills the kernel with os._exit", REACH,
            reason="crashed the Python kernel", prefix=OS_EXIT),
    Hostile("h19_segfault", "segfaults the kernel", REACH, reason="crashed the Python kernel",
            prefix=SEGFAULT),
    Hostile("h20_huge_output", "prints two million lines at once", prefix=HUGE_OUTPUT),
    Hostile("h21_invalid_json", "hands in a truncated file (not valid JSON)", ALL,
            reason="not a valid notebook", raw=_truncated),
    Hostile("h22_empty_file", "hands in an empty file", ALL, reason="the file is empty",
            raw=_empty),
    Hostile("h23_renamed", "hands in the notebook under another name", reason="instead of",
            raw=_renamed),
    Hostile("h24_missing", "hands in no notebook at all", ALL, reason="no notebook named",
            raw=_missing),
    Hostile("h25_nbformat_v3", "hands in an nbformat 3 notebook", reason="notebook format 3",
            raw=_nbformat3),
    Hostile("h26_latin1", "hands in Latin-1 text (not UTF-8)", reason="not UTF-8",
            raw=_latin1),
    Hostile("h27_honest", "an honest, complete submission graded alongside", each=True),
    Hostile("h28_active_content", "puts <script>, onerror and HTML/JS outputs in its answers",
            reason="active content", edit=_active_content, each=True),
    Hostile("h29_link_gradebook", "plants a symbolic link to gradebook.db and reads it",
            REACH, reason="symbolic link", prefix=READ_SOURCE, stub=True, raw=_link_gradebook),
    Hostile("h30_link_master", "hands in a symbolic link to the master notebook", ALL,
            reason="symbolic link", raw=_link_master),
    Hostile("h31_forge_records", "shows the probe's own records before the real probe runs",
            ALL, reason="tampered", suffix=FORGE_RECORDS, each=True),
    Hostile("h32_print_history", "prints In, _ih and every file the kernel can read",
            edit=_print_history),
    Hostile("h33_unclosed_marker", "writes BEGIN HIDDEN TESTS with no END in a markdown cell",
            edit=_unclosed_marker),
    Hostile("h34_forged_graded_cell", "adds a graded cell worth 50 points of its own",
            reason="not part of this assignment", edit=_forge_graded_cell),
    Hostile("h35_delete_every_test", "deletes every test cell (correct code)",
            edit=_delete_every_test),
    Hostile("h36_equivariance_leak", "builds attention from the kernel's equivariance maps",
            ("ps1_self_attention", "ps1_scaled_attention"), only="ps1_self_attention",
            suffix=EQUIVARIANCE_LEAK, edit=lambda nb, t, a: [
                setattr(cell(nb, g), "source", f"def {n}(*args):\n"
                        f"    return _attention(*args, scaled={scaled})\n")
                for g, n, scaled in (("ps1_self_attention_code", "self_attention", False),
                                     ("ps1_scaled_code", "scaled_dot_product_self_attention",
                                      True))]),
    Hostile("h37_forge_equivariance", "forges seed-independent equivariance answers",
            ("ps1_equivariance",), only="ps1_self_attention", suffix=FORGE_EQUIVARIANCE,
            edit=lambda nb, t, a: setattr(cell(nb, "ps1_equivariance_code"), "source",
                                          "def check_equivariance(f, X, perm):\n"
                                          "    raise NotImplementedError()\n")),
]


# Budgets per hand-in (tests/test_hostile.py -k budget): graded apart from SUITE, each on its
# own, since they are measured (time, the grading process's peak memory).
SLEEP_EVERY_CELL = """\
import time
get_ipython().events.register("pre_run_cell", lambda info: time.sleep(8))
"""
HUGE_LINE = 'print("x" * 250_000_000)\n'
# the same line past the kernel's own cap on printing, as a student who undid it would
HUGE_LINE_UNCAPPED = """\
import sys
from ipykernel.iostream import OutStream
OutStream.write(sys.stdout, "x" * 250_000_000)
sys.stdout.flush()
"""
# displays, not prints: past the kernel's cap on printing, each under the message limit
DISPLAY_FLOOD = """\
from IPython.display import display
for _i in range(8):
    display({"text/plain": "y" * 25_000_000}, raw=True)
"""
BUDGETS: list[Hostile] = [
    Hostile("b01_honest", "an honest, complete submission (the baseline)"),
    Hostile("b02_sleep_every_cell", "sleeps just under the per-cell limit before every cell",
            reason="time budget", prefix=SLEEP_EVERY_CELL),
    Hostile("b03_huge_line", "prints one 250 MB line", reason="output cut",
            prefix=HUGE_LINE),
    Hostile("b04_huge_line_uncapped", "prints one 250 MB line past the kernel's cap",
            reason="output cut", prefix=HUGE_LINE_UNCAPPED),
    Hostile("b05_display_flood", "displays 200 MB in 25 MB pieces", reason="output cut",
            prefix=DISPLAY_FLOOD),
]


def pinned_answer(target: Target) -> str:
    """The reference's answer on the notebook's own data, as a Python literal."""
    check = checks()[target.test]
    value = check.reference(check.cases(0)[0].args)
    return f"np.array({np.asarray(value).tolist()!r})"


def target_code(hostile: Hostile, target: Target, master_code: str) -> str:
    body = (f"def {target.name}({target.params}):\n    raise NotImplementedError()\n"
            if hostile.stub else master_code)
    fill = {"name": target.name, "pinned": pinned_answer(target)}
    return "\n".join(part.format(**fill) if "{name}" in part or "{pinned}" in part else part
                     for part in (hostile.prefix, body, hostile.suffix) if part)


def rows(assignment: str, assignments: list[str],
         suite: list[Hostile] = SUITE) -> list[Hostile]:
    """The rows of ``suite`` graded on ``assignment``: its own, the ones graded on every
    assignment, and its share of the others (each of those once over ``assignments``)."""
    spread = [h for h in suite if not h.only and not h.each]
    return [h for h in suite
            if h.only == assignment or h.each and not h.only
            or h in spread and assignments[spread.index(h) % len(assignments)] == assignment]


def write_suite(root: Path, assignments: list[str],
                suite: list[Hostile] = SUITE) -> dict[str, list[Hostile]]:
    """Write every hostile submission of ``assignments`` (rows of ``suite``) under
    ``root/submitted``."""
    written = {}
    for assignment in assignments:
        target = target_of(assignment, root)
        name = f"{assignment}.ipynb"
        master, release = root / "source" / assignment / name, root / "release" / assignment / name
        solutions = {c.metadata["nbgrader"]["grade_id"]: solution_code(c.source)
                     for c in nbformat.read(master, as_version=4).cells
                     if c.metadata.get("nbgrader", {}).get("solution")}
        for hostile in rows(assignment, assignments, suite):
            code = {target.code: target_code(hostile, target, solutions[target.code])}
            nb = build_submission(master, release, Sample(hostile.attack, code=code))
            folder = root / "submitted" / hostile.student / assignment
            if hostile.edit:
                hostile.edit(nb, target, assignment)
            if hostile.raw:
                hostile.raw(nb, folder, name, root)
            else:
                _write(nb, folder, name)
        written[assignment] = rows(assignment, assignments, suite)
    return written


def expectations(hostile: Hostile, assignment: str,
                 all_tests: list[str]) -> tuple[list[str], list[str]]:
    """(cells that must score 0, cells that must keep full marks)."""
    target = target_of(assignment)
    carried = set(hostile.carried)
    if hostile.zero == REACH:  # the target broken: its callers, right with working stand-ins
        carried |= set(target.reach) - {target.test}  # for it, may be carried (follow-through)
    zero = [c for c in cells_of(hostile.zero, target, all_tests) if c not in carried]
    may = set(cells_of(hostile.may, target, all_tests)) | set(zero) | carried
    return zero, [c for c in all_tests if c not in may]


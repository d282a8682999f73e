"""Shared fixtures for the grader tests: a generated copy of the course, synthetic
submissions, gradebook scores, stock ``nbgrader autograde``, and a real PostgreSQL server."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import nbformat
import psycopg2
import pytest
from nbgrader.api import Gradebook
from nbgrader.apps import NbGraderAPI
from sqlalchemy import create_engine, text

from attnkit.grading.grader import load_config

REPO = Path(__file__).resolve().parents[2]
ASSIGNMENT = "ps1_self_attention"
COURSE_ID = "self-attention"
KERNEL = "python3"  # the plain venv kernel: the tests do not depend on the sandbox
PG_BIN = Path("/usr/lib/postgresql/15/bin")

# Wrong bodies for ps1's solution cells, by grade_id: each breaks one function.
WRONG = {
    "ps1_softmax_code": (
        "def softmax(items_in):\n"
        "    e = np.exp(np.asarray(items_in, dtype=float).ravel())  # overflows\n"
        "    return e / e.sum()\n"),
    "ps1_loop_code": (
        "def self_attention_loop(all_x, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):\n"
        "    keys = [beta_k + omega_k @ x for x in all_x]\n"
        "    values = [omega_v @ x for x in all_x]  # forgets beta_v\n"
        "    out = []\n"
        "    for x in all_x:\n"
        "        q = beta_q + omega_q @ x\n"
        "        a = softmax([(k.T @ q).item() for k in keys])\n"
        "        out.append(sum(w * v for w, v in zip(a, values)))\n"
        "    return out\n"),
    "ps1_softmax_cols_code": (
        "def softmax_cols(data_in):\n"
        "    e = np.exp(data_in - data_in.max(axis=1, keepdims=True))\n"
        "    return e / e.sum(axis=1, keepdims=True)  # rows, not columns\n"),
    "ps1_self_attention_code": (
        "def self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q, beta_k):\n"
        "    Q = beta_q + omega_q @ X\n"
        "    K = beta_k + omega_k @ X\n"
        "    V = beta_v + omega_v @ X\n"
        "    attentions = softmax_cols(Q.T @ K)  # transposed scores\n"
        "    return V @ attentions, attentions\n"),
    "ps1_scaled_code": (
        "def scaled_dot_product_self_attention(X, omega_v, omega_q, omega_k, beta_v, beta_q,\n"
        "                                      beta_k):\n"
        "    Q = beta_q + omega_q @ X\n"
        "    K = beta_k + omega_k @ X\n"
        "    V = beta_v + omega_v @ X\n"
        "    attentions = softmax_cols(K.T @ Q / Q.shape[0])  # D, not sqrt(D)\n"
        "    return V @ attentions, attentions\n"),
    "ps1_equivariance_code": "def check_equivariance(f, X, perm):\n    return True\n",
}
CRASH = {"ps1_softmax_code": "import os\nos._exit(1)  # kills the kernel\n"}


@pytest.fixture(scope="session")
def course_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The course (config and ps1 only) with the assignment generated into a SQLite gradebook."""
    root = tmp_path_factory.mktemp("template")
    shutil.copy(REPO / "nbgrader_config.py", root)
    shutil.copytree(REPO / "source" / ASSIGNMENT, root / "source" / ASSIGNMENT)
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("ATTNKIT_DB_URL", raising=False)
        mp.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
        result = NbGraderAPI(config=load_config(root)).generate_assignment(ASSIGNMENT)
    assert result["success"], result.get("log")
    return root


def new_course(template: Path, dest: Path) -> Path:
    """A fresh copy of the generated course."""
    shutil.copytree(template, dest)
    return dest


def notebook(course: Path, base: str = "source", **cells: str) -> nbformat.NotebookNode:
    """ps1 from ``base`` (source: complete, release: blank) with cells replaced by grade_id."""
    nb = nbformat.read(course / base / ASSIGNMENT / f"{ASSIGNMENT}.ipynb", as_version=4)
    for cell in nb.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in cells:
            cell.source = cells.pop(grade_id)
    assert not cells, f"no such cells: {list(cells)}"
    return nb


def submit(course: Path, student: str, nb: nbformat.NotebookNode | str) -> Path:
    """Put a notebook (or raw text) in ``submitted/STUDENT/ps1``."""
    path = course / "submitted" / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(nb, str):
        path.write_text(nb)
    else:
        nbformat.write(nb, path)
    return path


def make_submissions(course: Path, count: int) -> list[str]:
    """``count`` students: complete, blank, a kernel crash, one function broken each, then
    two functions broken."""
    wrong = list(WRONG)
    kinds = [notebook(course), notebook(course, "release"), notebook(course, **CRASH),
             *(notebook(course, **{cell: WRONG[cell]}) for cell in wrong)]
    kinds += [notebook(course, **{a: WRONG[a], b: WRONG[b]})
              for a, b in zip(wrong, wrong[1:] + wrong[:1], strict=True)]
    assert count <= len(kinds)
    students = [f"s{i:02d}" for i in range(count)]
    for student, nb in zip(students, kinds, strict=False):
        submit(course, student, nb)
    return students


def scores(db_url: str) -> dict[tuple[str, str], float | None]:
    """Every grade of ps1 in a gradebook: (student, grade cell) -> auto score."""
    with Gradebook(db_url, COURSE_ID) as gb:
        return {(submission.student.id, grade.name): grade.auto_score
                for submission in gb.find_assignment(ASSIGNMENT).submissions
                for nb in submission.notebooks for grade in nb.grades}


def grade_rows(db_url: str) -> dict[tuple[str, str], int]:
    """How many grade rows each (student, grade cell) has: 1, if nothing was lost or doubled."""
    engine = create_engine(db_url)
    try:
        with engine.connect() as db:
            rows = db.execute(text(
                "SELECT sa.student_id, bc.name, count(*) FROM grade g "
                "JOIN submitted_notebook sn ON g.notebook_id = sn.id "
                "JOIN submitted_assignment sa ON sn.assignment_id = sa.id "
                "JOIN base_cell bc ON g.cell_id = bc.id GROUP BY sa.student_id, bc.name"))
            return {(student, cell): n for student, cell, n in rows}
    finally:
        engine.dispose()


def sqlite_url(course: Path) -> str:
    """The course's SQLite gradebook."""
    return f"sqlite:///{course / 'gradebook.db'}"


def stock_autograde(course: Path, kernel: str = KERNEL) -> subprocess.CompletedProcess:
    """Stock ``nbgrader autograde ps1``, serially, as an instructor runs it."""
    env = {k: v for k, v in os.environ.items() if k != "ATTNKIT_DB_URL"}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    return subprocess.run([sys.executable, "-m", "nbgrader", "autograde", ASSIGNMENT,
                           f"--Execute.kernel_name={kernel}"],
                          cwd=course, env=env, capture_output=True, text=True, timeout=600)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    """A real PostgreSQL 15 server on 127.0.0.1 with an empty database: its SQLAlchemy URL."""
    with postgres_server() as url:
        yield url


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """``postgres`` outside pytest (benchmarks/written_page.py): started, then stopped and
    removed on leaving."""
    assert (PG_BIN / "initdb").exists(), \
        f"PostgreSQL binaries not found in {PG_BIN}: `make env` installs Debian's postgresql"
    as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    base = Path(tempfile.mkdtemp(prefix="attnkit-pg-"))  # pytest's tmp dirs are root-only
    data, sockets, port = base / "data", base / "sock", _free_port()
    sockets.mkdir()
    if as_postgres:
        shutil.chown(base, "postgres", "postgres")
        shutil.chown(sockets, "postgres", "postgres")

    def run(*cmd: str) -> None:
        subprocess.run([*as_postgres, *cmd], check=True, capture_output=True, timeout=120)

    pg_ctl = str(PG_BIN / "pg_ctl")
    try:
        run(str(PG_BIN / "initdb"), "-D", str(data), "-U", "postgres", "-E", "UTF8",
            "--locale=C", "--auth-local=trust", "--auth-host=scram-sha-256", "--no-sync")
        run(pg_ctl, "-D", str(data), "-l", str(base / "server.log"), "-w",
            "-o", f"-c listen_addresses=127.0.0.1 -p {port} -k {sockets} -c fsync=off", "start")
        admin = psycopg2.connect(host=str(sockets), port=port, user="postgres",
                                 dbname="postgres")
        admin.autocommit = True
        with admin.cursor() as cursor:
            cursor.execute("CREATE ROLE grader LOGIN PASSWORD 'grader-pw'")
            cursor.execute("CREATE DATABASE gradebook OWNER grader")
        admin.close()
        yield f"postgresql+psycopg2://grader:grader-pw@127.0.0.1:{port}/gradebook"
    finally:
        if (data / "postmaster.pid").exists():
            run(pg_ctl, "-D", str(data), "-m", "immediate", "-w", "stop")
        shutil.rmtree(base, ignore_errors=True)

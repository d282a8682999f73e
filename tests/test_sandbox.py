"""The kernel sandbox, tested with real kernels (needs bwrap and user namespaces).

Every test that starts kernels runs twice: kernels started by bubblewrap, and warm kernels
forked by a warm-kernel server a run shares (``warm_start``), which must give the same
guarantees. The whole module runs as root and, through tests/test_unprivileged.py, as an
ordinary instructor."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest
from jupyter_client import BlockingKernelClient, KernelManager
from nbclient import NotebookClient
from traitlets.config import Config

from attnkit.sandbox import (
    KERNEL_NAME,
    OUTPUT_LIMIT_ENV,
    PROVISIONER_NAME,
    Forkserver,
    check_sandbox,
    install_kernelspec,
    privileged,
)

REPO = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.kernel


@pytest.fixture(autouse=True, scope="module")
def sandbox_works() -> None:
    """`make test` installs what the sandbox needs, so a missing part is a failure."""
    problem = check_sandbox()
    assert problem is None, f"the sandbox cannot start (run `make env`): {problem}"

SET_BY_KERNEL = {"CLICOLOR", "CLICOLOR_FORCE", "FORCE_COLOR", "GIT_PAGER", "PAGER", "TERM",
                 "PYDEVD_USE_FRAME_EVAL"}  # os.environ entries ipykernel and debugpy add
SMALL = "attnkit-sandbox-1g"  # a kernelspec whose provisioner config lowers memory_limit
HELPERS = """
import json, os, socket, sys
def fails(action):
    try:
        action()
    except BaseException as error:
        return type(error).__name__
    return None
"""


@pytest.fixture(scope="module", params=["bubblewrap", "warm"])
def specs(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
          ) -> Iterator[Path]:
    """Kernelspecs in a temp prefix on JUPYTER_PATH; a grading seed in the parent env. Warm
    kernels come from a shared server, as a grading run's do."""
    prefix = tmp_path_factory.mktemp("prefix")
    mode = {"warm_start": request.param == "warm"}
    install_kernelspec(str(prefix), config=mode)
    install_kernelspec(str(prefix), name=SMALL, config={"memory_limit": 1 << 30, **mode})
    with pytest.MonkeyPatch.context() as mp, contextlib.ExitStack() as stack:
        mp.setenv("JUPYTER_PATH", str(prefix / "share" / "jupyter"))
        mp.setenv("ATTNKIT_SEED", "1234")
        mp.setenv(OUTPUT_LIMIT_ENV, "1048576")  # as a grading run sets it
        if request.param == "warm":
            stack.enter_context(Forkserver.share())
        yield prefix


@pytest.fixture(scope="module")
def submission(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A kernel working dir holding data, a symlink to the reference and a fifo."""
    path = tmp_path_factory.mktemp("submission")
    (path / "data.txt").write_text("student data")
    (path / "leak.py").symlink_to(REPO / "attnkit" / "reference.py")
    os.mkfifo(path / "pipe")
    return path


def run(kc: BlockingKernelClient, code: str, timeout: float = 30) -> str:
    """Execute code; return its stdout, failing the test on an error."""
    out: list[str] = []

    def hook(msg: dict) -> None:
        if msg["msg_type"] == "stream":
            out.append(msg["content"]["text"])

    reply = kc.execute_interactive(code, output_hook=hook, timeout=timeout)
    assert reply["content"]["status"] == "ok", reply["content"]
    return "".join(out)


def value(kc: BlockingKernelClient, expr: str) -> object:
    """The JSON value of a Python expression evaluated in the kernel."""
    return json.loads(run(kc, f"print(json.dumps({expr}))").splitlines()[-1])


@contextlib.contextmanager
def kernel(cwd: Path, name: str = KERNEL_NAME, config: Config | None = None,
           connection_file: str = "", extra_arguments: tuple[str, ...] = ()
           ) -> Iterator[tuple[KernelManager, BlockingKernelClient]]:
    """A started kernel over ipc (a plain kernel needs an absolute ``connection_file``)."""
    km = KernelManager(kernel_name=name, transport="ipc", config=config or Config(),
                       connection_file=connection_file)
    km.start_kernel(cwd=str(cwd), extra_arguments=list(extra_arguments))
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=30)
        run(kc, HELPERS)
        yield km, kc
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


@pytest.fixture(scope="module")
def box(specs: Path, submission: Path) -> Iterator[BlockingKernelClient]:
    with kernel(submission) as (km, kc):
        yield kc
    assert not Path(km.connection_file).parent.exists(), "cleanup left the kernel's dir"


def test_kernelspec(specs: Path) -> None:
    spec = json.loads((specs / "share/jupyter/kernels" / KERNEL_NAME / "kernel.json").read_text())
    assert spec["interrupt_mode"] == "message"
    assert spec["metadata"]["kernel_provisioner"]["provisioner_name"] == PROVISIONER_NAME
    assert spec["argv"][0] == sys.executable


def test_runs_probe_but_not_reference(box: BlockingKernelClient) -> None:
    assert value(box, "__import__('numpy').arange(4).sum().item()") == 6
    run(box, "from attnkit.probe import probe")
    assert value(box, "__import__('attnkit').__file__") == "/opt/attnkit/attnkit/__init__.py"
    for module in ("attnkit.judge", "attnkit.judge.reference", "attnkit.judge.verdicts",
                   "attnkit.judge.misconceptions", "attnkit.dev.catalogue"):
        assert value(box, f"fails(lambda: __import__({module!r}))") == "ModuleNotFoundError"
    loaded = value(box, "sorted(m for m in sys.modules if m.startswith('attnkit'))")
    assert loaded == ["attnkit", "attnkit.kernel", "attnkit.kernel.carry", "attnkit.kernel.cases",
                      "attnkit.kernel.probe", "attnkit.outstream", "attnkit.probe"]


def test_environment_and_limits(box: BlockingKernelClient) -> None:
    env = value(box, "dict(os.environ)")
    assert set(env) - {"PWD"} - SET_BY_KERNEL == {  # PWD: set by bwrap
        "PATH", "HOME", "LANG", "MPLBACKEND", "MPLCONFIGDIR", "PYTHONPATH",
        "PYTHONDONTWRITEBYTECODE", "OPENBLAS_NUM_THREADS", "ATTNKIT_SEED", OUTPUT_LIMIT_ENV}
    assert env["ATTNKIT_SEED"] == "1234"
    assert env[OUTPUT_LIMIT_ENV] == "1048576"
    assert env["HOME"] == value(box, "os.getcwd()") == "/home/student"
    uid = value(box, "os.getuid()")
    if privileged():  # a uid of its own; otherwise the instructor's, in its own namespace
        assert 62000 <= uid <= 62999
    else:
        assert uid == os.getuid() and value(box, "os.readlink('/proc/self/ns/user')") != \
            os.readlink("/proc/self/ns/user")
    limits = value(box, "[__import__('resource').getrlimit(getattr(__import__('resource'), n))"
                        " for n in ('RLIMIT_CPU', 'RLIMIT_AS', 'RLIMIT_FSIZE', 'RLIMIT_NPROC')]")
    assert limits == [[120, 120], [4 << 30, 4 << 30], [64 << 20, 64 << 20], [256, 256]]


def test_no_network(box: BlockingKernelClient) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        for address in (("1.1.1.1", 53), ("127.0.0.1", port)):
            error = value(box, f"fails(lambda: socket.create_connection({address!r}, timeout=2))")
            assert error in {"OSError", "ConnectionRefusedError", "TimeoutError"}, address


def test_filesystem(box: BlockingKernelClient, submission: Path) -> None:
    assert value(box, "open('data.txt').read()") == "student data"
    assert value(box, "sorted(os.listdir('.'))") == [".ipython", "data.txt", "leak.py"]
    for path in (REPO / "source", "/root", Path.home(), submission):
        assert value(box, f"fails(lambda: os.listdir({str(path)!r}))") is not None, path
    # the repo root exists only as the mount point of the bound environment
    assert value(box, f"os.listdir({str(REPO)!r})") == [Path(sys.prefix).name]
    for path in (REPO / "gradebook.db", REPO / "attnkit/judge/reference.py", "leak.py",
                 "/etc/shadow"):
        assert value(box, f"fails(lambda: open({str(path)!r}).read())") is not None, path
    for path in ("/x", "/home/x", "/usr/x", "/etc/x", "/dev/x", "/opt/attnkit/x",
                 f"{sys.prefix}/x", "/run/attnkit-uids/x"):
        assert value(box, f"fails(lambda: open({path!r}, 'w'))") is not None, path
    assert value(box, "[fails(lambda: open(p, 'w').write('x')) for p in ('out', '/tmp/out')]"
                 ) == [None, None]
    assert not (submission / "out").exists(), "the kernel wrote into the real working dir"


# Write 1 MiB blocks (files under RLIMIT_FSIZE) into ``folder`` until the first error or
# ``most`` MiB; the MiB written and the error's name.
FLOOD = """
import errno
def flood(folder, most):
    blob, written = b"z" * (1 << 20), 0
    try:
        os.makedirs(folder, exist_ok=True)
        while written < most:
            with open(f"{folder}/f{written}", "wb", buffering=0) as f:
                for _ in range(32):
                    f.write(blob)
                    written += 1
    except OSError as error:
        return written, errno.errorcode[error.errno]
    return written, None
"""
SMALL_SCRATCH = Config({"SandboxProvisioner": {"scratch_limit": 48 << 20, "tmp_size": 32 << 20}})


def tree_bytes(path: Path) -> int:
    return sum(os.lstat(os.path.join(folder, name)).st_size
               for folder, _, names in os.walk(path) for name in names)


def test_kernel_cannot_fill_the_graders_disk(specs: Path, submission: Path) -> None:
    """A kernel writing all it can into each writable place stops at that place's limit
    (ENOSPC), in memory of its own: the grader's disk and the kernel's box on it stay as they
    were, and the kernel carries on with its submission's files."""
    with kernel(submission, config=SMALL_SCRATCH) as (km, kc):
        box = Path(km.connection_file).parent
        free = shutil.disk_usage(box).free
        run(kc, FLOOD)
        home, tmp, shm = (value(kc, f"flood({folder!r}, 768)")
                          for folder in ("/home/student/junk", "/tmp/junk", "/dev/shm/junk"))
        assert home[0] <= 48 and home[1] == "ENOSPC", home
        assert tmp[0] <= 32 and tmp[1] == "ENOSPC", tmp
        assert shm[0] <= 16 and shm[1] in {"ENOSPC", "EROFS", "EACCES"}, shm
        assert tree_bytes(box) < 4 << 20, "the kernel wrote into its box on the grader's disk"
        assert free - shutil.disk_usage(box).free < 256 << 20
        assert km.is_alive() and value(kc, "6 * 7") == 42
        run(kc, "import shutil\nfor d in ('junk', '/tmp/junk', '/dev/shm/junk'):\n"
                "    shutil.rmtree(d, ignore_errors=True)")
        assert value(kc, "open('notes.txt', 'w').write('kept') and open('notes.txt').read()"
                     ) == "kept"
        assert value(kc, "open('data.txt').read()") == "student data"


def test_notebook_runs_in_bounded_scratch(specs: Path, submission: Path) -> None:
    """A notebook reads its data, writes a small file and reads it back, as before."""
    cells = ("print(open('data.txt').read())",
             "with open('out.csv', 'w') as f:\n    f.write('a,b\\n1,2\\n')",
             "print(open('out.csv').read().split()[-1], sorted(__import__('os').listdir('.')))")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src) for src in cells])
    config = Config({"KernelManager": {"transport": "ipc"}, **SMALL_SCRATCH})
    NotebookClient(nb, kernel_name=KERNEL_NAME, config=config, timeout=30,
                   resources={"metadata": {"path": str(submission)}}).execute()
    assert nb.cells[0].outputs[0].text == "student data\n"
    assert nb.cells[2].outputs[0].text == "1,2 ['.ipython', 'data.txt', 'leak.py', 'out.csv']\n"
    assert not (submission / "out.csv").exists()


def test_memory_limit(box: BlockingKernelClient) -> None:
    code = "try:\n    np.ones(8 << 30, np.uint8)\nexcept MemoryError:\n    print('MemoryError')"
    assert run(box, "import numpy as np\n" + code).strip() == "MemoryError"


BOMB = """
import time
pids, error = [], None
for _ in range(2000):
    try:
        pid = os.fork()
    except OSError as e:
        error = type(e).__name__
        break
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    pids.append(pid)
print(json.dumps([error, len(pids)]))
"""


@contextlib.contextmanager
def jupyter_server(tmp: Path) -> Iterator[str]:
    """The grader's own Jupyter server (the instructor's, on a hub): its URL with a token."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter_server", "--no-browser", "--ip=127.0.0.1",
         f"--port={port}", "--IdentityProvider.token=t", "--allow-root",
         f"--ServerApp.root_dir={tmp}"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp,
        env={**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp / "runtime")})
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and server.poll() is None:
            with contextlib.suppress(OSError):
                urllib.request.urlopen(f"{url}/api/status?token=t", timeout=2)
                break
            time.sleep(0.2)
        else:
            raise AssertionError("the Jupyter server did not start")
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_fork_bomb_is_contained(specs: Path, submission: Path, tmp_path: Path) -> None:
    """A fork bomb stops at the kernel's process limit; the grader (its own processes and
    Jupyter server, which share the kernel's uid when the grader is not root) and another
    kernel carry on while the bomb's processes are still alive."""
    with jupyter_server(tmp_path) as url, kernel(submission) as (_, bomb):
        error, forked = json.loads(run(bomb, BOMB).splitlines()[-1])
        assert error == "BlockingIOError" and forked < 256
        with kernel(submission) as (_, neighbour):
            out = run(neighbour, "import subprocess\nprint(subprocess.run(['echo', 'ok'], "
                                 "capture_output=True, text=True).stdout)")
            assert out.strip() == "ok"
        assert subprocess.run(["true"]).returncode == 0  # the grader can still fork
        started = urllib.request.urlopen(urllib.request.Request(  # and its server too
            f"{url}/api/kernels?token=t", data=b"{}", method="POST"), timeout=60)
        assert started.status == 201
    with kernel(submission) as (_, after):  # the bomb's children may not be reaped yet
        assert value(after, "__import__('subprocess').run(['true']).returncode") == 0


def namespace_processes(namespace: str) -> list[str]:
    """Commands of the processes in a pid namespace (``pid:[inode]``), zombies included."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{pid}/ns/pid") == namespace:
                found.append(Path(f"/proc/{pid}/comm").read_text().strip())
    return found


def test_nothing_outlives_the_kernel(specs: Path, submission: Path) -> None:
    with kernel(submission) as (_, kc):
        namespace = value(kc, "os.readlink('/proc/self/ns/pid')")
        run(kc, "import subprocess, time\n"  # two daemons
                "subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
                "if os.fork() == 0:\n    os.setsid()\n    time.sleep(300)")
        assert len(namespace_processes(namespace)) >= 3
    deadline = time.monotonic() + 10
    while namespace_processes(namespace) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert namespace_processes(namespace) == []


def displayed(kc: BlockingKernelClient, code: str) -> list[list[str]]:
    """The MIME types of each display the code makes."""
    shown: list[list[str]] = []

    def hook(msg: dict) -> None:
        if msg["msg_type"] == "display_data":
            shown.append(sorted(msg["content"]["data"]))

    reply = kc.execute_interactive(code, output_hook=hook, timeout=30)
    assert reply["content"]["status"] == "ok", reply["content"]
    return shown


PLOT = "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()"


def test_extra_arguments_reach_the_kernel(specs: Path, submission: Path) -> None:
    """nbclient's ``extra_arguments`` reach a warm kernel as they reach one bubblewrap starts:
    here, the inline backend's figure formats, which the grading service empties."""
    with kernel(submission) as (_, kc):
        assert displayed(kc, PLOT) == [["image/png", "text/plain"]]
    with kernel(submission, extra_arguments=("--InlineBackend.figure_formats=[]",)) as (_, kc):
        assert displayed(kc, PLOT) == [["text/plain"]]


def test_timeout_interrupts_and_kernel_survives(specs: Path, submission: Path) -> None:
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src) for src in
                                         ("x = 41", "while True:\n    pass", "print(x + 1)")])
    config = Config({"KernelManager": {"transport": "ipc"}})  # as nbgrader_config.py sets it
    client = NotebookClient(nb, kernel_name=KERNEL_NAME, config=config, timeout=3,
                            interrupt_on_timeout=True, allow_errors=True,
                            resources={"metadata": {"path": str(submission)}})
    client.execute()
    assert nb.cells[1].outputs[-1].output_type == "error"
    assert nb.cells[2].outputs[0].text == "42\n"


def test_exit_kills_only_that_kernel(specs: Path, submission: Path) -> None:
    config = Config({"SandboxProvisioner": {"cpu_limit": 60}})
    with kernel(submission) as (doomed_km, doomed), kernel(submission, SMALL, config) as (
            km, kc):
        doomed.execute("os._exit(1)")
        deadline = time.monotonic() + 15
        while doomed_km.is_alive() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not doomed_km.is_alive()
        assert km.is_alive() and value(kc, "6 * 7") == 42
        assert value(kc, "[__import__('resource').getrlimit(r)[0] for r in (0, 9)]") == [
            60, 1 << 30]  # RLIMIT_CPU from c.SandboxProvisioner, RLIMIT_AS from kernel.json


def test_tcp_transport_is_refused(specs: Path, submission: Path) -> None:
    km = KernelManager(kernel_name=KERNEL_NAME)
    with pytest.raises(RuntimeError, match='c.KernelManager.transport = "ipc"'):
        km.start_kernel(cwd=str(submission))


AS_NOBODY = """
import json, logging, os, sys
from jupyter_client import KernelManager
logging.basicConfig()  # the provisioner's warning, when the instructor opted out
km = KernelManager(kernel_name="attnkit-sandbox", transport="ipc")
try:
    km.start_kernel(cwd=sys.argv[1])
except RuntimeError as error:
    sys.exit(str(error))
kc = km.client()
kc.start_channels()
kc.wait_for_ready(timeout=30)
seen = []
code = f"import os; print(os.getuid(), sorted(os.listdir('.')), os.path.exists({sys.argv[1]!r}))"
kc.execute_interactive(code, output_hook=lambda m: seen.append(m["content"].get("text", "")))
print(json.dumps("".join(seen).strip()))
km.shutdown_kernel(now=True)
"""

# Run a command in a user namespace of root's where ``nobody`` may create none: what an
# instructor sees on a machine whose administrator disabled unprivileged user namespaces.
NO_USER_NAMESPACES = """
import ctypes, os, sys
go, ready = os.pipe(), os.pipe()
pid = os.fork()
if pid == 0:
    if ctypes.CDLL(None, use_errno=True).unshare(0x10000000) != 0:  # CLONE_NEWUSER
        os._exit(90)
    os.write(ready[1], b"x")
    os.read(go[0], 1)
    with open("/proc/sys/user/max_user_namespaces", "w") as limit:
        limit.write("0")
    os.execvp(sys.argv[1], sys.argv[1:])
os.read(ready[0], 1)
for name in ("uid_map", "gid_map"):
    with open(f"/proc/{pid}/{name}", "w") as mapping:
        mapping.write("0 0 1\\n65534 65534 1\\n")
os.write(go[1], b"x")
sys.exit(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]))
"""


@pytest.fixture
def nobody() -> Iterator[tuple[list[str], dict[str, str], Path]]:
    """As ``nobody``: the command prefix, environment and a working dir it can read."""
    tmp_path = Path(tempfile.mkdtemp())  # pytest's own tmp dirs are private to root
    prefix = tmp_path / "prefix"
    install_kernelspec(str(prefix))
    work = tmp_path / "work"
    work.mkdir()
    (work / "data.txt").write_text("student data")
    for path in (tmp_path, prefix, *prefix.rglob("*"), work, *work.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    try:
        yield as_nobody, {"PATH": os.environ["PATH"], "HOME": "/nonexistent",
                          "JUPYTER_PATH": str(prefix / "share" / "jupyter")}, work
    finally:
        shutil.rmtree(tmp_path)


@pytest.mark.root
def test_an_ordinary_user_gets_the_sandbox(nobody: tuple[list[str], dict[str, str], Path]
                                           ) -> None:
    as_nobody, env, work = nobody
    boxed = subprocess.run([*as_nobody, sys.executable, "-c", AS_NOBODY, str(work)], env=env,
                           capture_output=True, text=True, timeout=120)
    assert boxed.returncode == 0, boxed.stderr
    assert json.loads(boxed.stdout.splitlines()[-1]) == "65534 ['.ipython', 'data.txt'] False"


@pytest.mark.root
def test_refuses_without_user_namespaces_and_says_how_to_enable_them(
        nobody: tuple[list[str], dict[str, str], Path]) -> None:
    as_nobody, env, work = nobody
    wrap = [sys.executable, "-c", NO_USER_NAMESPACES, *as_nobody]
    refused = subprocess.run([*wrap, sys.executable, "-c", AS_NOBODY, str(work)], env=env,
                             capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "max_*_namespaces exceeded" in refused.stderr
    assert "sysctl -w user.max_user_namespaces" in refused.stderr, refused.stderr
    plain = subprocess.run([*wrap, sys.executable, "-c", AS_NOBODY, str(work)],
                           env={**env, "ATTNKIT_UNSANDBOXED": "1"}, capture_output=True,
                           text=True, timeout=120)
    assert plain.returncode == 0, plain.stderr
    assert "WITHOUT a sandbox" in plain.stderr  # the instructor's explicit choice, said aloud


def test_check_reports_missing_tools(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    assert "bwrap" in (check_sandbox() or "")


def test_a_long_cell_lowers_only_its_kernel(specs: Path, submission: Path) -> None:
    """A cell that runs past step_aside_after leaves its kernel at nice 19 (and its session's
    autogroup), so it cannot starve the other kernels; a kernel of quick cells keeps nice 0."""
    from attnkit.pipeline.preprocessors import ResilientExecute

    priority = ("import os\nprint(os.getpriority(os.PRIO_PROCESS, 0), "
                "open('/proc/self/autogroup').read().split()[-1])")
    busy = "import time\nt = time.time()\nwhile time.time() - t < 1.5:\n    pass"
    for cells, expected in (([busy, priority], "19 19"), (["x = 1", priority], "0 0")):
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
        executor = ResilientExecute(kernel_name=KERNEL_NAME, timeout=30, step_aside_after=0.5,
                                    config=Config({"KernelManager": {"transport": "ipc"}}))
        executor.preprocess(nb, {"metadata": {"path": str(submission)},
                                 "nbgrader": {"assignment": "a", "student": "s"}})
        assert nb.cells[-1].outputs[0].text.split() == expected.split(), nb.cells[-1].outputs

"""What a sandboxed kernel sees and runs as: the mount plan, bubblewrap's command line, the
kernel's box on the host, its uid lease (grading as root) and its environment.

The mount plan is one list of steps for both ways a kernel starts: bubblewrap is given it
as options (``bwrap_args``), the warm-kernel server mounts it itself (``rootfs.py``), so the
two sandboxes cannot drift apart.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

from attnkit.sandbox.folders import ensure_private_dir, private_dir
from attnkit.sandbox.scratch import WORK_DIR, scratch_plan

OUTPUT_LIMIT_ENV = "ATTNKIT_OUTPUT_LIMIT"  # attnkit.outstream's cap, characters per cell
PASS_THROUGH_ENV = ("ATTNKIT_SEED", OUTPUT_LIMIT_ENV)
# What the kernel may import of the kit (paths in attnkit/): the kernel package and the
# ``attnkit.probe`` name that hidden test cells import. Never the judge.
PACKAGE = Path(__file__).resolve().parents[1]  # attnkit/
KERNEL_MODULES = ("__init__.py", "probe.py", "outstream.py", "kernel/*.py")  # in PACKAGE
LIB_DIR = "/opt/attnkit"  # the private copy of KERNEL_MODULES, inside the sandbox


def tool(name: str) -> str:
    """Absolute path of a required executable (bare name if missing)."""
    return shutil.which(name) or name


def mount_plan(tmp_size: int = 16 << 20) -> list[list]:
    """The filesystem every sandbox sees, as steps for bubblewrap or the forkserver: system
    dirs read-only, a private /tmp, then the environment (after /tmp, so an environment
    under /tmp stays visible), /proc and a minimal /dev."""
    plan: list[list] = [["ro", "/usr", "/usr"], ["ro", "/etc", "/etc"]]
    for name in ("bin", "sbin", "lib", "lib64"):
        path = f"/{name}"
        if os.path.islink(path):
            plan.append(["symlink", os.readlink(path), path])
        elif os.path.isdir(path):
            plan.append(["ro", path, path])
    return [*plan, ["tmpfs", "/tmp", tmp_size], ["ro", sys.prefix, sys.prefix],
            ["proc", "/proc"], ["dev", "/dev"]]


BWRAP_STEPS = {"ro": ["--ro-bind"], "rw": ["--bind"], "symlink": ["--symlink"],
               "proc": ["--proc"], "dev": ["--dev"]}


def bwrap_args(plan: list[list]) -> list[str]:
    """bwrap, its namespaces and the plan's mounts."""
    args = [tool("bwrap"), "--unshare-all", "--unshare-user", "--die-with-parent",
            "--new-session", "--clearenv"]
    for kind, *rest in plan:
        if kind == "tmpfs":
            args += ["--size", str(rest[1]), "--tmpfs", rest[0]]
        else:
            args += [*BWRAP_STEPS[kind], *map(str, rest)]
    return args


def privileged() -> bool:
    """True if kernels can be given uids of their own (we are root)."""
    return os.geteuid() == 0


USERNS_REMEDY = (
    "The sandbox needs unprivileged user namespaces. Ask an administrator to enable them: "
    "`sysctl -w user.max_user_namespaces=15000` (on Ubuntu 23.10 and later also "
    "`sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`; on Debian 10 and older "
    "`sysctl -w kernel.unprivileged_userns_clone=1`), made permanent in /etc/sysctl.d/; "
    "or grade as root")


def check_sandbox() -> str | None:
    """Why sandboxed kernels cannot start for this user on this machine, and the remedy;
    None if they can."""
    missing = [name for name in ("bwrap", "prlimit", "setpriv") if shutil.which(name) is None]
    if missing:
        return (f"{', '.join(missing)} not found on PATH. Remedy: install the Debian packages "
                "bubblewrap and util-linux (`make env` as root does it)")
    drop = [tool("setpriv"), "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
    probe = [*(drop if privileged() else []), *bwrap_args(mount_plan()), "--", sys.executable,
             "-c", "pass"]
    try:
        result = subprocess.run(probe, capture_output=True, text=True, timeout=30, env={})
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bubblewrap could not run: {error}"
    if result.returncode == 0:
        return None
    error = result.stderr.strip() or f"exit code {result.returncode}"
    if "namespace" in error:
        return f"bubblewrap could not create its namespaces ({error}). {USERNS_REMEDY}"
    return (f"bubblewrap could not run {sys.executable} as an unprivileged user: {error} "
            "(is the environment outside /root and readable by every user?)")


def _process_uids() -> set[int]:
    """Real uids of all processes, zombies included (what RLIMIT_NPROC counts)."""
    uids = set()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/status") as status:
                uids.update(int(line.split()[1]) for line in status if line.startswith("Uid:"))
        except OSError:  # the process has gone
            continue
    return uids


class UidLease:
    """An exclusive claim on one sandbox uid: an flock held until ``release``.

    Unlocked uids that still own processes (a killed fork bomb takes a moment to
    be reaped) are skipped, so a new kernel never inherits a full process count.
    """

    def __init__(self, lock_dir: str, uids: range) -> None:
        ensure_private_dir(Path(lock_dir))
        busy = _process_uids()
        for uid in (uid for uid in uids if uid not in busy):
            fd = os.open(Path(lock_dir) / f"{uid}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW,
                         0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            self.uid, self._fd = uid, fd
            return
        raise RuntimeError(f"all sandbox uids {uids.start}-{uids.stop - 1} are in use")

    def release(self) -> None:
        os.close(self._fd)


def chown(path: Path, uid: int | None) -> None:
    """Give ``path`` (never a link's target) to ``uid``; None leaves it ours."""
    if uid is not None:
        os.chown(path, uid, uid, follow_symlinks=False)


def _copy_tree(src: Path, dst: Path, uid: int | None, budget: list[int]) -> None:
    """Copy regular files and dirs (symlinks as links, never followed) owned by ``uid``."""
    dst.mkdir(mode=0o700)
    chown(dst, uid)
    for entry in os.scandir(src):
        target = dst / entry.name
        if entry.is_symlink():
            os.symlink(os.readlink(entry.path), target)
        elif entry.is_dir(follow_symlinks=False):
            _copy_tree(Path(entry.path), target, uid, budget)
        elif entry.is_file(follow_symlinks=False):
            budget[0] -= entry.stat(follow_symlinks=False).st_size
            if budget[0] < 0:
                raise RuntimeError(f"the kernel's working directory {src} is too large to copy "
                                   "(c.SandboxProvisioner.work_copy_limit, scratch_limit)")
            shutil.copyfile(entry.path, target, follow_symlinks=False)
        else:
            continue  # sockets, fifos, devices
        chown(target, uid)


class Box:
    """One kernel's host-side dir: ipc sockets and connection file (always); scratch copy
    of the working dir and private kernel modules (sandboxed kernels only)."""

    def __init__(self) -> None:
        self.root = Path(os.path.realpath(private_dir("attnkit-k-")))
        self.root.chmod(0o711)  # a sandbox uid may traverse, not list
        self.work, self.sockets, self.lib = (self.root / n for n in ("work", "sock", "lib"))
        self.connection_file = self.root / "kernel.json"
        self.sockets.mkdir(mode=0o700)

    def fill(self, cwd: str | None, uid: int | None, copy_limit: int) -> None:
        """Hand the socket dir to ``uid`` (None: the kernel keeps ours); copy the working
        dir (if any) and the kernel modules."""
        chown(self.sockets, uid)
        if cwd is None:  # never copy the grader's own cwd (it may be the course root)
            self.work.mkdir(mode=0o700)
            chown(self.work, uid)
        else:
            _copy_tree(Path(cwd), self.work, uid, [copy_limit])
        package = self.lib / "attnkit"
        for pattern in KERNEL_MODULES:
            for source in PACKAGE.glob(pattern):
                target = package / source.relative_to(PACKAGE)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)

    def plan(self, scratch_size: int) -> list[list]:
        """Mount steps that bring this box into the sandbox: its copy of the working dir
        read-only, copied into a tmpfs of ``scratch_size`` bytes (nothing the kernel writes
        reaches the host's disk)."""
        return [["ro", str(self.lib), LIB_DIR], *scratch_plan(str(self.work), scratch_size),
                ["rw", str(self.sockets), str(self.sockets)],
                ["ro", str(self.connection_file), str(self.connection_file)]]

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


def kernel_env(parent_env: Mapping[str, str]) -> dict[str, str]:
    """The complete environment of the sandboxed kernel."""
    # matplotlib's inline backend, as in Jupyter: the student's plots reach the feedback
    env = {"PATH": f"{sys.prefix}/bin:/usr/bin:/bin", "HOME": WORK_DIR, "LANG": "C.UTF-8",
           "MPLBACKEND": "module://matplotlib_inline.backend_inline",
           "MPLCONFIGDIR": "/tmp/matplotlib", "PYTHONPATH": LIB_DIR,
           "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1"}
    env.update({k: parent_env[k] for k in PASS_THROUGH_ENV if k in parent_env})
    return env

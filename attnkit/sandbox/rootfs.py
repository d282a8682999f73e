"""The warm-kernel server's sandbox root: the mount plan (``bwrap.mount_plan`` plus the
kernel's box, the very steps bubblewrap is given) mounted with mount(2) on a tmpfs that the
kernel then chroots into, with the flags bubblewrap would use.

``forkserver.py`` loads this file from beside it (it runs with no package on its path), so
it imports the standard library only, never ``attnkit``.
"""

from __future__ import annotations

import ctypes
import os

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND = 32, 1024, 2048, 4096
MS_REC, MS_PRIVATE, MS_RELATIME, MS_STRICTATIME = 16384, 1 << 18, 1 << 21, 1 << 24
DEVICES = ("null", "zero", "full", "random", "urandom")

libc = ctypes.CDLL(None, use_errno=True)  # the server's other calls (prctl, unshare) too


def call(name: str, *args: object) -> None:
    """Call a libc function; raise OSError on failure."""
    if getattr(libc, name)(*args) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{name}{args!r}: {os.strerror(errno)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int,
           data: str | None = None) -> None:
    call("mount", *(None if s is None else s.encode() for s in (source, target, fstype)),
         ctypes.c_ulong(flags), None if data is None else data.encode())


def _target(root: str, path: str, *, is_dir: bool) -> str:
    """``path`` under ``root``, created as an empty dir or file."""
    target = root + path
    os.makedirs(target if is_dir else os.path.dirname(target), exist_ok=True)
    if not is_dir and not os.path.exists(target):
        open(target, "w").close()
    return target


def _kept_flags(source: str) -> int:
    """The flags of the mount holding ``source`` that a bind of it must keep: in a user
    namespace they are locked, and a remount that drops one fails (as in bubblewrap)."""
    flag = os.statvfs(source).f_flag
    kept = flag & (os.ST_RDONLY | os.ST_NOSUID | os.ST_NODEV | os.ST_NOEXEC)  # = MS_ bits
    if flag & os.ST_NOATIME:
        return kept | MS_NOATIME
    if flag & os.ST_RELATIME:
        return kept | MS_RELATIME | (MS_NODIRATIME if flag & os.ST_NODIRATIME else 0)
    return kept | MS_STRICTATIME | (MS_NODIRATIME if flag & os.ST_NODIRATIME else 0)


def _bind(source: str, target: str, writable: bool, *, device: bool = False) -> None:
    _mount(source, target, None, MS_BIND)
    _mount(None, target, None, MS_BIND | MS_REMOUNT | MS_NOSUID | _kept_flags(source)
           | (0 if device else MS_NODEV) | (0 if writable else MS_RDONLY))


def _dev(target: str) -> None:
    """A minimal /dev: the harmless devices, a shared-memory tmpfs, the fd links."""
    _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=64k")
    for name in DEVICES:
        _bind(f"/dev/{name}", _target(target, f"/{name}", is_dir=False), True, device=True)
    _mount("tmpfs", _target(target, "/shm", is_dir=True), "tmpfs", MS_NOSUID | MS_NODEV,
           "mode=1777,size=16m")
    for index, name in enumerate(("stdin", "stdout", "stderr")):
        os.symlink(f"/proc/self/fd/{index}", f"{target}/{name}")
    os.symlink("/proc/self/fd", f"{target}/fd")
    _mount(None, target, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC)


def build_root(root: str, plan: list[list], owner: tuple[int, int]) -> None:
    """Mount the plan's steps under ``root`` (a tmpfs), then make the tmpfs read-only.

    The plan is ``attnkit.sandbox.bwrap.mount_plan``: the same steps bubblewrap is given. Its
    tmpfs mounts belong to ``owner`` (the kernel's uid and gid), as bubblewrap's do."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing we mount reaches the host
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
    for kind, *args in plan:
        if kind in ("ro", "rw"):
            source, path = args
            _bind(source, _target(root, path, is_dir=os.path.isdir(source)), kind == "rw")
        elif kind == "symlink":
            link, path = args
            os.symlink(link, root + path)
        elif kind == "tmpfs":
            path, size = args
            _mount("tmpfs", _target(root, path, is_dir=True), "tmpfs", MS_NOSUID | MS_NODEV,
                   f"mode=1777,size={size},uid={owner[0]},gid={owner[1]}")
        elif kind == "proc":
            _mount("proc", _target(root, args[0], is_dir=True), "proc",
                   MS_NOSUID | MS_NODEV | MS_NOEXEC)
        elif kind == "dev":
            _dev(_target(root, args[0], is_dir=True))
        else:
            raise ValueError(f"unknown mount step {kind!r}")
    _mount(None, root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)

"""The course on a hub with real local users: accounts, the course directory, the exchange.

``lay_out`` makes what deploy/jupyterhub's configs expect, with the permissions docs/hub.md
describes:

- the exchange root is root's and sticky (1777): anyone may create, nobody may rename or
  delete what another made (nbgrader asks for 0777, which lets a student move the course's
  exchange folder away and put their own in its place);
- the course's exchange folder exists before any student could create it, the instructor's;
  ``inbound`` is 2733 and belongs to the staff group (students drop, nobody lists);
- the course directory is the instructor's, group the staff group (instructor and the grader
  account), 3770: the graders' service may write the gradebook but not rename ``source/``,
  which stays the instructor's (2750, files 0640); nobody else may enter;
- homes are 0700, so fetched assignments and feedback are private.

``python -m attnkit.deploy.site`` (``make hub``) creates demo users and starts the hub.
"""

from __future__ import annotations

import grp
import json
import os
import pwd
import secrets
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

KIT = Path(__file__).resolve().parents[2]
HUB_CONFIG = KIT / "deploy" / "jupyterhub" / "jupyterhub_config.py"
SYSTEM_CONFIG = KIT / "deploy" / "jupyterhub" / "jupyter"  # copied to /etc/jupyter
PROXY = KIT / "node_modules" / ".bin" / "configurable-http-proxy"
BIN = Path(sys.executable).parent


@dataclass
class Site:
    base: Path  # holds the course, the exchange, the system-wide config and the hub's state
    instructor: str
    tas: list[str]
    students: list[str]
    port: int = 8000
    course_id: str = "self-attention"
    grader: str = field(default="")
    grade_on_submit: list[str] = field(default_factory=list)  # assignments `attnkit serve` grades

    def __post_init__(self) -> None:
        self.grader = self.grader or f"grader-{self.course_id}"

    @property
    def course_root(self) -> Path:
        return self.base / self.course_id

    @property
    def exchange(self) -> Path:
        return self.base / "exchange"

    @property
    def jupyter_config(self) -> Path:
        return self.base / "etc" / "jupyter"

    @property
    def state(self) -> Path:
        return self.base / "state"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def settings(self) -> dict[str, object]:
        """The overrides of SITE in deploy/jupyterhub/jupyterhub_config.py."""
        return {"course_id": self.course_id, "course_root": str(self.course_root),
                "exchange": str(self.exchange), "jupyter_config": str(self.jupyter_config),
                "state": str(self.state), "grader": self.grader,
                "instructors": [self.instructor], "tas": self.tas, "students": self.students,
                "ip": "127.0.0.1", "port": self.port, "proxy": str(PROXY),
                "grade_on_submit": self.grade_on_submit}

    def env(self) -> dict[str, str]:
        """What the hub's servers see (deploy/jupyterhub/jupyterhub_config.py's ENV)."""
        return {"PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin",
                "JUPYTER_CONFIG_PATH": str(self.jupyter_config),
                "ATTNKIT_COURSE_ID": self.course_id, "ATTNKIT_EXCHANGE": str(self.exchange)}


def _run(args: list[str], **kw) -> subprocess.CompletedProcess:
    for _ in range(40):  # another useradd holds /etc/passwd's lock: wait for it
        result = subprocess.run(args, text=True, capture_output=True, **kw)
        if result.returncode == 0 or "lock" not in result.stderr:
            break
        time.sleep(0.25)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(args)} failed ({result.returncode}): "
                           f"{result.stdout}{result.stderr}")
    return result


def user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True


def ensure_user(name: str, password: str | None = None, groups: tuple[str, ...] = ()) -> None:
    """A local account with a private home (0700), its own group and, if given, a password."""
    if not user_exists(name):
        _run(["useradd", "--create-home", "--user-group", "--shell", "/bin/bash",
              "-K", "HOME_MODE=0700", name])
    os.chmod(pwd.getpwnam(name).pw_dir, 0o700)
    if password is not None:
        _run(["chpasswd"], input=f"{name}:{password}\n")
    for group in groups:
        _run(["usermod", "--append", "--groups", group, name])


def remove_user(name: str) -> None:
    if user_exists(name):
        _run(["userdel", "--remove", name])


def command_as(name: str, args: list[str], env: dict[str, str] | None = None) -> list[str]:
    """The command line that runs ``args`` as the local user ``name`` (their uid, groups and
    home), nothing of root's environment kept but ``env``."""
    entry = pwd.getpwnam(name)
    environment = {"HOME": entry.pw_dir, "USER": name, "LOGNAME": name, "LANG": "C.UTF-8",
                   "PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin", **(env or {})}
    return ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--init-groups",
            "--", "env", "-i", *(f"{k}={v}" for k, v in environment.items()), *args]


def as_user(name: str, args: list[str], cwd: Path, env: dict[str, str] | None = None,
            check: bool = True, timeout: float = 900) -> subprocess.CompletedProcess:
    """``args`` run to the end as the local user ``name`` (``command_as``), output captured."""
    result = subprocess.run(command_as(name, args, env), cwd=cwd, text=True,
                            capture_output=True, timeout=timeout)
    if check and result.returncode != 0:
        raise RuntimeError(f"as {name}: {' '.join(args)} failed ({result.returncode}):\n"
                           f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return result


def _own(path: Path, user: str, group: str | int, mode: int) -> None:
    shutil.chown(path, user, group)
    os.chmod(path, mode)


def create_accounts(site: Site, passwords: dict[str, str]) -> None:
    """The grader account (its group is the staff group), then the people of ``passwords``."""
    ensure_user(site.grader)
    for name, password in passwords.items():
        staff = (site.grader,) if name == site.instructor else ()
        ensure_user(name, password, staff)


def lay_out(site: Site) -> None:
    """The course directory, the exchange and the configs, with the shipped permissions."""
    staff = grp.getgrgid(pwd.getpwnam(site.grader).pw_gid).gr_name
    inst = site.instructor
    site.base.mkdir(parents=True, exist_ok=True)
    os.chmod(site.base, 0o755)
    site.state.mkdir(exist_ok=True)
    os.chmod(site.state, 0o700)
    site.jupyter_config.parent.mkdir(exist_ok=True)
    os.chmod(site.jupyter_config.parent, 0o755)
    shutil.copytree(SYSTEM_CONFIG, site.jupyter_config, dirs_exist_ok=True)
    for path in [site.jupyter_config, *site.jupyter_config.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)

    site.exchange.mkdir(exist_ok=True)
    _own(site.exchange, "root", "root", 0o1777)
    course_exchange = site.exchange / site.course_id
    course_exchange.mkdir(exist_ok=True)
    _own(course_exchange, inst, staff, 0o755)
    for name, mode in (("outbound", 0o755), ("inbound", 0o2733), ("feedback", 0o711)):
        (course_exchange / name).mkdir(exist_ok=True)
        _own(course_exchange / name, inst, staff, mode)

    root = site.course_root
    root.mkdir(exist_ok=True)
    _own(root, inst, staff, 0o3770)
    shutil.copy(KIT / "nbgrader_config.py", root / "nbgrader_config.py")
    _own(root / "nbgrader_config.py", inst, staff, 0o640)
    if not (root / "source").exists():
        shutil.copytree(KIT / "source", root / "source")
    for path in [root / "source", *(root / "source").rglob("*")]:
        _own(path, inst, staff, 0o2750 if path.is_dir() else 0o640)
    (root / ".attnkit").mkdir(exist_ok=True)  # the hidden inputs' secret salt: never shared
    _own(root / ".attnkit", inst, staff, 0o700)
    # the instructor's own Formgrader works on the course, as nbgrader's "one grader" setup
    jupyter = Path(pwd.getpwnam(inst).pw_dir) / ".jupyter"
    jupyter.mkdir(exist_ok=True)
    (jupyter / "nbgrader_config.py").write_text(
        f"c = get_config()  # noqa: F821\nc.CourseDirectory.root = {str(root)!r}\n")
    for path in (jupyter, jupyter / "nbgrader_config.py"):
        _own(path, inst, pwd.getpwnam(inst).pw_gid, 0o700 if path.is_dir() else 0o600)
    gradebook = root / "gradebook.db"
    gradebook.touch()  # SQLite keeps the mode of an existing file: the graders may write it
    _own(gradebook, inst, staff, 0o660)
    enrol(site, site.students)


def enrol(site: Site, students: list[str]) -> None:
    """Put ``students`` on the gradebook's roster, as the instructor: a hand-in counts only
    for a student on it (``HandInPolicy``), so an invented id reaches nothing."""
    script = ("import sys\nfrom nbgrader.api import Gradebook\n"
              "with Gradebook(sys.argv[1]) as gb:\n"
              "    for student in sys.argv[2:]:\n"
              "        gb.update_or_create_student(student)\n")
    as_user(site.instructor, [str(BIN / "python"), "-c", script,
                              f"sqlite:///{site.course_root / 'gradebook.db'}", *students],
            site.course_root, site.env())


def hub_env(site: Site) -> dict[str, str]:
    """The environment to run jupyterhub with, as root."""
    settings = site.state / "site.json"
    settings.write_text(json.dumps(site.settings(), indent=1))
    return {"PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
            "HOME": "/root", "ATTNKIT_HUB_SITE": str(settings)}


def hub_command() -> list[str]:
    return [str(BIN / "jupyterhub"), "-f", str(HUB_CONFIG)]


def instructor_release(site: Site, assignment: str) -> None:
    """The instructor's first commands of a term: generate the student version, release it."""
    env = site.env()
    as_user(site.instructor, ["nbgrader", "generate_assignment", assignment, "--force"],
            site.course_root, env)
    as_user(site.instructor, ["nbgrader", "release_assignment", assignment, "--force"],
            site.course_root, env)


def demo() -> int:
    """``make hub``: demo accounts with fresh passwords, ps1 released, the hub on loopback."""
    if os.geteuid() != 0:
        print("make hub creates local demo users and runs the hub as root: "
              "run `sudo make hub`", file=sys.stderr)
        return 1
    if not PROXY.exists():
        print(f"{PROXY} is missing: `make hub` installs it with `npm ci`", file=sys.stderr)
        return 1
    site = Site(Path(os.environ.get("ATTNKIT_HUB_BASE", "/srv/attnkit-hub")),
                instructor="demo-instructor", tas=["demo-ta"],
                students=["demo-student1", "demo-student2"],
                port=int(os.environ.get("ATTNKIT_HUB_PORT", "8000")),
                grade_on_submit=["ps1_self_attention"])
    people = [site.instructor, *site.tas, *site.students]
    passwords = {name: secrets.token_urlsafe(9) for name in people}
    create_accounts(site, passwords)
    lay_out(site)
    instructor_release(site, "ps1_self_attention")
    print(f"\nJupyterHub for {site.course_id} on {site.url} (Ctrl-C stops it)")
    for name in people:
        role = ("instructor" if name == site.instructor
                else "TA" if name in site.tas else "student")
        print(f"  {role:10} {name:16} password {passwords[name]}")
    print(f"Graders: {site.url}/services/{site.course_id}/formgrader\n"
          f"ps1 is graded on submit: Fetch Feedback a few seconds after Submit\n"
          f"Course directory: {site.course_root} (the instructor's commands run there)")
    sys.stdout.flush()
    os.execve(hub_command()[0], hub_command(), {**os.environ, **hub_env(site)})


if __name__ == "__main__":
    sys.exit(demo())

"""The grading cluster on a shared hub, attacked by a student's shell.

`attnkit serve` runs as the ordinary instructor on the kit's hub layout; a real student
account looks for the instructor's listening ports in ``/proc/net/tcp`` (world-readable, as on
every Linux hub) and tries each as a Dask scheduler, worker or nanny (``Client.run`` runs a
function as whoever started the cluster) and as a web dashboard.
"""

from __future__ import annotations

import json
import pwd
import re
import secrets
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.hub import PS1, HubSite, hub_site

from attnkit.deploy import site as deploy

pytestmark = [pytest.mark.slow, pytest.mark.root]

# Run by the student: every loopback port the instructor listens on, tried as Dask (each try
# in a child process with a deadline: a port that never answers must not hang the attack).
ATTACK = r"""
import json, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
instructor, marker = int(sys.argv[1]), sys.argv[2]
ports = set()
for table in ("/proc/net/tcp", "/proc/net/tcp6"):
    with open(table) as fh:
        for line in list(fh)[1:]:
            fields = line.split()
            if fields[3] == "0A" and int(fields[7]) == instructor:  # LISTEN, the instructor's
                ports.add(int(fields[1].split(":")[1], 16))
def attempt(port, scheme):
    try:
        run = subprocess.run([sys.executable, "-c", TRY, scheme, str(port), marker],
                             capture_output=True, text=True, timeout=12)
        return run.stdout.strip() or "refused: " + run.stderr[-300:]
    except subprocess.TimeoutExpired:
        return "refused: no answer in 12 s"

tries = [(port, scheme) for port in sorted(ports) for scheme in ("tcp", "tls", "http")]
with ThreadPoolExecutor(8) as pool:  # each try mostly waits for its timeout
    answers = list(pool.map(lambda t: attempt(*t), tries))
found = {}
for (port, scheme), answer in zip(tries, answers):
    found.setdefault(port, {})[scheme] = answer
print("ATTACK" + json.dumps(found))
"""
TRY = r"""
import socket, sys
scheme, port, marker = sys.argv[1], int(sys.argv[2]), sys.argv[3]

def own(marker=marker):
    import os
    with open(marker, "w") as fh:
        fh.write(str(os.getuid()))
    return os.getuid()

if scheme == "http":
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.settimeout(5)
        s.sendall(b"GET /info/main/workers.html HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        print(s.recv(300).decode("latin-1"))
else:
    from distributed import Client
    with Client(f"{scheme}://127.0.0.1:{port}", timeout="5s", set_as_default=False) as c:
        print({"scheduler": c.run_on_scheduler(own), "workers": c.run(own)})
"""


def _popen_as(hub: HubSite, name: str, args: list[str], cwd: Path, log: Path):
    with log.open("w") as out:
        return subprocess.Popen(deploy.command_as(name, args, hub.site.env()), cwd=cwd,
                                stdout=out, stderr=subprocess.STDOUT)


def scratch_spaces(hub: HubSite) -> list[Path]:
    """Where Dask, left to itself, keeps a worker's scratch space and puts it first on
    ``sys.path``: a folder there that the grader may write is taken, whoever made it."""
    uid = pwd.getpwnam(hub.instructor).pw_uid
    return [Path(f"/tmp/dask-scratch-space-{uid}"), Path("/tmp/dask-scratch-space")]


@pytest.fixture(scope="module")
def serving() -> Iterator[tuple[HubSite, subprocess.Popen]]:
    """The hub layout with ps1 released and `attnkit serve` running as the instructor, after
    a student planted Dask's default scratch spaces."""
    with hub_site(students=1) as hub:
        hub.instructor_run("nbgrader", "generate_assignment", PS1, "--force")
        hub.instructor_run("nbgrader", "release_assignment", PS1, "--force")
        planted = [p for p in scratch_spaces(hub) if not p.exists()]
        for folder in planted:
            hub.as_user(hub.students[0], ["sh", "-c", f"umask 0; mkdir -m 0777 {folder}"])
        log = hub.site.state / "serve.log"
        proc = _popen_as(hub, hub.instructor, ["attnkit", "serve", PS1, "--workers", "1"],
                         hub.site.course_root, log)
        try:
            deadline = time.monotonic() + 180
            while "serving" not in log.read_text():
                assert proc.poll() is None, log.read_text()[-3000:]
                assert time.monotonic() < deadline, log.read_text()[-3000:]
                time.sleep(0.5)
            yield hub, proc
        finally:
            proc.terminate()
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
            for folder in planted:
                shutil.rmtree(folder, ignore_errors=True)


def test_the_cluster_keeps_its_scratch_space_to_itself(serving) -> None:
    """A worker's scratch space goes first on its ``sys.path``: one a student planted would
    run the student's modules as the grader."""
    hub, _ = serving
    for folder in scratch_spaces(hub):
        if folder.exists() and folder.stat().st_uid == pwd.getpwnam(hub.students[0]).pw_uid:
            assert not any(folder.iterdir()), f"the grader used {folder}: {list(folder.iterdir())}"


def test_a_student_cannot_run_code_through_the_grading_cluster(serving) -> None:
    hub, proc = serving
    student = hub.students[0]
    home = Path(pwd.getpwnam(student).pw_dir)
    marker = Path("/tmp") / f"attnkit-ran-as-grader-{secrets.token_hex(4)}"  # anyone may write
    script = home / "attack.py"
    script.write_text(f"TRY = {TRY!r}\n{ATTACK}")
    instructor = pwd.getpwnam(hub.instructor).pw_uid
    result = hub.as_user(student, ["python", str(script), str(instructor), str(marker)],
                         check=False)
    assert "ATTACK" in result.stdout, result.stdout[-2000:] + result.stderr[-3000:]
    found = json.loads(result.stdout.split("ATTACK", 1)[1])
    assert proc.poll() is None, "the service died during the attack"
    assert not marker.exists(), f"code ran as uid {marker.read_text()}: {found}"
    assert found, "the instructor listens on no port: the attack found nothing to try"
    for port, tried in found.items():
        for scheme in ("tcp", "tls"):
            assert tried[scheme].startswith("refused"), (port, scheme, tried)
        # an HTTP server may answer, but with nothing: no dashboard, no worker pages
        assert not re.match(r"HTTP/1\.\d 200", tried["http"]), (port, tried["http"])

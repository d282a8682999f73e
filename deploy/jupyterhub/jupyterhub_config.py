"""JupyterHub for the self-attention course, after nbgrader's "one class, multiple graders".

Real local users log in with their system passwords (PAM); each gets a JupyterLab server
running as that user (LocalProcessSpawner). The course directory belongs to the instructor;
TAs grade in formgrader on a shared server, the hub service named after the course, which
runs as the grader account: it can write the gradebook but not ``source/``.

A lecturer edits SITE below (or names a JSON file of overrides in ATTNKIT_HUB_SITE, as
``make hub`` and tests/test_hub.py do) and runs, as root::

    jupyterhub -f /etc/jupyterhub/jupyterhub_config.py
"""

import json
import os
import sys

c = get_config()  # noqa: F821 - provided by traitlets when JupyterHub loads this file

SITE = {
    "course_id": "self-attention",
    "course_root": "/srv/nbgrader/self-attention",  # owned by the instructor
    "exchange": "/srv/nbgrader/exchange",  # same value as c.Exchange.root for nbgrader
    "jupyter_config": "/etc/jupyter",  # deploy/jupyterhub/jupyter copied here
    "state": "/srv/jupyterhub",  # the hub's database and cookie secret, root only
    "grader": "grader-self-attention",  # the account the shared grading server runs as
    "instructors": ["instructor"],
    "tas": ["ta1"],
    "students": ["student1", "student2"],
    "ip": "127.0.0.1",
    "port": 8000,
    "proxy": "configurable-http-proxy",  # from npm: package.json beside the kit
    # feedback on submit (README "Feedback on submit"): the assignments `attnkit serve` grades
    # as they are submitted, as a service of this hub running as the (first) instructor;
    # True: every assignment of source/; empty: none
    "grade_on_submit": [],
}
if os.environ.get("ATTNKIT_HUB_SITE"):
    with open(os.environ["ATTNKIT_HUB_SITE"]) as fh:
        SITE.update(json.load(fh))

COURSE = SITE["course_id"]
PORT = int(SITE["port"])
BIN = os.path.dirname(sys.executable)  # the environment nbgrader and attnkit live in
SINGLEUSER = os.path.join(BIN, "jupyterhub-singleuser")
ENV = {  # every server, students' and the grading service's, sees the same course setup
    "PATH": f"{BIN}:/usr/local/bin:/usr/bin:/bin",
    "JUPYTER_CONFIG_PATH": SITE["jupyter_config"],
    "ATTNKIT_COURSE_ID": COURSE,
    "ATTNKIT_EXCHANGE": SITE["exchange"],
}

c.JupyterHub.ip = SITE["ip"]
c.JupyterHub.port = PORT
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = PORT + 1
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{PORT + 2}"
c.ConfigurableHTTPProxy.command = [SITE["proxy"]]
c.JupyterHub.db_url = f"sqlite:///{os.path.join(SITE['state'], 'jupyterhub.sqlite')}"
c.JupyterHub.cookie_secret_file = os.path.join(SITE["state"], "jupyterhub_cookie_secret")
c.JupyterHub.pid_file = os.path.join(SITE["state"], "jupyterhub.pid")
c.JupyterHub.cleanup_servers = True  # stopping the hub stops everyone's server

# Real system accounts; no admins: nobody gets to act as another user through the hub.
c.JupyterHub.authenticator_class = "pam"
c.PAMAuthenticator.open_sessions = False  # no logind session per server
c.Authenticator.allowed_users = set(SITE["instructors"] + SITE["tas"] + SITE["students"])
c.Authenticator.admin_users = set()

c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [SINGLEUSER]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"

def jupyter_config_path(spawner) -> str:
    """Per role, as nbgrader's installation guide turns extensions off: students' servers
    also read jupyter/students (no Formgrader, Courses or Create Assignment); TAs' read
    jupyter/tas (no formgrader of their own: Courses leads to the shared one)."""
    name = spawner.user.name
    if name in SITE["instructors"]:
        return SITE["jupyter_config"]
    role = "tas" if name in SITE["tas"] else "students"
    return f"{os.path.join(SITE['jupyter_config'], role)}:{SITE['jupyter_config']}"


c.Spawner.environment = {**ENV, "JUPYTER_CONFIG_PATH": jupyter_config_path}
c.Spawner.http_timeout = 120
c.Spawner.start_timeout = 120

# nbgrader's shared grading server: the group's members reach the service named after the
# course (nbgrader's Courses tab finds it by that name), nobody else does.
GRADERS = f"formgrade-{COURSE}"
c.JupyterHub.load_groups = {GRADERS: {"users": SITE["instructors"] + SITE["tas"]}}
c.JupyterHub.load_roles = [
    {"name": GRADERS, "groups": [GRADERS],
     "scopes": [f"access:services!service={COURSE}", "list:services",
                f"read:services!service={COURSE}"]},
    # nbgrader's Courses tab asks the hub, with the server's token, which services it may use
    {"name": "server", "scopes": ["inherit"]},
]
c.JupyterHub.services = [{
    "name": COURSE,
    "url": f"http://127.0.0.1:{PORT + 3}",
    "user": SITE["grader"],
    "cwd": SITE["course_root"],
    "command": [SINGLEUSER, f"--ServerApp.root_dir={SITE['course_root']}",
                # TAs grade in formgrader's pages, without a shell as the grader account
                "--ServerApp.terminals_enabled=False"],
    "environment": {**ENV, "JUPYTERHUB_DEFAULT_URL": "/formgrader"},
    "oauth_no_confirm": True,
}]

# Feedback on submit: the hub starts `attnkit serve` with itself and starts it again if it
# exits; it serves no page (students fetch its feedback from the Assignments tab).
if SITE["grade_on_submit"]:
    ASSIGNMENTS = [] if SITE["grade_on_submit"] is True else list(SITE["grade_on_submit"])
    c.JupyterHub.services.append({
        "name": "attnkit-serve",
        "user": SITE["instructors"][0],  # owns the course directory and the gradebook
        "cwd": SITE["course_root"],
        "command": [os.path.join(BIN, "attnkit"), "--root", SITE["course_root"], "serve",
                    *ASSIGNMENTS],
        "environment": ENV,
        "display": False,
    })

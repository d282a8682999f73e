# The grade-on-submit service as a JupyterHub managed service: append to the hub's
# jupyterhub_config.py (deploy/jupyterhub/jupyterhub_config.py). The hub starts it with the hub,
# restarts it if it exits, and runs it as the course's owner (the hub must run as root to
# switch users, as it does for LocalProcessSpawner). It serves no web page: students fetch its
# feedback from the Assignments tab, the instructor reads `attnkit serve-status`.
import os
import sys

COURSE_ROOT = "/srv/nbgrader/self-attention"  # the course directory (nbgrader_config.py)
OWNER = "instructor"  # the account that owns the course directory and the gradebook
BIN = os.path.dirname(sys.executable)  # the environment nbgrader and attnkit live in

c.JupyterHub.services.append({  # noqa: F821 - `c` is the hub's config object
    "name": "attnkit-serve",
    "user": OWNER,
    "cwd": COURSE_ROOT,
    "command": [os.path.join(BIN, "attnkit"), "--root", COURSE_ROOT, "serve"],
    "environment": {"PATH": f"{BIN}:/usr/bin:/bin"},
    "display": False,
})

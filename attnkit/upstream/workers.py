"""Hook ``worker_server``: Dask's local workers fork from a server that imported the grader.

Standard library only at import: the ``attnkit`` command starts the server before it
imports the grader itself, so the two imports run side by side on two cores.
"""

from __future__ import annotations

import os

from attnkit.upstream import applies

# The module the worker server imports once (Dask and the grader); every worker forks with
# it loaded.
WORKER_PRELOAD = ["attnkit.grading.worker"]
COURSE_ENV = "ATTNKIT_WORKER_COURSE"  # the course whose release pages that import renders

# Workers fork from a fresh single-threaded server that has imported the grader once (a
# spawned worker takes 3 s or more to import nbgrader). Not from the coordinator itself: a
# worker forked from a process with threads can block forever on a lock one of them held at
# fork time (a worker hung so in test_postgres: its event loop waited on a lock forever).
FORKSERVER = {"distributed.worker.multiprocessing-method": "forkserver"}


def start_worker_server(course: str | None = None) -> None:
    """Start this process's worker server (Python's forkserver, preloaded with the grader
    and, given a course directory, that course's first-use work) unless it runs already or
    the hook is off; return at once, while it imports."""
    if not applies("worker_server"):
        return
    from multiprocessing import forkserver

    if course:
        os.environ[COURSE_ENV] = os.path.abspath(course)

    forkserver.set_forkserver_preload(WORKER_PRELOAD)
    forkserver.ensure_running()


def dask_config() -> dict[str, str]:
    """What Dask must be told for its workers to fork from that server."""
    return FORKSERVER if applies("worker_server") else {}


def before_cluster() -> None:
    """Call inside ``dask.config.set(dask_config())``, before the cluster starts: Dask names
    its own preload the first time it is asked for a context; ours must come after it."""
    if applies("worker_server"):
        from distributed.utils import get_mp_context

        get_mp_context()
        start_worker_server()

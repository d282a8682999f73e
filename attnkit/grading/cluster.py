"""The local Dask cluster that ``attnkit autograde`` grades on.

This module imports only the standard library, so that the ``attnkit`` command can start
the server its workers fork from (``attnkit.upstream.workers``, which imports the grader)
before importing the grader itself: the two imports then run side by side.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import shutil
import tempfile
import weakref
from collections.abc import Iterator

from attnkit.upstream import workers as worker_server

LOCAL_CLUSTER_CONFIG = {
    # Dask's statistical profiler samples the grading thread's deep stack every 10 ms,
    # competing with it for the GIL, for a profile nobody reads.
    "distributed.worker.profile.enabled": False,
    # Background timers, idle CPU of a 2-worker cluster from 10% of a core to 2%: the check
    # that the event loop is not blocked (every 20 ms in every process), the system monitor
    # (500 ms) and the nannies' memory polls (100 ms; a worker's memory limit is still kept).
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
    # Every local account reaches every loopback port. The scheduler and the workers always
    # start a web server: with no routes it shows nobody the workers, their logs or tasks.
    "distributed.scheduler.http.routes": [],
    "distributed.worker.http.routes": [],
}


@contextlib.contextmanager
def frozen_imports() -> Iterator[None]:
    """Import with the garbage collector off, then freeze what was imported.

    Importing Dask, nbgrader and their kin creates a few hundred thousand objects, and a
    collection every few thousand of them was about a third of the import time. Frozen, they
    are never looked at again by this process's collections, nor by its forked children's.
    """
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


def cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def default_workers() -> int:
    """One worker process per core, and one more: a worker and its kernel take turns, each
    waiting on the other's messages, so one pair per core leaves the cores idle at times."""
    return cores() + 1


def grades_locally(args: list[str]) -> bool:
    """Whether ``attnkit ARGS`` grades on a local cluster: autograde, demo or serve, no
    --scheduler."""
    return bool({"autograde", "demo", "serve"} & set(args)) and not any(
        arg.startswith("--scheduler") for arg in args)


def local_cluster(workers: int):
    """A Dask cluster on this machine: ``workers`` processes running one task at a time.

    It speaks TLS with credentials made for this run and held only in its processes' memory
    (``Security.temporary``): on a shared machine any account can connect to a loopback port,
    and a cluster that accepted it would run its code as the grader (``Client.run``). Its
    scratch space, which Dask puts first on a worker's ``sys.path``, is a private folder of
    the run's, never Dask's default in /tmp, which any account can make first.
    """
    import dask
    from distributed import LocalCluster
    from distributed.security import Security

    scratch = tempfile.mkdtemp(prefix=f"attnkit-dask-{os.getpid()}-")  # 0700
    config = {**LOCAL_CLUSTER_CONFIG, **worker_server.dask_config(),
              "temporary-directory": scratch}
    # the nannies keep the config for their workers
    with dask.config.set(config):
        worker_server.before_cluster()
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               env=dict(os.environ),  # now, not when the server started
                               security=Security.temporary(), protocol="tls://",
                               local_directory=scratch,
                               host="127.0.0.1", dashboard_address=None,  # no dashboard, and
                               scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},  # 8787
                               silence_logs=logging.ERROR)
    weakref.finalize(cluster, shutil.rmtree, scratch, True)
    return cluster

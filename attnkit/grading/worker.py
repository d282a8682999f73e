"""What every local grading worker forks with: the worker server (Python's forkserver,
``attnkit.upstream.workers.start_worker_server``) imports this module once."""

import contextlib

from attnkit.grading.cluster import frozen_imports

with frozen_imports():
    import distributed  # noqa: F401

    import attnkit.grading.grader  # noqa: F401
    from attnkit.review import regrades

    # only saves time: a check that cannot be described fails its own gradings instead
    with contextlib.suppress(Exception):
        regrades.describe_all_checks()

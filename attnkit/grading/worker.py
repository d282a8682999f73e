"""What every local grading worker forks with: the worker server (Python's forkserver,
``attnkit.upstream.workers.start_worker_server``) imports this module once."""

from attnkit.grading.cluster import frozen_imports

with frozen_imports():
    import distributed  # noqa: F401

    import attnkit.grading.grader  # noqa: F401

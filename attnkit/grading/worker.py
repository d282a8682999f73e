"""What every local grading worker forks with: the worker server (Python's forkserver,
``attnkit.upstream.workers.start_worker_server``) imports this module once."""

from attnkit.grading.cluster import frozen_imports

with frozen_imports():
    import distributed  # noqa: F401
    from nbconvert.filters.highlight import Highlight2HTML

    import attnkit.grading.grader  # noqa: F401
    from attnkit.review import regrades

    # First-use work each worker would otherwise repeat, into caches that cannot go stale:
    # the sources of the kit's checks (by code object), and the regular expressions of the
    # lexer that colours the feedback pages' code (about 0.25 CPU-s to compile).
    regrades.read_sources()
    Highlight2HTML(pygments_lexer="ipython3")("pass")

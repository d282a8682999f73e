"""``attnkit`` and ``python -m attnkit``: the command line (``attnkit.cli``)."""

import sys

from attnkit.cluster import grades_locally, start_worker_server


def run() -> int:
    """Run the command; one that grades on a local cluster first starts the server its
    workers fork from, which imports the grader while this process does the same."""
    if grades_locally(sys.argv[1:]):
        start_worker_server()
    from attnkit.cli import main

    return main()


if __name__ == "__main__":
    sys.exit(run())

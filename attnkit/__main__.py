"""``attnkit`` and ``python -m attnkit``: the command line (``attnkit.cli``)."""

import sys

from attnkit.cluster import start_worker_server


def run() -> int:
    """Run the command; one that grades on a local cluster first starts the server its
    workers fork from, which imports the grader while this process does the same."""
    args = sys.argv[1:]
    if ("autograde" in args or "demo" in args) and not any(
            arg.startswith("--scheduler") for arg in args):
        start_worker_server()
    from attnkit.cli import main

    return main()


if __name__ == "__main__":
    sys.exit(run())

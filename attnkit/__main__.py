"""``attnkit`` and ``python -m attnkit``: the command line (``attnkit.cli``)."""

import argparse
import gc
import sys

from attnkit.grading.cluster import frozen_imports, grades_locally
from attnkit.upstream.workers import start_worker_server


def run() -> int:
    """Run the command; one that grades on a local cluster first starts the server its
    workers fork from, which imports the grader while this process does the same."""
    if grades_locally(sys.argv[1:]):
        root = argparse.ArgumentParser(add_help=False)
        root.add_argument("--root", default=".")
        start_worker_server(root.parse_known_args(sys.argv[1:])[0].root)
    with frozen_imports():  # the command line and the modules of the command it runs
        from attnkit import cli

        parser = cli.parser(sys.argv[1:])
    code = cli.run(parser, sys.argv[1:])
    gc.freeze()  # Python's teardown then skips collecting the whole heap
    return code


if __name__ == "__main__":
    sys.exit(run())

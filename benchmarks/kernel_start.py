"""What the sandbox adds to a kernel's start: plain ipykernel, a bubblewrap kernel and a warm
kernel forked by the shared server, each timed from ``start_kernel`` to its first reply.

    python benchmarks/kernel_start.py [--rounds 5]

Prints the mean of each and its ratio to the plain kernel, measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from jupyter_client import KernelManager

from attnkit.sandbox import KERNEL_NAME, Forkserver, check_sandbox, install_kernelspec

WARM = "attnkit-sandbox-warm"


def first_reply(name: str, cwd: Path, connection_file: str) -> float:
    """Seconds from start_kernel to the first execute reply; shutdown not counted."""
    start = time.perf_counter()
    km = KernelManager(kernel_name=name, transport="ipc", connection_file=connection_file)
    km.start_kernel(cwd=str(cwd))
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        kc.execute_interactive("pass", timeout=60)
        return time.perf_counter() - start
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    problem = check_sandbox()
    if problem:
        raise SystemExit(f"the sandbox cannot start (run `make env`): {problem}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        install_kernelspec(str(work / "prefix"))
        install_kernelspec(str(work / "prefix"), name=WARM, config={"warm_start": True})
        os.environ["JUPYTER_PATH"] = str(work / "prefix" / "share" / "jupyter")
        os.environ.setdefault("ATTNKIT_SEED", "1234")
        times: dict[str, list[float]] = {"plain": [], "sandbox": [], "warm": []}
        with Forkserver.share():
            for i in range(args.rounds):  # interleaved, so a slow spell hits all three
                times["plain"].append(first_reply("python3", work, str(work / f"plain-{i}.json")))
                times["sandbox"].append(first_reply(KERNEL_NAME, work, ""))
                times["warm"].append(first_reply(WARM, work, ""))
    plain = statistics.mean(times["plain"])
    print(f"kernel start to first reply, mean of {args.rounds} (seconds):")
    for name, values in times.items():
        mean = statistics.mean(values)
        print(f"  {name:8} {mean:6.3f}  ratio to plain {mean / plain:5.2f}x")


if __name__ == "__main__":
    main()

"""How often ``ps3_init`` marks a correct layer down: its false-alarm rate over grading seeds.

``ps3_init`` judges random weights with statistics (mean, standard deviation, a
Kolmogorov-Smirnov test against N(0, 1), weights that follow ``np.random.seed``), so a right
layer can lose points on an unlucky seed. This grades correct layers in four styles
(``np.random.normal``, ``randn``, ``standard_normal``, float32) on seeds 0 .. n-1 through the
real path (the probe's cases, then ``judge``), counts the seeds marked down and prints the rate
with its one-sided 95 % upper bound (Clopper-Pearson). It grades two wrong layers on every
hundredth seed as well (uniform on [-sqrt(3), sqrt(3)], and a generator seeded in
``__init__``) to show the test still catches them.

    .venv/bin/python benchmarks/init_false_alarms.py [--seeds 30000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from scipy.stats import beta

from attnkit.judge.verdicts import judge
from attnkit.kernel.probe import records


class Normal:
    def __init__(self, dims: int) -> None:
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = (np.random.normal(0.0, 1.0, (dims, dims))
                                                  for _ in range(4))


class Randn:
    def __init__(self, dims: int) -> None:
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = (np.random.randn(dims, dims) for _ in range(4))


class StandardNormal:
    def __init__(self, dims: int) -> None:
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = (np.random.standard_normal((dims, dims))
                                                  for _ in range(4))


class Float32:
    def __init__(self, dims: int) -> None:
        self.dims = dims
        self.W_q, self.W_k, self.W_v, self.W_o = (
            np.random.normal(size=(dims, dims)).astype(np.float32) for _ in range(4))


class Uniform:
    def __init__(self, dims: int) -> None:
        self.dims = dims
        b = np.sqrt(3.0)
        self.W_q, self.W_k, self.W_v, self.W_o = (np.random.uniform(-b, b, (dims, dims))
                                                  for _ in range(4))


class OwnGenerator:
    def __init__(self, dims: int) -> None:
        self.dims = dims
        rng = np.random.default_rng(42)
        self.W_q, self.W_k, self.W_v, self.W_o = (rng.normal(size=(dims, dims))
                                                  for _ in range(4))


STYLES = (Normal, Randn, StandardNormal, Float32)


def full(layer: type, seed: int) -> bool:
    return judge("ps3_init", seed, records("ps3_init", (layer,), seed), 4.0).full


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=30000)
    args = parser.parse_args()
    start = time.perf_counter()
    alarms = [seed for seed in range(args.seeds) if not full(STYLES[seed % len(STYLES)], seed)]
    caught = {w.__name__: [not full(w, s) for s in range(0, args.seeds, 100)]
              for w in (Uniform, OwnGenerator)}
    n, k = args.seeds, len(alarms)
    upper = float(beta.ppf(0.95, k + 1, n - k))
    print(f"correct layers graded: {n} seeds ({', '.join(s.__name__ for s in STYLES)} in turn)")
    print(f"false alarms: {k}/{n} = {k / n:.2e}   95% upper bound {upper:.2e}   "
          f"(goal below 1.0e-04){'   seeds: ' + str(alarms[:10]) if alarms else ''}")
    for name, hits in caught.items():
        print(f"{name} caught on {sum(hits)}/{len(hits)} seeds")
    print(f"{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()

"""``from attnkit.probe import probe``: the import every hidden test cell holds.

Gradebooks store test cells' sources, so this name outlives the move of the probe
to ``attnkit.kernel.probe``; it is copied into the sandbox with the kernel package.
"""

from attnkit.kernel.probe import MIME, SEED_ENV, encode, probe, records, run_case

__all__ = ["MIME", "SEED_ENV", "encode", "probe", "records", "run_case"]

"""Kernel side of the hidden checks: inputs and the probe, the only code copied into the sandbox."""

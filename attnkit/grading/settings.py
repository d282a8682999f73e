"""What grading asks of the course's config: its pipeline with grading-only settings, the
kernel that runs the notebooks, and whether that kernel can start at all.

The coordinator and every worker derive these from the course's ``nbgrader_config.py``
alike, so they agree on the kernel without a config being sent to the workers.
"""

from __future__ import annotations

import copy
import os

from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from nbgrader.converters import Autograde
from nbgrader.preprocessors import Execute
from traitlets.config import Config
from traitlets.utils.importstring import import_item

from attnkit import sandbox, upstream
from attnkit.upstream.execution import KernelStart, PromptClient

KERNEL_ENV = "ATTNKIT_KERNEL"


class GradingError(Exception):
    """The run cannot start (no kernel, no assignment, ...); nothing was graded."""


def _pipeline(config: Config) -> list[type]:
    """The classes of ``Autograde.autograde_preprocessors``."""
    if "autograde_preprocessors" in config.Autograde:
        entries = config.Autograde.autograde_preprocessors
    else:
        entries = Autograde.class_traits()["autograde_preprocessors"].default()
    return [import_item(entry) if isinstance(entry, str) else entry for entry in entries]


# IPython in a grading kernel writes no input history database, one write less per cell
# (``In`` and ``_ih`` still work)
GRADING_KERNEL_ARGUMENTS = ("--HistoryManager.enabled=False",)


def pipeline_config(config: Config, kernel: str | None,
                    kernel_arguments: tuple[str, ...] = ()) -> Config:
    """Grading-only settings: every Execute preprocessor gets ``KernelStart``, kills its
    kernel when done, starts it with ``GRADING_KERNEL_ARGUMENTS`` and ``kernel_arguments``
    after the course's own and, if ``kernel`` is given, runs that kernel; sandboxed kernels
    are forked from a warm server unless the course says otherwise."""
    extra = Config()
    classes = []
    for cls in _pipeline(config):
        if issubclass(cls, Execute):
            if upstream.applies("kernel_retry"):
                cls = type(f"Grading{cls.__name__}", (KernelStart, cls),
                           {"__module__": __name__, "__doc__": cls.__doc__})
            extra[cls.__name__] = Config(shutdown_kernel="immediate")
            if kernel:
                extra[cls.__name__].kernel_name = kernel
            course = config[cls.__name__].get("extra_arguments", [])
            extra[cls.__name__].extra_arguments = [*course, *GRADING_KERNEL_ARGUMENTS,
                                                   *kernel_arguments]
        classes.append(cls)
    extra.Autograde.autograde_preprocessors = classes
    extra.Autograde.pre_convert_hook = None  # the coordinator has run intake already
    # nbconvert's own switch: the notebook is checked against nbformat's schema once, after
    # the last preprocessor, instead of after each of them (an invalid one still fails)
    extra.Exporter.optimistic_validation = True
    extra.merge(kernel_start_config(config))
    return extra


def kernel_start_config(config: Config) -> Config:
    """How the kit starts kernels: a prompt client and, unless the course turns it off,
    sandboxed kernels forked warm."""
    extra = Config()
    if upstream.applies("prompt_client"):
        extra.AsyncKernelManager.client_factory = PromptClient
    if "warm_start" not in config.SandboxProvisioner:
        extra.SandboxProvisioner.warm_start = upstream.applies("warm_kernels")
    return extra


def kernel_name(config: Config, kernel: str | None) -> str:
    """The kernel the pipeline's Execute preprocessor will start ("" = the notebook's own)."""
    if kernel:
        return kernel
    executes = [cls for cls in _pipeline(config) if issubclass(cls, Execute)]
    return executes[0](config=config).kernel_name if executes else ""


def forks_warm(kernel: str | None, config: Config) -> bool:
    """Whether grading under the course's ``config`` forks its kernels from a warm-kernel
    server (``sandbox.forks_warm`` with the kit's defaults for starting kernels)."""
    merged = copy.deepcopy(config)
    merged.merge(kernel_start_config(config))
    return sandbox.forks_warm(kernel_name(config, kernel), merged)


def preflight(config: Config, kernel: str | None) -> str:
    """The name of the kernel that will grade ("" = each notebook's own), once it is known to
    be installed and, if sandboxed, able to start: otherwise a ``GradingError`` with the remedy,
    before anything is graded (a class of zeros caused by the machine is never recorded)."""
    name = kernel_name(config, kernel or os.environ.get(KERNEL_ENV) or None)
    if not name:
        return name
    try:
        spec = KernelSpecManager(config=config).get_kernel_spec(name)
    except NoSuchKernel:
        raise GradingError(f"kernel {name!r} is not installed (run `make env` or "
                           f"`attnkit install-kernels`), or choose another with --kernel or "
                           f"${KERNEL_ENV}") from None
    provisioner = spec.metadata.get("kernel_provisioner", {}).get("provisioner_name")
    if provisioner == sandbox.PROVISIONER_NAME and not sandbox.opted_out(config):
        problem = sandbox.check_sandbox()
        if problem:
            raise GradingError(f"the sandboxed grading kernel {name!r} cannot start: {problem}. "
                               f"Nothing was graded. {sandbox.OPT_OUT_HINT}")
    return name

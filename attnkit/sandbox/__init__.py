"""Run grading kernels inside a bubblewrap sandbox, as root or as an ordinary instructor.

``SandboxProvisioner`` is a jupyter_client kernel provisioner (kernel.json
``metadata.kernel_provisioner``) that starts the kernel as::

    [setpriv --reuid=U ... --]  bwrap <namespaces and binds> -- prlimit <limits> -- python ...

The kernel sees read-only ``/usr``, ``/etc`` and the Python environment
(``sys.prefix``), a private copy of ``attnkit``'s kernel-side modules (``probe``,
``cases``), a scratch copy of the ``cwd`` it was started with (an empty dir if
none) in a size-limited tmpfs at ``/home/student`` (``scratch``), a private ``/tmp``,
and no network. The client must
use ZMQ ipc transport: the sockets live in a per-kernel directory bound into the
sandbox.

Isolation comes from what is mounted, so it holds for any grader. Started by root,
each kernel also runs as its own uid from a range (``setpriv``); started by an
ordinary user (an instructor on JupyterHub), it keeps that user's uid, mapped into
its own user namespace. Either way the limits are set inside the kernel's own user
namespace, where the kernel's processes are counted apart from the grader's: a fork
bomb stops at ``process_limit`` without touching the instructor's other processes.

One concern per module: ``bwrap`` (the mount plan, bubblewrap, the box, the uid lease),
``scratch`` (the working dir), ``folders`` (private temporary folders), ``client`` (the
warm-kernel server's client and kernel handle), ``provisioner`` (SandboxProvisioner and the
kernelspec); ``forkserver`` and ``rootfs`` run in the warm-kernel server. This module names
what the rest of the kit, kernel.json and the provisioner entry point use.
"""

from attnkit.sandbox.bwrap import (
    OUTPUT_LIMIT_ENV,
    check_sandbox,
    privileged,
)
from attnkit.sandbox.client import (
    SHARED_ENV,
    ForkedKernel,
    Forkserver,
)
from attnkit.sandbox.folders import private_dir
from attnkit.sandbox.provisioner import (
    KERNEL_NAME,
    OPT_OUT_HINT,
    PROVISIONER_NAME,
    SandboxProvisioner,
    forks_warm,
    install_kernelspec,
    opted_out,
    step_aside,
)

__all__ = [
    "KERNEL_NAME", "OPT_OUT_HINT", "OUTPUT_LIMIT_ENV", "PROVISIONER_NAME", "SHARED_ENV",
    "ForkedKernel", "Forkserver", "SandboxProvisioner", "check_sandbox", "forks_warm",
    "install_kernelspec", "opted_out", "private_dir", "privileged", "step_aside",
]

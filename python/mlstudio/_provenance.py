"""What ran, as a rank sees it: the "provenance" facts event of every Python rank of a job.

``start()`` runs at each rank's interpreter start (the launcher's sitecustomize calls it). It
only starts a daemon thread, so the script's start-up pays well under a millisecond; the thread
sends the interpreter, its installed packages, the names (never the values) of the environment
variables, argv, the working folder and host facts. When the script imports torch, a second
event adds torch, CUDA, cuDNN and NCCL versions and the GPUs' names; the last one wins in the
store. Nothing here imports torch, and nothing initialises CUDA: GPU names come from the
driver's /proc files unless the script has initialised CUDA itself (a CUDA context made here
would sit on GPU 0 of every rank and break forked data-loader workers).
"""

import atexit
import os
import sys
import threading
import time

from . import _events

_TORCH_POLL_START = 0.2  # seconds between looks for torch, doubling up to _TORCH_POLL_MAX
_TORCH_POLL_MAX = 2.0

_lock = threading.Lock()
_started = False
_torch_sent = False
_base_sent = threading.Event()


def packages():
    """{distribution name: version} of the interpreter's installed packages."""
    try:
        from importlib import metadata
    except ImportError:  # Python < 3.8 has no importlib.metadata
        return {}
    found = {}
    for dist in metadata.distributions():
        try:
            name = dist.metadata["Name"]
        except (KeyError, OSError):
            continue
        if name and name not in found:
            found[name] = dist.version
    return dict(sorted(found.items(), key=lambda item: item[0].lower()))


def interpreter_facts():
    """The rank's interpreter, packages, environment names, command line and host."""
    import platform  # here, not at start-up: the rank's first milliseconds are the script's
    import socket

    return {
        "python": platform.python_version(),
        "executable": sys.executable,
        "implementation": platform.python_implementation(),
        "packages": packages(),
        "env_names": sorted(os.environ),
        "argv": list(sys.argv),
        "cwd": os.getcwd(),
        "host": socket.gethostname(),
        "platform": platform.platform(),
        "pid": os.getpid(),
    }


def driver_gpu_names():
    """GPU model names from the NVIDIA driver's /proc files (no CUDA initialisation)."""
    import glob

    names = []
    for info in sorted(glob.glob("/proc/driver/nvidia/gpus/*/information")):
        try:
            with open(info) as f:
                for line in f:
                    if line.startswith("Model:"):
                        names.append(line.split(":", 1)[1].strip())
                        break
        except OSError:
            continue
    return names


def torch_facts(torch):
    """torch, CUDA, cuDNN and NCCL versions and the GPUs, from an imported torch module."""
    facts = {"torch": str(torch.__version__), "cuda": getattr(torch.version, "cuda", None)}
    try:
        facts["cudnn"] = torch.backends.cudnn.version()
    except Exception:  # noqa: BLE001 - a CPU build or a missing library: no cuDNN to report
        facts["cudnn"] = None
    facts["nccl"] = None
    try:
        if torch.distributed.is_available() and torch.distributed.is_nccl_available():
            version = torch.cuda.nccl.version()
            facts["nccl"] = ".".join(str(v) for v in version) if isinstance(version, tuple) \
                else str(version)  # fmt: skip
    except Exception:  # noqa: BLE001 - NCCL absent from this build
        pass
    gpus = driver_gpu_names()
    try:
        if torch.cuda.is_initialized():
            gpus = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    except Exception:  # noqa: BLE001 - keep the driver's names
        pass
    facts["gpus"] = gpus
    return facts


def _imported_torch():
    """torch once its import has finished (its module's spec is no longer initialising)."""
    torch = sys.modules.get("torch")
    if torch is None:
        return None
    spec = getattr(torch, "__spec__", None)
    if spec is not None and getattr(spec, "_initializing", False):
        return None
    if not hasattr(torch, "version") or not hasattr(torch, "__version__"):
        return None
    return torch


def _send(writer, base, torch):
    body = dict(base)
    if torch is not None:
        body.update(torch_facts(torch))
    writer.facts("provenance", body)


def _send_torch_once(writer, base):
    """The event with torch's facts, once, when torch is imported; True when it was sent."""
    global _torch_sent
    torch = _imported_torch()
    if torch is None:
        return False
    with _lock:
        if _torch_sent:
            return True
        _torch_sent = True
    _send(writer, base, torch)
    return True


def _watch(writer):
    try:
        base = interpreter_facts()
        _send(writer, base, None)
        _base_sent.set()
    except Exception as error:  # noqa: BLE001 - a fact we cannot read never stops the script
        _events._warn("the record of what ran is incomplete: {}: {}".format(
            type(error).__name__, error))  # fmt: skip
        return
    atexit.register(_send_torch_once, writer, base)
    wait = _TORCH_POLL_START
    while not _send_torch_once(writer, base):
        time.sleep(wait)
        wait = min(wait * 2, _TORCH_POLL_MAX)


def _send_at_exit(writer):
    if _base_sent.is_set():
        return
    try:
        _send(writer, interpreter_facts(), _imported_torch())
    except Exception:  # noqa: BLE001 - the exit of a script is no place to raise
        pass


def start():
    """Sends this rank's provenance facts from a daemon thread (inside a job; else nothing)."""
    global _started
    with _lock:
        if _started:
            return
        _started = True
    writer = _events.writer()
    if writer is None:
        return
    # A script that ends before the thread has read its packages still leaves its record: the
    # exit sends it (before the writer's own exit flush, which was registered first).
    atexit.register(_send_at_exit, writer)
    threading.Thread(target=_watch, args=(writer,), name="mlstudio-provenance", daemon=True).start()

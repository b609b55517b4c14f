"""mlstudio: ML Studio's Python SDK, with the SageMaker Python SDK v2's names.

``from mlstudio.pytorch import PyTorch`` runs a SageMaker training cell as a studio job; the
submodules (estimator, pytorch, debugger, tuner, inputs, experiments, analytics, checkpoints,
spot) are imported on first use, so ``import mlstudio`` stays cheap and needs nothing beyond the
standard library (every Python rank of a job imports it at start-up).

In a training script, ``mlstudio.log({"loss": v}, step=i)`` logs metrics (W&B's one-liner), and
``mlstudio.finish()`` closes the run it opened outside a job. ``mlstudio.diff(job_a, job_b)``
says what differs between two jobs' code, packages and hyperparameters.
"""

import importlib

__version__ = "0.1.0"

_SUBMODULES = (
    "analytics",
    "checkpoints",
    "debugger",
    "estimator",
    "exceptions",
    "experiments",
    "inputs",
    "pytorch",
    "spot",
    "tuner",
)

# Names made on first use: (module, attribute).
_LAZY = {
    "LocalSession": ("session", "LocalSession"),
    "Session": ("session", "Session"),
    "get_execution_role": ("session", "get_execution_role"),
    "log": ("_script_log", "log"),
    "finish": ("_script_log", "finish"),
    "diff": ("_job", "diff_jobs"),
}

__all__ = sorted(_LAZY) + ["__version__"] + list(_SUBMODULES)


def __getattr__(name):
    if name in _LAZY:
        module, attribute = _LAZY[name]
        value = getattr(importlib.import_module("." + module, __name__), attribute)
        globals()[name] = value  # later uses skip this function
        return value
    if name in _SUBMODULES:
        module = importlib.import_module("." + name, __name__)
        globals()[name] = module
        return module
    raise AttributeError("module 'mlstudio' has no attribute {!r}".format(name))

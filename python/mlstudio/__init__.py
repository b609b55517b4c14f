"""mlstudio: ML Studio's Python SDK, with the SageMaker Python SDK v2's names.

``from mlstudio.pytorch import PyTorch`` runs a SageMaker training cell as a studio job; the
submodules (estimator, pytorch, debugger, tuner, inputs, experiments, analytics) are imported
on first use, so ``import mlstudio`` stays cheap and needs nothing beyond the standard library.
"""

import importlib

from .session import LocalSession, Session, get_execution_role

__version__ = "0.1.0"

_SUBMODULES = (
    "analytics",
    "debugger",
    "estimator",
    "exceptions",
    "experiments",
    "inputs",
    "pytorch",
    "tuner",
)

__all__ = ["LocalSession", "Session", "get_execution_role", "__version__"] + list(_SUBMODULES)


def __getattr__(name):
    if name in _SUBMODULES:
        module = importlib.import_module("." + name, __name__)
        globals()[name] = module
        return module
    raise AttributeError("module 'mlstudio' has no attribute {!r}".format(name))

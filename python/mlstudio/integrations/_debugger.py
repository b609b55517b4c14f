"""The job's Debugger hook and profiler, as the framework callbacks drive them.

When the job has a hook configuration ($STUDIO_DEBUG_HOOK_CONFIG, written by the launcher when
the spec has debugger_hook_config, rules that read tensors, or a profiler), ``attach`` registers
the framework's model with the process's ``mlstudio.debugger.pytorch`` hook (the one the script
made itself, else one made from that file): an explicit registration, so the zero-change hook
does not guess the model. Steps end where the framework's optimizer steps end. Without a
configuration, or where the hook's module is missing, every method does nothing.
"""

import importlib
import os

from ._sink import logger

CONFIG_VARIABLE = "STUDIO_DEBUG_HOOK_CONFIG"


def _optional(module):
    try:
        return importlib.import_module(module)
    except ImportError as error:
        logger.warning("mlstudio.integrations: %s is not available (%s)", module, error)
        return None


class DebuggerLink:
    """One training run's link to the hook and the profiler. Not thread-safe."""

    def __init__(self):
        self.hook = None
        self._profiler = None
        self._model = None

    def attach(self, model):
        """Registers model with the job's hook; False when there is no hook configuration."""
        path = os.environ.get(CONFIG_VARIABLE)
        if not path or not os.path.isfile(path):
            return False
        if self._model is model:
            return self.hook is not None
        smd = _optional("mlstudio.debugger.pytorch")
        self._profiler = _optional("mlstudio.profiler")
        if smd is None:
            return False
        self.hook = smd.get_hook(create_if_not_exists=True)
        self.hook.register_module(model)
        self._model = model
        return True

    def step_begin(self, step):
        """The framework starts optimizer step ``step``."""

    def step_end(self, step):
        """The framework ended an optimizer step; ``step`` steps are done."""
        if self._profiler is not None:
            self._profiler.step()

    def detach(self):
        """Training ended: the hook writes what it holds."""
        if self.hook is not None:
            flush = getattr(self.hook, "flush", None) or getattr(self.hook, "close", None)
            if flush is not None:
                flush()

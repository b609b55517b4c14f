"""The job's Debugger hook and framework profiler, as the framework callbacks drive them.

When the job has a hook configuration ($STUDIO_DEBUG_HOOK_CONFIG, written by the launcher when
the spec has debugger_hook_config, rules that read tensors, or a profiler), ``attach`` registers
the framework's model with the process's ``mlstudio.debugger.pytorch`` hook: the one the script
made, else the zero-change one, else one made from that file. An explicit registration, so the
zero-change hook does not have to guess the model; the hook then takes each optimizer step's
loss (from ``backward()``) and tensors as it does for a plain script.

Inside a job each optimizer step the framework ends is a step of ``mlstudio.profiler`` (its
"step" event with the data, forward, backward and optimizer times), as the built-in trainer
sends one per step, so the profiler rules see the framework's steps even without a hook.
"""

import os

from .. import _events

CONFIG_VARIABLE = "STUDIO_DEBUG_HOOK_CONFIG"


class DebuggerLink:
    """One callback's link to the hook and the profiler. Not thread-safe."""

    def __init__(self):
        self.hook = None

    def begin(self, model):
        """Training begins: registers model with the job's hook (when the job has a hook
        configuration) and starts the profiler (inside a job), so the first step is seen."""
        if model is not None:
            self._attach(model)
        if _events.writer() is not None:
            from .. import profiler

            profiler.start()

    def _attach(self, model):
        path = os.environ.get(CONFIG_VARIABLE)
        if not path or not os.path.isfile(path):
            return
        from ..debugger import pytorch as smd

        hook = smd.get_hook(create_if_not_exists=True)
        if hook is None or hook._closed:
            hook = smd.Hook.create_from_json_file(path)
        hook.register_module(model)
        self.hook = hook

    def step_end(self):
        """The framework ended an optimizer step."""
        if _events.writer() is not None:
            from .. import profiler

            profiler.step()

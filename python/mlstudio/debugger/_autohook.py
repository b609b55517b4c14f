"""The Debugger hook with no change to the script (SageMaker's "zero script change").

Every rank of a script job runs ``install()`` at start-up (python/mlstudio/_boot/
sitecustomize.py). When the job's hook config ($STUDIO_DEBUG_HOOK_CONFIG) turns the hook on
with ``auto_attach`` (the default; ``hook_parameters: {"auto_attach": "false"}`` turns it off)
or turns the framework profiler on, it waits for the script to import torch: a ``sys.meta_path``
finder wraps torch's loader and attaches once ``torch/__init__`` has run. Nothing imports torch
before the script does, and without a config ``install()`` reads one variable.

Attaching makes the process's hook from the config and watches the outermost module calls until
the first optimizer step; then the module whose parameters that optimizer steps (the most of
them) is registered, with the loss modules (``nn.CrossEntropyLoss`` and the like) called on
their own, and the watching stops. Until then the loss is the one-element tensor ``backward()``
was called on. A hook the script makes itself (``Hook.create_from_json_file()``) replaces this
one, and ``register_module`` / ``register_loss`` on it stop the automatic choice: what the
script says wins and nothing is saved twice. ``USE_SMDEBUG=0`` turns it off, as in SageMaker's
containers.
"""

import os
import sys

_installed = None  # the finder, while torch is not imported yet


def _warn(message):
    sys.stderr.write("mlstudio: debugger hook: {}\n".format(message))


def _truthy(value):
    if isinstance(value, str):
        return value.strip().lower() not in ("false", "0", "no", "")
    return bool(value)


def install():
    """Arms the zero-change hook when the job's config asks for it; returns what it armed
    ("hook", "profiler") or None."""
    global _installed
    path = os.environ.get("STUDIO_DEBUG_HOOK_CONFIG")
    if not path or os.environ.get("USE_SMDEBUG") == "0" or _installed is not None:
        return None
    import json

    try:
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
    except (OSError, ValueError) as error:
        _warn("cannot read the hook config {}: {}".format(path, error))
        return None
    if not isinstance(config, dict):
        _warn("the hook config {} is not a JSON object".format(path))
        return None
    hook_on = _truthy(config.get("enabled", True)) and _truthy(config.get("auto_attach", True))
    profiler_on = _truthy((config.get("profiler") or {}).get("enabled", False))
    if not (hook_on or profiler_on):
        return None
    what = "hook" if hook_on else "profiler"

    def attach():
        _attach(path, config, hook_on)

    torch = sys.modules.get("torch")
    if torch is not None and hasattr(torch, "nn"):
        attach()
    else:
        _installed = _TorchFinder(attach)
        sys.meta_path.insert(0, _installed)
    return what


def _attach(path, config, hook_on):
    try:
        from .. import profiler
        from .pytorch._plan import HookPlan

        plan = HookPlan.from_dict(config, path)
        plan.source = path
        if hook_on:
            from .pytorch.hook import Hook

            hook = Hook._from_plan(plan)
            hook._auto = AutoAttacher(hook)
            hook._auto.start()
        elif plan.profiler.get("enabled"):
            profiler.start(plan.profiler, plan.local_path)
    except Exception as error:  # noqa: BLE001 - never stop the script's import of torch
        _warn("not attached: {}: {}".format(type(error).__name__, error))


class _TorchFinder:
    """Finds torch with the other finders and wraps its loader, so `on_loaded` runs once
    torch's package has been executed."""

    def __init__(self, on_loaded):
        self._on_loaded = on_loaded

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        global _installed
        _remove(self)
        _installed = False
        import importlib.util

        spec = importlib.util.find_spec("torch")
        if spec is not None and spec.loader is not None:
            spec.loader = _NotifyingLoader(spec.loader, self._on_loaded)
        return spec

    def find_module(self, name, path=None):  # Python < 3.4 protocol; unused
        return None


def _remove(finder):
    try:
        sys.meta_path.remove(finder)
    except ValueError:
        pass


class _NotifyingLoader:
    """torch's own loader, calling back after the package ran."""

    def __init__(self, loader, on_loaded):
        self._loader = loader
        self._on_loaded = on_loaded

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        self._on_loaded()

    def __getattr__(self, name):
        return getattr(self._loader, name)


class AutoAttacher:
    """Watches the outermost module calls until the first optimizer step picks the model."""

    _LIMIT = 64  # distinct modules remembered

    def __init__(self, hook):
        self._hook = hook
        self._modules = []
        self._losses = []
        self._watching = False

    def start(self):
        from .pytorch import _loop

        self._watching = True
        _loop.loop().add(self)

    def stop(self):
        if self._watching:
            from .pytorch import _loop

            self._watching = False
            _loop.loop().remove(self)

    def on_forward_begin(self, module, inputs):
        from torch.nn.modules.loss import _Loss

        found = self._losses if isinstance(module, _Loss) else self._modules
        if len(found) < self._LIMIT and not any(m is module for m in found):
            found.append(module)

    def attach(self, optimizer):
        """Registers the model this optimizer trains (called once, at its first step)."""
        from .pytorch import _loop

        self.stop()
        self._hook._auto = None
        stepped = {id(p) for g in optimizer.param_groups for p in g["params"]}
        best, overlap = None, 0
        for module in self._modules:
            n = sum(1 for p in _loop.unwrap(module).parameters() if id(p) in stepped)
            if n > overlap:
                best, overlap = module, n
        if best is None:
            _warn("no module called before the first optimizer step ({}) holds its "
                  "parameters: nothing attached; call hook.register_module(model)".format(
                      type(optimizer).__name__))
            return None
        self._hook.register_module(best)
        for loss in self._losses:
            self._hook.register_loss(loss)
        self._modules, self._losses = [], []
        return best

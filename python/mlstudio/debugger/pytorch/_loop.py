"""The training loop of a PyTorch script, seen from outside: every ``backward()``, every
optimizer step, every batch a DataLoader hands out, and (while someone asks) the outermost
module calls. The Debugger hook and the framework profiler listen to it; nothing in the script
changes.

It patches ``torch.Tensor.backward``, ``_BaseDataLoaderIter.__next__`` and the optimizer step
(PyTorch 2's global step hooks, or on 1.13 ``Optimizer._optimizer_step_code``, which every step
calls, and each optimizer class's ``step`` for the step's start), once per process. With no
listener each costs one empty loop. Callbacks run on the training thread; listeners are called
in the order they were added, and one that raises is reported once and dropped.
"""

import functools
import sys
import time

_EVENTS = ("backward_begin", "backward_end", "optimizer_begin", "optimizer_end", "batch",
           "forward_begin", "forward_end")  # fmt: skip


class TrainingLoop:
    """The process's one loop observer (``loop()``)."""

    def __init__(self):
        self._listeners = {e: [] for e in _EVENTS}
        self._installed = False
        self._forward_handles = None
        self._depth = 0

    # ---- listeners ----

    def add(self, listener, first=False):
        """Calls listener.on_<event>(...) for the events it has methods for; `first`: before
        the listeners already there (the profiler times a step before the hook ends it)."""
        self.install()
        for e in _EVENTS:
            method = getattr(listener, "on_" + e, None)
            if method is not None and method not in self._listeners[e]:
                if first:
                    self._listeners[e].insert(0, method)
                else:
                    self._listeners[e].append(method)
        if getattr(listener, "on_forward_begin", None) or getattr(listener, "on_forward_end",
                                                                   None):
            self._watch_forward()

    def remove(self, listener):
        for e in _EVENTS:
            self._listeners[e] = [m for m in self._listeners[e]
                                  if getattr(m, "__self__", None) is not listener]
        if not self._listeners["forward_begin"] and not self._listeners["forward_end"]:
            self._unwatch_forward()

    def _emit(self, event, *args):
        for method in list(self._listeners[event]):
            try:
                method(*args)
            except Exception as error:  # noqa: BLE001 - a studio feature never stops training
                self._listeners[event] = [m for m in self._listeners[event] if m is not method]
                sys.stderr.write("mlstudio: {} failed on {} and is off for this run: {}: {}\n"
                                 .format(_owner(method), event, type(error).__name__, error))

    # ---- patches ----

    def install(self):
        if self._installed:
            return
        self._installed = True
        import torch

        _patch_backward(self, torch)
        _patch_optimizer(self, torch)
        _patch_dataloader(self)

    def _watch_forward(self):
        """Outermost module calls: forward_begin(module, inputs) / forward_end(module, output)."""
        if self._forward_handles is not None:
            return
        from torch.nn.modules import module as torch_module

        self._depth = 0
        self._forward_handles = (
            torch_module.register_module_forward_pre_hook(self._pre_forward),
            torch_module.register_module_forward_hook(self._post_forward),
        )

    def _unwatch_forward(self):
        if self._forward_handles is not None:
            for handle in self._forward_handles:
                handle.remove()
            self._forward_handles = None

    def _pre_forward(self, module, inputs):
        self._depth += 1
        if self._depth == 1:
            self._emit("forward_begin", module, inputs)

    def _post_forward(self, module, inputs, output):
        self._depth = max(0, self._depth - 1)
        if self._depth == 0:
            self._emit("forward_end", module, output)

    def reset_depth(self):
        """After a forward pass raised: its post hooks never ran."""
        self._depth = 0


def _owner(method):
    owner = getattr(method, "__self__", None)
    return type(owner).__name__ if owner is not None else getattr(method, "__name__", "listener")


def _patch_backward(loop, torch):
    original = torch.Tensor.backward

    @functools.wraps(original)
    def backward(self, *args, **kwargs):
        if not (loop._listeners["backward_begin"] or loop._listeners["backward_end"]):
            return original(self, *args, **kwargs)
        loop._emit("backward_begin", self)
        result = original(self, *args, **kwargs)
        loop._emit("backward_end", self)
        return result

    torch.Tensor.backward = backward


def _patch_optimizer(loop, torch):
    from torch.optim import optimizer as optim_module

    def post(opt, *_):
        if loop._listeners["optimizer_end"]:
            loop._emit("optimizer_end", opt)

    def pre(opt, *_):
        if loop._listeners["optimizer_begin"]:
            loop._emit("optimizer_begin", opt)

    if hasattr(optim_module, "register_optimizer_step_post_hook"):
        optim_module.register_optimizer_step_pre_hook(pre)
        optim_module.register_optimizer_step_post_hook(post)
        return
    # PyTorch 1.13: every step ends in _optimizer_step_code(); the step's start is seen by
    # wrapping the class's step the first time one of its instances steps.
    base = optim_module.Optimizer
    original_code = base._optimizer_step_code

    def step_code(self):
        original_code(self)
        _wrap_step_class(type(self), pre)
        post(self)

    base._optimizer_step_code = step_code


def _wrap_step_class(cls, pre):
    step = cls.__dict__.get("step")
    if step is None or getattr(step, "_mlstudio_timed", False):
        return

    @functools.wraps(step)
    def timed_step(self, *args, **kwargs):
        pre(self)
        return step(self, *args, **kwargs)

    timed_step._mlstudio_timed = True
    cls.step = timed_step


def _patch_dataloader(loop):
    try:
        from torch.utils.data import dataloader
    except ImportError:
        return
    iterator = dataloader._BaseDataLoaderIter
    original = iterator.__next__

    @functools.wraps(original)
    def next_batch(self):
        if not loop._listeners["batch"]:
            return original(self)
        start = time.perf_counter()
        batch = original(self)
        loop._emit("batch", start, time.perf_counter(), batch)
        return batch

    iterator.__next__ = next_batch


def batch_size(batch):
    """The first dimension of a batch's first tensor (in lists, tuples and dicts), or None."""
    import torch

    for _ in range(4):
        if torch.is_tensor(batch):
            return int(batch.size(0)) if batch.dim() > 0 else None
        if isinstance(batch, (list, tuple)) and batch:
            batch = batch[0]
        elif isinstance(batch, dict) and batch:
            batch = next(iter(batch.values()))
        else:
            return None
    return None


def unwrap(module):
    """The model inside DistributedDataParallel / DataParallel wrappers."""
    while type(module).__name__ in ("DistributedDataParallel", "DataParallel") and hasattr(
        module, "module"
    ):
        module = module.module
    return module


_LOOP = None


def loop():
    """The process's TrainingLoop (its patches go in on the first listener)."""
    global _LOOP
    if _LOOP is None:
        _LOOP = TrainingLoop()
    return _LOOP

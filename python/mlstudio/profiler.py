"""mlstudio.profiler: framework profiling of a PyTorch script in a studio job.

Each training step becomes a "step" event with its phases in milliseconds (data loading: the
wait in a DataLoader, else the time from the last step's end to the first forward pass;
forward: outermost module calls with gradients on, the loss included; backward; optimizer),
as the built-in trainer sends them (engine/train/trainer.cpp), so StepOutlier,
OverallFrameworkMetrics and the profiler report read a script's steps. Inside the profiled
window of the job's profiler config (``framework_profile_params``: start_step and num_steps,
default 5 and 1, or start_unix_time and duration) it also sends "profile" spans (each
DataLoader fetch, forward and backward per top-level block, the optimizer, the step), records
a ``torch.profiler`` trace to ``<debug-output>/framework/pytorch_profiler/
rank<R>-steps<a>-<b>.json`` (Chrome trace format) and sends the top 30 operators by self time
as the "operators" facts of the rank. On CUDA the allocator's memory goes out per step as the
metrics ``profiler:gpu_memory_allocated_mb`` and ``profiler:gpu_max_memory_allocated_mb``;
the batch size as ``profiler:batch_size`` whenever it changes.

Step boundaries come from the Debugger hook when one runs, else from ``mlstudio.profiler.step()``
called at the end of each step (it wins over the others once called), else from each optimizer
step. Steps count from 0 (step events say index + 1, as the built-in trainer's do). Outside a
job nothing is recorded. Not thread-safe: the training thread drives it.
"""

import atexit
import json
import os
import sys
import time

__all__ = ["step", "start", "active"]

_DRIVERS = {"optimizer": 0, "hook": 1, "explicit": 2}
_TOP_OPERATORS = 30


def _rank():
    try:
        return int(os.environ.get("RANK", "0"))
    except ValueError:
        return 0


def _integer(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1


class _Window:
    """Which steps are profiled in detail (FrameworkProfiler::inWindow of the built-in)."""

    def __init__(self, section):
        self.enabled = bool(section.get("enabled", True)) and bool(section.get("framework"))
        start = _integer(section.get("start_step"))
        steps = _integer(section.get("num_steps"))
        self.start = start if start >= 0 else 5
        self.steps = steps if steps > 0 else 1
        self.unix_start = float(section.get("start_unix_time", -1) or -1)
        duration = float(section.get("duration_seconds", -1) or -1)
        self.duration = duration if duration >= 0 else 60.0

    def contains(self, index):
        if not self.enabled:
            return False
        if self.unix_start >= 0:
            now = time.time()
            return self.unix_start <= now < self.unix_start + self.duration
        return self.start <= index < self.start + self.steps


class StepProfiler:
    """Per-step timings of one rank, and the detailed window."""

    def __init__(self, writer, section=None, local_path=None):
        from .debugger.pytorch import _loop

        self._writer = writer
        self._window = _Window(section or {})
        self._local_path = local_path or os.environ.get("STUDIO_DEBUG_OUTPUT_DIR")
        self._rank = _rank()
        self._pid = os.getpid()
        self._unix = time.time() - time.perf_counter()
        self._driver = None
        self._index = 0
        self._last_end = None
        self._batch_size = None
        self._reset_step()
        self._detail = None  # _Detail while the window runs
        self._loop = _loop.loop()
        self._loop.add(self, first=True)

    def _reset_step(self):
        self._active = False
        self._begin = None
        self._data = self._forward = self._backward = self._optimizer = 0.0
        self._batches = 0
        self._first_forward = None
        self._forward_start = self._backward_start = self._optimizer_start = None
        self._backward_end = None

    # ---- what the loop reports ----

    def _touch(self, at):
        if not self._active:
            self._active = True
            self._begin = self._last_end if self._last_end is not None else at
            if self._window.contains(self._index) and self._detail is None:
                self._detail = _Detail(self)
                self._detail.begin()

    def on_batch(self, start, end, batch):
        from .debugger.pytorch._loop import batch_size

        self._touch(start)
        self._data += (end - start) * 1000.0
        self._batches += 1
        size = batch_size(batch)
        if size is not None and size != self._batch_size:
            self._batch_size = size
            self._writer.metric("profiler:batch_size", size, self._index + 1)
        if self._detail is not None:
            self._detail.span("dataloader", "dataloader", start, end)

    def on_forward_begin(self, module, inputs):
        import torch

        if not torch.is_grad_enabled():
            self._forward_start = None  # evaluation between steps is not a step's forward
            return
        now = time.perf_counter()
        self._touch(now)
        self._forward_start = now
        if self._first_forward is None:
            self._first_forward = now
        if self._detail is not None:
            self._detail.forward_begin(module)

    def on_forward_end(self, module, output):
        if self._forward_start is None:
            return
        self._forward += (time.perf_counter() - self._forward_start) * 1000.0
        self._forward_start = None

    def on_backward_begin(self, tensor):
        now = time.perf_counter()
        self._touch(now)
        self._backward_start = now

    def on_backward_end(self, tensor):
        now = time.perf_counter()
        if self._backward_start is not None:
            self._backward += (now - self._backward_start) * 1000.0
            if self._detail is not None:
                self._detail.backward_done(self._backward_start, now)
        self._backward_start = None
        self._backward_end = now

    def on_optimizer_begin(self, optimizer):
        now = time.perf_counter()
        self._touch(now)
        self._optimizer_start = now

    def on_optimizer_end(self, optimizer):
        now = time.perf_counter()
        start = self._optimizer_start or self._backward_end
        self._touch(now)
        if start is not None:
            self._optimizer += (now - start) * 1000.0
            if self._detail is not None:
                self._detail.span(type(optimizer).__name__, "optimizer", start, now)
        self._optimizer_start = None
        self.end_step("optimizer")

    # ---- step boundaries ----

    def end_step(self, source, index=None):
        """A step ended, as `source` ("optimizer", "hook", "explicit") sees it."""
        rank = _DRIVERS[source]
        if self._driver is not None and rank < _DRIVERS[self._driver]:
            return
        self._driver = source
        if not self._active:
            return  # the same boundary seen by a second source
        if index is not None:
            self._index = index
        now = time.perf_counter()
        data = self._data
        if not self._batches and self._first_forward is not None and self._begin is not None:
            data = max(0.0, (self._first_forward - self._begin) * 1000.0)
        self._writer.step(self._index + 1, data=data, forward=self._forward,
                          backward=self._backward, optimizer=self._optimizer,
                          t=self._unix + now)  # fmt: skip
        self._gpu_memory()
        if self._detail is not None:
            self._detail.span("step", "step", self._begin, now)
            self._detail.flush()
            if not self._window.contains(self._index + 1):
                detail, self._detail = self._detail, None
                detail.finish(self._index)
        self._index += 1
        self._last_end = now
        self._reset_step()

    def count_untimed_step(self):
        """A step ended before the profiler started: counted, not sent."""
        self._driver = "explicit"
        self._index += 1
        self._last_end = time.perf_counter()
        self._reset_step()

    def _gpu_memory(self):
        torch = sys.modules.get("torch")
        if torch is None or not torch.cuda.is_available() or not torch.cuda.is_initialized():
            return
        mib = 1024.0 * 1024.0
        self._writer.metric("profiler:gpu_memory_allocated_mb",
                            torch.cuda.memory_allocated() / mib, self._index + 1)
        self._writer.metric("profiler:gpu_max_memory_allocated_mb",
                            torch.cuda.max_memory_allocated() / mib, self._index + 1)

    def close(self):
        """At exit: a window still open ends with the last step begun."""
        if self._detail is not None:
            detail, self._detail = self._detail, None
            detail.finish(self._index if self._active else self._index - 1)
        self._loop.remove(self)


class _Detail:
    """The profiled window: spans as "profile" events, per-block forward and backward, and a
    torch.profiler trace over the whole window."""

    def __init__(self, owner):
        self._owner = owner
        self._first = owner._index
        self._pending = []
        self._blocks = None  # {module: name}
        self._handles = []
        self._marks = []
        self._trace = None
        self._block_start = {}

    def begin(self):
        import torch
        from torch.nn.modules import module as torch_module

        self._handles = [torch_module.register_module_forward_pre_hook(self._block_pre),
                         torch_module.register_module_forward_hook(self._block_post)]
        activities = [torch.profiler.ProfilerActivity.CPU]
        if torch.cuda.is_available():
            activities.append(torch.profiler.ProfilerActivity.CUDA)
        self._trace = torch.profiler.profile(activities=activities, profile_memory=True)
        self._trace.__enter__()

    def span(self, name, category, start, end):
        o = self._owner
        self._pending.append((name, category, o._index, o._unix + start, (end - start) * 1000.0))

    def forward_begin(self, module):
        from .debugger.pytorch._loop import unwrap

        if self._blocks is None:
            root = unwrap(module)
            children = list(root.named_children())
            self._blocks = {m: n for n, m in children} or {root: type(root).__name__}

    def _block_pre(self, module, inputs):
        if self._blocks is not None and module in self._blocks:
            self._block_start[module] = time.perf_counter()

    def _block_post(self, module, inputs, output):
        start = self._block_start.pop(module, None)
        if start is None:
            return
        name = self._blocks[module]
        self.span(name, "forward", start, time.perf_counter())
        import torch

        if torch.is_tensor(output) and output.requires_grad:
            marks = self._marks
            output.register_hook(lambda grad: marks.append((time.perf_counter(), name)))

    def backward_done(self, begin, end):
        """One span per block from the gradient of its output to that of the block before
        (FrameworkProfiler::backwardDone of the built-in)."""
        marks = sorted(self._marks)
        self._marks.clear()
        for i, (at, name) in enumerate(marks):
            stop = marks[i + 1][0] if i + 1 < len(marks) else end
            self.span(name, "backward", max(at, begin), stop)
        if not marks:
            self.span("backward", "backward", begin, end)

    def flush(self):
        w = self._owner._writer
        for name, category, index, start, dur in self._pending:
            w.profile(name, category, index, start, dur, pid=self._owner._pid)
        self._pending = []

    def finish(self, last):
        """The window ended with step `last`: the trace file and the operators facts."""
        for handle in self._handles:
            handle.remove()
        self._handles = []
        if self._trace is None:
            return
        trace, self._trace = self._trace, None
        trace.__exit__(None, None, None)
        body = {"start_step": self._first, "num_steps": last - self._first + 1, "trace": None,
                "ops": _operators(trace)}  # fmt: skip
        root = self._owner._local_path
        if root:
            relative = os.path.join("framework", "pytorch_profiler", "rank{}-steps{}-{}.json"
                                    .format(self._owner._rank, self._first, last))
            path = os.path.join(root, relative)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            trace.export_chrome_trace(path + ".tmp")
            os.replace(path + ".tmp", path)
            body["trace"] = relative
        self._owner._writer.facts("operators", body)


def _operators(trace):
    """The top operators by self time (device time when there is one), as the job tab lists
    them."""
    rows = []
    for e in trace.key_averages():
        device_total = _first_attr(e, ("device_time_total", "cuda_time_total"))
        device_self = _first_attr(e, ("self_device_time_total", "self_cuda_time_total"))
        rows.append({
            "name": e.key,
            "calls": int(e.count),
            "cpu_total_ms": e.cpu_time_total / 1000.0,
            "self_cpu_ms": e.self_cpu_time_total / 1000.0,
            "cuda_total_ms": device_total / 1000.0,
            "self_cuda_ms": device_self / 1000.0,
            "cpu_memory_bytes": int(getattr(e, "cpu_memory_usage", 0) or 0),
        })
    rows.sort(key=lambda r: (r["self_cuda_ms"], r["self_cpu_ms"]), reverse=True)
    return rows[:_TOP_OPERATORS]


def _first_attr(obj, names):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch 2 deprecates the cuda_ names
        for n in names:
            v = getattr(obj, n, None)
            if v is not None:
                return float(v)
    return 0.0


_PROFILER = None


def active():
    """The rank's StepProfiler, or None."""
    return _PROFILER


def start(section=None, local_path=None):
    """Starts the rank's profiler (once) with a hook config's "profiler" section; None
    outside a job."""
    global _PROFILER
    if _PROFILER is None:
        from . import _events

        w = _events.writer()
        if w is None:
            return None
        if section is None:
            section, local_path = _config_section()
        _PROFILER = StepProfiler(w, section, local_path)
        # A script that ends inside the window still gets its trace and operators (this runs
        # before the writer's own exit flush, registered earlier).
        atexit.register(_PROFILER.close)
    return _PROFILER


def _config_section():
    path = os.environ.get("STUDIO_DEBUG_HOOK_CONFIG")
    if not path:
        return {}, None
    try:
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
    except (OSError, ValueError) as error:
        sys.stderr.write("mlstudio: profiler: cannot read {}: {}\n".format(path, error))
        return {}, None
    return dict(config.get("profiler") or {}), config.get("local_path")


def step():
    """Marks the end of a training step: the step's timings go out as a "step" event. The first
    call starts the profiler when nothing did (the job's hook config, or ``start()`` before
    the loop): that step is counted, its timings were not taken."""
    created = _PROFILER is None
    p = start()
    if p is None:
        return
    if created:
        p.count_untimed_step()
    else:
        p.end_step("explicit")


def _hook_step_end(index):
    """The Debugger hook ended step `index` (0-based)."""
    if _PROFILER is not None:
        _PROFILER.end_step("hook", index)

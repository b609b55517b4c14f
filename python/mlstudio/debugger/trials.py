"""mlstudio.debugger.trials: smdebug's reading API over a studio job's saved tensors.

::

    from mlstudio.debugger.trials import create_trial

    trial = create_trial(estimator.latest_job_debugger_artifacts_path())  # or the job's name
    trial.tensor_names(collection="gradients")
    trial.steps()
    grad = trial.tensor("gradient/fc1.fc.weight")
    grad.reduction_value(25, "mean", abs=True)   # what the hook saved
    grad.value(0)                                # a numpy array (collections with save_raw_tensor)
    trial.system_metrics()                       # pandas DataFrames of the profiler's data
    trial.step_timings()

The reductions come from the store (``mlstudio tensors JOB --json``); raw tensors are the job's
``debug-output/tensors/step-<12 digits>/rank-<R>/<tensor>.npy``, read with numpy. Steps are the
trainer's: one counter for all modes, so a mode's step is its global step. Workers are the ranks
(``worker_0``, ...). A trial of a running job reads again when asked about what it lacks.
"""

import glob
import json
import math
import os
import re
import time

from .._cli import cli_json
from .._data_jobs import job_of
from .._data_profiler import PandasFrame
from .._data_smdebug import (
    ModeKeys,
    modes,
    StepState,
    SMDebugError,
    TensorUnavailable,
    TensorUnavailableForStep,
    StepUnavailable,
    StepNotYetAvailable,
    NoMoreData,
    ShapeUnavailableForStep,
    InvalidWorker,
)

__all__ = [
    "create_trial",
    "Trial",
    "Tensor",
    "Collection",
    "ModeKeys",
    "modes",
    "StepState",
    "PandasFrame",
    "SMDebugError",
    "TensorUnavailable",
    "TensorUnavailableForStep",
    "StepUnavailable",
    "StepNotYetAvailable",
    "NoMoreData",
    "ShapeUnavailableForStep",
    "InvalidWorker",
]


_PHASE_MODES = {"train": ModeKeys.TRAIN, "eval": ModeKeys.EVAL, "predict": ModeKeys.PREDICT}
# Reductions computable from a raw tensor, as smdebug's ReductionConfig allows them.
_REDUCTIONS = ("min", "max", "mean", "std", "variance", "sum", "prod")
_NORMS = ("l1", "l2")


def _numpy():
    try:
        import numpy
    except ImportError:
        raise ImportError(
            "mlstudio.debugger.trials: tensor values need numpy (Debian's " "python3-numpy)"
        ) from None
    return numpy


def _mode(mode, field="mode"):
    if isinstance(mode, ModeKeys):
        return mode
    if isinstance(mode, str) and mode.upper() in ModeKeys.__members__:
        return ModeKeys[mode.upper()]
    raise ValueError(
        "{}: must be one of modes.TRAIN, EVAL, PREDICT, GLOBAL, got {!r}".format(field, mode)
    )


def _in_mode(key_mode, mode):
    return mode is ModeKeys.GLOBAL or key_mode is mode


def _stored_reduction(name, abs_):
    """The store's name of a reduction: abs_ prefixed, norms with their _norm suffix."""
    base = name[:-5] if name.endswith("_norm") else name
    stored = base + "_norm" if base in _NORMS else base
    return ("abs_" + stored) if abs_ else stored


def _reduction_key(stored):
    """(name, abs) as smdebug's reduction_values keys it: ("mean", True), ("l2", False)."""
    abs_ = stored.startswith("abs_")
    name = stored[4:] if abs_ else stored
    if name.endswith("_norm") and name[:-5] in _NORMS:
        name = name[:-5]
    return name, abs_


class _TensorData:
    """One tensor's saved data, indexed by step: rules ask about one step at a time, and a long
    job's trial holds thousands of them."""

    def __init__(self, name):
        self.name = name
        self.collections = set()
        self.reductions = {}  # (step, mode, worker) -> {stored reduction: value}
        self.raw = {}  # (step, worker) -> index entry (file, shape, dtype)
        self.modes = set()
        self._at = {}  # step -> {(mode, worker)} with reductions, or a raw tensor (TRAIN)

    def add_reductions(self, key, values):
        """Merges reductions saved at key (step, mode, worker)."""
        self.reductions.setdefault(key, {}).update(values)
        self._note(*key)

    def add_raw(self, step, worker, entry):
        self.raw[(step, worker)] = entry
        self._note(step, ModeKeys.TRAIN, worker)

    def _note(self, step, mode, worker):
        self._at.setdefault(step, set()).add((mode, worker))
        self.modes.add(mode)

    def keys(self):
        return {(s, m, w) for s, at in self._at.items() for m, w in at}

    def at(self, step):
        """The (mode, worker)s with data at a step."""
        return self._at.get(step, ())

    def steps(self, mode):
        return {s for s, at in self._at.items() if any(_in_mode(m, mode) for m, _ in at)}


def merge_stored(tensors, stored, in_range):
    """Adds ``mlstudio tensors --json``'s "tensors" to {name: _TensorData} (steps in range)."""
    for t in stored:
        td = tensors.setdefault(t["name"], _TensorData(t["name"]))
        td.collections.update(t["collections"])
        for v in t["values"]:
            if not in_range(v["step"]):
                continue
            key = (
                v["step"],
                _PHASE_MODES.get(v["phase"], ModeKeys.TRAIN),
                "worker_{}".format(v["rank"]),
            )
            td.add_reductions(key, {r: _finite(x) for r, x in v["reductions"].items()})


def merge_index_entry(tensors, entry):
    """Adds one line of a raw-tensor index (index-rank-<R>.jsonl) to {name: _TensorData}."""
    td = tensors.setdefault(entry["tensor"], _TensorData(entry["tensor"]))
    td.collections.add(entry["collection"])
    td.add_raw(entry["step"], "worker_{}".format(entry["rank"]), entry)


class Collection:
    """A collection as saved: its name and the tensors saved in it."""

    def __init__(self, name, tensor_names):
        self.name = name
        self.tensor_names = set(tensor_names)

    def __repr__(self):
        return "<Collection {}: {} tensors>".format(self.name, len(self.tensor_names))


def create_trial(path, name=None, profiler=False, output_dir=None, **kwargs):
    """A trial over a job's saved tensors: a job's name (or unique prefix), its folder, or its
    debug-output / profiler-output folder. ``range_steps=(start, end)`` limits the steps."""
    for key in kwargs:
        if key != "range_steps":
            raise TypeError("create_trial() got an unexpected keyword argument {!r}".format(key))
    return Trial(job_of(path), name=name, range_steps=kwargs.get("range_steps"))


class Trial:
    """smdebug's Trial over one studio job."""

    def __init__(self, job, name=None, range_steps=None):
        self._job_key = job
        self._range = range_steps
        self._loaded_at = None
        self._tensors = {}
        self._status = None
        self.job_name = job
        self.path = None
        self.name = name or job
        self._load()
        self._profiler = None

    def __repr__(self):
        return "<Trial {} ({}): {} tensors, {} steps>".format(
            self.name, self._status, len(self._tensors), len(self.steps())
        )

    # -- loading -----------------------------------------------------------------------------

    def _load(self):
        data = cli_json("tensors", self._job_key, "--json")
        self.job_name, self._status, self.path = data["job"], data["status"], data["debug_output"]
        if self.name == self._job_key:
            self.name = self.job_name
        tensors = {}
        merge_stored(tensors, data["tensors"], self._in_range)
        indexes = glob.glob(os.path.join(self.path, "index-rank-*.jsonl")) if self.path else []
        for index in sorted(indexes):
            self._read_index(index, tensors)
        self._tensors = tensors
        self._loaded_at = time.monotonic()

    def _read_index(self, index, tensors):
        with open(index) as lines:
            for line in lines:
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue  # a line being written while the job runs
                if self._in_range(entry["step"]):
                    merge_index_entry(tensors, entry)

    def _in_range(self, step):
        return self._range is None or self._range[0] <= step < self._range[1]

    def _live(self):
        return self._status in ("InProgress", "Stopping")

    def refresh(self):
        """Reads the job's tensors again (a running job saves more)."""
        self._load()

    def _refresh_if_live(self):
        if self._live() and time.monotonic() - self._loaded_at > 1.0:
            self._load()

    # -- what was saved ----------------------------------------------------------------------

    def tensor_names(
        self,
        show_prefixed_tensors=False,
        *,
        step=None,
        mode=ModeKeys.GLOBAL,
        regex=None,
        collection=None,
    ):
        """Sorted names of the saved tensors, filtered by step, mode, regex or collection."""
        if regex is not None and collection is not None:
            raise ValueError("Only one of `regex` or `collection` can be passed to this method")
        mode = _mode(mode)
        self._refresh_if_live()
        names = []
        patterns = [regex] if isinstance(regex, str) else list(regex or [])
        wanted = collection.name if isinstance(collection, Collection) else collection
        for name, td in self._tensors.items():
            if wanted is not None and wanted not in td.collections:
                continue
            if patterns and not any(re.search(p, name) for p in patterns):
                continue
            modes = td.modes if step is None else {m for m, _ in td.at(step)}
            if not any(_in_mode(m, mode) for m in modes):
                continue
            names.append(name)
        return sorted(names)

    def has_tensor(self, tname):
        self._refresh_if_live()
        return tname in self._tensors

    def tensor(self, tname):
        if not self.has_tensor(tname):
            raise TensorUnavailable(tname)
        return Tensor(self, tname)

    def steps(self, mode=ModeKeys.GLOBAL, show_incomplete_steps=False):
        """Sorted steps at which anything was saved (in the mode)."""
        mode = _mode(mode)
        return sorted({s for td in self._tensors.values() for s in td.steps(mode)})

    def modes(self):
        return sorted({m for td in self._tensors.values() for m in td.modes}, key=lambda m: m.value)

    def mode(self, global_step):
        """The mode of a step (TRAIN when a train step saved anything, else the first saved)."""
        found = {m for td in self._tensors.values() for m, _ in td.at(global_step)}
        if not found:
            raise StepUnavailable(global_step, ModeKeys.GLOBAL)
        return ModeKeys.TRAIN if ModeKeys.TRAIN in found else min(found, key=lambda m: m.value)

    def mode_step(self, global_step):
        return global_step  # one step counter for every mode

    def global_step(self, mode, mode_step):
        return mode_step

    def workers(self):
        return sorted(
            {w for td in self._tensors.values() for _, _, w in td.keys()},
            key=lambda w: int(w.rsplit("_", 1)[-1]),
        )

    def collections(self):
        """{name: Collection} of the collections anything was saved in."""
        members = {}
        for name, td in self._tensors.items():
            for c in td.collections:
                members.setdefault(c, []).append(name)
        return {c: Collection(c, names) for c, names in sorted(members.items())}

    def collection(self, name):
        found = self.collections().get(name)
        if found is None:
            raise ValueError(
                "collection {!r}: job {} saved nothing in it; it saved: {}".format(
                    name, self.job_name, ", ".join(self.collections()) or "nothing"
                )
            )
        return found

    def has_passed_step(self, step, mode=ModeKeys.GLOBAL):
        mode = _mode(mode)
        self._refresh_if_live()
        steps = self.steps(mode)
        if step in steps:
            return StepState.AVAILABLE
        if self._live() and (not steps or step > steps[-1]):
            return StepState.NOT_YET_AVAILABLE
        return StepState.UNAVAILABLE

    def wait_for_steps(self, required_steps, mode=ModeKeys.GLOBAL):
        """Waits (polling every 2 s) until each step is saved; StepUnavailable for a step the
        job passed without saving, NoMoreData once the job ended without it."""
        mode = _mode(mode)
        for step in required_steps:
            while True:
                state = self.has_passed_step(step, mode)
                if state is StepState.AVAILABLE:
                    break
                if state is StepState.UNAVAILABLE:
                    steps = self.steps(mode)
                    if steps and step < steps[-1]:
                        raise StepUnavailable(step, mode)
                    raise NoMoreData(step, mode, steps[-1] if steps else None)
                time.sleep(2)
                self._load()

    # -- the profiler's data -----------------------------------------------------------------

    def _frame(self):
        if self._profiler is None:
            self._profiler = PandasFrame(self.job_name)
        return self._profiler

    def system_metrics(self, selected_system_metrics=()):
        """System samples (CPU, GPU, memory, network, disk per node) as a DataFrame."""
        return self._frame().get_all_system_metrics(list(selected_system_metrics))

    def framework_metrics(self, selected_framework_metrics=()):
        """Framework events of the profiled steps (forward, backward, data loading, ...)."""
        return self._frame().get_all_framework_metrics(list(selected_framework_metrics))

    def step_timings(self):
        """Every rank's step timings per phase (data, forward, backward, comm, optimizer)."""
        return self._frame().get_step_timings()


def _finite(value):
    return (
        {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(value, value)
        if isinstance(value, str)
        else value
    )


class Tensor:
    """A saved tensor of a trial: its values and reductions per step."""

    def __init__(self, trial, name):
        self._trial = trial
        self.name = name

    def __repr__(self):
        return "<Tensor {} of {}>".format(self.name, self._trial.name)

    def _data(self):
        return self._trial._tensors[self.name]

    def _worker(self, worker):
        if worker is not None and worker not in self._trial.workers():
            raise InvalidWorker(worker)
        return worker

    def steps(self, mode=ModeKeys.GLOBAL, show_incomplete_steps=False):
        mode = _mode(mode)
        self._trial._refresh_if_live()
        return sorted(self._data().steps(mode))

    def workers(self, step_num, mode=ModeKeys.GLOBAL):
        mode = _mode(mode)
        return sorted({w for m, w in self._data().at(step_num) if _in_mode(m, mode)})

    def prev_steps(self, step, n, mode=ModeKeys.GLOBAL):
        earlier = [s for s in self.steps(mode) if s < step]
        return earlier[-n:] if n > 0 else []

    def _reductions_at(self, step, mode, worker):
        """The stored reductions at a step: of the worker, else of the first worker with any."""
        td = self._data()
        found = [
            (int(w.rsplit("_", 1)[-1]), m.value, td.reductions[(step, m, w)])
            for m, w in td.at(step)
            if (step, m, w) in td.reductions
            and _in_mode(m, mode)
            and (worker is None or w == worker)
        ]
        # The lowest rank's, and at a step both modes saved, TRAIN's (a global step's mode).
        found.sort(key=lambda item: item[:2])
        return found[0][2] if found else {}

    def _raw_entry(self, step, mode, worker):
        if mode not in (ModeKeys.GLOBAL, ModeKeys.TRAIN):
            return None
        td = self._data()
        workers = sorted(
            {w for _, w in td.at(step) if (step, w) in td.raw and (worker is None or w == worker)}
        )
        return td.raw[(step, workers[0])] if workers else None

    def _missing(self, step, mode, has_reductions):
        steps = self._trial.steps(mode)
        if step not in steps:
            if self._trial._live() and (not steps or step > steps[-1]):
                raise StepNotYetAvailable(step, mode)
            raise StepUnavailable(step, mode)
        raise TensorUnavailableForStep(self.name, step, mode, has_reductions)

    def value(self, step_num, mode=ModeKeys.GLOBAL, worker=None):
        """The tensor at a step as a numpy array: its raw file, or a scalar's saved value."""
        mode, worker = _mode(mode), self._worker(worker)
        numpy = _numpy()
        entry = self._raw_entry(step_num, mode, worker)
        if entry is not None:
            return numpy.load(os.path.join(self._trial.path, entry["file"]))
        reductions = self._reductions_at(step_num, mode, worker)
        if "value" in reductions:
            return numpy.asarray(reductions["value"], dtype=numpy.float64)
        if not reductions:
            self._trial._refresh_if_live()
        return self._missing(step_num, mode, bool(reductions))

    def values(self, mode=ModeKeys.GLOBAL, worker=None):
        """{step: value} of every step with a value."""
        out = {}
        for step in self.steps(mode):
            try:
                out[step] = self.value(step, mode, worker)
            except TensorUnavailableForStep:
                continue
        return out

    def reduction_value(
        self, step_num, reduction_name, mode=ModeKeys.GLOBAL, worker=None, abs=False
    ):
        """A reduction at a step: the one the hook saved, else computed from the raw tensor."""
        mode, worker = _mode(mode), self._worker(worker)
        numpy = _numpy()
        stored = _stored_reduction(reduction_name, abs)
        reductions = self._reductions_at(step_num, mode, worker)
        if stored in reductions:
            return numpy.float64(reductions[stored])
        base = reduction_name[:-5] if reduction_name.endswith("_norm") else reduction_name
        if base not in _REDUCTIONS + _NORMS:
            known = sorted({r for rs in self._data().reductions.values() for r in rs})
            raise ValueError(
                "reduction_name: {!r} was not saved for {} and is not one of {}; "
                "saved: {}".format(
                    reduction_name, self.name, ", ".join(_REDUCTIONS + _NORMS), ", ".join(known)
                )
            )
        entry = self._raw_entry(step_num, mode, worker)
        if entry is None:
            return self._missing(step_num, mode, bool(reductions))
        return numpy.float64(
            _compute(numpy, numpy.load(os.path.join(self._trial.path, entry["file"])), base, abs)
        )

    def reduction_values(self, step_num, mode=ModeKeys.GLOBAL, worker=None):
        """{(name, abs): value} of the reductions the hook saved at a step."""
        mode, worker = _mode(mode), self._worker(worker)
        numpy = _numpy()
        return {
            _reduction_key(r): numpy.float64(v)
            for r, v in self._reductions_at(step_num, mode, worker).items()
        }

    def shape(self, step_num, mode=ModeKeys.GLOBAL, worker=None):
        mode, worker = _mode(mode), self._worker(worker)
        entry = self._raw_entry(step_num, mode, worker)
        if entry is not None:
            return tuple(entry["shape"])
        if "value" in self._reductions_at(step_num, mode, worker):
            return ()
        raise ShapeUnavailableForStep(self.name, step_num, mode)

    def shapes(self, mode=ModeKeys.GLOBAL, worker=None):
        out = {}
        for step in self.steps(mode):
            try:
                out[step] = self.shape(step, mode, worker)
            except ShapeUnavailableForStep:
                continue
        return out


def _compute(numpy, array, name, abs_):
    a = numpy.abs(array) if abs_ else array
    a = a.astype(numpy.float64)
    if name == "l1":
        return numpy.sum(numpy.abs(a))
    if name == "l2":
        return numpy.sqrt(numpy.sum(a * a))
    return {
        "min": numpy.min,
        "max": numpy.max,
        "mean": numpy.mean,
        "std": numpy.std,
        "variance": numpy.var,
        "sum": numpy.sum,
        "prod": numpy.prod,
    }[name](a)

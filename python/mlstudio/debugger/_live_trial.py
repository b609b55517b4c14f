"""The trial a custom rule reads while its job runs: smdebug's Trial API (``Trial`` and ``Tensor``
of mlstudio.debugger.trials) over data held in memory, fed event by event by the rule process.

It holds the job's ``tensor`` events (as the store keeps them: step, mode, worker, reductions),
its ``metric`` events as scalar tensors (the way the engine's rules see a script's metrics: a
name with "loss" in collection "losses", else "metrics"; validation/eval/test names and eval-phase
points in mode EVAL; the value as reduction "value"), and the raw tensors the hook wrote under the
job's debug-output folder (read from its index files when ``refresh()`` is called). The store's
data of a job already running when the rule process started can be merged in first
(``merge_store``). Queries never block: a step the job has not reached yet is
StepNotYetAvailable.
"""

import glob
import json
import os
import re
import time

from .._data_smdebug import (
    ModeKeys,
    NoMoreData,
    StepNotYetAvailable,
    StepUnavailable,
)
from .trials import Trial, _TensorData, _finite, _mode, merge_index_entry, merge_stored

_PHASES = {"train": ModeKeys.TRAIN, "eval": ModeKeys.EVAL}
_EVAL_WORDS = ("val", "validation", "eval", "test")


def metric_collection(name):
    """The collection a metric's scalar belongs to, as the engine's rules see it."""
    return "losses" if "loss" in name.lower() else "metrics"


def metric_mode(name, phase):
    """EVAL for eval-phase points and for names marked val/validation/eval/test as a word
    ("val:loss", "val_loss", "train:val-loss"), else TRAIN."""
    if phase == "eval":
        return ModeKeys.EVAL
    lowered = name.lower()
    for word in _EVAL_WORDS:
        for found in re.finditer(re.escape(word), lowered):
            start, end = found.start(), found.end()
            starts = start == 0 or not lowered[start - 1].isalnum()
            ends = end == len(lowered) or not lowered[end].isalpha()
            if starts and ends:
                return ModeKeys.EVAL
    return ModeKeys.TRAIN


class LiveTrial(Trial):
    """A Trial over events given to it (``add_tensor``, ``add_metric``) instead of the store."""

    def __init__(self, job, debug_output=None, name=None):
        # Trial.__init__ reads the store; a live trial starts empty.
        self._job_key = job
        self.job_name = job
        self.name = name or job
        self.path = debug_output or None
        self._range = None
        self._tensors = {}
        self._status = "InProgress"
        self._profiler = None
        self._loaded_at = time.monotonic()
        self._index_offsets = {}
        self._steps = {}  # mode -> set of steps, kept as data arrives (steps() is asked often)
        self.last_tensor = None  # the name tensor() was last asked for

    # -- feeding -----------------------------------------------------------------------------

    def _note_step(self, step, mode):
        self._steps.setdefault(mode, set()).add(step)

    def add_tensor(self, collection, name, step, reductions, phase="train", rank=0):
        """A ``tensor`` event: its reductions at (step, mode, worker)."""
        mode = _PHASES.get(phase, ModeKeys.TRAIN)
        td = self._tensors.setdefault(name, _TensorData(name))
        td.collections.add(collection)
        key = (step, mode, "worker_{}".format(max(rank, 0)))
        td.add_reductions(key, {r: _finite(v) for r, v in (reductions or {}).items()})
        self._note_step(step, mode)

    def add_metric(self, name, step, value, phase="train", rank=0):
        """A ``metric`` event, as a scalar tensor named as the metric."""
        mode = metric_mode(name, phase)
        td = self._tensors.setdefault(name, _TensorData(name))
        td.collections.add(metric_collection(name))
        key = (step, mode, "worker_{}".format(max(rank, 0)))
        td.add_reductions(key, {"value": _finite(value)})
        self._note_step(step, mode)

    def merge_store(self, data):
        """Adds what ``mlstudio tensors JOB --json`` returned (the job's data so far)."""
        if data.get("debug_output") and not self.path:
            self.path = data["debug_output"]
        merge_stored(self._tensors, data.get("tensors", []), self._in_range)
        for td in data.get("tensors", []):
            for v in td["values"]:
                self._note_step(v["step"], _PHASES.get(v["phase"], ModeKeys.TRAIN))

    def saved_reductions(self, tname, step):
        """The sorted names of the reductions saved for a tensor at a step, any mode or worker."""
        td = self._tensors.get(tname)
        if td is None:
            return []
        return sorted({r for m, w in td.at(step) for r in td.reductions.get((step, m, w), ())})

    def end(self, status="Completed"):
        """The job ended: steps it never reached are unavailable, no longer not-yet-available."""
        self._status = status

    # -- raw tensors -------------------------------------------------------------------------

    def _load(self):
        """Reads the raw-tensor index files' new lines (the hook appends to them)."""
        if not self.path:
            return
        for index in sorted(glob.glob(os.path.join(self.path, "index-rank-*.jsonl"))):
            offset = self._index_offsets.get(index, 0)
            try:
                with open(index, "rb") as f:
                    f.seek(offset)
                    chunk = f.read()
            except OSError:
                continue
            complete = chunk.rfind(b"\n") + 1  # a line still being written is read next time
            for line in chunk[:complete].splitlines():
                try:
                    entry = json.loads(line)
                except ValueError:
                    continue
                merge_index_entry(self._tensors, entry)
                self._note_step(entry["step"], ModeKeys.TRAIN)
            self._index_offsets[index] = offset + complete
        self._loaded_at = time.monotonic()

    def _refresh_if_live(self):
        """Nothing to do: events arrive by themselves; raw files are read by refresh()."""

    # -- queries the base Trial answers from its whole data ----------------------------------

    def steps(self, mode=ModeKeys.GLOBAL, show_incomplete_steps=False):
        mode = _mode(mode)
        if mode is ModeKeys.GLOBAL:
            return sorted(set().union(*self._steps.values()))
        return sorted(self._steps.get(mode, ()))

    def tensor(self, tname):
        found = super().tensor(tname)
        self.last_tensor = tname
        return found

    def wait_for_steps(self, required_steps, mode=ModeKeys.GLOBAL):
        """Never waits (the rule process feeds the trial between invocations): returns when each
        step was saved, else StepNotYetAvailable while the job runs and has not passed it,
        StepUnavailable for a step it passed without saving, NoMoreData after its end."""
        mode = _mode(mode)
        steps = self.steps(mode)
        saved = set(steps)
        for step in required_steps:
            if step in saved:
                continue
            if steps and step < steps[-1]:
                raise StepUnavailable(step, mode)
            if self._live():
                raise StepNotYetAvailable(step, mode)
            raise NoMoreData(step, mode, steps[-1] if steps else None)

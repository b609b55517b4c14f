"""Where the framework callbacks send what they record, and the value conversions they share.

Inside a studio job (``STUDIO_EVENTS_FD``) everything goes through the rank's one events writer
(``mlstudio._events``): metrics with their phase, parameters, checkpoints. Outside a job a
``mlstudio.experiments.Run`` records it in the studio's store: the run whose ``with`` block is
open, a Run the caller passed, or one the sink opens itself (named after the script, as
``mlstudio.log`` names its run) and ends when training ends.
"""

import enum
import hashlib
import logging
import numbers
import os
import sys

from .. import _events
from .._data_recorder import job_environment
from .._script_log import experiment_name_of_script

logger = logging.getLogger("mlstudio.integrations")

# Parameter texts longer than this are left out (with a warning): a parameter is a setting to
# compare between jobs, not a place for a whole configuration file.
MAX_PARAM_TEXT = 4096
_HASH_CHUNK = 1 << 20
# The file that holds a Hugging Face checkpoint's weights, best first (the index of a sharded
# checkpoint names its shards, so its hash changes when any shard's name or layout does).
WEIGHT_FILES = (
    "model.safetensors",
    "pytorch_model.bin",
    "adapter_model.safetensors",
    "adapter_model.bin",
    "model.safetensors.index.json",
    "pytorch_model.bin.index.json",
)


def scalar(value):
    """A float for a metric value: numbers, one-element tensors and numpy scalars; None for
    anything else (bools included: a flag is not a curve)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, numbers.Real):
        return float(value)
    numel = getattr(value, "numel", None) or getattr(value, "size", None)
    item = getattr(value, "item", None)
    if item is None:
        return None
    try:
        count = numel() if callable(numel) else numel
        if count != 1:
            return None
        got = item()
    except (TypeError, ValueError, RuntimeError):
        return None
    if isinstance(got, bool) or not isinstance(got, numbers.Real):
        return None
    return float(got)


def param_value(value):
    """A parameter value the studio stores (a string, an int or a float), or None for None.
    Bools read as Python writes them; enums give their value; other objects their str()."""
    if value is None:
        return None
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, str):
        return value
    return str(value)


def flatten(mapping, delimiter="/", prefix=""):
    """{"a": {"b": 1}} as {"a/b": 1}; keys become strings."""
    out = {}
    for key, value in mapping.items():
        name = "{}{}{}".format(prefix, delimiter, key) if prefix else str(key)
        if isinstance(value, dict) and value:
            out.update(flatten(value, delimiter, name))
        else:
            out[name] = value
    return out


def file_sha256(path):
    """The SHA-256 of a file's bytes, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_HASH_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def checkpoint_summary(path):
    """(sha256, bytes) of a checkpoint: a file's own, or for a folder the hash of its weights
    file (WEIGHT_FILES, else its largest file) and the size of everything in it."""
    if os.path.isfile(path):
        return file_sha256(path), os.path.getsize(path)
    files = []
    for folder, _, names in os.walk(path):
        for name in names:
            full = os.path.join(folder, name)
            if os.path.isfile(full):
                files.append((os.path.relpath(full, path), os.path.getsize(full)))
    if not files:
        raise ValueError("checkpoint {}: the folder holds no files".format(path))
    sizes = dict(files)
    weights = next((n for n in WEIGHT_FILES if n in sizes), None)
    if weights is None:
        weights = max(files, key=lambda f: f[1])[0]
    return file_sha256(os.path.join(path, weights)), sum(sizes.values())


def default_experiment(fallback):
    """The experiment of a run opened outside a job: the script's name (as mlstudio.log names
    its run's), else fallback in a notebook, a ``-c`` command or a test runner."""
    script = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if os.path.splitext(script)[0] in ("", "-c", "-m", "ipykernel_launcher", "pytest"):
        return fallback
    return experiment_name_of_script(script)


def job_name():
    """The name of the studio job this process is a rank of, else None."""
    job = job_environment()
    return job["job"] if job else None


class Sink:
    """One callback's destination: the job's events writer, or a local Run.

    Not thread-safe: a training loop calls its callbacks from one thread.
    """

    def __init__(self, experiment_name=None, run_name=None, run=None, fallback="training"):
        self._experiment_name = experiment_name
        self._run_name = run_name
        self._given_run = run
        self._fallback = fallback
        self._writer = None
        self._run = None
        self._owns_run = False
        self._ended = None  # (experiment, run) of the run this sink opened and ended
        self._last = {}
        self._warned = set()

    @property
    def run(self):
        """The Run recorded into outside a job (inside a job the job's own Run once job_run()
        gave it); None before open()."""
        return self._run

    @property
    def is_open(self):
        return self._writer is not None or self._run is not None

    @property
    def experiment_name(self):
        """The experiment of the local run: the one given, else the script's name."""
        return self._experiment_name or default_experiment(self._fallback)

    def open(self):
        """Finds the destination: the job's writer, else a Run (opened here when none is; one
        this sink ended before is loaded again, so a later fit or test adds to the same run)."""
        if self.is_open:
            return
        self._writer = _events.writer()
        if self._writer is not None:
            return
        from .. import experiments

        run = self._given_run or experiments._RunContext.get_current_run()
        if run is None and self._ended is not None:
            run = experiments.load_run(run_name=self._ended[1], experiment_name=self._ended[0])
        if run is None:
            run = experiments.Run(experiment_name=self.experiment_name, run_name=self._run_name)
        if not run._inside:
            run.__enter__()
            self._owns_run = True
        self._run = run

    def job_run(self):
        """The job's own ``mlstudio.experiments.Run``, its block entered (inside a job), or
        the local Run: what a framework's ``experiment`` property hands the user."""
        self.open()
        if self._run is None:
            from .. import experiments

            run = experiments.load_run()
            if not run._inside:
                run.__enter__()
            self._run = run
        return self._run

    def params(self, values):
        """Records {name: value} as parameters; None values are left out."""
        self.open()
        for name, raw in values.items():
            value = param_value(raw)
            if value is None:
                continue
            if isinstance(value, str) and len(value) > MAX_PARAM_TEXT:
                self._warn_once(
                    "long:" + name,
                    "parameter %s is not recorded: its text has %d characters (at most %d)",
                    name,
                    len(value),
                    MAX_PARAM_TEXT,
                )
                continue
            if isinstance(value, float) and value - value != 0.0:
                self._warn_once("nonfinite:" + name, "parameter %s is not finite: %r", name, value)
                continue
            if self._writer is not None:
                self._writer.param(name, value)
            else:
                self._run.log_parameter(name, value)

    def metrics(self, values, step, phase_of):
        """Records {name: number} at step; phase_of(name) says "train" or "eval". A value the
        same as the last one recorded under its name at this step is not sent again."""
        self.open()
        for name, value in values.items():
            if self._last.get(name) == (step, value):
                continue
            self._last[name] = (step, value)
            if self._writer is not None:
                self._writer.metric(name, value, step, phase_of(name))
            elif value - value == 0.0:
                self._run.log_metric(name, value, step=step)
            else:
                self._warn_once(
                    "nonfinite:" + name, "metric %s is not finite at step %d", name, step
                )

    def checkpoint(self, step, path):
        """Records a checkpoint (a file or a folder) the training wrote at step."""
        self.open()
        path = os.path.abspath(path)
        sha256, nbytes = checkpoint_summary(path)
        if self._writer is not None:
            self._writer.checkpoint(step, path, sha256, nbytes)
        else:
            # One artifact, replaced by each checkpoint: a run keeps at most 30 artifacts.
            self._run.log_artifact("checkpoint", "file://" + path)

    def flush(self):
        """Sends what is buffered (the job's writer) or batched (a local run)."""
        if self._writer is not None:
            self._writer.flush(timeout=30.0)
        elif self._run is not None:
            self._run.close()

    def close(self, failure=None):
        """Flushes; ends a Run this sink opened: Completed, or Failed with failure's message."""
        self.flush()
        run, owned = self._run, self._owns_run
        self._run, self._owns_run, self._writer = None, False, None
        self._last = {}
        if run is not None and owned:
            self._ended = (run.experiment_name, run.run_name)
            if failure is None:
                run.__exit__(None, None, None)
            else:
                run.__exit__(type(failure), failure, None)

    def _warn_once(self, key, message, *args):
        if key not in self._warned:
            self._warned.add(key)
            logger.warning(message, *args)

"""A Lightning logger and a Debugger callback that record the training in ML Studio::

    import lightning.pytorch as L
    import mlstudio.checkpoints
    from lightning.pytorch.callbacks import ModelCheckpoint
    from mlstudio.integrations.lightning import StudioDebuggerCallback, StudioLogger

    checkpoints = ModelCheckpoint(dirpath=mlstudio.checkpoints.directory(), save_last=True)
    trainer = L.Trainer(max_epochs=3, logger=StudioLogger(),
                        callbacks=[checkpoints, StudioDebuggerCallback()])
    trainer.fit(model, train_loader, val_loader, ckpt_path="last")  # a fresh start when none

``StudioLogger`` records, from global rank 0:

- **Metrics** (``self.log(...)`` in the module) under their own names at the step Lightning
  gives (``trainer.global_step``); a name that starts with ``val``, ``valid``, ``validation``,
  ``test``, ``eval`` or ``evaluation`` followed by ``_``, ``/``, ``:``, ``-`` or ``.`` is phase
  eval, every other one phase train.
- **Hyperparameters** (``self.save_hyperparameters()``, ``log_hyperparams``): a dict or an
  ``argparse.Namespace``, nested dicts flattened with ``/`` (``{"optim": {"lr": 0.1}}`` is
  ``optim/lr``); numbers stay numbers, booleans, lists and other objects are recorded as text.
- **Checkpoints** each ``ModelCheckpoint`` writes (the ``.ckpt`` file, its SHA-256 and size).
  Give the callback ``dirpath=mlstudio.checkpoints.directory()`` (the job's
  ``checkpoint_local_path``) so the studio keeps them and a spot job resumes with
  ``ckpt_path="last"``; ``StudioLogger(save_dir=...)`` sets the folder Lightning's own default
  (``<save_dir>/<name>/<version>/checkpoints``) starts from.

``StudioDebuggerCallback`` registers the LightningModule with the job's Debugger hook
(``mlstudio.debugger.pytorch``) when fitting starts, when the job has a hook configuration
(``debugger_hook_config``, rules that read tensors, a profiler): the hook then saves its losses,
weights, gradients and activations at the optimizer steps its configuration names, as for a
plain script. Each optimizer step (``trainer.global_step``) ends a ``mlstudio.profiler`` step,
whose timings go out as the built-in trainer's "step" events.

Inside a studio job all of it goes through the rank's events pipe, and ``name`` is the job's
name. Outside a job it goes to a run of an experiment in the studio's store: the
``mlstudio.experiments.Run`` whose ``with`` block is open, the ``run`` passed, or a run the
logger opens (experiment ``experiment_name``, else the script's name) and ends in
``finalize``; a later ``trainer.test`` adds to that same run.

The classes subclass ``lightning.pytorch`` when it is importable, else ``pytorch_lightning``
(when a script has imported only ``pytorch_lightning``, that one). Importing this module imports
Lightning; ``import mlstudio`` does not.
"""

import argparse
import os
import re
import sys

from . import _debugger
from ._sink import Sink, flatten, job_name, scalar


def _lightning():
    """The Lightning package to subclass: the one the script imported, else lightning.pytorch,
    else pytorch_lightning."""
    if "pytorch_lightning" in sys.modules and "lightning.pytorch" not in sys.modules:
        import pytorch_lightning

        return pytorch_lightning
    try:
        import lightning.pytorch as pl
    except ImportError:
        import pytorch_lightning as pl
    return pl


pl = _lightning()
_rank_zero_only = pl.utilities.rank_zero_only
_rank_zero_experiment = pl.loggers.logger.rank_zero_experiment

__all__ = ["StudioDebuggerCallback", "StudioLogger", "metric_phase"]

_EVAL_NAME = re.compile(r"^(val|valid|validation|test|eval|evaluation)([_/:.\-]|$)", re.IGNORECASE)


def metric_phase(name):
    """The phase ("train" or "eval") StudioLogger records a metric under."""
    return "eval" if _EVAL_NAME.match(name) else "train"


def _hyperparameters(params):
    if isinstance(params, argparse.Namespace):
        params = vars(params)
    if not isinstance(params, dict):
        raise TypeError(
            "StudioLogger.log_hyperparams: params must be a dict or an argparse.Namespace, got "
            "{}".format(type(params).__name__)
        )
    flat = flatten(dict(params), "/")
    return {name: _param_text(value) for name, value in flat.items()}


def _param_text(value):
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, (int, float, str)):
        return value
    if callable(value) and hasattr(value, "__qualname__"):
        return value.__qualname__
    return str(value)


class StudioLogger(pl.loggers.Logger):
    """Lightning's logger for ML Studio (see the module's documentation).

    experiment_name, run_name, run: the local run outside a job (as for
    ``mlstudio.integrations.transformers.StudioCallback``); ignored inside a job. save_dir: the
    folder ModelCheckpoint's default dirpath starts from (Lightning's default_root_dir when
    None).
    """

    def __init__(self, experiment_name=None, run_name=None, run=None, save_dir=None):
        super().__init__()
        self._sink = Sink(experiment_name, run_name, run, fallback="lightning")
        self._run_name = run_name
        self._save_dir = None if save_dir is None else os.fspath(save_dir)
        self._recorded = {}  # checkpoint path -> (mtime, size) recorded
        self._step = 0

    @property
    def name(self):
        """The job's name inside a job, else the local run's experiment."""
        return job_name() or self._sink.experiment_name

    @property
    def version(self):
        """0 inside a job (one job, one run), else the local run's name once it is open."""
        if job_name():
            return 0
        run = self._sink.run
        return run.run_name if run is not None else (self._run_name or 0)

    @property
    def save_dir(self):
        return self._save_dir

    @property
    @_rank_zero_experiment
    def experiment(self):
        """The ``mlstudio.experiments.Run`` recorded into: the job's own inside a job."""
        return self._sink.job_run()

    @_rank_zero_only
    def log_metrics(self, metrics, step=None):
        step = self._step if step is None else int(step)
        self._step = step + 1
        values = {}
        for name, raw in metrics.items():
            value = scalar(raw)
            if value is not None:
                values[name] = value
        self._sink.metrics(values, step, metric_phase)

    @_rank_zero_only
    def log_hyperparams(self, params, *args, **kwargs):
        self._sink.params(_hyperparameters(params))

    @_rank_zero_only
    def after_save_checkpoint(self, checkpoint_callback):
        step = getattr(checkpoint_callback, "_last_global_step_saved", None)
        step = max(self._step - 1, 0) if step is None or step < 0 else int(step)
        for path in _checkpoint_files(checkpoint_callback):
            stat = os.stat(path)
            if self._recorded.get(path) == (stat.st_mtime_ns, stat.st_size):
                continue
            self._recorded[path] = (stat.st_mtime_ns, stat.st_size)
            self._sink.checkpoint(step, path)

    @_rank_zero_only
    def save(self):
        if self._sink.is_open:
            self._sink.flush()

    @_rank_zero_only
    def finalize(self, status):
        if not self._sink.is_open:
            return
        failure = None
        if status not in ("success", "finished"):
            failure = RuntimeError("Lightning ended the training with status {!r}".format(status))
        self._sink.close(failure)


def _checkpoint_files(checkpoint_callback):
    """The checkpoint files a ModelCheckpoint keeps now (links to one of them left out)."""
    paths = list(getattr(checkpoint_callback, "best_k_models", {}) or {})
    for attribute in ("last_model_path", "best_model_path"):
        path = getattr(checkpoint_callback, attribute, "")
        if path:
            paths.append(path)
    seen = []
    for path in paths:
        path = os.path.abspath(os.fspath(path))
        if path not in seen and os.path.isfile(path) and not os.path.islink(path):
            seen.append(path)
    return seen


class StudioDebuggerCallback(pl.Callback):
    """Registers the LightningModule with the job's Debugger hook when fitting starts (when the
    job has a hook configuration) and ends a ``mlstudio.profiler`` step at each optimizer step
    (inside a job); outside a job it does nothing."""

    def __init__(self):
        super().__init__()
        self._debugger = _debugger.DebuggerLink()
        self._step = None

    def on_fit_start(self, trainer, pl_module):
        self._debugger.begin(pl_module)
        self._step = trainer.global_step

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        # With gradient accumulation a batch may end without an optimizer step.
        if trainer.global_step != self._step:
            self._step = trainer.global_step
            self._debugger.step_end()

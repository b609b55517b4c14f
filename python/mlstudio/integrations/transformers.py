"""A Hugging Face ``Trainer`` callback that records the training in ML Studio::

    import mlstudio.checkpoints
    from mlstudio.integrations.transformers import StudioCallback
    from transformers import Trainer, TrainingArguments
    from transformers.trainer_utils import get_last_checkpoint

    output_dir = mlstudio.checkpoints.directory()
    args = TrainingArguments(output_dir=output_dir, save_steps=50, ...)
    trainer = Trainer(model=model, args=args, train_dataset=train, eval_dataset=test,
                      callbacks=[StudioCallback()])
    trainer.train(resume_from_checkpoint=get_last_checkpoint(output_dir))

What it records, from the main process of the training (``state.is_world_process_zero``):

- **Hyperparameters** when training begins: the ``TrainingArguments`` that are scalars
  (strings, numbers, booleans; ``None`` and lists left out) under their own names, and the
  model's configuration as ``model.<key>`` (the keys that differ from the configuration class's
  defaults, as ``config.to_diff_dict()`` gives them) with ``model.class`` and
  ``model.num_parameters``.
- **Metrics** at each log, at step ``state.global_step``, named as the studio's built-in
  trainer names its curves (the way ``WandbCallback`` rewrites them with ``/``): ``eval_loss``
  is ``eval:loss`` (phase eval), ``test_accuracy`` is ``test:accuracy`` (phase eval), and
  every other key is ``train:<key>`` (``train:loss``, ``train:learning_rate``,
  ``train:epoch``, ``train:grad_norm``, ``train:train_runtime``).
- **Checkpoints** each time the Trainer saves one: the folder ``<output_dir>/checkpoint-<step>``,
  the SHA-256 of its weights file (``model.safetensors``, else ``pytorch_model.bin``, else the
  index of a sharded checkpoint) and the bytes of the whole folder. Point ``output_dir`` at
  ``mlstudio.checkpoints.directory()`` (the job's ``checkpoint_local_path``) so the studio keeps
  them, and a spot job's next attempt resumes from the newest one (``get_last_checkpoint``).
- **The Debugger hook**, when the job has a hook configuration (``debugger_hook_config``, rules
  that read tensors, a profiler): the model is registered with the job's
  ``mlstudio.debugger.pytorch`` hook when training begins, which then saves the step's loss,
  weights, gradients and activations at the optimizer steps its configuration names (steps
  count from 0: hook step ``s`` is the Trainer's ``global_step`` ``s + 1``).
- **Step timings**: inside a job each optimizer step ends a ``mlstudio.profiler`` step, whose
  data, forward, backward and optimizer times go out as the built-in trainer's "step" events.

Inside a studio job all of it goes through the rank's events pipe. Outside a job it goes to a
run of an experiment in the studio's store: the ``mlstudio.experiments.Run`` whose ``with``
block is open, the ``run`` passed here, or a run this callback opens (experiment
``experiment_name``, else the script's name) and ends when training ends.

Importing this module imports ``transformers``; ``import mlstudio`` does not.
"""

import os

import transformers
from transformers.trainer_utils import PREFIX_CHECKPOINT_DIR

from . import _debugger
from ._sink import Sink, logger, param_value, scalar

__all__ = ["StudioCallback", "metric_name", "training_parameters"]

_PHASE_PREFIXES = (("eval_", "eval:"), ("test_", "test:"))


def metric_name(key):
    """The studio's name of a Trainer log key, and its phase ("train" or "eval")."""
    for prefix, studio in _PHASE_PREFIXES:
        if key.startswith(prefix):
            return studio + key[len(prefix) :], "eval"
    return "train:" + key, "train"


def training_parameters(args, model=None):
    """The parameters StudioCallback records: scalar TrainingArguments, and the model's
    configuration as model.<key>."""
    out = {}
    for key, value in args.to_dict().items():
        if isinstance(value, (str, int, float, bool)) and param_value(value) is not None:
            out[key] = value
    if model is None:
        return out
    out["model.class"] = type(model).__name__
    count = getattr(model, "num_parameters", None)
    if callable(count):
        out["model.num_parameters"] = int(count())
    config = getattr(model, "config", None)
    if config is not None:
        differing = config.to_diff_dict() if hasattr(config, "to_diff_dict") else config.to_dict()
        for key, value in differing.items():
            if isinstance(value, (str, int, float, bool)):
                out["model." + key] = value
    return out


class StudioCallback(transformers.TrainerCallback):
    """Records a Trainer's hyperparameters, metrics and checkpoints in ML Studio, registers the
    model with the job's Debugger hook and ends a profiler step at each optimizer step (see the
    module's documentation).

    experiment_name, run_name: the local run opened outside a job when no run is open (the
    script's name and a unique run name by default). run: an ``mlstudio.experiments.Run`` to
    record into outside a job. Ignored inside a job, whose record is the job's own.
    """

    def __init__(self, experiment_name=None, run_name=None, run=None):
        self._sink = Sink(experiment_name, run_name, run, fallback="transformers")
        self._debugger = _debugger.DebuggerLink()

    @property
    def run(self):
        """The local Run recorded into (None inside a job or before training begins)."""
        return self._sink.run

    def on_train_begin(self, args, state, control, model=None, **kwargs):
        if state.is_world_process_zero:
            self._sink.params(training_parameters(args, model))
        self._debugger.begin(model)

    def on_step_end(self, args, state, control, **kwargs):
        self._debugger.step_end()

    def on_log(self, args, state, control, logs=None, **kwargs):
        if not state.is_world_process_zero or not logs:
            return
        values, phases = {}, {}
        for key, raw in logs.items():
            value = scalar(raw)
            if value is None:
                continue
            name, phases[name] = metric_name(key)
            values[name] = value
        self._sink.metrics(values, state.global_step, phases.__getitem__)

    def on_save(self, args, state, control, **kwargs):
        if not state.is_world_process_zero:
            return
        folder = "{}-{}".format(PREFIX_CHECKPOINT_DIR, state.global_step)
        path = os.path.join(args.output_dir, folder)
        if not os.path.isdir(path):
            # A Trainer subclass may save elsewhere; the training goes on, the record says so.
            logger.warning(
                "StudioCallback: no checkpoint folder %s after the Trainer saved at step %d; "
                "the checkpoint is not recorded",
                path,
                state.global_step,
            )
            return
        self._sink.checkpoint(state.global_step, path)

    def on_train_end(self, args, state, control, **kwargs):
        self._sink.close()


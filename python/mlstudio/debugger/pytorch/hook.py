"""smdebug's PyTorch hook for a studio job: ``Hook.create_from_json_file()``,
``register_module``, ``register_loss``, ``record_tensor_value``, ``save_scalar``, ``set_mode``.

It saves what the built-in trainer's hook saves (engine/train/debug_hook.cpp), under the same
names, collections and reductions, so the Debugger's model rules judge a script as they judge
the built-in trainer: ``loss`` (losses), ``<parameter>`` (weights, biases),
``gradient/<parameter>`` (gradients), activations as ``_capture`` names them, ``labels`` and
``predictions`` (class counts, from a registered classification loss). Reductions go out as
"tensor" events on the rank's events pipe; ``save_raw_tensor`` also writes
``<local_path>/tensors/step-<12 digits>/rank-<R>/<tensor>.npy`` with ``index-rank-<R>.jsonl``.

Steps count from 0, one per optimizer step over the model's parameters (or, with no optimizer,
per forward pass after a backward). Tensors of a step are reduced after its optimizer step
(weights as updated, gradients as the optimizer used them); a step that saves nothing costs a
few Python calls and no device synchronization. Eval-mode losses (``set_mode(modes.EVAL)`` or a
model in ``eval()``) are averaged and saved once per evaluation, at the last train step. Rank 0
saves unless the config says ``all_workers``. Not thread-safe: the training thread owns it.
"""

import atexit
import os
import weakref

from ..._data_smdebug import ModeKeys, SMDebugError
from . import _loop
from ._capture import ActivationCapture
from ._plan import Collection, HookPlan, ReductionConfig, SaveConfig, builtin_regex
from ._raw import RawTensorWriter
from ._reduce import ReductionOptions, StepReductions, label_counts, prediction_counts
from ._reduce import reduce_tensor

# Collections of parameters; any other collection can hold activations.
_PARAMETER_COLLECTIONS = ("weights", "biases", "gradients", "losses", "metrics", "scalars",
                          "sm_metrics", "labels", "predictions")  # fmt: skip
_CONFIG_VARIABLES = ("STUDIO_DEBUG_HOOK_CONFIG", "SMDEBUG_CONFIG_FILE_PATH")


def _rank():
    try:
        return int(os.environ.get("RANK", "0"))
    except ValueError:
        return 0


class Hook:
    """The Debugger hook of a PyTorch script (smdebug.pytorch.Hook's names)."""

    def __init__(self, out_dir=None, export_tensorboard=False, tensorboard_dir=None,
                 dry_run=False, reduction_config=None, save_config=None, include_regex=None,
                 include_collections=None, save_all=False, include_workers="one"):  # fmt: skip
        plan = HookPlan()
        plan.local_path = out_dir or os.environ.get("STUDIO_DEBUG_OUTPUT_DIR")
        plan.all_workers = include_workers == "all"
        names = list(include_collections) if include_collections is not None else []
        if "losses" not in names:
            names.append("losses")  # always saved, as smdebug saves them
        if include_regex:
            names.append("default")
        if save_all:
            names.append("all")
        for name in names:
            regex = include_regex if name == "default" else None
            plan.collections[name] = Collection(name, include_regex=regex,
                                                reduction_config=reduction_config,
                                                save_config=save_config or SaveConfig())
        if dry_run:
            plan.enabled = False
        self._setup(plan)

    @classmethod
    def create_from_json_file(cls, json_file_path=None):
        """The hook the job's debugger_hook_config describes ($STUDIO_DEBUG_HOOK_CONFIG)."""
        path = json_file_path or next(
            (os.environ[v] for v in _CONFIG_VARIABLES if os.environ.get(v)), None
        )
        if not path:
            raise SMDebugError(
                "Hook.create_from_json_file(): no hook config: STUDIO_DEBUG_HOOK_CONFIG is not "
                "set (the studio sets it in a job whose spec has debugger_hook_config, rules "
                "that read tensors, or a profiler); outside a job pass the file's path"
            )
        return cls._from_plan(HookPlan.from_file(path))

    @classmethod
    def _from_plan(cls, plan):
        hook = cls.__new__(cls)
        hook._setup(plan)
        return hook

    def _setup(self, plan):
        self._plan = plan
        self._rank = _rank()
        self._saves = plan.enabled and (plan.all_workers or self._rank == 0)
        self._reporter = plan.enabled and self._rank == 0
        from ... import _events

        self._writer = _events.writer()
        self._raw = RawTensorWriter(plan.local_path, self._rank)
        self._step = 0  # the step in progress, or the next one
        self._open = False
        self._mode = None  # set_mode's, else the model's train()/eval()
        self._roots = []
        self._names = {}  # module -> path, for activation names
        self._params = []  # [(name, parameter)]
        self._param_ids = set()
        self._optimizers = weakref.WeakKeyDictionary()  # optimizer -> steps the model's
        self._optimizer_seen = False
        self._handles = []
        self._loss_modules = []
        self._explicit_loss = False
        self._losses = []
        self._eval_losses = []
        self._backward_in_step = False
        self._membership = {}
        self._capture = None
        self._capturing = False
        self._before = {}
        self._labels = None
        self._pending_gradients = None
        self._auto = None  # the zero-change attacher, while it looks for the model
        self._closed = False
        _loop.loop().add(self)
        _take_over(self)
        if plan.profiler.get("enabled"):
            from ... import profiler

            profiler.start(plan.profiler, plan.local_path)
        ref = weakref.ref(self)
        atexit.register(lambda: ref() is not None and ref().close())

    # ---- smdebug's API ----

    @property
    def plan(self):
        return self._plan

    def get_collections(self):
        return dict(self._plan.collections)

    def get_collection(self, name, create=True):
        coll = self._plan.collections.get(name)
        if coll is None:
            if not create:
                raise KeyError("no collection named {!r}".format(name))
            coll = self._plan.collections[name] = Collection(name)
            self._membership.clear()
        return coll

    def add_collection(self, collection):
        if not isinstance(collection, Collection):
            raise SMDebugError("add_collection: expected a Collection, got {!r}".format(
                collection))
        self._plan.collections[collection.name] = collection
        self._membership.clear()

    def register_module(self, module):
        """Saves this model's parameters, gradients and activations."""
        import torch

        if not isinstance(module, torch.nn.Module):
            raise SMDebugError("register_module: expected a torch.nn.Module, got {}".format(
                type(module).__name__))
        if self._auto is not None:
            self._auto.stop()  # an explicit model wins over the automatic choice
        model = _loop.unwrap(module)
        if any(model is r for r in self._roots):
            return
        self._roots.append(model)
        for path, sub in model.named_modules():
            self._names.setdefault(sub, path or type(model).__name__)
        for name, p in model.named_parameters():
            if id(p) not in self._param_ids:
                self._param_ids.add(id(p))
                self._params.append((name, p))
        self._handles.append(model.register_forward_pre_hook(self._root_forward_begin))
        self._handles.append(model.register_forward_hook(self._root_forward_end))
        self._optimizers.clear()

    def register_loss(self, loss_module):
        """Saves this loss module's output as the step's loss ("loss" in losses)."""
        import torch

        if not isinstance(loss_module, torch.nn.Module):
            raise SMDebugError("register_loss: expected a torch.nn.Module such as "
                               "nn.CrossEntropyLoss(), got {}".format(type(loss_module).__name__))
        if any(loss_module is m for m in self._loss_modules):
            return
        self._loss_modules.append(loss_module)
        self._explicit_loss = True
        self._handles.append(loss_module.register_forward_hook(self._loss_forward))

    def record_tensor_value(self, tensor_name, tensor_value):
        """Saves a tensor as "<tensor_name>_output_0" in the collections that match it; a
        one-element tensor named like a loss is also the step's loss."""
        if tensor_value.numel() == 1 and "loss" in tensor_name.lower():
            self._explicit_loss = True
            self._observe_loss(tensor_value)
        self.save_tensor(tensor_name + "_output_0", tensor_value, collections_to_write=None)

    def save_tensor(self, tensor_name, tensor_value, collections_to_write="default"):
        """Saves a tensor now, in the named collections (and those whose regex matches)."""
        import torch

        if not torch.is_tensor(tensor_value):
            tensor_value = torch.as_tensor(tensor_value)
        colls = self._collections_of(tensor_name)
        if collections_to_write:
            named = [collections_to_write] if isinstance(collections_to_write, str) else list(
                collections_to_write)
            colls = colls + [self.get_collection(n) for n in named if n not in
                             [c.name for c in colls]]
        step, phase = self._current_step(), self._phase()
        colls = [c for c in colls if c.saves_step(step) or (phase == "eval" and c.every_eval)]
        if colls and self._saves:
            pending = StepReductions()
            self._reduce_into(pending, tensor_name, tensor_value, step, colls, phase)
            self._send(pending, step, phase)

    def save_scalar(self, name, value, sm_metric=False, timestamp=None):
        """Saves a number as "scalar/<name>" (collection scalars); sm_metric=True also makes it
        a metric of the job, "scalar/<name>_<MODE>"."""
        if hasattr(value, "numel"):
            if value.numel() != 1:
                raise SMDebugError("save_scalar({}): the value must have one element".format(name))
            value = value.item()
        if not self._reporter or self._writer is None:
            return
        step, phase = self._current_step(), self._phase()
        self._writer.tensor("scalars", "scalar/" + name, step, {"value": float(value)},
                            phase=phase, t=timestamp)
        if sm_metric:
            mode = (self._mode or ModeKeys.TRAIN).name
            self._writer.metric("scalar/{}_{}".format(name, mode), float(value), step,
                                phase=phase, t=timestamp)

    def set_mode(self, mode):
        from ._plan import _mode_of

        mode = _mode_of(mode)
        if mode == ModeKeys.TRAIN:
            self._flush_eval()
        self._mode = mode

    def close(self):
        """Ends the step in progress and the evaluation, removes the hooks; idempotent."""
        if self._closed:
            return
        self._closed = True
        self._flush_eval()
        if self._open and self._backward_in_step:
            self._end_step()
        self._detach()
        if self._writer is not None:
            self._writer.flush(5.0)

    def _detach(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []
        if self._capture is not None:
            self._capture.clear()
        if self._auto is not None:
            self._auto.stop()
        _loop.loop().remove(self)

    # ---- the training loop ----

    def _phase(self):
        """set_mode's mode; without one, a model in eval() or a pass without gradients is an
        evaluation."""
        if self._mode in (ModeKeys.EVAL, ModeKeys.PREDICT):
            return "eval"
        if self._mode == ModeKeys.TRAIN:
            return "train"
        import torch

        if (self._roots and not self._roots[0].training) or not torch.is_grad_enabled():
            return "eval"
        return "train"

    def _current_step(self):
        if self._phase() == "eval" or not self._open:
            return max(self._step - 1, 0)
        return self._step

    def _root_forward_begin(self, module, inputs):
        if self._phase() == "eval":
            return
        self._flush_eval()
        if self._open and self._backward_in_step and not self._optimizer_seen:
            self._end_step()  # no optimizer: a new pass after a backward starts a step
        if not self._open:
            self._begin_step()
        if self._capturing and not self._capture.tensors and module is self._roots[0]:
            self._capture.start(module, inputs)

    def _root_forward_end(self, module, inputs, output):
        if self._capture is not None:
            self._capture.stop()

    def _begin_step(self, before_forward=True):
        """A step starts: its first forward pass is about to run, or (before_forward False)
        the hook only learnt of the step at its optimizer step (weights already updated)."""
        self._open = True
        self._backward_in_step = False
        self._capturing = False
        step = self._step
        if not (before_forward and self._saves and self._plan.saves_anything(step)):
            return
        import torch

        with torch.no_grad():
            for name, p in self._params:
                if any(c.saves_step(step) and "update_l2_norm" in c.reductions
                       for c in self._collections_of(name)):
                    self._before[name] = p.detach().clone()
        if self._roots and self._saves_activations(step):
            if self._capture is None:
                self._capture = ActivationCapture(self._names, self._wants)
            self._capture.clear()
            self._capturing = True

    def _saves_activations(self, step):
        return any(c.saves_step(step) and c.name not in _PARAMETER_COLLECTIONS
                   for c in self._plan.collections.values())

    def _wants(self, name):
        return any(c.saves_step(self._step) for c in self._collections_of(name))

    def _loss_forward(self, module, inputs, output):
        self._observe_loss(output)
        if self._open and self._phase() == "train" and len(inputs) >= 2:
            self._observe_batch(inputs[0], inputs[1])

    def _observe_loss(self, loss):
        import torch

        if not torch.is_tensor(loss) or loss.numel() != 1:
            return
        if self._phase() == "eval":
            self._eval_losses.append(loss.detach().reshape(()))
        else:
            self._losses.append(loss.detach().reshape(()))

    def _observe_batch(self, output, target):
        """Class counts of a classification batch, on steps labels or predictions save."""
        import torch

        if self._labels is not None or not self._saves or not torch.is_tensor(target):
            return
        if target.is_floating_point() or not torch.is_tensor(output) or output.dim() < 1:
            return
        if self._wants("labels") or self._wants("predictions"):
            with torch.no_grad():
                self._labels = (target.detach().flatten().clone(),
                                output.detach().argmax(-1).flatten())

    def on_backward_begin(self, tensor):
        if not self._explicit_loss and self._phase() == "train":
            self._observe_loss(tensor)

    def on_backward_end(self, tensor):
        self._backward_in_step = True
        if self._capture_step() and not self._optimizer_seen:
            # No optimizer seen yet: the gradients may be gone by the step's end.
            self._pending_gradients = StepReductions()
            self._reduce_gradients(self._pending_gradients, self._step)

    def on_optimizer_end(self, optimizer):
        if self._auto is not None and not self._roots:
            self._auto.attach(optimizer)
        if not self._steps_model(optimizer):
            return
        self._optimizer_seen = True
        self._pending_gradients = None
        if not self._open:
            self._begin_step(before_forward=False)
        self._end_step()

    def _steps_model(self, optimizer):
        known = self._optimizers.get(optimizer)
        if known is None:
            if self._param_ids:
                known = any(id(p) in self._param_ids
                            for g in optimizer.param_groups for p in g["params"])
            else:  # no model registered: the first optimizer that steps counts the steps
                known = not any(self._optimizers.values())
            self._optimizers[optimizer] = known
        return known

    def _capture_step(self):
        return self._open and self._saves and self._plan.saves_anything(self._step)

    def _end_step(self):
        step = self._step
        if self._plan.enabled:
            self._send_loss(step)
            if self._capture_step():
                self._save_tensors(step)
        self._step += 1
        self._open = False
        self._capturing = False
        self._losses = []
        self._before = {}
        self._labels = None
        self._pending_gradients = None
        if self._capture is not None:
            self._capture.clear()
        from ... import profiler

        profiler._hook_step_end(step)

    # ---- saving ----

    def _collections_of(self, name):
        colls = self._membership.get(name)
        if colls is None:
            colls = self._membership[name] = self._plan.collections_of(name)
        return colls

    def _send_loss(self, step):
        if not (self._reporter and self._losses and self._writer is not None):
            return
        colls = [c for c in self._collections_of("loss") if c.saves_step(step)]
        if colls:
            import torch

            value = torch.stack(self._losses).to(torch.float64).mean().item()
            for c in colls:
                self._writer.tensor(c.name, "loss", step, {"value": value})
        self._losses = []

    def _flush_eval(self):
        """The evaluation's mean loss, once, at the last train step (the built-in's way)."""
        if not self._eval_losses:
            return
        losses, self._eval_losses = self._eval_losses, []
        if not (self._reporter and self._writer is not None):
            return
        colls = [c for c in self._collections_of("loss") if c.every_eval]
        if colls:
            import torch

            value = torch.stack(losses).to(torch.float64).mean().item()
            for c in colls:
                self._writer.tensor(c.name, "loss", max(self._step - 1, 0), {"value": value},
                                    phase="eval")

    def _save_tensors(self, step):
        pending = self._pending_gradients or StepReductions()
        if self._pending_gradients is None:
            self._reduce_gradients(pending, step)
        for name, p in self._params:
            self._reduce_into(pending, name, p, step)
        if self._capture is not None:
            for name, t in self._capture.tensors:
                self._reduce_into(pending, name, t, step)
        self._reduce_labels(pending, step)
        self._send(pending, step, "train")

    def _reduce_gradients(self, pending, step):
        for name, p in self._params:
            if p.grad is not None:
                self._reduce_into(pending, "gradient/" + name, p.grad, step)

    def _reduce_into(self, pending, name, tensor, step, colls=None, phase="train"):
        if colls is None:
            colls = [c for c in self._collections_of(name) if c.saves_step(step)]
        tensor_colls = [c for c in colls if not c.is_scalar()]
        scalar_colls = [c for c in colls if c.is_scalar()]
        if scalar_colls and tensor.numel() == 1:
            pending.add((name, scalar_colls), [("value", tensor.detach().reshape(()))])
        if not tensor_colls:
            return
        wanted = []
        for c in tensor_colls:
            wanted += [r for r in c.reduction_names() if r not in wanted and r != "update_l2_norm"]
        reductions = reduce_tensor(tensor, wanted, self._options_for(name))
        before = self._before.get(name)
        if before is not None and any("update_l2_norm" in c.reductions for c in tensor_colls):
            reductions.append(("update_l2_norm", (tensor.detach() - before).norm()))
        pending.add((name, tensor_colls), reductions)
        for c in tensor_colls:
            if c.save_raw_tensor:
                self._raw.write(step, c.name, name, tensor)

    def _reduce_labels(self, pending, step):
        if self._labels is None:
            return
        target, predicted = self._labels
        for name, counts, tensor in (("labels", label_counts(target, predicted), target),
                                     ("predictions", prediction_counts(predicted), predicted)):
            colls = [c for c in self._collections_of(name) if c.saves_step(step)]
            if colls:
                pending.add((name, colls), counts)
                for c in colls:
                    if c.save_raw_tensor:
                        self._raw.write(step, c.name, name, tensor)

    def _send(self, pending, step, phase):
        if self._writer is None or not len(pending):
            return
        for (name, colls), values in pending.values():
            for c in colls:
                out = {}
                for r in (["value"] if c.is_scalar() else c.reduction_names()):
                    if r == "channel_mean_":
                        out.update((k, v) for k, v in values.items()
                                   if k.startswith("channel_mean_") or k == "samples")
                    elif r in values:
                        out[r] = values[r]
                if name in ("labels", "predictions"):
                    out = values
                if out:
                    self._writer.tensor(c.name, name, step, out, phase=phase)

    def _options_for(self, name):
        plan = self._plan
        if "tanh" in name or "sigmoid" in name:
            active = plan.tanh_range if "tanh" in name else plan.sigmoid_range
            return ReductionOptions(plan.saturation_inactivity_percent, active,
                                    plan.input_channel_axis)
        return ReductionOptions(plan.relu_inactivity_percent, None, plan.input_channel_axis)


# ---- the process's hook (smdebug's get_hook / set_hook / del_hook) ----

_HOOK = None


def _take_over(hook):
    """A new hook replaces the process's hook: an explicit one retires the automatic one and
    goes on counting its steps, so nothing is saved twice."""
    global _HOOK
    previous = _HOOK
    _HOOK = hook
    if previous is not None and previous is not hook and not previous._closed:
        hook._step = previous._step
        previous._closed = True
        previous._detach()


def get_hook(json_config_path=None, create_if_not_exists=False):
    """The process's hook: the one made last (the automatic one in a zero-change job)."""
    if _HOOK is None and create_if_not_exists:
        path = json_config_path or next(
            (os.environ[v] for v in _CONFIG_VARIABLES if os.environ.get(v)), None)
        if path:
            return Hook.create_from_json_file(path)
        return Hook(dry_run=True)  # no config: a hook that saves nothing
    return _HOOK


def set_hook(hook):
    _take_over(hook)


def del_hook():
    global _HOOK
    _HOOK = None


__all__ = ["Hook", "ReductionConfig", "SaveConfig", "builtin_regex", "del_hook", "get_hook",
           "set_hook"]  # fmt: skip

"""What a script's debugger hook saves: collections, save steps and reductions, with smdebug's
configuration names (SaveConfig, SaveConfigMode, ReductionConfig, Collection, CollectionKeys,
modes), read from the job's hook config file or built by the script.

The plan is the one the built-in trainer's hook runs (engine/debugger/hook_plan.h): the
controller writes it to $STUDIO_DEBUG_HOOK_CONFIG as JSON, with the rules' collections and
reductions already added. Steps count from 0, as SageMaker's hook counts them. Torch-free.
"""

import json
import os
import re

from ..._data_smdebug import ModeKeys, SMDebugError, modes

__all__ = [
    "Collection",
    "CollectionKeys",
    "HookPlan",
    "ModeKeys",
    "ReductionConfig",
    "SaveConfig",
    "SaveConfigMode",
    "modes",
]

# What a collection gets when its config lists no reductions (the built-in trainer's set).
DEFAULT_REDUCTIONS = ("min", "max", "mean", "std", "l2_norm")
# smdebug's ReductionConfig names, then the statistics the studio's rules read
# (engine/debugger/hook_plan.h, namespace reduction).
_BASIC = ("min", "max", "mean", "std", "variance", "sum", "prod")
_NORMS = ("l1", "l2")
EXTRA_REDUCTIONS = (
    "nonfinite",
    "nan",
    "zero_percent",
    "p5",
    "p95",
    "update_l2_norm",
    "inactive_units_percent",
    "channel_mean_",
)
# Collections of scalars: saved as {"value": v}, never reduced.
SCALAR_COLLECTIONS = ("losses", "metrics", "scalars", "sm_metrics")


class CollectionKeys:
    """smdebug's collection names (those a PyTorch script can fill)."""

    ALL = "all"
    DEFAULT = "default"
    WEIGHTS = "weights"
    BIASES = "biases"
    GRADIENTS = "gradients"
    LOSSES = "losses"
    METRICS = "metrics"
    INPUTS = "inputs"
    OUTPUTS = "outputs"
    SCALARS = "scalars"
    SM_METRICS = "sm_metrics"
    RELU_OUTPUT = "relu_output"
    RELU_INPUT = "relu_input"
    INPUT_IMAGE = "input_image"
    LABELS = "labels"
    PREDICTIONS = "predictions"


# The regex a built-in collection matches tensor names with (hook_plan.cpp's
# builtinCollectionRegex, plus the rule configs' collections SageMaker's SDK knows).
_BUILTIN_REGEX = {
    "all": ".*",
    "losses": "^loss$",
    "metrics": "^accuracy$",
    "weights": "^(?!gradient).*weight$",
    "biases": "^(?!gradient).*bias$",
    "gradients": "^gradient/",
    "outputs": "_output_0$",
    "inputs": "_input_0$",
    "labels": "^labels$",
    "predictions": "^predictions$",
    "relu_output": ".*relu_output",
    "relu_input": ".*relu_input",
    "saturated_activation": ".*tanh_input|.*sigmoid_input",
}


def builtin_regex(name):
    """The include_regex of a built-in collection, None for another name."""
    return _BUILTIN_REGEX.get(name)


def _mode_of(mode):
    if isinstance(mode, ModeKeys):
        return mode
    if isinstance(mode, str) and mode.upper() in ModeKeys.__members__:
        return ModeKeys[mode.upper()]
    if isinstance(mode, int) and not isinstance(mode, bool):
        for m in ModeKeys:
            if m.value == mode:
                return m
    raise SMDebugError(
        "mode: expected modes.TRAIN, modes.EVAL, modes.PREDICT or modes.GLOBAL, got {!r}".format(
            mode
        )
    )


def _int_or(value, default, field):
    if value is None or value == "":
        return default
    try:
        return int(value)
    except (TypeError, ValueError):
        raise SMDebugError("{}: expected an integer, got {!r}".format(field, value)) from None


def _steps(value, field):
    if value is None or value == "":
        return []
    if isinstance(value, str):
        value = [s for s in value.split(",") if s.strip()]
    return [_int_or(v, 0, field) for v in value]


class SaveConfigMode:
    """When one mode saves: every save_interval steps from start_step until end_step
    (exclusive), or only at save_steps when given."""

    def __init__(self, save_interval=None, start_step=None, end_step=None, save_steps=None):
        self.save_interval = _int_or(save_interval, 500, "save_interval")
        self.start_step = _int_or(start_step, 0, "start_step")
        self.end_step = _int_or(end_step, -1, "end_step")
        self.save_steps = _steps(save_steps, "save_steps")
        if self.save_interval < 0:
            raise SMDebugError("save_interval: must be >= 0, got {}".format(self.save_interval))

    def should_save_step(self, step):
        if step < self.start_step or (self.end_step >= 0 and step >= self.end_step):
            return False
        if self.save_steps:
            return step in self.save_steps
        return self.save_interval > 0 and (step - self.start_step) % self.save_interval == 0

    def __repr__(self):
        return "SaveConfigMode(save_interval={}, start_step={}, end_step={}, save_steps={})".format(
            self.save_interval, self.start_step, self.end_step, self.save_steps
        )


class SaveConfig(SaveConfigMode):
    """smdebug's SaveConfig. Train steps follow modes.TRAIN's SaveConfigMode when given; eval
    tensors are saved at every evaluation, as the built-in trainer saves them."""

    def __init__(
        self, mode_save_configs=None, save_interval=None, start_step=None, end_step=None,
        save_steps=None,
    ):
        train = (mode_save_configs or {}).get(modes.TRAIN)
        if train is not None:
            super().__init__(train.save_interval, train.start_step, train.end_step,
                             train.save_steps)
        else:
            super().__init__(save_interval, start_step, end_step, save_steps)


class ReductionConfig:
    """smdebug's ReductionConfig; also takes the studio's extra statistics as reductions."""

    def __init__(self, reductions=None, abs_reductions=None, norms=None, abs_norms=None,
                 save_raw_tensor=False, save_shape=False):
        names = []
        for r in reductions or []:
            if r not in _BASIC and r not in EXTRA_REDUCTIONS and not _is_norm(r):
                raise SMDebugError("ReductionConfig.reductions: {!r} is not one of {}".format(
                    r, ", ".join(_BASIC + EXTRA_REDUCTIONS)))
            names.append(r)
        for r in abs_reductions or []:
            if r not in _BASIC:
                raise SMDebugError("ReductionConfig.abs_reductions: {!r} is not one of {}".format(
                    r, ", ".join(_BASIC)))
            names.append("abs_" + r)
        for n in norms or []:
            names.append(_norm_name(n, "norms"))
        for n in abs_norms or []:
            names.append("abs_" + _norm_name(n, "abs_norms"))
        self.reductions = names
        self.save_raw_tensor = bool(save_raw_tensor)
        self.save_shape = bool(save_shape)

    @classmethod
    def from_names(cls, names, save_raw_tensor=False):
        """From the spec's form: "min,max,abs_mean,l2_norm" or a list of such names."""
        if isinstance(names, str):
            names = [n.strip() for n in names.split(",") if n.strip()]
        plain = [n for n in names if not n.startswith("abs_")]
        absolute = [n[4:] for n in names if n.startswith("abs_")]
        config = cls(reductions=plain, save_raw_tensor=save_raw_tensor)
        for a in absolute:
            if a not in _BASIC and not _is_norm(a):
                raise SMDebugError("reductions: abs_{} is not a reduction".format(a))
            config.reductions.append("abs_" + a)
        return config


def _is_norm(name):
    return name in ("l1_norm", "l2_norm")


def _norm_name(n, field):
    if n not in _NORMS:
        raise SMDebugError("ReductionConfig.{}: {!r} is not 'l1' or 'l2'".format(field, n))
    return n + "_norm"


class Collection:
    """A named group of tensors: include_regex picks them, the save config says when, the
    reductions say what is sent (CollectionPlan of hook_plan.h)."""

    def __init__(self, name, include_regex=None, reduction_config=None, save_config=None):
        if not isinstance(name, str) or not name:
            raise SMDebugError("Collection.name: expected a non-empty string, got {!r}".format(
                name))
        self.name = name
        regex = include_regex if include_regex is not None else builtin_regex(name)
        self.include_regex = [regex] if isinstance(regex, str) else list(regex or [])
        self.save_config = save_config or SaveConfig()
        self.reductions = list(reduction_config.reductions) if reduction_config else []
        self.default_reductions = not self.reductions
        self.save_raw_tensor = bool(reduction_config and reduction_config.save_raw_tensor)
        self.every_eval = True
        self._compiled = None

    @property
    def reduction_config(self):
        return ReductionConfig.from_names(self.reductions, self.save_raw_tensor)

    def include(self, regex):
        """Adds a regex (smdebug's Collection.include)."""
        self.include_regex.append(regex)
        self._compiled = None

    def matches(self, tensor_name):
        if self._compiled is None:
            try:
                self._compiled = [re.compile(r) for r in self.include_regex]
            except re.error as e:
                raise SMDebugError("collection {}: include_regex: {}".format(self.name, e)) from None
        return any(r.search(tensor_name) for r in self._compiled)

    def saves_step(self, step):
        return self.save_config.should_save_step(step)

    def is_scalar(self):
        return self.name in SCALAR_COLLECTIONS

    def reduction_names(self):
        """The reductions sent for a tensor: the defaults unless configured, then the rules'."""
        out = list(DEFAULT_REDUCTIONS) if self.default_reductions else []
        for r in self.reductions:
            if r not in out:
                out.append(r)
        return out

    def add_reduction(self, name):
        if name not in self.reductions:
            self.reductions.append(name)

    def __repr__(self):
        return "Collection({!r}, include_regex={!r}, {!r}, reductions={!r})".format(
            self.name, self.include_regex, self.save_config, self.reduction_names())


class HookPlan:
    """The hook's whole configuration (HookPlan of hook_plan.h) plus where it writes."""

    def __init__(self):
        self.enabled = True
        self.all_workers = False
        self.local_path = None
        self.collections = {}
        self.relu_inactivity_percent = 1.0
        self.saturation_inactivity_percent = 1.0
        self.tanh_range = (-9.4999, 9.4999)
        self.sigmoid_range = (-23.0, 16.99999)
        self.input_channel_axis = 1
        self.profiler = {}
        self.auto_attach = True
        self.source = None  # the file it was read from

    @classmethod
    def from_file(cls, path):
        try:
            with open(path, encoding="utf-8") as f:
                document = json.load(f)
        except OSError as e:
            raise SMDebugError("debugger hook config {}: {}".format(path, e.strerror)) from None
        except ValueError as e:
            raise SMDebugError("debugger hook config {}: not JSON ({})".format(path, e)) from None
        plan = cls.from_dict(document, path)
        plan.source = path
        return plan

    @classmethod
    def from_dict(cls, d, where="hook config"):
        if not isinstance(d, dict):
            raise SMDebugError("{}: expected a JSON object".format(where))
        plan = cls()
        plan.enabled = bool(d.get("enabled", True))
        plan.all_workers = bool(d.get("all_workers", False))
        plan.local_path = d.get("local_path") or os.environ.get("STUDIO_DEBUG_OUTPUT_DIR")
        for i, c in enumerate(d.get("collections") or []):
            coll = _collection_from_dict(c, "{}: collections[{}]".format(where, i))
            plan.collections[coll.name] = coll
        plan.relu_inactivity_percent = float(d.get("relu_inactivity_percent", 1.0))
        plan.saturation_inactivity_percent = float(d.get("saturation_inactivity_percent", 1.0))
        plan.tanh_range = _pair(d.get("tanh_range"), plan.tanh_range, where + ": tanh_range")
        plan.sigmoid_range = _pair(d.get("sigmoid_range"), plan.sigmoid_range,
                                   where + ": sigmoid_range")
        plan.input_channel_axis = int(d.get("input_channel_axis", 1))
        plan.profiler = dict(d.get("profiler") or {})
        plan.auto_attach = _truthy(d.get("auto_attach", True))
        return plan

    def saves_anything(self, step):
        return self.enabled and any(c.saves_step(step) for c in self.collections.values())

    def collections_of(self, tensor_name):
        return [c for c in self.collections.values() if c.matches(tensor_name)]


def _truthy(value):
    if isinstance(value, str):
        return value.strip().lower() not in ("false", "0", "no", "")
    return bool(value)


def _pair(value, default, field):
    if value is None:
        return default
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise SMDebugError("{}: expected [low, high], got {!r}".format(field, value))
    return (float(value[0]), float(value[1]))


def _collection_from_dict(c, where):
    if not isinstance(c, dict) or not isinstance(c.get("name"), str):
        raise SMDebugError("{}: expected an object with a \"name\"".format(where))
    regex = c.get("include_regex")
    if isinstance(regex, str):
        regex = [regex]
    save = SaveConfigMode(c.get("save_interval"), c.get("start_step"), c.get("end_step"),
                          c.get("save_steps"))
    coll = Collection(c["name"], include_regex=regex if regex else None)
    coll.save_config = save
    coll.reductions = list(c.get("reductions") or [])
    coll.default_reductions = bool(c.get("default_reductions", not coll.reductions))
    coll.save_raw_tensor = bool(c.get("save_raw_tensor", False))
    coll.every_eval = bool(c.get("every_eval", True))
    return coll

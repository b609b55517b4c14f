"""The job spec an estimator runs (resources/specs/SPEC.md: its keys ARE the estimator's
arguments): Python-side checks that name the field as the CLI does, the conversion of the SDK's
objects to spec values, and the engine's own validation (``mlstudio validate``) of the result.
"""

import math
import os

from . import _cli
from ._util import (
    absolute_path,
    check_bool,
    check_integer,
    check_string,
    field_error,
    python_wording,
    shown,
)
from .debugger.configs import DebuggerHookConfig, ProfilerConfig, TensorBoardOutputConfig, spec_of
from .debugger.rules import ProfilerRule, Rule, rule_spec
from .exceptions import StudioCliError

_EXPERIMENT_KEYS = ("ExperimentName", "TrialName", "TrialComponentDisplayName", "RunName")


def hyperparameters(values, path="hyperparameters"):
    """A dict of str -> str/number/bool, as the engine takes them."""
    if values is None:
        return {}
    if not isinstance(values, dict):
        raise field_error(path, "an object (a dict of name -> value)", values)
    out = {}
    for key, value in values.items():
        if not isinstance(key, str) or not key or any(c in key for c in " \t="):
            raise ValueError(
                "{}: hyperparameter names must be non-empty strings without spaces or '=', "
                "got {}".format(path, shown(key))
            )
        where = "{}.{}".format(path, key)
        if isinstance(value, bool) or isinstance(value, str):
            out[key] = value
        elif isinstance(value, (int, float)) or hasattr(value, "__index__") or hasattr(
            value, "__float__"
        ):
            number = value if isinstance(value, (int, float)) else _plain_number(value)
            if isinstance(number, float) and not math.isfinite(number):
                raise field_error(where, "a finite number", value)
            out[key] = number
        else:
            raise field_error(where, "a string, number or boolean", value)
    return out


def _plain_number(value):
    # NumPy scalars and the like: integers stay integers.
    if hasattr(value, "__index__"):
        return int(value.__index__())
    return float(value)


def metric_definitions(values):
    if values is None:
        return []
    if not isinstance(values, (list, tuple)):
        raise field_error("metric_definitions", 'a list of {"Name", "Regex"}', values)
    if len(values) > 40:
        raise ValueError("metric_definitions: at most 40, got {}".format(len(values)))
    out = []
    for i, d in enumerate(values):
        path = "metric_definitions[{}]".format(i)
        if not isinstance(d, dict) or set(d) - {"Name", "Regex"} or not {"Name", "Regex"} <= set(d):
            raise field_error(path, 'a {"Name": ..., "Regex": ...} dict', d)
        check_string(path + ".Name", d["Name"])
        check_string(path + ".Regex", d["Regex"])
        out.append({"Name": d["Name"], "Regex": d["Regex"]})
    return out


def environment(values):
    if values is None:
        return {}
    if not isinstance(values, dict):
        raise field_error("environment", "an object (a dict of name -> value)", values)
    out = {}
    for key, value in values.items():
        path = "environment.{}".format(key)
        if isinstance(value, dict):
            if value.get("secret") is not True or not isinstance(value.get("from_env"), str):
                raise field_error(path, 'a string or {"secret": True, "from_env": "VAR"}', value)
        elif not isinstance(value, str):
            raise field_error(path, 'a string or {"secret": True, "from_env": "VAR"}', value)
        out[key] = value
    return out


def tags(values):
    """``[{"Key", "Value"}]``; a dict is taken as Key -> Value."""
    if values is None:
        return []
    if isinstance(values, dict):
        values = [{"Key": k, "Value": v} for k, v in values.items()]
    if not isinstance(values, (list, tuple)):
        raise field_error("tags", 'a list of {"Key", "Value"}', values)
    out = []
    for i, t in enumerate(values):
        path = "tags[{}]".format(i)
        if not isinstance(t, dict) or "Key" not in t or set(t) - {"Key", "Value"}:
            raise field_error(path, 'a {"Key": ..., "Value": ...} dict', t)
        out.append({"Key": check_string(path + ".Key", t["Key"]),
                    "Value": check_string(path + ".Value", t.get("Value", ""))})
    return out


def distribution(value):
    if value is None:
        return None
    if not isinstance(value, dict):
        raise field_error("distribution", 'a dict such as {"torch_distributed": {"enabled": True}}',
                          value)
    return value


def experiment_config(value):
    if value is None:
        return None
    if not isinstance(value, dict):
        raise field_error("experiment_config", "a dict with ExperimentName, TrialName, ...", value)
    for key, item in value.items():
        if key not in _EXPERIMENT_KEYS:
            raise ValueError(
                "experiment_config.{}: unknown key; allowed keys: {}".format(
                    key, ", ".join('"{}"'.format(k) for k in _EXPERIMENT_KEYS)
                )
            )
        if item is not None:
            check_string("experiment_config." + key, item)
    return {k: v for k, v in value.items() if v is not None}


def checked_fields(est):
    """Checks what the estimator holds, raising ValueError naming the field."""
    if est.instance_count is not None:
        check_integer("instance_count", est.instance_count, 1, 256)
    if est.instance_type is not None:
        check_string("instance_type", est.instance_type)
    hyperparameters(est._hyperparameters)
    metric_definitions(est.metric_definitions)
    environment(est.environment)
    tags(est.tags)
    distribution(est.distribution)
    check_bool("use_spot_instances", est.use_spot_instances)
    if est.max_run is not None:
        check_integer("max_run", est.max_run, 1)
    if est.max_wait is not None:
        check_integer("max_wait", est.max_wait, 1)
    if est.max_retry_attempts is not None:
        check_integer("max_retry_attempts", est.max_retry_attempts, 1, 30)
    if est.disable_profiler is not None:
        check_bool("disable_profiler", est.disable_profiler)
    if est.cluster is not None:
        check_string("cluster", est.cluster)
    if not isinstance(est.rules or [], (list, tuple)):
        raise field_error("rules", "a list of Rule and ProfilerRule", est.rules)
    if len(est.rules or []) > 20:
        raise ValueError("rules: at most 20 rules per job, got {}".format(len(est.rules)))
    for i, rule in enumerate(est.rules or []):
        rule_spec(rule, "rules[{}]".format(i))
    if est.disable_profiler and any(isinstance(r, ProfilerRule) for r in est.rules or []):
        # SageMaker raises RuntimeError for this conflict too.
        raise RuntimeError("disable_profiler: profiler rules cannot run with the profiler disabled")


def _merge_rule_collections(spec, rules):
    """A built-in rule's collections_to_save join the hook's collection_configs (SageMaker
    merges them the same way); the same collection configured two ways is an error."""
    hook = spec.get("debugger_hook_config")
    wanted = []
    for i, rule in enumerate(rules or []):
        if isinstance(rule, Rule) and not rule.is_custom():
            wanted += [(i, c.to_spec()) for c in rule.collection_configs]
    if not wanted or hook is False:
        return
    hook = dict(hook or {})
    configs = list(hook.get("collection_configs") or [])
    for i, collection in wanted:
        same = [c for c in configs if c.get("name") == collection["name"]]
        if not same:
            configs.append(collection)
        elif same[0].get("parameters", {}) != collection.get("parameters", {}):
            raise ValueError(
                "rules[{}].collections_to_save: collection {} is configured differently in "
                "debugger_hook_config ({} and {})".format(
                    i, shown(collection["name"]), shown(same[0].get("parameters", {})),
                    shown(collection.get("parameters", {})),
                )
            )
    hook["collection_configs"] = configs
    spec["debugger_hook_config"] = hook


def build_spec(est, base_name, inputs=None, experiment=None):
    """The job spec of the estimator as a dict, with every path absolute."""
    from .inputs import channels

    checked_fields(est)
    spec = {"name": base_name}
    spec.update(est._entry_spec())
    pairs = (
        ("hyperparameters", hyperparameters(est._hyperparameters)),
        ("instance_type", est._instance_type_spec()),
        ("instance_count", est.instance_count),
        ("cluster", est.cluster),
        ("slurm", est.slurm),
        ("distribution", distribution(est.distribution)),
        ("inputs", channels(inputs)),
        ("environment", environment(est.environment)),
        ("metric_definitions", metric_definitions(est.metric_definitions)),
        ("use_spot_instances", est.use_spot_instances or None),
        ("max_run", est.max_run),
        ("max_wait", est.max_wait),
        ("max_retry_attempts", est.max_retry_attempts),
        ("spot_simulation", est.spot_simulation),
        ("local_prices", est.local_prices),
        ("disable_profiler", est.disable_profiler or None),
        ("rules", [rule_spec(r, "rules[{}]".format(i)) for i, r in enumerate(est.rules or [])]),
        ("experiment_config", experiment_config(experiment)),
        ("tags", tags(est.tags)),
    )
    for key, value in pairs:
        if value is not None and value != [] and value != {}:
            spec[key] = value
    if est.checkpoint_local_path:
        spec["checkpoint_local_path"] = absolute_path(est.checkpoint_local_path)
    if est.debugger_hook_config is False:
        spec["debugger_hook_config"] = False
    elif est.debugger_hook_config not in (None, True):
        spec["debugger_hook_config"] = spec_of(
            est.debugger_hook_config, DebuggerHookConfig, "debugger_hook_config"
        )
    _merge_rule_collections(spec, est.rules)
    if est.profiler_config is not None:
        spec["profiler_config"] = spec_of(est.profiler_config, ProfilerConfig, "profiler_config")
    if est.tensorboard_output_config is not None:
        tb = spec_of(est.tensorboard_output_config, TensorBoardOutputConfig,
                     "tensorboard_output_config")
        if "local_path" in tb:
            tb["local_path"] = absolute_path(tb["local_path"])
        spec["tensorboard_output_config"] = tb
    for key in ("role", "framework_version", "py_version", "output_path", "checkpoint_s3_uri"):
        value = getattr(est, key, None)
        if isinstance(value, str) and value:
            spec[key] = value
    if est.volume_size is not None:
        spec["volume_size"] = check_integer("volume_size", est.volume_size, 1)
    return spec


def validate_spec_file(path):
    """``mlstudio validate PATH``: nothing when the engine accepts the spec, else a ValueError
    with every message the engine gave, in Python's wording of values."""
    completed = _cli.cli_run("validate", path, check=False)
    if completed.returncode == 0:
        return
    if completed.returncode != 2:
        raise StudioCliError(["validate", path], completed.returncode, completed.stderr,
                             completed.stdout)
    lines = [python_wording(line) for line in completed.stderr.splitlines() if line.strip()]
    raise ValueError("\n".join(lines) or "the job spec {} is not valid".format(path))


def source_dir_for(entry_point, source_dir):
    """Where a script's ranks run: ``source_dir`` when given, else the script's folder (as
    SageMaker runs the entry point inside its code directory)."""
    if source_dir:
        return absolute_path(source_dir)
    return os.path.dirname(absolute_path(entry_point))

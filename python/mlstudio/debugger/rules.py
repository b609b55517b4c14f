"""``Rule`` and ``ProfilerRule`` (``sagemaker.debugger``): the rules a job runs, built from
``rule_configs`` (built-in rules) or from a Python file (custom rules: an smdebug ``Rule``
subclass, see ``mlstudio.smdebug.rules.rule``, run in a rule process beside the job and fed its
tensors and metrics live). ``to_spec()`` gives the job spec's rule entry.
"""

import os
import re

from .._util import absolute_path, field_error, shown, warn_once
from . import _catalog
from .actions import spec_actions
from .configs import CollectionConfig, collection_spec
from .rule_configs import ProfilerRuleBase, check_parameter

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _ignored(owner, values, why):
    for name, value in values.items():
        if value is not None:
            warn_once("{}.{}".format(owner, name), "{}({}=...): {}".format(owner, name, why))


def _base_rule_name(base_config):
    if isinstance(base_config, ProfilerRuleBase):
        raise TypeError(
            "Rule.sagemaker: {} is a profiler rule; use ProfilerRule.sagemaker({!r})".format(
                base_config.rule_name, base_config
            )
        )
    try:
        config = base_config["DebugRuleConfiguration"]
        name = config.get("RuleParameters", {}).get("rule_to_invoke") or config[
            "RuleConfigurationName"
        ]
    except (TypeError, KeyError):
        raise field_error(
            "Rule.sagemaker(base_config)", "a rule_configs function's result, e.g. "
            "rule_configs.loss_not_decreasing()", base_config,
        ) from None
    if name not in _catalog.MODEL_RULES:
        raise ValueError(
            "Rule.sagemaker(base_config): {} is not a built-in rule of the studio".format(
                shown(name)
            )
        )
    return name


class Rule:
    """A Debugger rule of a training job (SageMaker's ``sagemaker.debugger.Rule``)."""

    def __init__(self, name, image_uri, rule_parameters, collections_to_save, actions, source=None,
                 rule_to_invoke=None):
        self.name = name
        self.image_uri = image_uri
        self.rule_parameters = dict(rule_parameters or {})
        self.collection_configs = list(collections_to_save or [])
        self.actions = actions
        self.source = source
        self.rule_to_invoke = rule_to_invoke
        self._spec_actions = spec_actions(actions, "{}(actions)".format(name))

    @classmethod
    def sagemaker(
        cls,
        base_config,
        name=None,
        container_local_output_path=None,
        s3_output_path=None,
        other_trials_s3_input_paths=None,
        rule_parameters=None,
        collections_to_save=None,
        actions=None,
    ):
        """A built-in rule: ``Rule.sagemaker(rule_configs.loss_not_decreasing(),
        rule_parameters={"num_steps": "20"}, actions=rule_configs.StopTraining())``."""
        rule = _base_rule_name(base_config)
        params = dict(rule_parameters or {})
        if "rule_to_invoke" in params:
            # SageMaker raises RuntimeError here too.
            raise RuntimeError(
                "Rule.sagemaker(rule_parameters): rule_to_invoke cannot be given for a built-in "
                "rule ({})".format(rule)
            )
        checked = {
            key: check_parameter(rule, key, value, "{}(rule_parameters).{}".format(rule, key))
            for key, value in params.items()
        }
        if name is not None and name != rule:
            warn_once(
                "Rule.sagemaker.name",
                "Rule.sagemaker(name={!r}): the studio names a built-in rule by the rule it runs "
                "({}); the name changes nothing".format(name, rule),
            )
        _ignored(
            "Rule.sagemaker",
            {
                "container_local_output_path": container_local_output_path,
                "s3_output_path": s3_output_path,
                "other_trials_s3_input_paths": other_trials_s3_input_paths,
            },
            "rules run inside the studio and read the job's own data; this changes nothing",
        )
        collections = [
            CollectionConfig(**_collection_args(c, "{}(collections_to_save)".format(rule)))
            for c in (collections_to_save or [])
        ]
        return cls(rule, "DEFAULT_RULE_EVALUATOR_IMAGE", checked, collections, actions)

    @classmethod
    def custom(
        cls,
        name,
        image_uri=None,
        instance_type=None,
        volume_size_in_gb=None,
        source=None,
        rule_to_invoke=None,
        container_local_output_path=None,
        s3_output_path=None,
        other_trials_s3_input_paths=None,
        rule_parameters=None,
        collections_to_save=None,
        actions=None,
    ):
        """A rule written in Python: class ``rule_to_invoke`` (an smdebug ``Rule`` subclass, from
        ``mlstudio.smdebug.rules.rule`` or, unchanged, ``smdebug.rules.rule``) of the file
        ``source``. The studio runs it in a process beside the job, built as
        ``rule_to_invoke(base_trial, **rule_parameters)`` (values as strings) and invoked at each
        step the job saved; a True result records a finding and runs ``actions``, an exception
        sets the rule's status to Error with its traceback. ``collections_to_save`` are saved by
        the job's hook (put the reductions the rule reads in their parameters, e.g.
        ``{"reductions": "mean,abs_mean"}``, or ``"save_raw_tensor": "true"``)."""
        if not isinstance(name, str) or not re.match(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,62}$", name):
            raise field_error(
                "Rule.custom(name)", "1 to 63 letters, digits, '-' and '_'", name
            )
        if (source is None) != (rule_to_invoke is None):
            raise ValueError("Rule.custom: source and rule_to_invoke must be given together")
        if source is None:
            raise ValueError(
                "Rule.custom: source (a Python file) and rule_to_invoke (its rule class) are "
                "required; the studio runs rules from local files, not from rule images"
            )
        if not isinstance(rule_to_invoke, str) or not _IDENTIFIER.match(rule_to_invoke):
            raise field_error("Rule.custom(rule_to_invoke)", "a Python class name", rule_to_invoke)
        path = absolute_path(source)
        if not os.path.isfile(path):
            raise ValueError("Rule.custom(source): file {} does not exist".format(path))
        _ignored(
            "Rule.custom",
            {
                "image_uri": image_uri,
                "instance_type": instance_type,
                "volume_size_in_gb": volume_size_in_gb,
                "container_local_output_path": container_local_output_path,
                "s3_output_path": s3_output_path,
                "other_trials_s3_input_paths": other_trials_s3_input_paths,
            },
            "custom rules run on this machine beside the job; this changes nothing",
        )
        params = {}
        for key, value in (rule_parameters or {}).items():
            if not isinstance(value, (str, int, float, bool)):
                raise field_error("Rule.custom(rule_parameters).{}".format(key),
                                  "a string, number or boolean", value)
            params[key] = value
        collections = [
            CollectionConfig(**_collection_args(c, "Rule.custom(collections_to_save)"))
            for c in (collections_to_save or [])
        ]
        return cls(name, image_uri, params, collections, actions, source=path,
                   rule_to_invoke=rule_to_invoke)

    def is_custom(self):
        return self.source is not None

    def to_spec(self):
        """The job spec's entry for this rule."""
        if self.is_custom():
            out = {"name": self.name, "source": self.source, "rule_to_invoke": self.rule_to_invoke}
            if self.rule_parameters:
                out["rule_parameters"] = dict(self.rule_parameters)
            if self.collection_configs:
                out["collections_to_save"] = [c.to_spec() for c in self.collection_configs]
        else:
            out = {"name": self.name}
            if self.rule_parameters:
                out["parameters"] = dict(self.rule_parameters)
        if self._spec_actions:
            out["actions"] = list(self._spec_actions)
        return out

    def __repr__(self):
        return "Rule({!r})".format(self.to_spec())


def _collection_args(value, path):
    spec = collection_spec(value, path)
    return {"name": spec["name"], "parameters": spec.get("parameters")}


class ProfilerRule:
    """A profiler rule of a training job (SageMaker's ``sagemaker.debugger.ProfilerRule``)."""

    def __init__(self, name, rule_parameters, source=None, rule_to_invoke=None):
        self.name = name
        self.rule_parameters = dict(rule_parameters or {})
        self.source = source
        self.rule_to_invoke = rule_to_invoke

    @classmethod
    def sagemaker(
        cls,
        base_config,
        name=None,
        container_local_output_path=None,
        s3_output_path=None,
        instance_type=None,
        volume_size_in_gb=None,
    ):
        """A built-in profiler rule: ``ProfilerRule.sagemaker(rule_configs.ProfilerReport())``."""
        if not isinstance(base_config, ProfilerRuleBase):
            raise field_error(
                "ProfilerRule.sagemaker(base_config)",
                "a profiler rule of rule_configs, e.g. rule_configs.ProfilerReport()",
                base_config,
            )
        if name is not None and name != base_config.rule_name:
            warn_once(
                "ProfilerRule.sagemaker.name",
                "ProfilerRule.sagemaker(name={!r}): the studio names a built-in rule by the rule "
                "it runs ({}); the name changes nothing".format(name, base_config.rule_name),
            )
        _ignored(
            "ProfilerRule.sagemaker",
            {
                "container_local_output_path": container_local_output_path,
                "s3_output_path": s3_output_path,
                "instance_type": instance_type,
                "volume_size_in_gb": volume_size_in_gb,
            },
            "profiler rules run inside the studio; this changes nothing",
        )
        return cls(base_config.rule_name, base_config.user_parameters)

    @classmethod
    def custom(
        cls,
        name,
        image_uri=None,
        instance_type=None,
        volume_size_in_gb=None,
        source=None,
        rule_to_invoke=None,
        container_local_output_path=None,
        s3_output_path=None,
        rule_parameters=None,
    ):
        """A profiler rule written in Python, run as Rule.custom's."""
        rule = Rule.custom(
            name,
            image_uri=image_uri,
            instance_type=instance_type,
            volume_size_in_gb=volume_size_in_gb,
            source=source,
            rule_to_invoke=rule_to_invoke,
            container_local_output_path=container_local_output_path,
            s3_output_path=s3_output_path,
            rule_parameters=rule_parameters,
        )
        return cls(rule.name, rule.rule_parameters, source=rule.source,
                   rule_to_invoke=rule.rule_to_invoke)

    def to_spec(self):
        if self.source is not None:
            out = {"name": self.name, "source": self.source, "rule_to_invoke": self.rule_to_invoke}
            if self.rule_parameters:
                out["rule_parameters"] = dict(self.rule_parameters)
            return out
        out = {"name": self.name}
        if self.rule_parameters:
            out["parameters"] = dict(self.rule_parameters)
        return out

    def __repr__(self):
        return "ProfilerRule({!r})".format(self.to_spec())


def rule_spec(rule, path):
    """A rules list entry as the spec's dict: Rule, ProfilerRule, or a spec dict as it is."""
    if isinstance(rule, (Rule, ProfilerRule)):
        return rule.to_spec()
    if isinstance(rule, dict) and "name" in rule:
        return dict(rule)
    # SageMaker raises RuntimeError for anything else in rules.
    raise RuntimeError(
        "{}: must be a Rule or a ProfilerRule (Rule.sagemaker(rule_configs.<rule>()), "
        "ProfilerRule.sagemaker(rule_configs.ProfilerReport())), got {}".format(path, shown(rule))
    )

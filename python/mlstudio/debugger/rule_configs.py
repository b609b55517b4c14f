"""``rule_configs``: the studio's built-in Debugger rules under SageMaker's names
(``smdebug_rulesconfig``): a snake_case function per rule (``loss_not_decreasing()``), the profiler
rules also as classes (``ProfilerReport(CPUBottleneck_threshold=90)``), and the actions.

Every rule of the engine's catalogue has its function here; SageMaker rules the studio does not
build in (``confusion``, ``tree_depth``, ...) raise an AttributeError that says so.
"""

import re

from .._util import check_bool, field_error, is_integer, is_number, shown
from . import _catalog
from .actions import SMS, ActionList, Email, StopTraining, is_valid_action_object  # noqa: F401


def snake_case(rule):
    """``CPUBottleneck`` -> ``cpu_bottleneck``, ``LossNotDecreasing`` -> ``loss_not_decreasing``."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])", "_", rule).lower()


def _closest(word, candidates):
    import difflib

    match = difflib.get_close_matches(word, candidates, n=1, cutoff=0.6)
    return ', did you mean "{}"?'.format(match[0]) if match else ""


def check_parameter(rule, name, value, path):
    """Checks one parameter of a built-in rule by name and type; returns the spec's value."""
    rows = _catalog.parameters_of(rule)
    known = {row[0]: row[1] for row in rows}
    if name not in known:
        hint = _closest(name, list(known))
        raise ValueError(
            "{}: not a parameter of {}{}".format(
                path, rule, hint or "; parameters: " + ", ".join('"{}"'.format(k) for k in known)
            )
        )
    kind = known[name]
    if isinstance(value, (tuple, list)) and kind == "NP" and len(value) == 2:
        value = "{},{}".format(value[0], value[1])
    if kind == "N" and not (is_number(value) or _parses(value, float)):
        raise field_error(path, "a number", value)
    if kind == "I" and not (is_integer(value) or _parses(value, int)):
        raise field_error(path, "an integer", value)
    if kind == "B" and not isinstance(value, bool):
        if value not in ("True", "False", "true", "false"):
            raise field_error(path, '"True" or "False"', value)
    if kind in ("T", "R", "NP") and not isinstance(value, str):
        raise field_error(path, "a string", value)
    return value


def _parses(value, kind):
    if not isinstance(value, str):
        return False
    try:
        kind(value)
        return True
    except ValueError:
        return False


def _model_rule_function(rule):
    collections = _catalog.RULE_COLLECTIONS.get(rule, [])

    def config():
        return {
            "DebugRuleConfiguration": {
                "RuleConfigurationName": rule,
                "RuleParameters": {"rule_to_invoke": rule},
            },
            "CollectionConfigurations": [
                {"CollectionName": c, "CollectionParameters": {"save_interval": "500"}}
                for c in collections
            ],
        }

    config.__name__ = config.__qualname__ = snake_case(rule)
    params = ", ".join(
        "{}={}".format(n, d if d else "None") for n, _, d in _catalog.MODEL_RULES[rule]
    )
    config.__doc__ = (
        "The {} rule's configuration for Rule.sagemaker(); its parameters (rule_parameters=) "
        "and defaults: {}.".format(rule, params or "none")
    )
    return config


class ProfilerRuleBase:
    """A profiler rule's configuration; pass it to ``ProfilerRule.sagemaker()``."""

    rule_name = None

    def __init__(self, **rule_parameters):
        self.user_parameters = {}
        for key, value in rule_parameters.items():
            path = "{}({})".format(self.rule_name, key)
            self.user_parameters[key] = check_parameter(self.rule_name, key, value, path)
        self.rule_parameters = {"rule_to_invoke": self.rule_name}
        for name, _, default in _catalog.PROFILER_RULES[self.rule_name]:
            self.rule_parameters[name] = self.user_parameters.get(name, default)

    def __repr__(self):
        given = ", ".join("{}={!r}".format(k, v) for k, v in self.user_parameters.items())
        return "{}({})".format(self.rule_name, given)


class ProfilerReport(ProfilerRuleBase):
    """Every profiler rule under one report; ``<Rule>_<parameter>=value`` overrides one rule's
    parameter (``CPUBottleneck_threshold=90``)."""

    rule_name = "ProfilerReport"

    def __init__(self, opt_out_telemetry=False, **rule_parameters):
        check_bool("ProfilerReport(opt_out_telemetry)", opt_out_telemetry)
        self.user_parameters = {}
        for key, value in rule_parameters.items():
            rule, _, name = key.partition("_")
            path = "ProfilerReport({})".format(key)
            if rule not in _catalog.PROFILER_RULES or not name:
                raise ValueError(
                    "{}: ProfilerReport takes <ProfilerRule>_<parameter>, e.g. "
                    "CPUBottleneck_threshold{}".format(
                        path, _closest(rule, list(_catalog.PROFILER_RULES))
                    )
                )
            self.user_parameters[key] = check_parameter(rule, name, value, path)
        self.rule_parameters = dict(self.user_parameters, rule_to_invoke="ProfilerReport")


def _profiler_rule_class(rule):
    cls = type(
        rule,
        (ProfilerRuleBase,),
        {
            "rule_name": rule,
            "__doc__": "The {} profiler rule; parameters and defaults: {}.".format(
                rule, ", ".join("{}={}".format(n, d) for n, _, d in _catalog.PROFILER_RULES[rule])
            ),
            "__module__": __name__,
        },
    )
    return cls


def _profiler_rule_function(cls):
    def config(**rule_parameters):
        return cls(**rule_parameters)

    config.__name__ = config.__qualname__ = snake_case(cls.rule_name)
    config.__doc__ = cls.__doc__
    return config


# Built from the catalogue so that no rule is missing (the test checks it against the C++ table).
for _rule in _catalog.MODEL_RULES:
    globals()[snake_case(_rule)] = _model_rule_function(_rule)
for _rule in _catalog.PROFILER_RULES:
    globals()[_rule] = _profiler_rule_class(_rule)
    globals()[snake_case(_rule)] = _profiler_rule_function(globals()[_rule])
profiler_report = _profiler_rule_function(ProfilerReport)
del _rule

# SageMaker rules that the studio's engine does not implement.
_NOT_BUILT_IN = {
    "similar_across_runs": "SimilarAcrossRuns",
    "confusion": "Confusion",
    "tree_depth": "TreeDepth",
    "nlp_sequence_ratio": "NLPSequenceRatio",
    "feature_importance_overweight": "FeatureImportanceOverweight",
    "create_xgboost_report": "CreateXgboostReport",
}


def __getattr__(name):
    if name in _NOT_BUILT_IN:
        raise AttributeError(
            "rule_configs.{}: SageMaker's {} rule is not built into ML Studio; write it as a "
            "custom rule (Rule.custom) or use one of: {}".format(
                name, _NOT_BUILT_IN[name], ", ".join(sorted(builtin_rule_functions()))
            )
        )
    raise AttributeError(
        "module 'mlstudio.debugger.rule_configs' has no attribute {}".format(shown(name))
    )


def builtin_rule_functions():
    """The snake_case function name of every built-in rule, by rule name."""
    names = list(_catalog.MODEL_RULES) + list(_catalog.PROFILER_RULES)
    return {snake_case(r): r for r in names}

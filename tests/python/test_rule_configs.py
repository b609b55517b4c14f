"""rule_configs covers the engine's rule catalogue (engine/debugger/rule_catalog.cpp): every
built-in rule has its snake_case function (and profiler rules their class), with the same
parameters, types and defaults; SageMaker rules the studio lacks say so."""

import os
import re

import pytest

from mlstudio.debugger import _catalog, rule_configs
from mlstudio.debugger.rule_configs import ProfilerRuleBase, snake_case
from mlstudio.exceptions import IgnoredArgumentWarning

_RULE = re.compile(r'\{"(\w+)",\s*RuleKind::(Model|Profiler),')
_PARAM = re.compile(r'\{"(\w+)",\s*(NP|N|I|B|T|R),\s*"([^"]*)"\}')
_SCAN = re.compile(r"[{,]\s*scan\s*\}")


def engine_catalogue(repo_root):
    """{rule: (kind, [(name, type, default)])} read from the C++ catalogue."""
    path = os.path.join(repo_root, "engine", "debugger", "rule_catalog.cpp")
    with open(path) as f:
        text = f.read()
    scan = re.search(r'P scan\{"(\w+)",\s*(\w+),\s*"([^"]*)"\}', text)
    found = list(_RULE.finditer(text))
    assert len(found) >= 20, "the catalogue's layout changed; update this reader"
    rules = {}
    for i, m in enumerate(found):
        end = found[i + 1].start() if i + 1 < len(found) else text.index("return rules;")
        block = text[m.end():end]
        params = [p.groups() for p in _PARAM.finditer(block)]
        if _SCAN.search(block):
            params.append(scan.groups())
        rules[m.group(1)] = (m.group(2), params)
    return rules


def test_python_table_matches_the_engine(repo_root):
    engine = engine_catalogue(repo_root)
    python = {r: ("Model", p) for r, p in _catalog.MODEL_RULES.items()}
    python.update({r: ("Profiler", p) for r, p in _catalog.PROFILER_RULES.items()})
    assert sorted(engine) == sorted(python)
    for rule, (kind, params) in engine.items():
        assert python[rule][0] == kind, rule
        assert [tuple(p) for p in python[rule][1]] == [tuple(p) for p in params], rule


def test_every_engine_rule_has_a_snake_case_function(repo_root):
    for rule, (kind, _) in engine_catalogue(repo_root).items():
        function = getattr(rule_configs, snake_case(rule))
        config = function()
        if kind == "Model":
            assert config["DebugRuleConfiguration"]["RuleConfigurationName"] == rule
            assert config["DebugRuleConfiguration"]["RuleParameters"]["rule_to_invoke"] == rule
        else:
            assert isinstance(config, ProfilerRuleBase)
            assert config.rule_name == rule
            assert isinstance(getattr(rule_configs, rule)(), ProfilerRuleBase)


@pytest.mark.parametrize(
    "rule, name",
    [
        ("LossNotDecreasing", "loss_not_decreasing"),
        ("StalledTrainingRule", "stalled_training_rule"),
        ("CPUBottleneck", "cpu_bottleneck"),
        ("GPUMemoryIncrease", "gpu_memory_increase"),
        ("IOBottleneck", "io_bottleneck"),
        ("LowGPUUtilization", "low_gpu_utilization"),
    ],
)
def test_snake_case_names_are_sagemakers(rule, name):
    assert snake_case(rule) == name


def test_rules_ask_for_sagemakers_collections():
    config = rule_configs.vanishing_gradient()
    assert config["CollectionConfigurations"] == [
        {"CollectionName": "gradients", "CollectionParameters": {"save_interval": "500"}}
    ]
    assert rule_configs.exploding_tensor()["CollectionConfigurations"] == []


def test_profiler_rules_check_parameter_names_and_types():
    assert rule_configs.CPUBottleneck(threshold=20).rule_parameters["threshold"] == 20
    assert rule_configs.CPUBottleneck().rule_parameters["threshold"] == "50"
    with pytest.raises(ValueError, match=r'CPUBottleneck\(treshold\): .*did you mean "threshold"'):
        rule_configs.CPUBottleneck(treshold=20)
    with pytest.raises(ValueError, match=r"CPUBottleneck\(patience\): must be an integer, got 'x'"):
        rule_configs.CPUBottleneck(patience="x")


def test_profiler_report_takes_rule_parameter_overrides():
    report = rule_configs.ProfilerReport(CPUBottleneck_threshold=90, StepOutlier_stddev="4")
    assert report.user_parameters == {"CPUBottleneck_threshold": 90, "StepOutlier_stddev": "4"}
    with pytest.raises(ValueError, match="ProfilerReport takes <ProfilerRule>_<parameter>"):
        rule_configs.ProfilerReport(Nonsense_x=1)
    with pytest.raises(ValueError, match=r"ProfilerReport\(CPUBottleneck_nope\): not a parameter"):
        rule_configs.ProfilerReport(CPUBottleneck_nope=1)


def test_sagemaker_rules_the_studio_lacks_say_so():
    with pytest.raises(AttributeError, match="Confusion rule is not built into ML Studio"):
        rule_configs.confusion()
    with pytest.raises(AttributeError, match="has no attribute 'made_up'"):
        rule_configs.made_up


def test_actions_are_exported_as_sagemaker_has_them():
    with pytest.warns(IgnoredArgumentWarning, match="instead of sending a text message"):
        sms = rule_configs.SMS("+100")
    actions = rule_configs.ActionList(rule_configs.StopTraining(), sms)
    assert rule_configs.is_valid_action_object(actions)
    assert [type(a).__name__ for a in actions] == ["StopTraining", "SMS"]

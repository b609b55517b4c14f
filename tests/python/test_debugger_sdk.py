"""mlstudio.debugger: Rule, ProfilerRule, actions and the hook/profiler configs with SageMaker's
arguments, and their job spec entries (SPEC.md "Debugger and profiler")."""

import pytest

from mlstudio.debugger import (
    ActionList,
    CollectionConfig,
    DebuggerHookConfig,
    DetailedProfilingConfig,
    Email,
    FrameworkProfile,
    ProfilerConfig,
    ProfilerRule,
    Rule,
    StopTraining,
    TensorBoardOutputConfig,
    rule_configs,
)
from mlstudio.exceptions import IgnoredArgumentWarning


def test_builtin_rule_to_spec():
    rule = Rule.sagemaker(
        rule_configs.loss_not_decreasing(),
        rule_parameters={"num_steps": "20", "diff_percent": 5},
        actions=rule_configs.ActionList(rule_configs.StopTraining()),
    )
    assert rule.name == "LossNotDecreasing"
    assert rule.image_uri == "DEFAULT_RULE_EVALUATOR_IMAGE"
    assert rule.to_spec() == {
        "name": "LossNotDecreasing",
        "parameters": {"num_steps": "20", "diff_percent": 5},
        "actions": ["StopTraining"],
    }


def test_email_and_sms_become_one_notify():
    with pytest.warns(IgnoredArgumentWarning, match="instead of sending e-mail"):
        email = Email("ana@example.com")
    rule = Rule.sagemaker(rule_configs.overfit(), actions=ActionList(email, StopTraining(), email))
    assert rule.to_spec()["actions"] == ["Notify", "StopTraining"]


def test_rule_parameter_typo_names_the_rule_and_suggests():
    expected = (r'LossNotDecreasing\(rule_parameters\)\.num_step: not a parameter of '
                r'LossNotDecreasing, did you mean "num_steps"')
    with pytest.raises(ValueError, match=expected):
        Rule.sagemaker(rule_configs.loss_not_decreasing(), rule_parameters={"num_step": 3})


def test_rule_parameter_type_is_checked():
    with pytest.raises(ValueError, match=r"threshold: must be a number, got 'high'"):
        Rule.sagemaker(rule_configs.vanishing_gradient(), rule_parameters={"threshold": "high"})


def test_rule_to_invoke_in_parameters_is_refused_as_sagemaker_does():
    with pytest.raises(RuntimeError, match="rule_to_invoke"):
        Rule.sagemaker(rule_configs.dead_relu(), rule_parameters={"rule_to_invoke": "X"})


def test_actions_must_be_actions():
    with pytest.raises(RuntimeError, match="must be an Action or an ActionList"):
        Rule.sagemaker(rule_configs.all_zero(), actions="StopTraining please")


def test_profiler_rule_given_to_rule_sagemaker_points_to_profiler_rule():
    with pytest.raises(TypeError, match="use ProfilerRule.sagemaker"):
        Rule.sagemaker(rule_configs.ProfilerReport())


def test_a_custom_name_for_a_builtin_rule_warns_once():
    with pytest.warns(IgnoredArgumentWarning, match="names a built-in rule by the rule it runs"):
        rule = Rule.sagemaker(rule_configs.overtraining(), name="my-overtraining")
    assert rule.to_spec()["name"] == "Overtraining"


def test_profiler_rules_to_spec():
    report = ProfilerRule.sagemaker(rule_configs.ProfilerReport(CPUBottleneck_threshold=90))
    assert report.to_spec() == {"name": "ProfilerReport",
                                "parameters": {"CPUBottleneck_threshold": 90}}
    assert ProfilerRule.sagemaker(rule_configs.StepOutlier()).to_spec() == {"name": "StepOutlier"}
    with pytest.raises(ValueError, match="a profiler rule of rule_configs"):
        ProfilerRule.sagemaker(rule_configs.loss_not_decreasing())


def test_custom_rule_passes_the_file_through(tmp_path, monkeypatch):
    source = tmp_path / "my_rule.py"
    source.write_text("class CheckGrads:\n    pass\n")
    monkeypatch.chdir(tmp_path)
    with pytest.warns(IgnoredArgumentWarning, match="image_uri"):
        rule = Rule.custom(
            name="check-grads",
            image_uri="123.dkr.ecr/rules:latest",
            instance_type="ml.t3.medium",
            volume_size_in_gb=30,
            source="my_rule.py",
            rule_to_invoke="CheckGrads",
            rule_parameters={"threshold": "0.1", "patience": 3},
            collections_to_save=[CollectionConfig("gradients", {"save_interval": "10"})],
            actions=rule_configs.StopTraining(),
        )
    assert rule.to_spec() == {
        "name": "check-grads",
        "source": str(source),
        "rule_to_invoke": "CheckGrads",
        "rule_parameters": {"threshold": "0.1", "patience": 3},
        "collections_to_save": [{"name": "gradients", "parameters": {"save_interval": "10"}}],
        "actions": ["StopTraining"],
    }


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"source": "r.py"}, "source and rule_to_invoke must be given together"),
        ({}, "source .* and rule_to_invoke .* are required"),
        ({"source": "missing.py", "rule_to_invoke": "R"},
         r"Rule.custom\(source\): file .* does not exist"),
        ({"source": "r.py", "rule_to_invoke": "not a class"},
         r"rule_to_invoke\): must be a Python class"),
    ],
)
def test_custom_rule_errors(tmp_path, monkeypatch, kwargs, message):
    (tmp_path / "r.py").write_text("")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match=message):
        Rule.custom(name="r", **kwargs)


def test_collection_config_request_and_spec_forms():
    c = CollectionConfig("relus", {"include_regex": ".*relu_output", "save_interval": 5})
    assert c._to_request_dict() == {
        "CollectionName": "relus",
        "CollectionParameters": {"include_regex": ".*relu_output", "save_interval": "5"},
    }
    assert c.to_spec() == {"name": "relus",
                           "parameters": {"include_regex": ".*relu_output", "save_interval": 5}}
    assert c == CollectionConfig("relus", {"include_regex": ".*relu_output", "save_interval": 5})
    assert len({c, CollectionConfig("relus", dict(c.parameters))}) == 1


def test_hook_config_to_spec():
    hook = DebuggerHookConfig(
        s3_output_path="s3://b/p",
        hook_parameters={"save_interval": "100"},
        collection_configs=[CollectionConfig("weights"),
                            {"CollectionName": "gradients",
                             "CollectionParameters": {"reductions": "abs_mean"}}],
    )
    assert hook.to_spec() == {
        "s3_output_path": "s3://b/p",
        "hook_parameters": {"save_interval": "100"},
        "collection_configs": [{"name": "weights"},
                               {"name": "gradients", "parameters": {"reductions": "abs_mean"}}],
    }


def test_profiler_config_to_spec():
    config = ProfilerConfig(system_monitor_interval_millis=200,
                            framework_profile_params=FrameworkProfile(start_step=5, num_steps=20))
    assert config.to_spec() == {
        "system_monitor_interval_millis": 200,
        "framework_profile_params": {"start_step": 5, "num_steps": 20},
    }
    assert ProfilerConfig(disable_profiler=True).to_spec() == {"disable_profiler": True}
    with pytest.raises(ValueError, match=r"system_monitor_interval_millis: must be one of 100, "
                                         r"200, 500, 1000, 5000, 60000, got 300"):
        ProfilerConfig(system_monitor_interval_millis=300)


def test_framework_profile_pairs_are_exclusive_and_area_configs_warn():
    with pytest.raises(ValueError, match="mutually exclusive"):
        FrameworkProfile(start_step=1, duration=10)
    assert FrameworkProfile(start_unix_time=1.7e9, duration=60).to_spec() == {
        "start_unix_time": 1.7e9, "duration": 60}
    with pytest.warns(IgnoredArgumentWarning, match="per-area configs change nothing"):
        FrameworkProfile(detailed_profiling_config=DetailedProfilingConfig(start_step=3))


def test_tensorboard_output_config_resolves_its_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    config = TensorBoardOutputConfig(s3_output_path="s3://b/tb", container_local_output_path="tb")
    assert config.to_spec() == {"local_path": str(tmp_path / "tb"), "s3_output_path": "s3://b/tb"}

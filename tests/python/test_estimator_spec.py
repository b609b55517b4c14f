"""Estimator and PyTorch: every argument's job spec form, SageMaker-only arguments accepted
(warning once when they change nothing), and errors that name the field as the CLI does."""

import os
import warnings

import pytest

from mlstudio import _util
from mlstudio.debugger import (
    CollectionConfig,
    DebuggerHookConfig,
    FrameworkProfile,
    ProfilerConfig,
    ProfilerRule,
    Rule,
    TensorBoardOutputConfig,
    rule_configs,
)
from mlstudio.estimator import Estimator
from mlstudio.exceptions import IgnoredArgumentWarning
from mlstudio.inputs import FileSystemInput, TrainingInput, channels
from mlstudio.pytorch import PyTorch


@pytest.fixture
def script(workdir):
    (workdir / "code").mkdir()
    path = workdir / "code" / "train.py"
    path.write_text("print('loss=0.5')\n")
    return path


def quiet(**kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IgnoredArgumentWarning)
        return PyTorch(**kwargs)


def test_every_field_reaches_the_spec(script, workdir):
    (workdir / "data").mkdir()
    est = quiet(
        entry_point="train.py",
        source_dir="code",
        role="arn:aws:iam::1:role/x",
        framework_version="2.1",
        py_version="py310",
        instance_count=2,
        instance_type="ml.c5.xlarge",
        hyperparameters={"epochs": 2, "lr": 0.1, "optimizer": "adam", "amp": True},
        distribution={"torch_distributed": {"enabled": True},
                      "mpi": {"enabled": True, "processes_per_host": 2}},
        use_spot_instances=True,
        max_run=600,
        max_wait=1200,
        max_retry_attempts=3,
        checkpoint_local_path="ckpt",
        checkpoint_s3_uri="s3://b/ckpt",
        metric_definitions=[{"Name": "train:loss", "Regex": "loss=([0-9.]+)"}],
        debugger_hook_config=DebuggerHookConfig(
            collection_configs=[CollectionConfig("losses", {"save_interval": "1"})]),
        profiler_config=ProfilerConfig(system_monitor_interval_millis=1000,
                                       framework_profile_params=FrameworkProfile(num_steps=3)),
        rules=[Rule.sagemaker(rule_configs.loss_not_decreasing(),
                              actions=rule_configs.StopTraining()),
               ProfilerRule.sagemaker(rule_configs.ProfilerReport())],
        disable_profiler=False,
        environment={"MY_FLAG": "1", "HF_TOKEN": {"secret": True, "from_env": "HF_TOKEN"}},
        tags=[{"Key": "owner", "Value": "ana"}],
        base_job_name="my-run",
        tensorboard_output_config=TensorBoardOutputConfig(container_local_output_path="tb"),
        cluster="local",
        spot_simulation={"interruptions_per_hour": 30, "seed": 7},
        local_prices={"on_demand_per_hour": 1.0, "spot_per_hour": 0.3},
        output_path="s3://b/out",
        volume_size=50,
    )
    spec = est.job_spec(inputs={"train": "data"},
                        experiment_config={"ExperimentName": "e", "TrialName": "t"})
    code = str(workdir / "code")
    assert spec == {
        "name": "my-run",
        "entry_point": os.path.join(code, "train.py"),
        "source_dir": code,
        "hyperparameters": {"epochs": 2, "lr": 0.1, "optimizer": "adam", "amp": True},
        "instance_type": "ml.c5.xlarge",
        "instance_count": 2,
        "cluster": "local",
        "distribution": {"torch_distributed": {"enabled": True},
                         "mpi": {"enabled": True, "processes_per_host": 2}},
        "inputs": {"train": str(workdir / "data")},
        "environment": {"MY_FLAG": "1", "HF_TOKEN": {"secret": True, "from_env": "HF_TOKEN"}},
        "metric_definitions": [{"Name": "train:loss", "Regex": "loss=([0-9.]+)"}],
        "use_spot_instances": True,
        "max_run": 600,
        "max_wait": 1200,
        "max_retry_attempts": 3,
        "spot_simulation": {"interruptions_per_hour": 30, "seed": 7},
        "local_prices": {"on_demand_per_hour": 1.0, "spot_per_hour": 0.3},
        "rules": [{"name": "LossNotDecreasing", "actions": ["StopTraining"]},
                  {"name": "ProfilerReport"}],
        "experiment_config": {"ExperimentName": "e", "TrialName": "t"},
        "tags": [{"Key": "owner", "Value": "ana"}],
        "checkpoint_local_path": str(workdir / "ckpt"),
        "debugger_hook_config": {"collection_configs": [{"name": "losses",
                                                         "parameters": {"save_interval": "1"}}]},
        "profiler_config": {"system_monitor_interval_millis": 1000,
                            "framework_profile_params": {"num_steps": 3}},
        "tensorboard_output_config": {"local_path": str(workdir / "tb")},
        "role": "arn:aws:iam::1:role/x",
        "framework_version": "2.1",
        "py_version": "py310",
        "output_path": "s3://b/out",
        "checkpoint_s3_uri": "s3://b/ckpt",
        "volume_size": 50,
    }


def test_defaults_give_a_minimal_spec(script):
    spec = PyTorch(entry_point="code/train.py").job_spec()
    assert spec == {"name": "train", "entry_point": str(script),
                    "source_dir": str(script.parent), "instance_count": 1}


def test_builtin_models_by_entry_point_or_image_uri(workdir):
    assert Estimator(entry_point="builtin:mlp").job_spec()["entry_point"] == "builtin:mlp"
    spec = Estimator(image_uri="builtin:fmnist-cnn", instance_type="local").job_spec()
    assert spec["entry_point"] == "builtin:fmnist-cnn" and spec["name"] == "fmnist-cnn"
    assert "instance_type" not in spec
    with pytest.raises(ValueError, match="image_uri: .* cannot run here"):
        Estimator(image_uri="123.dkr.ecr.us-east-1.amazonaws.com/x:1")


def test_argv_entry_points_run_in_the_current_directory(workdir):
    spec = Estimator(entry_point=["/usr/bin/python3", "-c", "print(1)"]).job_spec()
    assert spec["entry_point"] == ["/usr/bin/python3", "-c", "print(1)"]
    assert spec["source_dir"] == str(workdir)


def test_dropping_the_hook_and_disabling_the_profiler(script):
    spec = PyTorch(entry_point="code/train.py", debugger_hook_config=False,
                   disable_profiler=True).job_spec()
    assert spec["debugger_hook_config"] is False and spec["disable_profiler"] is True
    with pytest.raises(RuntimeError, match="profiler rules cannot run with the profiler disabled"):
        PyTorch(entry_point="code/train.py", disable_profiler=True,
                rules=[ProfilerRule.sagemaker(rule_configs.ProfilerReport())])


def test_rule_collections_join_the_hook(script):
    every5 = CollectionConfig("gradients", {"save_interval": "5"})
    rule = Rule.sagemaker(rule_configs.vanishing_gradient(), collections_to_save=[every5])
    spec = PyTorch(entry_point="code/train.py", rules=[rule]).job_spec()
    assert spec["debugger_hook_config"] == {
        "collection_configs": [{"name": "gradients", "parameters": {"save_interval": "5"}}]}
    clash = DebuggerHookConfig(collection_configs=[CollectionConfig("gradients",
                                                                    {"save_interval": "9"})])
    with pytest.raises(ValueError, match=r"rules\[0\].collections_to_save: collection 'gradients' "
                                         r"is configured differently"):
        PyTorch(entry_point="code/train.py", rules=[rule], debugger_hook_config=clash).job_spec()


def test_sagemaker_only_arguments_warn_once_per_name(script):
    with pytest.warns(IgnoredArgumentWarning) as first:
        PyTorch(entry_point="code/train.py", framework_version="2.1", py_version="py310",
                role="r", sagemaker_session=None, subnets=["s"], container_log_level=20)
    said = sorted(str(w.message).split(":")[0] for w in first)
    assert said == ["framework_version", "py_version", "subnets"]  # default log level: silent
    assert all(w.filename == __file__ for w in first)  # the warning points at the caller
    with warnings.catch_warnings(record=True) as second:
        warnings.simplefilter("always")
        PyTorch(entry_point="code/train.py", framework_version="2.2", py_version="py311")
    assert not [w for w in second if issubclass(w.category, IgnoredArgumentWarning)]


def test_unknown_arguments_are_type_errors_with_a_suggestion(script):
    with pytest.raises(TypeError, match="unexpected keyword argument 'instance_cont'; did you mean "
                                        "'instance_count'"):
        PyTorch(entry_point="code/train.py", instance_cont=2)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"instance_count": "two"},
         "instance_count: must be an integer between 1 and 256, got 'two'"),
        ({"instance_count": 0}, "instance_count: must be an integer between 1 and 256, got 0"),
        ({"hyperparameters": {"layers": [1, 2]}},
         r"hyperparameters.layers: must be a string, number or boolean, got \[1, 2\]"),
        ({"hyperparameters": {"lr": float("nan")}}, "hyperparameters.lr: must be a finite number"),
        ({"hyperparameters": {"bad name": 1}}, "hyperparameter names must be non-empty"),
        ({"max_retry_attempts": 31}, "max_retry_attempts: must be an integer between 1 and 30"),
        ({"max_run": -5}, "max_run: must be an integer >= 1, got -5"),
        ({"use_spot_instances": "yes"}, "use_spot_instances: must be true or false, got 'yes'"),
        ({"metric_definitions": [{"Name": "loss"}]}, r"metric_definitions\[0\]: must be a"),
        ({"environment": {"A": 1}}, "environment.A: must be a string"),
        ({"tags": [{"Value": "x"}]}, r"tags\[0\]: must be a"),
        ({"distribution": "ddp"}, "distribution: must be a dict"),
        ({"rules": ["LossNotDecreasing"]}, r"rules\[0\]: must be a Rule or a ProfilerRule"),
        ({"base_job_name": "bad name"}, "base_job_name: up to 38 letters"),
    ],
)
def test_errors_name_the_field(script, kwargs, message):
    with pytest.raises((ValueError, RuntimeError), match=message):
        PyTorch(entry_point="code/train.py", **kwargs)


def test_entry_point_is_required(workdir):
    with pytest.raises(ValueError, match="entry_point: required"):
        Estimator()


def test_set_hyperparameters_is_checked(script):
    est = PyTorch(entry_point="code/train.py", hyperparameters={"lr": 0.1})
    est.set_hyperparameters(epochs=3)
    assert est.hyperparameters() == {"lr": 0.1, "epochs": 3}
    with pytest.raises(ValueError, match="hyperparameters.bad: must be"):
        est.set_hyperparameters(bad=object())


def test_inputs_become_absolute_channels(workdir):
    (workdir / "d").mkdir()
    assert channels("d") == {"training": str(workdir / "d")}
    assert channels("file://" + str(workdir / "d")) == {"training": str(workdir / "d")}
    assert channels(TrainingInput("d")) == {"training": str(workdir / "d")}
    both = channels({"train": TrainingInput(str(workdir / "d")),
                     "test": FileSystemInput("fs-1", "EFS", "/srv/test")})
    assert both == {"train": str(workdir / "d"), "test": "/srv/test"}
    with pytest.raises(ValueError, match="inputs.train: s3://b/k is not on this machine"):
        channels({"train": "s3://b/k"})
    with pytest.raises(ValueError, match="inputs.training: must be a local path"):
        channels(42)


def test_training_input_options_warn_once(workdir):
    with pytest.warns(IgnoredArgumentWarning, match="TrainingInput\\(content_type=...\\)"):
        TrainingInput("d", content_type="text/csv")


def test_job_names_follow_sagemaker():
    name = _util.name_from_base("pytorch-training", now=1764144968.749)
    assert name == "pytorch-training-2025-11-26-08-16-08-749"
    assert len(_util.name_from_base("x" * 80)) == 63
    assert _util.check_job_name("my-job-1") == "my-job-1"
    for bad in ("-x", "x-", "a_b", "", "a" * 64):
        with pytest.raises(ValueError, match="job_name: 1 to 63 letters"):
            _util.check_job_name(bad)


def test_engine_messages_are_worded_in_python():
    assert _util.python_wording('hyperparameters.epochs: must be an integer >= 1, got "many"') == (
        "hyperparameters.epochs: must be an integer >= 1, got 'many'")
    assert _util.python_wording("x: must be true or false, got null") == (
        "x: must be true or false, got None")
    assert _util.python_wording("name: unknown key") == "name: unknown key"


def test_builtin_hyperparameters_are_checked_by_the_engine(cli_binary, studio_home, workdir):
    est = Estimator(entry_point="builtin:mlp", hyperparameters={"epochs": "many", "lr": -1})
    with pytest.raises(ValueError) as caught:
        est.fit(wait=False)
    lines = str(caught.value).splitlines()
    # The engine's own messages (it also says the trainer's upper bound), in Python's wording.
    epochs = [line for line in lines if line.startswith("hyperparameters.epochs: ")]
    assert epochs and epochs[0].startswith("hyperparameters.epochs: must be an integer >= 1")
    assert epochs[0].endswith(", got 'many'")
    assert any(line.startswith("hyperparameters.lr: must be a number > 0") for line in lines)
    assert len(lines) == 2
    # Nothing ran: the spec was refused before mlstudio run.
    from mlstudio import _cli

    assert _cli.cli_json("list", "jobs", "--json") == []
    assert os.listdir(os.path.join(studio_home, "sdk", "specs"))


def test_the_spec_file_is_private(cli_binary, studio_home, workdir):
    est = Estimator(entry_point="builtin:mlp", hyperparameters={"epochs": "many"})
    with pytest.raises(ValueError):
        est.fit(wait=False, job_name="private-spec")
    path = os.path.join(studio_home, "sdk", "specs", "private-spec.json")
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"


def test_fit_refuses_a_bad_job_name(workdir):
    with pytest.raises(ValueError, match="job_name: 1 to 63 letters"):
        Estimator(entry_point="builtin:mlp").fit(job_name="bad_name")


def test_the_engine_accepts_custom_and_builtin_rules(cli_binary, studio_home, script, workdir):
    from mlstudio import _spec

    (workdir / "rules.py").write_text("class WatchLoss:\n    pass\n")
    est = PyTorch(
        entry_point="code/train.py",
        rules=[Rule.custom(name="watch-loss", source="rules.py", rule_to_invoke="WatchLoss",
                           rule_parameters={"patience": 3},
                           collections_to_save=[CollectionConfig("losses",
                                                                 {"save_interval": "1"})]),
               Rule.sagemaker(rule_configs.overfit(), rule_parameters={"patience": "2"})],
    )
    path = _util.write_private_json(str(workdir / "spec.json"), est.job_spec())
    _spec.validate_spec_file(path)  # raises ValueError with the engine's messages otherwise
    est.rules[0].rule_to_invoke = "not valid"
    _util.write_private_json(path, est.job_spec())
    with pytest.raises(ValueError, match=r"rules\[0\].rule_to_invoke: must be a Python class "
                                         r"name, got 'not valid'"):
        _spec.validate_spec_file(path)

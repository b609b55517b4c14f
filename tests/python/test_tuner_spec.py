"""HyperparameterTuner: ranges, strategies and limits as the tuning spec's keys (TUNING.md),
SageMaker's request forms, and errors that name the field."""

import pytest

from mlstudio.estimator import Estimator
from mlstudio.parameter import CategoricalParameter, ContinuousParameter, IntegerParameter
from mlstudio.tuner import (
    HyperbandStrategyConfig,
    HyperparameterTuner,
    StrategyConfig,
    TuningJobCompletionCriteriaConfig,
    WarmStartConfig,
    WarmStartTypes,
    tuning_card,
)


@pytest.fixture
def estimator(workdir):
    return Estimator(entry_point="builtin:mlp", hyperparameters={"epochs": 2, "lr": 0.05},
                     metric_definitions=[{"Name": "a", "Regex": "a=([0-9.]+)"}])


def test_ranges_request_and_spec_forms():
    lr = ContinuousParameter(0.001, 0.1, scaling_type="Logarithmic")
    assert lr.as_tuning_range("lr") == {"Name": "lr", "MinValue": "0.001", "MaxValue": "0.1",
                                        "ScalingType": "Logarithmic"}
    assert lr.to_spec() == {"type": "Continuous", "min_value": 0.001, "max_value": 0.1,
                            "scaling_type": "Logarithmic"}
    assert IntegerParameter(16, 256).to_spec() == {"type": "Integer", "min_value": 16,
                                                   "max_value": 256, "scaling_type": "Auto"}
    opt = CategoricalParameter(["sgd", "adam", 3, True])
    assert opt.to_spec() == {"type": "Categorical", "values": ["sgd", "adam", 3, True]}
    assert opt.as_tuning_range("optimizer") == {"Name": "optimizer",
                                                "Values": ["sgd", "adam", "3", "True"]}
    assert opt.as_json_range("o")["Values"][0] == '"sgd"'
    assert CategoricalParameter("only").values == ["only"]


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: ContinuousParameter(1, 0.5), r"max_value\): must be greater than min_value"),
        (lambda: IntegerParameter(1.5, 4), r"IntegerParameter\(min_value\): must be an integer"),
        (lambda: ContinuousParameter(0, 1, "Log"), r"scaling_type\): must be one of Auto"),
        (lambda: CategoricalParameter([]), r"values\): must be a list of 1 to 30 values"),
        (lambda: CategoricalParameter([[1]]), "strings, numbers or booleans"),
    ],
)
def test_range_errors(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_tuning_spec_has_every_key(estimator):
    tuner = HyperparameterTuner(
        estimator,
        "eval:accuracy",
        {"lr": ContinuousParameter(0.001, 0.1, "Logarithmic"),
         "optimizer": CategoricalParameter(["sgd", "adam"])},
        metric_definitions=[{"Name": "b", "Regex": "b=([0-9.]+)"},
                            {"Name": "a", "Regex": "other"}],
        strategy="Hyperband",
        objective_type="Minimize",
        max_jobs=6,
        max_parallel_jobs=2,
        max_runtime_in_seconds=600,
        tags=[{"Key": "k", "Value": "v"}],
        base_tuning_job_name="mlp-search",
        warm_start_config=WarmStartConfig(WarmStartTypes.TRANSFER_LEARNING, {"p2", "p1"}),
        strategy_config=StrategyConfig(HyperbandStrategyConfig(max_resource=9, min_resource=1)),
        completion_criteria_config=TuningJobCompletionCriteriaConfig(
            target_objective_metric_value=0.9, max_number_training_jobs_not_improving=5),
        early_stopping_type="Off",
        random_seed=7,
        hyperparameters_to_keep_static=["epochs"],
    )
    spec = tuner.tuning_spec(inputs=None)
    assert spec["tuning"] == {
        "objective_metric_name": "eval:accuracy",
        "objective_type": "Minimize",
        "hyperparameter_ranges": {
            "lr": {"type": "Continuous", "min_value": 0.001, "max_value": 0.1,
                   "scaling_type": "Logarithmic"},
            "optimizer": {"type": "Categorical", "values": ["sgd", "adam"]},
        },
        "strategy": "Hyperband",
        "max_parallel_jobs": 2,
        "early_stopping_type": "Off",
        "max_jobs": 6,
        "name": "mlp-search",
        "max_runtime_in_seconds": 600,
        "random_seed": 7,
        "warm_start_config": {"parents": ["p1", "p2"], "type": "TransferLearning"},
        "strategy_config": {"hyperband": {"min_resource": 1, "max_resource": 9}},
        "completion_criteria": {"max_number_training_jobs_not_improving": 5,
                                "target_objective_metric_value": 0.9},
        "hyperparameters_to_keep_static": ["epochs"],
    }
    training = spec["training"]
    assert training["entry_point"] == "builtin:mlp"
    # The estimator's definition of "a" wins; the tuner's new "b" is added.
    assert training["metric_definitions"] == [{"Name": "a", "Regex": "a=([0-9.]+)"},
                                              {"Name": "b", "Regex": "b=([0-9.]+)"}]
    assert training["tags"] == [{"Key": "k", "Value": "v"}]
    assert tuner.hyperparameter_ranges()["CategoricalParameterRanges"] == [
        {"Name": "optimizer", "Values": ["sgd", "adam"]}]


def test_max_jobs_defaults_as_sagemaker(estimator):
    ranges = {"lr": ContinuousParameter(0.01, 0.1)}
    assert HyperparameterTuner(estimator, "m", ranges).tuning_spec()["tuning"]["max_jobs"] == 1
    grid = HyperparameterTuner(estimator, "m", {"o": CategoricalParameter(["a", "b"])},
                               strategy="Grid")
    assert "max_jobs" not in grid.tuning_spec()["tuning"]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"strategy": "Genetic"}, "tuning.strategy: must be one of Bayesian"),
        ({"objective_type": "Max"}, "tuning.objective_type: must be"),
        ({"max_jobs": 0}, "tuning.max_jobs: must be an integer between 1 and 500, got 0"),
        ({"max_parallel_jobs": 101},
         "tuning.max_parallel_jobs: must be an integer between 1 and 100"),
        ({"early_stopping_type": "On"}, "tuning.early_stopping_type"),
        ({"base_tuning_job_name": "x" * 33}, "base_tuning_job_name: up to 32"),
        ({"autotune": True}, "autotune: not available"),
    ],
)
def test_tuner_errors_name_the_field(estimator, kwargs, message):
    with pytest.raises(ValueError, match=message):
        HyperparameterTuner(estimator, "m", {"lr": ContinuousParameter(0.01, 0.1)}, **kwargs)


def test_ranges_must_be_parameter_objects(estimator):
    with pytest.raises(ValueError, match="tuning.hyperparameter_ranges.lr: must be a Continuous"):
        HyperparameterTuner(estimator, "m", {"lr": (0.01, 0.1)})


def test_warm_start_config():
    w = WarmStartConfig("IdenticalDataAndAlgorithm", parents=["a"])
    assert w.type is WarmStartTypes.IDENTICAL_DATA_AND_ALGORITHM
    assert w.to_input_req() == {"WarmStartType": "IdenticalDataAndAlgorithm",
                                "ParentHyperParameterTuningJobs": [
                                    {"HyperParameterTuningJobName": "a"}]}
    with pytest.raises(ValueError, match="warm_start_config.parents: must be a non-empty set"):
        WarmStartConfig(WarmStartTypes.TRANSFER_LEARNING, set())
    with pytest.raises(ValueError, match="warm_start_config.type"):
        WarmStartConfig("Sideways", {"a"})


def test_warm_start_tuners_name_the_latest_job_as_parent(estimator):
    from mlstudio.tuner import _TuningJob

    tuner = HyperparameterTuner(estimator, "m", {"lr": ContinuousParameter(0.01, 0.1)})
    with pytest.raises(ValueError, match="No tuning job available"):
        tuner.transfer_learning_tuner()
    tuner.latest_tuning_job = _TuningJob("parent-1")
    child = tuner.identical_dataset_and_algorithm_tuner(additional_parents={"parent-0"})
    assert child.tuning_spec()["tuning"]["warm_start_config"] == {
        "parents": ["parent-0", "parent-1"], "type": "IdenticalDataAndAlgorithm"}


def test_tuning_card_from_describe():
    describe = {
        "HyperParameterTuningJobName": "t-1",
        "HyperParameterTuningJobStatus": "InProgress",
        "HyperParameterTuningJobConfig": {
            "HyperParameterTuningJobObjective": {"Type": "Maximize", "MetricName": "acc"},
            "ResourceLimits": {"MaxNumberOfTrainingJobs": 4},
        },
        "TrainingJobStatusCounters": {"Completed": 1, "InProgress": 1, "Stopped": 1,
                                      "NonRetryableError": 0},
        "BestTrainingJob": {"TrainingJobName": "j1",
                            "FinalHyperParameterTuningJobObjectiveMetric": {"Value": 0.8}},
        "TrainingJobSummaries": [
            {"TrainingJobName": "j1", "TrainingJobStatus": "Completed", "FinalObjectiveValue": 0.8},
            {"TrainingJobName": "j2", "TrainingJobStatus": "Stopped", "FinalObjectiveValue": 0.2,
             "StoppedEarly": True},
        ],
    }
    assert tuning_card(describe) == {
        "tuning": "t-1", "status": "InProgress", "max_jobs": 4, "done": 2, "best_job": "j1",
        "best_objective": 0.8, "objective": {"name": "acc", "type": "Maximize"},
        "jobs": [{"job": "j1", "objective": 0.8, "status": "Completed", "stopped_early": False},
                 {"job": "j2", "objective": 0.2, "status": "Stopped", "stopped_early": True}],
    }

"""DescribeTrainingJob from `mlstudio show --json` and the stored spec, the job card and its
HTML twin, and SageMaker's ending of a wait (UnexpectedStatusException)."""

import datetime
import json
import logging

import pytest

from mlstudio import _display
from mlstudio._describe import describe_from_show
from mlstudio._job import card_of, check_status, logs_mode
from mlstudio.exceptions import CapacityError, UnexpectedStatusException

T0 = 1764144968.0


def utc(t):
    return datetime.datetime.fromtimestamp(t, tz=datetime.timezone.utc)


@pytest.fixture
def job_dir(tmp_path):
    folder = tmp_path / "jobs" / "train-1"
    (folder / "logs").mkdir(parents=True)
    spec = {
        "name": "train",
        "entry_point": "/code/train.py",
        "hyperparameters": {"lr": 0.1, "opt": "adam"},
        "instance_type": "ml.g5.xlarge",
        "inputs": {"train": "/data/train"},
        "metric_definitions": [{"Name": "train:loss", "Regex": "loss=([0-9.]+)"}],
        "use_spot_instances": True,
        "max_run": 600,
        "max_wait": 900,
        "max_retry_attempts": 2,
        "environment": {"A": "1", "TOKEN": {"secret": True, "from_env": "TOKEN"}},
        "rules": [{"name": "LossNotDecreasing", "parameters": {"num_steps": "5"}}],
        "profiler_config": {"system_monitor_interval_millis": 200},
        "tensorboard_output_config": {"local_path": "/tb"},
    }
    (folder / "spec.json").write_text(json.dumps(spec))
    return folder


def show_of(job_dir, **changes):
    show = {
        "name": "train-1", "display_name": "train-1", "experiment": "exp", "trial": "tr",
        "status": "Completed", "secondary_status": "Completed",
        "status_transitions": [
            {"status": "InProgress", "secondary_status": "Starting", "start_time": T0,
             "end_time": T0 + 1, "message": "Launching"},
            {"status": "InProgress", "secondary_status": "Training", "start_time": T0 + 1,
             "end_time": T0 + 9, "message": ""},
            {"status": "Completed", "secondary_status": "Completed", "start_time": T0 + 9,
             "end_time": None, "message": ""},
        ],
        "metrics": {"train:loss": {"min": 0.2, "max": 0.9, "avg": 0.5, "std": 0.1, "last": 0.25,
                                   "count": 8},
                    "empty": {"count": 0, "last": None}},
        "created": T0, "started": T0 + 1, "ended": T0 + 10,
        "instance_type": "ml.g5.xlarge", "instance_count": 2, "job_dir": str(job_dir),
        "failure_reason": "",
        "rules": [
            {"rule": "LossNotDecreasing", "kind": "model", "status": "NoIssuesFound",
             "message": "", "updated": T0 + 10},
            {"rule": "CPUBottleneck", "kind": "profiler", "status": "NotApplicable",
             "message": "no GPU", "updated": T0 + 10},
        ],
        "billing": {"training_time_s": 9.4, "billable_time_s": 3.1, "attempts": 1},
    }
    show.update(changes)
    return show


def test_describe_maps_sagemakers_keys(job_dir):
    d = describe_from_show(show_of(job_dir))
    assert d["TrainingJobName"] == "train-1"
    assert d["TrainingJobArn"].endswith(":training-job/train-1")
    assert d["TrainingJobStatus"] == "Completed" and d["SecondaryStatus"] == "Completed"
    assert "FailureReason" not in d
    assert d["SecondaryStatusTransitions"][0] == {
        "Status": "Starting", "StartTime": utc(T0), "EndTime": utc(T0 + 1),
        "StatusMessage": "Launching"}
    assert "EndTime" not in d["SecondaryStatusTransitions"][2]
    assert d["HyperParameters"] == {"lr": "0.1", "opt": "adam"}
    assert d["AlgorithmSpecification"]["TrainingImage"] == "/code/train.py"
    assert d["AlgorithmSpecification"]["MetricDefinitions"][0]["Name"] == "train:loss"
    assert d["InputDataConfig"][0]["ChannelName"] == "train"
    assert d["InputDataConfig"][0]["DataSource"]["S3DataSource"]["S3Uri"] == "file:///data/train"
    assert d["ResourceConfig"] == {"InstanceType": "ml.g5.xlarge", "InstanceCount": 2,
                                   "VolumeSizeInGB": 30}
    assert d["StoppingCondition"] == {"MaxRuntimeInSeconds": 600, "MaxWaitTimeInSeconds": 900}
    assert d["RetryStrategy"] == {"MaximumRetryAttempts": 2}
    assert d["CreationTime"] == utc(T0)
    assert d["TrainingStartTime"] == utc(T0 + 1) and d["TrainingEndTime"] == utc(T0 + 10)
    assert d["LastModifiedTime"] == utc(T0 + 10)
    assert d["TrainingTimeInSeconds"] == 9 and d["BillableTimeInSeconds"] == 3
    assert d["EnableManagedSpotTraining"] is True
    assert d["ModelArtifacts"]["S3ModelArtifacts"] == "file://" + str(job_dir / "model")
    assert d["FinalMetricDataList"] == [
        {"MetricName": "train:loss", "Value": 0.25, "Timestamp": utc(T0 + 10)}]
    assert d["Environment"] == {"A": "1"}  # secrets never appear
    assert d["DebugRuleConfigurations"][0]["RuleParameters"] == {
        "num_steps": "5", "rule_to_invoke": "LossNotDecreasing"}
    assert [s["RuleConfigurationName"] for s in d["DebugRuleEvaluationStatuses"]] == [
        "LossNotDecreasing"]
    assert d["ProfilerRuleEvaluationStatuses"][0]["RuleEvaluationStatus"] == "NotApplicable"
    assert d["ProfilerRuleEvaluationStatuses"][0]["StatusDetails"] == "no GPU"
    assert d["ProfilerConfig"]["ProfilingIntervalInMilliseconds"] == 200
    assert d["ProfilingStatus"] == "Enabled"
    assert d["TensorBoardOutputConfig"]["LocalPath"] == "/tb"
    assert d["ExperimentConfig"] == {"ExperimentName": "exp", "TrialName": "tr",
                                     "TrialComponentDisplayName": "train-1"}


def test_describe_of_a_running_or_failed_job(job_dir):
    running = describe_from_show(show_of(job_dir, status="InProgress", ended=None))
    assert "TrainingEndTime" not in running and "TrainingTimeInSeconds" not in running
    failed = describe_from_show(show_of(job_dir, status="Failed", failure_reason="rank 0 died"))
    assert failed["FailureReason"] == "rank 0 died"


def test_describe_survives_a_missing_job_folder(tmp_path):
    d = describe_from_show(show_of(tmp_path / "gone"))
    assert d["HyperParameters"] == {} and d["TrainingJobStatus"] == "Completed"


def test_card_takes_progress_from_rank_zeros_events(job_dir):
    log = job_dir / "logs" / "rank-0.log"
    log.write_text(
        "1764144969.1 stdout loss=0.9\n"
        '1764144969.2 events {"v":1,"kind":"status","state":"progress","step":10,"total":40}\n'
        '1764144969.3 events {"v":1,"kind":"metric","name":"train:loss","step":10,"value":0.5}\n'
        '1764144969.4 events {"v":1,"kind":"status","state":"progress","step":20,"total":40}\n'
        "1764144969.5 stdout not json: \"progress\"\n"
    )
    card = card_of(show_of(job_dir, status="InProgress", secondary_status="Training"))
    assert card == {
        "job": "train-1", "status": "InProgress", "secondary_status": "Training",
        "experiment": "exp", "trial": "tr", "metrics": {"train:loss": 0.25}, "step": 20,
        "total": 40, "failure_reason": "",
    }
    log.write_text("1764144969.1 stdout no events\n")
    assert card_of(show_of(job_dir))["step"] is None


def test_job_bundle_has_the_three_forms():
    card = {"job": "j<1>", "status": "Failed", "secondary_status": "Failed", "experiment": "e",
            "trial": "t", "metrics": {"loss": 0.123456789}, "step": 5, "total": 10,
            "failure_reason": "rank 0: <boom>"}
    bundle = _display.job_bundle(card)
    assert set(bundle) == {_display.JOB_MIME, "text/html", "text/plain"}
    assert bundle[_display.JOB_MIME] is card
    assert bundle["text/plain"] == "TrainingJob j<1>: Failed"
    html = bundle["text/html"]
    assert "j&lt;1&gt;" in html and "rank 0: &lt;boom&gt;" in html and "<boom>" not in html
    assert "0.123457" in html and "5 / 10" in html and "<script" not in html


def test_tuning_bundle_has_the_three_forms():
    card = {"tuning": "t", "status": "Completed", "max_jobs": 2, "done": 2, "best_job": "j",
            "best_objective": 0.5, "objective": {"name": "acc", "type": "Maximize"},
            "jobs": [{"job": "j", "objective": 0.5, "status": "Completed",
                      "stopped_early": False}]}
    bundle = _display.tuning_bundle(card)
    assert set(bundle) == {_display.TUNING_MIME, "text/html", "text/plain"}
    assert bundle["text/plain"] == (
        "HyperparameterTuningJob t: Completed (2 of 2 training jobs done)")
    assert "<code>j</code>" in bundle["text/html"]


def test_no_card_outside_a_kernel():
    live = _display.LiveCard(_display.job_bundle)
    assert not _display.in_kernel()
    assert live.update({"job": "j", "status": "InProgress"}) is False


def test_completed_returns_stopped_warns_failed_raises(caplog):
    check_status({"name": "j", "status": "Completed"})
    with caplog.at_level(logging.WARNING, logger="mlstudio"):
        check_status({"name": "j", "status": "Stopped", "failure_reason": "Stopped by user"})
    assert "Stopped by user" in caplog.text
    with pytest.raises(UnexpectedStatusException) as caught:
        check_status({"name": "j", "status": "Failed", "failure_reason": "rank 1 exited with 3"})
    assert isinstance(caught.value, ValueError)
    assert caught.value.actual_status == "Failed"
    assert caught.value.allowed_statuses == ["Completed", "Stopped"]
    assert str(caught.value).startswith(
        "Error for Training job j: Failed. Reason: rank 1 exited with 3.")
    with pytest.raises(CapacityError):
        check_status({"name": "j", "status": "Failed", "failure_reason": "CapacityError: none"})


def test_logs_modes():
    assert logs_mode(True) == "All" and logs_mode(False) == "None" and logs_mode(None) == "None"
    assert logs_mode("Rules") == "Rules"
    with pytest.raises(ValueError, match='logs: must be "All", "None"'):
        logs_mode("Some")

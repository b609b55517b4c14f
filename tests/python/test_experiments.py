"""mlstudio.experiments without the CLI: names as SageMaker forms them, the errors of a Run used
wrongly, load_run's order of lookup, and a Run inside a training job, which writes the events
protocol's metric, param and artifact lines to STUDIO_EVENTS_FD (a pipe here, as the launcher's)
and keeps files in SM_OUTPUT_DATA_DIR."""

import datetime
import json
import logging
import os
import pickle

import pytest

from mlstudio import _events, experiments
from mlstudio.experiments import Run, SortByType, SortOrderType, list_runs, load_run


def test_names_are_lower_cased_and_make_the_trial_component_name():
    run = Run(experiment_name="Fashion-MNIST", run_name="Baseline-1")
    assert run.experiment_name == "fashion-mnist"
    assert run.run_name == "baseline-1"
    assert run.run_group_name == "Default-Run-Group-fashion-mnist"
    assert run.trial_component_name == "fashion-mnist-baseline-1"
    assert run.experiment_config == {
        "ExperimentName": "fashion-mnist",
        "TrialName": "Default-Run-Group-fashion-mnist",
        "RunName": "fashion-mnist-baseline-1",
    }


def test_a_run_without_a_name_gets_a_unique_one():
    a = Run(experiment_name="e")
    assert a.run_name.startswith("mlstudio-run-")
    assert len(a.run_name) <= experiments.MAX_NAME_LEN


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"experiment_name": "my exp"}, "experiment_name: must be letters, digits and hyphens"),
        ({"experiment_name": "e", "run_name": "-r"}, "run_name: must be letters"),
        (
            {"experiment_name": "e", "run_name": "r" * 60},
            "The run_name (length: 60) must have length less than or equal to 59",
        ),
        ({"experiment_name": 3}, "experiment_name: must be a string, got 3"),
        ({"experiment_name": "e", "tags": [{"Key": "a"}]}, "tags[0]: must be"),
    ],
)
def test_bad_names_say_which_field(kwargs, message):
    with pytest.raises(ValueError) as error:
        Run(**kwargs)
    assert message in str(error.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda r: r.log_parameter("lr", 0.1),
        lambda r: r.log_parameters({"lr": 0.1}),
        lambda r: r.log_metric("loss", 1.0),
        lambda r: r.log_artifact("a", "b"),
        lambda r: r.log_confusion_matrix([0, 1], [0, 1]),
    ],
)
def test_logging_outside_the_with_block_is_refused(call):
    with pytest.raises(RuntimeError, match="inside the run's 'with' block"):
        call(Run(experiment_name="e", run_name="r"))


def test_a_run_is_not_pickled():
    with pytest.raises(NotImplementedError):
        pickle.dumps(Run(experiment_name="e", run_name="r"))


def test_load_run_needs_the_experiment_with_a_run_name():
    with pytest.raises(ValueError, match="experiment_name is missing when run_name is supplied"):
        load_run(run_name="r")


def test_load_run_without_a_run_context_or_a_job_fails(monkeypatch):
    monkeypatch.delenv("STUDIO_EVENTS_FD", raising=False)
    with pytest.raises(RuntimeError, match="Failed to load a Run object"):
        load_run()


def test_load_run_by_name_makes_a_run_to_load():
    run = load_run(run_name="R", experiment_name="E")
    assert run.trial_component_name == "e-r" and run._in_load


def test_list_runs_checks_its_sort_arguments_first():
    with pytest.raises(ValueError, match="sort_by: must be one of CreationTime, Name"):
        list_runs("e", sort_by="Size")
    with pytest.raises(ValueError, match="sort_order: must be one of Ascending, Descending"):
        list_runs("e", sort_order="Up")
    assert SortByType("Name") is SortByType.NAME and SortOrderType.ASCENDING.value == "Ascending"


@pytest.fixture
def job_env(monkeypatch, tmp_path):
    """This process as a rank of job "fmnist-7": events into a pipe, an output folder."""
    read_fd, write_fd = os.pipe()
    os.set_blocking(read_fd, False)
    monkeypatch.setenv("STUDIO_EVENTS_FD", str(write_fd))
    _events.reset()
    monkeypatch.setenv("SM_TRAINING_ENV", json.dumps({"job_name": "fmnist-7", "hosts": ["algo-1"]}))
    monkeypatch.setenv("SM_OUTPUT_DATA_DIR", str(tmp_path / "output"))

    def lines():
        data = b""
        while True:
            try:
                chunk = os.read(read_fd, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            data += chunk
        return [json.loads(line) for line in data.decode().splitlines()]

    yield lines, tmp_path / "output"
    _events.reset()
    os.close(read_fd)
    os.close(write_fd)


def test_inside_a_job_load_run_is_the_jobs_run_and_metrics_are_events(job_env, caplog):
    lines, _ = job_env
    run = load_run()
    assert run.trial_component_name == "fmnist-7"
    moment = datetime.datetime(2026, 11, 21, 12, 0, tzinfo=datetime.timezone.utc)
    with run:
        run.log_metric("eval:f1", 0.5)
        run.log_metric("eval:f1", 0.625)
        run.log_metric("eval:f1", 0.75, step=10)
        run.log_metric("eval:f1", 0.8)
        run.log_metric("lr", 0.01, timestamp=moment)
        with caplog.at_level(logging.WARNING, logger="mlstudio.experiments"):
            run.log_metric("eval:f1", float("nan"))
            run.log_parameter("lr", 0.1)
            run.log_parameter("momentum", 0.9)
    got = lines()  # the block's end flushed the rank's writer
    metrics = [e for e in got if e["kind"] == "metric"]
    assert [(e["name"], e["step"], e["value"], e["phase"]) for e in metrics] == [
        ("eval:f1", 0, 0.5, "train"),
        ("eval:f1", 1, 0.625, "train"),
        ("eval:f1", 10, 0.75, "train"),
        ("eval:f1", 11, 0.8, "train"),
        ("lr", 0, 0.01, "train"),
    ]
    assert all(e["v"] == 1 for e in got)
    assert metrics[-1]["t"] == moment.timestamp()
    params = [(e["name"], e["value"]) for e in got if e["kind"] == "param"]
    assert params == [("lr", 0.1), ("momentum", 0.9)]
    messages = [r.getMessage() for r in caplog.records]
    assert messages == ["Failed to log metric eval:f1. Received invalid value: nan."]


def test_inside_a_job_files_and_graphs_go_to_the_output_folder_as_artifacts(job_env, tmp_path):
    lines, output = job_env
    source = tmp_path / "notes.txt"
    source.write_text("kept")
    with load_run() as run:
        run.log_file(str(source))
        run.log_file(str(source), name="inputs", is_output=False)
        run.log_confusion_matrix(["cat", "dog", "dog"], ["cat", "cat", "dog"], title="pets")
        run.log_artifact("dataset", "s3://bucket/fmnist", media_type="s3/uri", is_output=False)
    artifacts = [
        (e["name"], e["value"], e.get("media_type"), e["type"])
        for e in lines()
        if e["kind"] == "artifact"
    ]
    assert artifacts == [
        ("notes.txt", str(output / "notes.txt"), "text/plain", "output"),
        ("inputs", str(output / "notes.txt"), "text/plain", "input"),
        ("pets", str(output / "pets.json"), "application/json", "output"),
        ("dataset", "s3://bucket/fmnist", "s3/uri", "input"),
    ]
    assert (output / "notes.txt").read_text() == "kept"
    graph = json.loads((output / "pets.json").read_text())
    assert graph["type"] == "ConfusionMatrix" and graph["confusionMatrix"] == [[1, 0], [1, 1]]
    assert graph["labels"] == ["cat", "dog"]


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda r: r.log_metric("loss", "high"), "log_metric(loss): value must be a number"),
        (
            lambda r: r.log_metric("loss", 1.0, step=1.5),
            "log_metric(loss): step must be an integer",
        ),
        (lambda r: r.log_metric("loss", 1.0, timestamp="now"), "timestamp: must be a datetime"),
        (lambda r: r.log_metric("", 1.0), "log_metric: name must be a non-empty string"),
        (
            lambda r: r.log_parameter("lr", [1]),
            "log_parameter(lr): value must be a str, int or float",
        ),
        (lambda r: r.log_parameters([1]), "log_parameters: parameters must be a dict"),
        (lambda r: r.log_file("/no/such/file"), "log_file: file_path: no file '/no/such/file'"),
        (lambda r: r.log_artifact("a", 3), "log_artifact(a): value must be a string"),
        (lambda r: r.log_roc_curve([0, 1], [0.5]), "y_true and y_score must have the same length"),
        (lambda r: r.log_precision_recall(["a", "b"], [0.1, 0.9]), "positive_label is not given"),
    ],
)
def test_bad_values_say_which_field(job_env, call, message):
    with load_run() as run:
        with pytest.raises(ValueError) as error:
            call(run)
    assert message in str(error.value)

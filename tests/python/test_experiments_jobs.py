"""mlstudio.experiments and mlstudio.analytics against the real CLI: a Run is a trial component
InProgress while its block runs (its metrics visible meanwhile), Completed or Failed after it,
Failed when its Python process is killed; it reopens and goes on counting steps; files, values
and graphs are kept with it; a run open in one process is refused to another; list_runs,
ExperimentAnalytics and TrainingJobAnalytics read it back; inside a script job, load_run()
logs to the job's own record; and HyperparameterTuningJobAnalytics reads a tuning job."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from mlstudio import _cli
from mlstudio.analytics import (
    ExperimentAnalytics,
    HyperparameterTuningJobAnalytics,
    TrainingJobAnalytics,
)
from mlstudio.exceptions import StudioCliError
from mlstudio.experiments import Run, list_runs, load_run
from mlstudio.parameter import CategoricalParameter, ContinuousParameter
from mlstudio.pytorch import PyTorch
from mlstudio.tuner import HyperparameterTuner

pytestmark = pytest.mark.integration


def wait_for(predicate, timeout=20.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    return predicate()


def job_row(name):
    for row in _cli.cli_json("list", "jobs", "--json"):
        if row["name"] == name:
            return row
    return None


def points(job, metric):
    done = _cli.cli_run("metrics", job, metric, "--json", check=False)
    return json.loads(done.stdout) if done.returncode == 0 else []


def test_a_run_is_live_while_open_and_completed_after(cli_binary, studio_home):
    with Run(experiment_name="Fmnist", run_name="baseline") as run:
        process = run._record._process
        row = job_row("fmnist-baseline")
        assert row["status"] == "InProgress"
        assert (row["experiment"], row["trial"]) == ("fmnist", "Default-Run-Group-fmnist")
        run.log_parameters({"lr": 0.1, "optimizer": "sgd", "layers": 3})
        for i in range(100):
            run.log_metric("train:loss", 1.0 / (i + 1))
        # Batched lines reach the store within about a second, with the run still open.
        assert wait_for(lambda: len(points("fmnist-baseline", "train:loss")) == 100)
        assert job_row("fmnist-baseline")["status"] == "InProgress"
    assert process.poll() == 0
    show = _cli.cli_json("show", "fmnist-baseline", "--json")
    assert show["status"] == "Completed" and show["ended"] >= show["started"]
    assert show["parameters"] == {"lr": 0.1, "optimizer": "sgd", "layers": 3}
    loss = show["metrics"]["train:loss"]
    assert (loss["count"], loss["min"], loss["max"], loss["last"]) == (100, 0.01, 1.0, 0.01)
    assert [p["step"] for p in points("fmnist-baseline", "train:loss")] == list(range(100))
    assert show["tags"] == {"sagemaker:trial-component-source": "run"}


def test_an_exception_fails_the_run_with_its_message(cli_binary, studio_home):
    with pytest.raises(ZeroDivisionError):
        with Run(experiment_name="fmnist", run_name="broken") as run:
            run.log_metric("loss", 2.0)
            1 / 0
    show = _cli.cli_json("show", "fmnist-broken", "--json")
    assert show["status"] == "Failed"
    assert show["failure_reason"] == "ZeroDivisionError: division by zero"
    assert show["metrics"]["loss"]["count"] == 1


def test_a_killed_python_process_leaves_its_run_failed(cli_binary, studio_home):
    script = textwrap.dedent("""
        import os, signal
        from mlstudio.experiments import Run
        run = Run(experiment_name="fmnist", run_name="doomed").__enter__()
        run.log_metric("loss", 1.0)
        run.close()
        print("open", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    done = subprocess.run(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, universal_newlines=True, timeout=60
    )
    assert done.returncode == -signal.SIGKILL and done.stdout == "open\n"
    row = wait_for(
        lambda: (job_row("fmnist-doomed") or {}).get("status") == "Failed"
        and job_row("fmnist-doomed")
    )
    assert row["failure_reason"] == "the process that opened the run exited before closing it"
    assert len(points("fmnist-doomed", "loss")) == 1


def test_a_reopened_run_goes_on_counting_steps(cli_binary, studio_home):
    for _ in range(2):
        with Run(experiment_name="fmnist", run_name="resumed") as run:
            assert job_row("fmnist-resumed")["status"] == "InProgress"
            for _ in range(3):
                run.log_metric("loss", 0.5)
    assert [p["step"] for p in points("fmnist-resumed", "loss")] == [0, 1, 2, 3, 4, 5]
    assert job_row("fmnist-resumed")["status"] == "Completed"


def test_files_values_and_graphs_are_kept_with_the_run(cli_binary, studio_home, tmp_path):
    data = tmp_path / "labels.csv"
    data.write_text("label\n0\n1\n")
    with Run(experiment_name="fmnist", run_name="artifacts") as run:
        run.log_file(str(data), is_output=False)
        run.log_artifact("model", "file:///models/cnn.pt", media_type="application/octet-stream")
        run.log_confusion_matrix([0, 1, 1, 2], [0, 1, 2, 2], title="test-confusion")
        run.log_roc_curve([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], title="test-roc")
        for i in range(27):  # with model and the two graphs: 30 outputs
            run.log_artifact("extra-{}".format(i), "v")
        with pytest.raises(ValueError, match="Cannot add more than 30 output_artifacts under run"):
            run.log_artifact("one-too-many", "v")
        run.log_artifact("model", "file:///models/cnn-2.pt")  # replacing one is allowed
    data.write_text("changed afterwards\n")
    artifacts = {
        a["name"]: a for a in _cli.cli_json("show", "fmnist-artifacts", "--json")["artifacts"]
    }
    kept = artifacts["labels.csv"]
    assert (kept["kind"], kept["media_type"]) == ("input", "text/csv")
    assert open(kept["value"]).read() == "label\n0\n1\n"
    assert artifacts["model"]["value"] == "file:///models/cnn-2.pt"
    graph = json.load(open(artifacts["test-confusion"]["value"]))
    assert graph == {
        "type": "ConfusionMatrix",
        "version": 0,
        "title": "test-confusion",
        "confusionMatrix": [[1, 0, 0], [0, 1, 1], [0, 0, 1]],
        "labels": [0, 1, 2],
    }
    roc = json.load(open(artifacts["test-roc"]["value"]))
    assert roc["areaUnderCurve"] == pytest.approx(0.75)
    assert artifacts["test-roc"]["media_type"] == "application/json"


def test_a_run_open_in_one_process_is_refused_to_another(cli_binary, studio_home):
    with Run(experiment_name="fmnist", run_name="busy") as run:
        run.log_metric("loss", 1.0)
        with pytest.raises(StudioCliError, match="run fmnist-busy is open in another process"):
            with load_run(run_name="busy", experiment_name="fmnist"):
                pass
        with load_run() as same:  # this process's own open run
            assert same is run
            same.log_metric("loss", 0.5)
        assert job_row("fmnist-busy")["status"] == "InProgress"
    assert job_row("fmnist-busy")["status"] == "Completed"


SCRIPT = """
from mlstudio.experiments import load_run
with load_run() as run:
    for step in range(4):
        run.log_metric("eval:f1", 0.5 + step / 10, step=step * 10)
print("logged", run.trial_component_name, flush=True)
"""


def test_runs_jobs_and_their_tables(cli_binary, studio_home, workdir, repo_root):
    (workdir / "train.py").write_text(SCRIPT)
    with Run(experiment_name="tables", run_name="a") as run:
        run.log_parameters({"lr": 0.1, "optimizer": "sgd"})
        run.log_metric("loss", 0.4)
        run.log_metric("loss", 0.2)
        # fit() inside the block puts the job in the run's experiment and trial.
        PyTorch(
            entry_point="train.py",
            environment={"PYTHONPATH": os.path.join(repo_root, "python")},
            instance_count=1,
        ).fit(job_name="tables-job", logs="None")
    with Run(experiment_name="tables", run_name="b") as run:
        run.log_parameter("lr", 0.01)
        run.log_metric("loss", 0.3)

    job = _cli.cli_json("show", "tables-job", "--json")
    assert (job["status"], job["experiment"], job["trial"]) == (
        "Completed",
        "tables",
        "Default-Run-Group-tables",
    )
    assert [(p["step"], p["value"]) for p in points("tables-job", "eval:f1")] == [
        (0, 0.5),
        (10, 0.6),
        (20, 0.7),
        (30, 0.8),
    ]

    assert [r.run_name for r in list_runs("tables")] == ["b", "a"]
    assert [r.run_name for r in list_runs("Tables", sort_by="Name", sort_order="Ascending")] == [
        "a",
        "b",
    ]
    assert list_runs("no-such-experiment") == []

    frame = ExperimentAnalytics(experiment_name="tables").dataframe()
    assert list(frame["TrialComponentName"]) == ["tables-a", "tables-job", "tables-b"]
    assert list(frame.columns[:2]) == ["TrialComponentName", "DisplayName"]
    assert list(frame.columns[-2:]) == ["Trials", "Experiments"]
    by_name = frame.set_index("TrialComponentName")
    assert by_name.loc["tables-a", "loss - Avg"] == pytest.approx(0.3)
    assert by_name.loc["tables-a", "loss - Count"] == 2
    assert by_name.loc["tables-job", "eval:f1 - Max"] == pytest.approx(0.8)
    assert by_name.loc["tables-a", "Experiments"] == ["tables"]

    best = ExperimentAnalytics(
        experiment_name="tables",
        sort_by="Metrics.loss.Min",
        sort_order="Ascending",
        metric_names=["loss"],
        parameter_names=["lr"],
    ).dataframe()
    assert list(best["TrialComponentName"]) == ["tables-a", "tables-b", "tables-job"]
    assert "optimizer" not in best.columns and "eval:f1 - Max" not in best.columns
    searched = ExperimentAnalytics(
        search_expression={
            "Filters": [{"Name": "Parameters.lr", "Operator": "LessThan", "Value": "0.05"}]
        }
    ).dataframe()
    assert list(searched["TrialComponentName"]) == ["tables-b"]

    series = TrainingJobAnalytics("tables-job").dataframe()
    assert list(series.columns) == ["timestamp", "metric_name", "value"]
    f1 = series[series["metric_name"] == "eval:f1"]
    assert list(f1["value"]) == [0.5, 0.6, 0.7, 0.8] and f1["timestamp"].iloc[0] == 0
    assert len(TrainingJobAnalytics("tables-a", metric_names=["loss"]).dataframe()) == 2


TUNED = """
import argparse
p = argparse.ArgumentParser()
p.add_argument("--lr", type=float)
p.add_argument("--opt")
a, _ = p.parse_known_args()
print("loss=%.4f" % (a.lr * (2 if a.opt == "sgd" else 1)), flush=True)
"""


def test_a_tuning_jobs_table(cli_binary, studio_home, workdir):
    (workdir / "tuned.py").write_text(TUNED)
    estimator = PyTorch(
        entry_point="tuned.py",
        instance_count=1,
        metric_definitions=[{"Name": "loss", "Regex": "loss=([0-9.]+)"}],
    )
    HyperparameterTuner(
        estimator,
        "loss",
        {"lr": ContinuousParameter(0.01, 1.0), "opt": CategoricalParameter(["sgd", "adam"])},
        objective_type="Minimize",
        strategy="Random",
        max_jobs=2,
        max_parallel_jobs=2,
        random_seed=5,
    ).fit(job_name="h4-tune")
    analytics = HyperparameterTuningJobAnalytics("h4-tune")
    frame = analytics.dataframe()
    assert list(frame.columns[:7]) == [
        "lr",
        "opt",
        "TrainingJobName",
        "TrainingJobStatus",
        "FinalObjectiveValue",
        "TrainingStartTime",
        "TrainingEndTime",
    ]
    assert len(frame) == 2 and set(frame["TrainingJobStatus"]) == {"Completed"}
    for _, row in frame.iterrows():
        factor = 2 if row["opt"] == "sgd" else 1
        assert row["FinalObjectiveValue"] == pytest.approx(row["lr"] * factor, abs=1e-4)
        elapsed = (row["TrainingEndTime"] - row["TrainingStartTime"]).total_seconds()
        assert row["TrainingElapsedTimeSeconds"] == pytest.approx(elapsed, abs=1e-3)
        assert not row["StoppedEarly"]
    assert str(frame["TrainingStartTime"].dtype) == "datetime64[ns, UTC]"
    assert frame["StoppedEarly"].dtype == bool
    assert analytics.tuning_ranges["lr"] == {
        "Name": "lr",
        "MinValue": "0.01",
        "MaxValue": "1.0",
        "ScalingType": "Auto",
    }
    assert analytics.tuning_ranges["opt"]["Values"] == ["sgd", "adam"]
    assert len(analytics.training_job_summaries()) == 2
    with pytest.raises(ValueError, match="is a training job, not a tuning job"):
        HyperparameterTuningJobAnalytics(frame["TrainingJobName"][0]).description()
    with pytest.raises(ValueError, match="no tuning job named"):
        HyperparameterTuningJobAnalytics("no-such-tuning").dataframe()

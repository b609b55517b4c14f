"""The SDK against the real CLI: script and built-in jobs started by fit() are the studio's jobs
(in the store, in their own session, outliving Python), their logs streamed while waiting, a
failed job raising UnexpectedStatusException, attach, describe, stop, and a tiny tuning job."""

import json
import os
import subprocess
import sys
import time

import pytest

from mlstudio import _cli
from mlstudio.estimator import Estimator
from mlstudio.exceptions import UnexpectedStatusException
from mlstudio.parameter import ContinuousParameter
from mlstudio.pytorch import PyTorch
from mlstudio.tuner import HyperparameterTuner

pytestmark = pytest.mark.integration

SCRIPT = '''
import argparse, sys, time
p = argparse.ArgumentParser()
p.add_argument("--epochs", type=int, default=3)
p.add_argument("--sleep", type=float, default=0.05)
p.add_argument("--fail", type=int, default=0)
p.add_argument("--lr", type=float, default=0.1)
a, _ = p.parse_known_args()
for i in range(a.epochs):
    print("epoch %d loss=%.3f" % (i, a.lr / (i + 1)), flush=True)
    time.sleep(a.sleep)
if a.fail:
    print("boom", file=sys.stderr)
    sys.exit(a.fail)
'''
LOSS = [{"Name": "train:loss", "Regex": "loss=([0-9.]+)"}]


@pytest.fixture
def script(workdir):
    path = workdir / "train.py"
    path.write_text(SCRIPT)
    return path


def estimator(**kwargs):
    return PyTorch(entry_point="train.py", metric_definitions=LOSS, **kwargs)


def wait_for(predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def test_fit_streams_logs_and_the_job_is_the_studios(cli_binary, studio_home, script, capsys):
    est = estimator(hyperparameters={"epochs": 3}, instance_count=1,
                    distribution={"torch_distributed": {"enabled": True},
                                  "mpi": {"enabled": True, "processes_per_host": 2}})
    est.fit(job_name="sdk-fit-1")
    out = capsys.readouterr().out
    assert "[0,0]<stdout>:epoch 0 loss=0.100" in out
    assert "[0,1]<stdout>:epoch 2 loss=0.033" in out
    assert "<events>" not in out
    assert "Training seconds:" in out and "Billable seconds:" in out
    assert est.latest_training_job.name == "sdk-fit-1"
    d = est.latest_training_job.describe()
    assert d["TrainingJobStatus"] == "Completed"
    assert d["HyperParameters"] == {"epochs": "3"}
    assert d["FinalMetricDataList"][0]["MetricName"] == "train:loss"
    assert d["FinalMetricDataList"][0]["Value"] == pytest.approx(0.033)
    assert d["TrainingEndTime"] >= d["TrainingStartTime"]
    assert est.model_data == "file://" + os.path.join(studio_home, "jobs", "sdk-fit-1", "model")
    assert est.latest_job_debugger_artifacts_path().endswith("sdk-fit-1/debug-output")
    listed = [j["name"] for j in _cli.cli_json("list", "jobs", "--json")]
    assert listed == ["sdk-fit-1"]
    spec = os.path.join(studio_home, "sdk", "specs", "sdk-fit-1.json")
    assert oct(os.stat(spec).st_mode & 0o777) == "0o600"
    process = _cli.spawned_processes()[-1]
    assert process.wait(timeout=30) == 0
    est.latest_training_job.logs(wait=False)
    printed = capsys.readouterr().out.splitlines()
    assert "[0,1]<stdout>:epoch 1 loss=0.050" in printed
    assert not [line for line in printed if "<events>" in line]
    est.logs()  # an ended job: prints its lines and returns
    assert "[0,0]<stdout>:epoch 0 loss=0.100" in capsys.readouterr().out
    est.wait(logs="None")


def test_a_failed_job_raises_unexpected_status(cli_binary, studio_home, script, capsys):
    est = estimator(hyperparameters={"epochs": 1, "fail": 3})
    with pytest.raises(UnexpectedStatusException) as caught:
        est.fit(logs="None")
    assert caught.value.actual_status == "Failed"
    assert "exited with code 3" in str(caught.value)
    assert capsys.readouterr().out == ""  # logs="None" prints nothing
    assert est.latest_training_job.describe()["FailureReason"]


def test_a_taken_job_name_is_refused(cli_binary, studio_home, script):
    estimator(hyperparameters={"epochs": 1}).fit(job_name="sdk-twice", logs="None")
    with pytest.raises(ValueError, match="job_name: a job named 'sdk-twice' exists already"):
        estimator(hyperparameters={"epochs": 1}).fit(job_name="sdk-twice", logs="None")
    # The CLI refuses it too (a name taken between the check and the run).
    spec = os.path.join(studio_home, "sdk", "specs", "sdk-twice.json")
    refused = _cli.cli_run("run", spec, "--job-name", "sdk-twice", check=False)
    assert refused.returncode == 1 and '"sdk-twice" is taken' in refused.stderr


def test_jobs_outlive_python_and_attach_and_stop(cli_binary, studio_home, script, repo_root):
    code = (
        "from mlstudio.pytorch import PyTorch\n"
        "PyTorch(entry_point='train.py', hyperparameters={'epochs': 600, 'sleep': 0.1})"
        ".fit(job_name='sdk-outlives', wait=False)\n"
    )
    env = dict(os.environ, PYTHONPATH=os.path.join(repo_root, "python"))
    subprocess.run([sys.executable, "-c", code], check=True, env=env, timeout=60)
    # The Python process is gone; the job trains on in the studio.
    assert wait_for(lambda: _cli.cli_json("show", "sdk-outlives", "--json")["secondary_status"]
                    == "Training")
    runner = [p for p in os.popen("ps -eo pid,sid,args").read().splitlines()
              if "--job-name sdk-outlives" in p]
    assert runner, "mlstudio run is not running"
    pid, sid = runner[0].split()[:2]
    assert pid == sid  # its own session: an interrupted or restarted kernel does not reach it

    # Stop it through a handle of this process, then attach: attach waits for the end, as
    # SageMaker's does; a Stopped job only warns.
    from mlstudio._job import _TrainingJob

    _TrainingJob("sdk-outlives").stop()
    attached = PyTorch.attach("sdk-outlives")
    assert attached.latest_training_job.name == "sdk-outlives"
    assert attached.hyperparameters() == {"epochs": 600, "sleep": 0.1}
    assert attached.entry_point == str(script)
    assert attached.describe()["TrainingJobStatus"] == "Stopped"
    with pytest.raises(ValueError, match="has not been fit yet"):
        PyTorch(entry_point="train.py").model_data


def test_builtin_model_with_rules(cli_binary, studio_home, workdir):
    from mlstudio.debugger import Rule, rule_configs

    est = Estimator(
        entry_point="builtin:mlp",
        hyperparameters={"dataset": "synthetic", "max-steps": 30, "log-interval": 5,
                         "train-samples": 256, "eval-samples": 64},
        rules=[Rule.sagemaker(rule_configs.loss_not_decreasing(),
                              rule_parameters={"num_steps": "5"})],
    )
    est.fit(logs="Rules", job_name="sdk-builtin")
    summary = est.latest_training_job.rule_job_summary()
    names = [s["RuleConfigurationName"] for s in summary]
    assert "LossNotDecreasing" in names
    assert all(s["RuleEvaluationStatus"] != "InProgress" for s in summary)
    d = est.describe()
    assert {m["MetricName"] for m in d["FinalMetricDataList"]} >= {"train:loss"}
    assert os.path.isdir(est.latest_job_profiler_artifacts_path())


def test_a_tiny_tuning_job(cli_binary, studio_home, script):
    tuner = HyperparameterTuner(
        estimator(hyperparameters={"epochs": 2}),
        objective_metric_name="train:loss",
        objective_type="Minimize",
        hyperparameter_ranges={"lr": ContinuousParameter(0.01, 1.0)},
        strategy="Random",
        max_jobs=2,
        max_parallel_jobs=2,
        random_seed=3,
    )
    tuner.fit(job_name="sdk-tune")
    d = tuner.describe()
    assert d["HyperParameterTuningJobName"] == "sdk-tune"
    assert d["HyperParameterTuningJobStatus"] == "Completed"
    assert d["TrainingJobStatusCounters"]["Completed"] == 2
    assert len(d["TrainingJobSummaries"]) == 2
    assert all(j["TrainingJobName"].startswith("sdk-tune-00") for j in d["TrainingJobSummaries"])
    best = tuner.best_training_job()
    objectives = {j["TrainingJobName"]: j["FinalObjectiveValue"] for j in d["TrainingJobSummaries"]}
    assert objectives[best] == min(objectives.values())
    best_estimator = tuner.best_estimator()
    assert best_estimator.latest_training_job.name == best
    assert set(best_estimator.hyperparameters()) == {"epochs", "lr"}
    attached = HyperparameterTuner.attach(d["HyperParameterTuningJobName"])
    assert attached.hyperparameter_ranges()["ContinuousParameterRanges"][0]["Name"] == "lr"
    assert attached.best_training_job() == best
    frame = tuner.analytics().dataframe()
    assert len(frame) == 2 and "FinalObjectiveValue" in frame.columns


def test_fit_inside_a_run_records_its_experiment(cli_binary, studio_home, script):
    from mlstudio.experiments import Run

    with Run(experiment_name="sdk-exp", run_name="first") as run:
        estimator(hyperparameters={"epochs": 1}).fit(job_name="sdk-in-run", logs="None")
        config = run.experiment_config
    show = _cli.cli_json("show", "sdk-in-run", "--json")
    assert show["experiment"] == config["ExperimentName"] == "sdk-exp"


def run_cell(client, code, timeout=120):
    """Executes code in the kernel; its display_data, update_display_data and stream outputs."""
    msg_id = client.execute(code)
    shown, updates, streams = [], [], []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msg = client.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "display_data":
            shown.append(content)
        elif kind == "update_display_data":
            updates.append(content)
        elif kind == "stream":
            streams.append(content["text"])
        elif kind == "error":
            pytest.fail("\n".join(content["traceback"]))
        elif kind == "status" and content["execution_state"] == "idle":
            return shown, updates, "".join(streams)
    pytest.fail("the cell did not finish within {} s".format(timeout))


def test_live_cards_in_a_real_kernel(cli_binary, studio_home, script, repo_root):
    """The job and tuning cards are displayed with a display_id and updated in place while
    fit() waits, in a real ipykernel."""
    import jupyter_client  # Debian's python3-jupyter-client

    env = dict(os.environ, PYTHONPATH=os.path.join(repo_root, "python"))
    manager = jupyter_client.KernelManager(kernel_name="python3")
    manager.start_kernel(env=env, cwd=str(script.parent))
    client = manager.client()
    try:
        client.start_channels()
        client.wait_for_ready(timeout=60)
        code = ("from mlstudio.pytorch import PyTorch\n"
                "est = PyTorch(entry_point='train.py', metric_definitions=%r,\n"
                "              hyperparameters={'epochs': 8, 'sleep': 0.4})\n"
                "est.fit(job_name='sdk-card')\n" % LOSS)
        shown, updates, streams = run_cell(client, code)
        mime = "application/vnd.mlstudio.job.v1+json"
        assert len(shown) == 1 and mime in shown[0]["data"]
        display_id = shown[0]["transient"]["display_id"]
        assert updates and all(u["transient"]["display_id"] == display_id for u in updates)
        final = updates[-1]["data"]
        assert final[mime]["status"] == "Completed"
        assert final[mime]["metrics"]["train:loss"] == pytest.approx(0.1 / 8, abs=1e-3)
        assert final["text/plain"] == "TrainingJob sdk-card: Completed"
        assert "<table" in final["text/html"]
        assert "epoch 7 loss=" in streams

        code = ("from mlstudio.tuner import HyperparameterTuner, ContinuousParameter\n"
                "HyperparameterTuner(est, 'train:loss', {'lr': ContinuousParameter(0.01, 1.0)},\n"
                "    objective_type='Minimize', strategy='Random', max_jobs=2,\n"
                "    max_parallel_jobs=2).fit(job_name='sdk-card-tuning')\n")
        shown, updates, _ = run_cell(client, code)
        mime = "application/vnd.mlstudio.tuning.v1+json"
        assert len(shown) == 1 and mime in shown[0]["data"]
        final = (updates[-1] if updates else shown[0])["data"][mime]
        assert final["tuning"] == "sdk-card-tuning"
        assert final["status"] == "Completed" and final["done"] == 2 and final["max_jobs"] == 2
        assert final["best_job"] in [j["job"] for j in final["jobs"]]
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def test_spec_written_by_fit_is_the_stored_spec(cli_binary, studio_home, script):
    est = estimator(hyperparameters={"epochs": 1})
    est.fit(job_name="sdk-spec", logs="None")
    with open(os.path.join(studio_home, "jobs", "sdk-spec", "spec.json")) as f:
        stored = json.load(f)
    assert stored["entry_point"] == str(script)
    assert stored["hyperparameters"] == {"epochs": 1}

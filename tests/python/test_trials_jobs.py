"""mlstudio.debugger.trials over a real built-in job (fmnist-cnn, 12 steps, the Debugger's hook
saving losses, weights, raw gradients and ReLU outputs, the profiler sampling): what the trial
reads agrees with the job's own files (raw tensors NumPy loads; reductions LibTorch saved equal
NumPy's over the same raw tensors), and the profiler's DataFrames hold the job's samples, step
timings and framework events."""

import os
import signal
import subprocess
import tempfile

import numpy
import pytest

from mlstudio.debugger.trials import (
    ModeKeys,
    PandasFrame,
    StepUnavailable,
    TensorUnavailable,
    TensorUnavailableForStep,
    create_trial,
)

pytestmark = pytest.mark.integration

OVERRIDES = [
    "hyperparameters.max-steps=12",
    "hyperparameters.eval-interval=6",
    "hyperparameters.eval-samples=200",
    "distribution.mpi.processes_per_host=1",
    "debugger_hook_config.collection_configs[1].parameters.save_interval=5",
    "debugger_hook_config.collection_configs[2].parameters.save_interval=5",
    "debugger_hook_config.collection_configs[2].parameters.save_raw_tensor=true",
    "profiler_config.framework_profile_params.start_step=3",
    "profiler_config.framework_profile_params.num_steps=2",
]


@pytest.fixture(scope="module")
def job(cli_binary, repo_root):
    """The job's folder, run once for the module in a studio home of its own."""
    home = tempfile.mkdtemp(prefix="mls-")
    os.chmod(home, 0o700)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MLSTUDIO_HOME", home)
        patch.setenv("XDG_CONFIG_HOME", os.path.join(home, "config"))
        args = [
            cli_binary,
            "run",
            os.path.join(repo_root, "resources", "examples", "fmnist-debugger.json"),
            "-q",
        ]
        for o in OVERRIDES:
            args += ["--set", o]
        process = subprocess.Popen(
            args,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            universal_newlines=True,
            start_new_session=True,
        )
        try:
            output, _ = process.communicate(timeout=300)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        assert process.returncode == 0, output
        jobs = os.listdir(os.path.join(home, "jobs"))
        assert len(jobs) == 1, jobs
        yield os.path.join(home, "jobs", jobs[0])


def test_the_trial_lists_what_the_hook_saved(job):
    trial = create_trial(os.path.join(job, "debug-output"))
    assert trial.job_name == os.path.basename(job)
    assert {"losses", "weights", "gradients", "relu_output"} <= set(trial.collections())
    gradients = trial.tensor_names(collection="gradients")
    assert gradients and all(n.startswith("gradient/") for n in gradients)
    assert "gradient/fc2.fc.weight" in gradients
    assert trial.tensor_names(regex=r"relu_output$") == trial.tensor_names(collection="relu_output")
    assert trial.workers() == ["worker_0"]
    assert {0, 5, 10} <= set(trial.steps(mode=ModeKeys.TRAIN))
    assert trial.steps(mode=ModeKeys.EVAL)  # the evaluations' losses
    assert set(trial.steps()) == set(trial.steps(ModeKeys.TRAIN)) | set(trial.steps(ModeKeys.EVAL))


def test_raw_tensors_and_saved_reductions_agree(job):
    trial = create_trial(os.path.basename(job))
    grad = trial.tensor("gradient/fc2.fc.weight")
    assert grad.steps() == [0, 5, 10]
    for step in grad.steps():
        value = grad.value(step)
        assert value.dtype == numpy.float32 and value.shape == (10, 128) == grad.shape(step)
        # Saved by LibTorch in the trainer, computed here by NumPy from the raw file.
        assert grad.reduction_value(step, "mean", abs=True) == pytest.approx(
            numpy.abs(value).mean(), rel=1e-5
        )
        assert grad.reduction_value(step, "l2") == pytest.approx(
            numpy.linalg.norm(value.astype(numpy.float64)), rel=1e-5
        )
        assert grad.reduction_value(step, "max") == pytest.approx(value.max())
    assert ("mean", True) in grad.reduction_values(0) and ("l2", False) in grad.reduction_values(0)
    assert sorted(grad.values()) == [0, 5, 10]


def test_scalars_reductions_only_tensors_and_errors(job):
    trial = create_trial(job)
    loss = trial.tensor("loss")
    train_steps = loss.steps(mode=ModeKeys.TRAIN)
    assert train_steps[:3] == [0, 5, 10]
    assert 0 < float(loss.value(train_steps[0], mode=ModeKeys.TRAIN)) < 10
    eval_step = loss.steps(mode=ModeKeys.EVAL)[0]
    assert loss.value(eval_step, mode=ModeKeys.EVAL).shape == ()
    weight = trial.tensor(trial.tensor_names(collection="weights")[0])
    with pytest.raises(TensorUnavailableForStep) as error:
        weight.value(5)  # weights are saved as reductions only
    assert error.value.has_reductions
    assert weight.reduction_values(5)
    with pytest.raises(StepUnavailable):
        weight.value(3)
    with pytest.raises(TensorUnavailable):
        trial.tensor("gradient/no.such.weight")


def test_the_profilers_dataframes(job):
    trial = create_trial(job)
    system = trial.system_metrics()
    assert len(system) > 0 and system["timestamp_us"].min() == 0
    assert "CPUUtilization" in set(system["dimension"])
    assert system["timestamp_us"].is_monotonic_increasing
    steps = trial.step_timings()
    assert sorted(steps["step"]) == list(range(1, 13))
    assert (steps["total_ms"] > 0).all() and set(steps["rank"]) == {0}
    framework = PandasFrame(os.path.join(job, "profiler-output")).get_all_framework_metrics()
    assert len(framework) > 0 and set(framework["step"]) <= {3, 4}
    assert (framework["end_time_us"] >= framework["start_time_us"]).all()
    assert "forward" in set(framework["process"])

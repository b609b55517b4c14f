"""mlstudio.debugger.trials and the profiler's DataFrames over a job's data as the CLI gives it
(`tensors`, `samples`, `steps` JSON, stood in for here) and a debug-output folder of .npy files
with the hook's index: steps per mode and worker, values from raw tensors and saved scalars,
saved reductions under smdebug's names, reductions computed from raw tensors, and smdebug's
errors."""

import json

import numpy
import pytest

from mlstudio import _data_jobs
from mlstudio.debugger import trials
from mlstudio.debugger.trials import (
    InvalidWorker,
    ModeKeys,
    PandasFrame,
    ShapeUnavailableForStep,
    StepState,
    StepUnavailable,
    TensorUnavailable,
    TensorUnavailableForStep,
    create_trial,
    modes,
)

WEIGHT = numpy.arange(-6, 6, dtype=numpy.float32).reshape(3, 4) / 4


def tensors_json(debug_output, status="Completed"):
    def point(step, phase, rank, **reductions):
        return {"step": step, "phase": phase, "node": 0, "rank": rank, "reductions": reductions}

    return {
        "job": "fmnist-debugger-2026-11-21-10-00-00-000",
        "status": status,
        "debug_output": debug_output,
        "tensors": [
            {
                "name": "loss",
                "collections": ["losses"],
                "values": [
                    point(0, "train", 0, value=2.25),
                    point(5, "train", 0, value=1.5),
                    point(5, "eval", 0, value=1.75),
                    point(10, "train", 0, value="NaN"),
                ],
            },
            {
                "name": "fc1.fc.weight",
                "collections": ["weights"],
                "values": [
                    point(0, "train", 0, mean=-0.125, l2_norm=3.2, abs_mean=0.75),
                    point(0, "train", 1, mean=-0.125, l2_norm=3.2, abs_mean=0.75),
                    point(10, "train", 0, mean=0.5),
                ],
            },
        ],
    }


@pytest.fixture
def trial(tmp_path, monkeypatch):
    out = tmp_path / "jobs" / "fmnist-debugger-2026-11-21-10-00-00-000" / "debug-output"
    step0 = out / "tensors" / "step-000000000000" / "rank-0"
    step0.mkdir(parents=True)
    numpy.save(str(step0 / "fc1.fc.weight.npy"), WEIGHT)
    index = {
        "step": 0,
        "rank": 0,
        "collection": "weights",
        "tensor": "fc1.fc.weight",
        "file": "tensors/step-000000000000/rank-0/fc1.fc.weight.npy",
        "shape": [3, 4],
        "dtype": "float32",
    }
    (out / "index-rank-0.jsonl").write_text(json.dumps(index) + '\n{"step": 1, "ran')
    calls = []

    def fake_cli(*args, **kwargs):
        calls.append(args)
        return tensors_json(str(out))

    monkeypatch.setattr(trials, "cli_json", fake_cli)
    made = create_trial(str(out))
    made.calls = calls
    return made


def test_a_folder_names_its_job():
    assert _data_jobs.job_of("fmnist-cnn") == "fmnist-cnn"
    with pytest.raises(ValueError, match="S3 path"):
        _data_jobs.job_of("s3://bucket/debug-output")
    with pytest.raises(ValueError, match="no folder '/no/such/job/debug-output'"):
        _data_jobs.job_of("/no/such/job/debug-output")


def test_the_trial_reads_the_job_its_folder_names(trial):
    assert trial.calls == [("tensors", "fmnist-debugger-2026-11-21-10-00-00-000", "--json")]
    assert trial.name == trial.job_name == "fmnist-debugger-2026-11-21-10-00-00-000"


def test_names_steps_modes_workers_and_collections(trial):
    assert trial.tensor_names() == ["fc1.fc.weight", "loss"]
    assert trial.tensor_names(collection="losses") == ["loss"]
    assert trial.tensor_names(regex=r"\.weight$") == ["fc1.fc.weight"]
    assert trial.tensor_names(regex=["^loss", "^nothing"]) == ["loss"]
    assert trial.tensor_names(step=5) == ["loss"]
    assert trial.tensor_names(mode=modes.EVAL) == ["loss"]
    with pytest.raises(ValueError, match="Only one of `regex` or `collection`"):
        trial.tensor_names(regex="a", collection="losses")
    assert trial.steps() == [0, 5, 10]
    assert trial.steps(mode=ModeKeys.EVAL) == [5]
    assert trial.modes() == [ModeKeys.TRAIN, ModeKeys.EVAL]
    assert trial.mode(5) is ModeKeys.TRAIN and trial.mode_step(5) == 5
    assert trial.workers() == ["worker_0", "worker_1"]
    assert set(trial.collections()) == {"losses", "weights"}
    assert trial.collection("weights").tensor_names == {"fc1.fc.weight"}
    assert trial.has_passed_step(5) is StepState.AVAILABLE
    assert trial.has_passed_step(7) is StepState.UNAVAILABLE


def test_values_come_from_raw_tensors_and_saved_scalars(trial):
    weight = trial.tensor("fc1.fc.weight")
    numpy.testing.assert_array_equal(weight.value(0), WEIGHT)
    assert weight.shape(0) == (3, 4) and weight.steps() == [0, 10]
    assert set(weight.values()) == {0}
    loss = trial.tensor("loss")
    assert float(loss.value(5)) == 1.5
    assert float(loss.value(5, mode=modes.EVAL)) == 1.75
    assert numpy.isnan(loss.value(10)) and loss.shape(0) == ()
    assert sorted(loss.values(mode="eval")) == [5]


def test_reductions_saved_and_computed(trial):
    weight = trial.tensor("fc1.fc.weight")
    assert weight.reduction_value(0, "mean", abs=True) == pytest.approx(0.75)
    assert weight.reduction_value(0, "l2") == weight.reduction_value(0, "l2_norm") == 3.2
    assert weight.reduction_values(0) == {
        ("mean", False): -0.125,
        ("l2", False): 3.2,
        ("mean", True): 0.75,
    }
    # Not saved: computed from the raw tensor with numpy.
    assert weight.reduction_value(0, "max") == pytest.approx(WEIGHT.max())
    assert weight.reduction_value(0, "l1", abs=True) == pytest.approx(numpy.abs(WEIGHT).sum())
    assert weight.reduction_value(0, "std") == pytest.approx(WEIGHT.std())
    with pytest.raises(ValueError, match="reduction_name: 'median' was not saved"):
        weight.reduction_value(0, "median")


def test_smdebugs_errors(trial):
    with pytest.raises(TensorUnavailable, match="Tensor conv9.weight was not saved"):
        trial.tensor("conv9.weight")
    weight = trial.tensor("fc1.fc.weight")
    with pytest.raises(TensorUnavailableForStep) as error:
        weight.value(10)
    assert error.value.has_reductions and "query for the reductions" in str(error.value)
    with pytest.raises(TensorUnavailableForStep):
        weight.reduction_value(10, "max")
    with pytest.raises(StepUnavailable, match="Step 7 of mode GLOBAL is not available"):
        weight.value(7)
    with pytest.raises(ShapeUnavailableForStep):
        weight.shape(10)
    with pytest.raises(InvalidWorker, match="worker_9"):
        weight.value(0, worker="worker_9")
    with pytest.raises(ValueError, match="mode: must be one of"):
        trial.steps(mode="TEST")
    with pytest.raises(TypeError, match="unexpected keyword argument 'profiler_path'"):
        create_trial("job", profiler_path="x")


def test_range_steps_limits_the_trial(tmp_path, monkeypatch):
    monkeypatch.setattr(trials, "cli_json", lambda *a: tensors_json(str(tmp_path)))
    assert create_trial("job", range_steps=(1, 10)).steps() == [5]


SAMPLES = {
    "job": "j",
    "status": "Completed",
    "nodes": [{"node": 0, "host": "algo-1", "cores": 2, "gpus": 1}],
    "series": [
        {"node": 0, "device": "cpu", "metric": "util", "samples": [[100.0, 50.0], [100.5, 70.0]]},
        {"node": 0, "device": "gpu0", "metric": "mem", "samples": [[100.25, 10.0]]},
        {"node": 0, "device": "net", "metric": "rx", "samples": [[100.5, 1024.0]]},
    ],
}
STEPS = {
    "job": "j",
    "status": "Completed",
    "nodes": SAMPLES["nodes"],
    "steps": [
        {
            "node": 0,
            "rank": 0,
            "step": 1,
            "phase": "train",
            "time": 101.0,
            "data_ms": 1.0,
            "forward_ms": 2.0,
            "backward_ms": 3.0,
            "comm_ms": 0.5,
            "optimizer_ms": 0.5,
        }
    ],
    "events": [
        {
            "node": 0,
            "rank": 0,
            "step": 5,
            "phase": "train",
            "name": "conv1",
            "category": "forward",
            "start": 100.25,
            "duration_ms": 2.0,
            "pid": 42,
        },
        {
            "node": 0,
            "rank": 0,
            "step": 6,
            "phase": "train",
            "name": "step",
            "category": "step",
            "start": 100.75,
            "duration_ms": 10.0,
            "pid": 42,
        },
    ],
}


@pytest.fixture
def frame(monkeypatch):
    from mlstudio import _data_profiler

    monkeypatch.setattr(
        _data_profiler, "cli_json", lambda *a: SAMPLES if a[0] == "samples" else STEPS
    )
    return PandasFrame("j")


def test_system_metrics_have_smdebugs_columns(frame):
    system = frame.get_all_system_metrics()
    assert list(system.columns[:7]) == [
        "timestamp",
        "timestamp_us",
        "value",
        "system_metric",
        "dimension",
        "nodeID",
        "type",
    ]
    assert list(system["timestamp_us"]) == [0, 250000, 500000, 500000]
    assert system["timestamp"][0] == "1970-01-01T00:01:40:000000"
    assert list(system["dimension"]) == [
        "CPUUtilization",
        "GPUMemoryUtilization",
        "CPUUtilization",
        "rx",
    ]
    assert set(system["nodeID"]) == {"algo-1"} and list(system["type"])[1] == "gpu"
    assert len(frame.get_all_system_metrics(["GPUMemoryUtilization"])) == 1


def test_framework_metrics_and_step_timings(frame):
    events = frame.get_all_framework_metrics()
    assert list(events["framework_metric"]) == ["conv1", "step"]
    assert list(events["start_time_us"]) == [250000, 750000]
    assert list(events["end_time_us"]) == [252000, 760000]
    assert list(events["process"]) == ["forward", "step"]
    assert len(frame.get_all_framework_metrics(["forward"])) == 1
    system, framework = frame.get_profiler_data_by_step(6, 6)
    assert list(framework["step"]) == [6] and list(system["timestamp_us"]) == []
    system, framework = frame.get_profiler_data_by_time(100_200_000, 100_300_000)
    assert list(system["value"]) == [10.0] and list(framework["framework_metric"]) == ["conv1"]
    steps = frame.get_step_timings()
    assert steps.loc[0, "total_ms"] == 7.0 and steps.loc[0, "nodeID"] == "algo-1"

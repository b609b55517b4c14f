"""mlstudio.integrations with real transformers and lightning from pip (the wheel configuration's
venv: build-wheel/venv/bin/python -m pytest ...): StudioCallback, StudioLogger and
StudioDebuggerCallback on tiny models built from a config (callbacks/tiny_*.py), first with a
fake events fd (a pipe read by a thread, as the launcher's), checked against what the frameworks
themselves recorded (the Trainer's log_history, Lightning's CSVLogger, the checkpoint files'
bytes); then outside a job into a local run of the store, and as real studio script jobs run by
that venv's Python (metrics, hyperparameters and checkpoints read back with mlstudio show and
mlstudio metrics).
"""

import csv
import hashlib
import json
import os
import signal
import subprocess
import sys
import threading

import pytest

pytest.importorskip("transformers")
if pytest.importorskip("importlib.util").find_spec("lightning") is None:
    pytest.importorskip("pytorch_lightning")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "callbacks"))

import tiny_lightning  # noqa: E402
import tiny_transformers  # noqa: E402

from mlstudio import _cli, _events  # noqa: E402
from mlstudio.integrations import _sink  # noqa: E402
from mlstudio.integrations.lightning import StudioLogger, metric_phase, pl  # noqa: E402
from mlstudio.integrations.transformers import StudioCallback, metric_name  # noqa: E402


class EventPipe:
    """STUDIO_EVENTS_FD as a pipe whose lines a thread collects (the writer never blocks)."""

    def __init__(self):
        self.read_fd, self.write_fd = os.pipe()
        self._data = bytearray()
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self):
        while True:
            chunk = os.read(self.read_fd, 65536)
            if not chunk:
                return
            self._data += chunk

    def lines(self):
        """Every line written so far (the writer flushed first)."""
        assert _events.writer().flush(timeout=30)
        text = bytes(self._data).decode("utf-8")
        return [json.loads(line) for line in text.splitlines()]

    def close(self):
        os.close(self.write_fd)
        self._thread.join(timeout=10)
        os.close(self.read_fd)


@pytest.fixture
def events(monkeypatch):
    """This process as rank 0 of job "tiny-job"."""
    pipe = EventPipe()
    monkeypatch.setenv("STUDIO_EVENTS_FD", str(pipe.write_fd))
    monkeypatch.setenv("SM_TRAINING_ENV", json.dumps({"job_name": "tiny-job"}))
    monkeypatch.delenv("STUDIO_DEBUG_HOOK_CONFIG", raising=False)
    _events.reset()
    try:
        yield pipe
    finally:
        _events.reset()
        pipe.close()


def of_kind(lines, kind):
    return [line for line in lines if line["kind"] == kind]


def series(lines, name):
    return [(m["step"], m["value"]) for m in of_kind(lines, "metric") if m["name"] == name]


def folder_bytes(path):
    return sum(
        os.path.getsize(os.path.join(folder, n)) for folder, _, names in os.walk(path) for n in names
    )


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


@pytest.mark.parametrize(
    "key, name, phase",
    [
        ("loss", "train:loss", "train"),
        ("learning_rate", "train:learning_rate", "train"),
        ("train_runtime", "train:train_runtime", "train"),
        ("eval_loss", "eval:loss", "eval"),
        ("test_accuracy", "test:accuracy", "eval"),
    ],
)
def test_trainer_log_keys_are_named_as_the_studios_curves(key, name, phase):
    assert metric_name(key) == (name, phase)


@pytest.mark.parametrize(
    "name, phase",
    [("val_loss", "eval"), ("val/acc", "eval"), ("Validation-f1", "eval"), ("test_acc", "eval"),
     ("eval:loss", "eval"), ("value_head_loss", "train"), ("train_loss", "train"),
     ("epoch", "train"), ("testing", "train")],  # fmt: skip
)
def test_lightning_metric_phases(name, phase):
    assert metric_phase(name) == phase


def test_trainer_callback_sends_parameters_metrics_and_checkpoints(events, tmp_path):
    out = str(tmp_path / "out")
    trainer = tiny_transformers.build_trainer(out, [StudioCallback()])
    trainer.train()
    lines = events.lines()

    params = {p["name"]: p["value"] for p in of_kind(lines, "param")}
    assert params["learning_rate"] == 5e-3 and params["max_steps"] == 6
    assert params["per_device_train_batch_size"] == 8 and params["optim"].startswith("adamw")
    assert "report_to" not in params  # a list: not a scalar
    assert params["model.class"] == "GPT2LMHeadModel"
    assert (params["model.n_layer"], params["model.n_embd"], params["model.vocab_size"]) == (1, 32, 100)
    assert params["model.num_parameters"] == sum(p.numel() for p in trainer.model.parameters())
    assert all(isinstance(v, (str, int, float)) for v in params.values())

    # The Trainer's own record of what it logged is the oracle.
    history = trainer.state.log_history
    expected_loss = [(h["step"], pytest.approx(h["loss"])) for h in history if "loss" in h]
    expected_eval = [(h["step"], pytest.approx(h["eval_loss"])) for h in history if "eval_loss" in h]
    assert [s for s, _ in expected_loss] == [2, 4, 6] and [s for s, _ in expected_eval] == [3, 6]
    assert series(lines, "train:loss") == expected_loss
    assert series(lines, "eval:loss") == expected_eval
    assert [s for s, _ in series(lines, "train:learning_rate")] == [2, 4, 6]
    assert series(lines, "train:train_runtime")[0][0] == 6
    phases = {m["name"]: m["phase"] for m in of_kind(lines, "metric")}
    assert phases["eval:loss"] == "eval" and phases["eval:runtime"] == "eval"
    assert phases["train:loss"] == "train" and phases["train:epoch"] == "train"

    checkpoints = of_kind(lines, "checkpoint")
    assert [c["step"] for c in checkpoints] == [3, 6]
    for c in checkpoints:
        folder = os.path.join(out, "checkpoint-{}".format(c["step"]))
        assert c["path"] == folder
        assert c["sha256"] == sha256(os.path.join(folder, "model.safetensors"))
        assert c["bytes"] == folder_bytes(folder)
    assert not of_kind(lines, "tensor")  # no hook configuration, no hook


def test_lightning_logger_sends_hyperparameters_metrics_and_checkpoints(events, tmp_path):
    model = tiny_lightning.TinyRegressor(lr=0.05, optim={"momentum": 0.9, "nesterov": False})
    csv_logger = pl.loggers.CSVLogger(str(tmp_path / "csv"), name="oracle", version=0)
    studio = StudioLogger()
    trainer = tiny_lightning.build_trainer(str(tmp_path / "ckpt"), [studio, csv_logger])
    train, val = tiny_lightning.loaders()
    trainer.fit(model, train, val)
    studio.experiment.log_metric("custom:score", 2.5, step=1)
    lines = events.lines()

    assert (studio.name, studio.version) == ("tiny-job", 0)
    params = {p["name"]: p["value"] for p in of_kind(lines, "param")}
    assert params == {"lr": 0.05, "hidden": 8, "optim/momentum": 0.9, "optim/nesterov": "False"}

    # Lightning's CSVLogger got the same calls: its file is the oracle. (The epoch logged again
    # with the validation's metrics, at the same step with the same value, is sent once.)
    with open(os.path.join(tmp_path, "csv", "oracle", "version_0", "metrics.csv")) as f:
        rows = list(csv.DictReader(f))
    for name in ("train_loss", "val_loss", "epoch"):
        expected = []
        for r in rows:
            point = (int(r["step"]), float(r[name])) if r[name] else None
            if point is not None and (not expected or expected[-1] != point):
                expected.append(point)
        assert expected and series(lines, name) == [(s, pytest.approx(v)) for s, v in expected]
    phases = {m["name"]: m["phase"] for m in of_kind(lines, "metric")}
    assert (phases["train_loss"], phases["val_loss"], phases["epoch"]) == ("train", "eval", "train")
    assert series(lines, "custom:score") == [(1, 2.5)]

    folder = str(tmp_path / "ckpt")
    files = sorted(os.listdir(folder))
    assert files == ["epoch=0-step=4.ckpt", "epoch=0-step=8.ckpt", "last.ckpt"]
    checkpoints = of_kind(lines, "checkpoint")
    assert {os.path.basename(c["path"]) for c in checkpoints} == set(files)
    assert [c["step"] for c in checkpoints if c["path"].endswith("step=4.ckpt")] == [4]
    newest = {c["path"]: c for c in checkpoints}
    for name in files:
        c = newest[os.path.join(folder, name)]
        assert (c["sha256"], c["bytes"]) == (sha256(os.path.join(folder, name)),
                                             os.path.getsize(os.path.join(folder, name)))  # fmt: skip


def test_parameter_values_are_text_or_numbers():
    assert _sink.param_value(True) == "True" and _sink.param_value(3) == 3
    assert _sink.param_value(None) is None and _sink.param_value([1, 2]) == "[1, 2]"
    assert _sink.flatten({"a": {"b": 1, "c": {"d": 2}}, "e": {}}) == {"a/b": 1, "a/c/d": 2, "e": {}}
    assert _sink.scalar(True) is None and _sink.scalar(2) == 2.0
    torch = pytest.importorskip("torch")
    assert _sink.scalar(torch.tensor(1.5)) == 1.5 and _sink.scalar(torch.ones(2)) is None

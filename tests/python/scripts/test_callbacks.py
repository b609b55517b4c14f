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

    MARKER = b'{"kind":"read-so-far"}\n'

    def __init__(self):
        self.read_fd, self.write_fd = os.pipe()
        self._data = bytearray()
        self._markers = threading.Semaphore(0)
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self):
        while True:
            chunk = os.read(self.read_fd, 65536)
            if not chunk:
                return
            self._data += chunk
            for _ in range(chunk.count(self.MARKER)):
                self._markers.release()

    def lines(self):
        """Every line written so far: the writer flushes, then a marker written after its lines
        comes back through the pipe."""
        assert _events.writer().flush(timeout=30)
        os.write(self.write_fd, self.MARKER)
        assert self._markers.acquire(timeout=30)
        text = bytes(self._data).decode("utf-8")
        marker = self.MARKER.decode().strip()
        return [json.loads(line) for line in text.splitlines() if line != marker]

    def close(self):
        os.close(self.write_fd)
        self._thread.join(timeout=10)
        os.close(self.read_fd)


def forget_hook_and_profiler():
    """The process's hook and step profiler are made once per rank; each test is a new rank."""
    from mlstudio import profiler
    from mlstudio.debugger import pytorch as smd

    hook = smd.get_hook()
    if hook is not None:
        hook.close()
    smd.del_hook()
    if profiler.active() is not None:
        profiler.active().close()
        profiler._PROFILER = None


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
        forget_hook_and_profiler()
        _events.reset()
        pipe.close()


@pytest.fixture
def hook_config(monkeypatch, tmp_path):
    """Writes a hook configuration (the launcher's debughookconfig.json) and points
    STUDIO_DEBUG_HOOK_CONFIG at it."""

    def write(collections):
        path = tmp_path / "debughookconfig.json"
        config = {"enabled": True, "local_path": str(tmp_path / "debug-output"),
                  "collections": collections, "auto_attach": True}  # fmt: skip
        path.write_text(json.dumps(config))
        monkeypatch.setenv("STUDIO_DEBUG_HOOK_CONFIG", str(path))

    return write


def of_kind(lines, kind):
    return [line for line in lines if line["kind"] == kind]


def series(lines, name):
    return [(m["step"], m["value"]) for m in of_kind(lines, "metric") if m["name"] == name]


def folder_bytes(path):
    return sum(
        os.path.getsize(os.path.join(folder, n))
        for folder, _, names in os.walk(path)
        for n in names
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
    model_size = (params["model.n_layer"], params["model.n_embd"], params["model.vocab_size"])
    assert model_size == (1, 32, 100)
    assert params["model.num_parameters"] == sum(p.numel() for p in trainer.model.parameters())
    assert all(isinstance(v, (str, int, float)) for v in params.values())

    # The Trainer's own record of what it logged is the oracle.
    history = trainer.state.log_history
    expected_loss = [(h["step"], pytest.approx(h["loss"])) for h in history if "loss" in h]
    expected_eval = [
        (h["step"], pytest.approx(h["eval_loss"])) for h in history if "eval_loss" in h
    ]
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
    # The profiler's step timings, one event per optimizer step, numbered from 1.
    assert [e["step"] for e in of_kind(lines, "step")] == [1, 2, 3, 4, 5, 6]


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
        path = os.path.join(folder, name)
        assert (newest[path]["sha256"], newest[path]["bytes"]) == (
            sha256(path),
            os.path.getsize(path),
        )


HOOK_COLLECTIONS = [
    {"name": "losses", "save_interval": 1},
    {"name": "weights", "save_interval": 5},
    {"name": "gradients", "save_interval": 5},
]


def hook_tensors(lines, name):
    return {t["step"]: t["reductions"] for t in of_kind(lines, "tensor")
            if t["name"] == name and t["phase"] == "train"}  # fmt: skip


def test_trainer_callback_registers_the_model_with_the_jobs_hook(events, hook_config, tmp_path):
    hook_config(HOOK_COLLECTIONS)
    trainer = tiny_transformers.build_trainer(str(tmp_path / "out"), [StudioCallback()])
    trainer.train()
    lines = events.lines()

    # Hook steps count optimizer steps from 0; the Trainer's loss at global step 2 is the mean
    # of the hook's losses of steps 0 and 1.
    losses = hook_tensors(lines, "loss")
    assert sorted(losses) == [0, 1, 2, 3, 4, 5]
    for h in trainer.state.log_history:
        if "loss" in h:
            step = h["step"]
            mean = (losses[step - 2]["value"] + losses[step - 1]["value"]) / 2
            assert mean == pytest.approx(h["loss"], rel=1e-5)

    # Weights as the last optimizer step left them are the trained model's.
    name = "transformer.h.0.mlp.c_fc.weight"
    weights = hook_tensors(lines, name)
    assert sorted(weights) == [0, 5]
    final = dict(trainer.model.named_parameters())[name].detach()
    assert weights[5]["mean"] == pytest.approx(final.mean().item(), rel=1e-5)
    assert weights[5]["max"] == pytest.approx(final.max().item(), rel=1e-6)
    assert sorted(hook_tensors(lines, "gradient/" + name)) == [0, 5]

    # One step event per optimizer step, numbered from 1 as the built-in trainer's.
    assert [e["step"] for e in of_kind(lines, "step")] == [1, 2, 3, 4, 5, 6]
    assert all(e["forward"] > 0 and e["backward"] > 0 for e in of_kind(lines, "step"))


def test_lightning_callback_registers_the_module_with_the_jobs_hook(events, hook_config, tmp_path):
    hook_config([{"name": "losses", "save_interval": 1}, {"name": "weights", "save_interval": 7},
                 {"name": "gradients", "save_interval": 5}])  # fmt: skip
    model = tiny_lightning.TinyRegressor(lr=0.05)
    csv_logger = pl.loggers.CSVLogger(str(tmp_path / "csv"), name="oracle", version=0)
    trainer = tiny_lightning.build_trainer(str(tmp_path / "ckpt"), csv_logger)
    train, val = tiny_lightning.loaders()
    trainer.fit(model, train, val)
    lines = events.lines()

    # Lightning logs the loss of the batch that global step s + 1 trained on at step s: the
    # hook's loss of (0-based) step s.
    with open(os.path.join(tmp_path, "csv", "oracle", "version_0", "metrics.csv")) as f:
        rows = [r for r in csv.DictReader(f) if r["train_loss"]]
    logged = {int(r["step"]): float(r["train_loss"]) for r in rows}
    losses = hook_tensors(lines, "loss")
    assert sorted(losses) == list(range(8))
    assert logged
    assert {s: losses[s]["value"] for s in logged} == pytest.approx(logged, rel=1e-5)
    weights = hook_tensors(lines, "net.2.weight")
    assert sorted(weights) == [0, 7]
    final = model.net[2].weight.detach()
    assert weights[7]["mean"] == pytest.approx(final.mean().item(), rel=1e-5)
    assert sorted(hook_tensors(lines, "gradient/net.0.weight")) == [0, 5]
    assert [e["step"] for e in of_kind(lines, "step")] == list(range(1, 9))


@pytest.mark.parametrize(
    "argv0, experiment",
    [("/src/train_gpt2.py", "train-gpt2"), ("", "transformers"), ("-c", "transformers"),
     ("/usr/lib/python3/dist-packages/ipykernel_launcher.py", "transformers")],  # fmt: skip
)
def test_a_local_run_is_named_after_the_script(monkeypatch, argv0, experiment):
    monkeypatch.setattr(sys, "argv", [argv0])
    assert _sink.Sink(fallback="transformers").experiment_name == experiment
    assert _sink.Sink(experiment_name="mine").experiment_name == "mine"


def test_parameter_values_are_text_or_numbers():
    assert _sink.param_value(True) == "True" and _sink.param_value(3) == 3
    assert _sink.param_value(None) is None and _sink.param_value([1, 2]) == "[1, 2]"
    assert _sink.flatten({"a": {"b": 1, "c": {"d": 2}}, "e": {}}) == {"a/b": 1, "a/c/d": 2, "e": {}}
    assert _sink.scalar(True) is None and _sink.scalar(2) == 2.0
    torch = pytest.importorskip("torch")
    assert _sink.scalar(torch.tensor(1.5)) == 1.5 and _sink.scalar(torch.ones(2)) is None


# ---- outside a job: a local run of an experiment in the store ----


@pytest.fixture
def no_job(monkeypatch, cli_binary, studio_home):
    """This process outside any job, with a studio home of its own."""
    monkeypatch.delenv("STUDIO_EVENTS_FD", raising=False)
    monkeypatch.delenv("STUDIO_DEBUG_HOOK_CONFIG", raising=False)
    _events.reset()
    yield studio_home
    _events.reset()


def points(job, metric):
    return [(p["step"], p["value"]) for p in _cli.cli_json("metrics", job, metric, "--json")]


@pytest.mark.integration
def test_outside_a_job_the_trainer_callback_records_a_local_run(no_job, tmp_path):
    out = str(tmp_path / "out")
    callback = StudioCallback(experiment_name="tiny-hf", run_name="first")
    trainer = tiny_transformers.build_trainer(out, [callback])
    trainer.train()
    assert callback.run is None  # ended with the training

    show = _cli.cli_json("show", "tiny-hf-first", "--json")
    assert (show["status"], show["experiment"]) == ("Completed", "tiny-hf")
    assert show["parameters"]["learning_rate"] == 5e-3 and show["parameters"]["model.n_layer"] == 1
    history = trainer.state.log_history
    assert points("tiny-hf-first", "train:loss") == [
        (h["step"], pytest.approx(h["loss"])) for h in history if "loss" in h
    ]
    assert [s for s, _ in points("tiny-hf-first", "eval:loss")] == [3, 6]
    assert [(a["name"], a["value"]) for a in show["artifacts"]] == [
        ("checkpoint", "file://" + os.path.join(out, "checkpoint-6"))
    ]


@pytest.mark.integration
def test_outside_a_job_the_lightning_logger_records_a_local_run_until_finalize(no_job, tmp_path):
    model = tiny_lightning.TinyRegressor(lr=0.05)
    studio = StudioLogger(experiment_name="tiny-pl", run_name="first")
    trainer = tiny_lightning.build_trainer(str(tmp_path / "ckpt"), studio)
    train, val = tiny_lightning.loaders()
    trainer.fit(model, train, val)
    assert (studio.name, studio.version) == ("tiny-pl", "first")

    show = _cli.cli_json("show", "tiny-pl-first", "--json")
    assert show["status"] == "Completed"
    assert show["parameters"] == {"lr": 0.05, "hidden": 8, "optim": "None"}
    assert [s for s, _ in points("tiny-pl-first", "train_loss")] == [1, 3, 5, 7]
    assert [s for s, _ in points("tiny-pl-first", "val_loss")] == [7]
    assert [a["value"] for a in show["artifacts"]] == [
        "file://" + str(tmp_path / "ckpt" / "last.ckpt")
    ]

    # A later test() adds to the same run, loaded again.
    trainer.validate(model, val)
    assert show["metrics"]["val_loss"]["count"] == 1
    assert _cli.cli_json("show", "tiny-pl-first", "--json")["metrics"]["val_loss"]["count"] == 2


# ---- studio script jobs run by this venv's Python ----


def run_job(home, name, script, hyperparameters, **spec_keys):
    """Runs the script of callbacks/ as a studio job (the pytest venv's Python) to its end;
    returns `mlstudio show --json` of it."""
    spec = {
        "name": name,
        "entry_point": script,
        "source_dir": os.path.join(HERE, "callbacks"),
        "hyperparameters": hyperparameters,
        "instance_count": 1,
        **spec_keys,
    }
    path = os.path.join(home, name + ".json")
    with open(path, "w") as f:
        json.dump(spec, f)
    env = dict(os.environ, MLSTUDIO_HOME=home, MLSTUDIO_PYTHON=sys.executable)
    cli = os.environ["MLSTUDIO_CLI"]
    process = subprocess.Popen(
        [cli, "run", path, "-q", "--job-name", name],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
        start_new_session=True,
    )
    try:
        output, _ = process.communicate(timeout=240)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    logs = _cli.cli_run("logs", name, check=False).stdout
    assert process.returncode == 0, output + logs
    return _cli.cli_json("show", name, "--json")


def assert_checkpoints_are_the_files(show):
    """The newest record of each checkpoint path has the file's (or folder's) hash and size."""
    newest = {c["path"]: c for c in show["checkpoints"]}
    for c in newest.values():
        if os.path.isfile(c["path"]):
            assert (c["sha256"], c["bytes"]) == (sha256(c["path"]), os.path.getsize(c["path"]))
        else:
            weights = os.path.join(c["path"], "model.safetensors")
            assert (c["sha256"], c["bytes"]) == (sha256(weights), folder_bytes(c["path"]))


def tensor_steps(job, name):
    found = _cli.cli_json("tensors", job, "--name", name, "--json")["tensors"]
    return sorted(v["step"] for t in found for v in t["values"] if v["phase"] == "train")


@pytest.mark.integration
def test_a_trainer_script_job(no_job):
    hook = {
        "collection_configs": [
            {"name": "losses", "parameters": {"save_interval": "1"}},
            {"name": "weights", "parameters": {"save_interval": "5"}},
        ]
    }
    show = run_job(no_job, "tiny-hf-job", "tiny_transformers.py", {"max-steps": 6, "lr": 0.01},
                   debugger_hook_config=hook)  # fmt: skip
    assert show["status"] == "Completed"
    params = show["parameters"]
    assert params["learning_rate"] == 0.01 and params["max_steps"] == 6
    assert params["model.class"] == "GPT2LMHeadModel" and params["model.n_embd"] == 32
    assert [s for s, _ in points("tiny-hf-job", "train:loss")] == [2, 4, 6]
    assert [s for s, _ in points("tiny-hf-job", "eval:loss")] == [3, 6]
    assert show["metrics"]["train:learning_rate"]["count"] == 3
    assert [c["step"] for c in show["checkpoints"]] == [3, 6]
    assert_checkpoints_are_the_files(show)
    assert all(os.path.basename(c["path"]).startswith("checkpoint-") for c in show["checkpoints"])
    # The hook the callback registered the model with (the zero-change one retired: each step
    # saved once), and the profiler's steps.
    assert tensor_steps("tiny-hf-job", "loss") == [0, 1, 2, 3, 4, 5]
    assert tensor_steps("tiny-hf-job", "transformer.h.0.mlp.c_fc.weight") == [0, 5]
    steps = _cli.cli_json("steps", "tiny-hf-job", "--json")["steps"]
    assert [s["step"] for s in steps] == [1, 2, 3, 4, 5, 6]


@pytest.mark.integration
def test_a_lightning_script_job(no_job):
    show = run_job(no_job, "tiny-pl-job", "tiny_lightning.py", {"max-steps": 8})
    assert show["status"] == "Completed"
    params = show["parameters"]
    assert (params["lr"], params["hidden"], params["optim/momentum"]) == (0.05, 8, 0.9)
    assert [s for s, _ in points("tiny-pl-job", "train_loss")] == [1, 3, 5, 7]
    assert [s for s, _ in points("tiny-pl-job", "val_loss")] == [7]
    steps = sorted(c["step"] for c in show["checkpoints"])
    assert steps == [4, 4, 8, 8]  # step=N.ckpt and last.ckpt at each save
    assert_checkpoints_are_the_files(show)
    # No hook configuration: no tensors, but the profiler's step timings.
    steps = _cli.cli_json("steps", "tiny-pl-job", "--json")["steps"]
    assert [s["step"] for s in steps] == list(range(1, 9))

"""Logging from a script without a job: the rank's EventWriter over a real pipe (batched writes,
a full buffer's dropped points counted and reported, non-finite values in the codec's spelling,
a full pipe waited on, a forked child refused), mlstudio.log's steps and checks, the
provenance facts of a rank started with a pipe as its events fd, and mlstudio.log outside a job
writing a run of the script's own through the real CLI."""

import json
import os
import subprocess
import sys
import textwrap
import threading

import pytest

import mlstudio
from mlstudio import _cli, _events, _script_log


class Pipe:
    """A pipe whose read end a thread drains, as the launcher drains a rank's events fd."""

    def __init__(self, blocked=False):
        self.read_fd, self.write_fd = os.pipe()
        self.chunks = []
        self._open = threading.Event()
        if not blocked:
            self._open.set()
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self):
        self._open.wait()
        while True:
            chunk = os.read(self.read_fd, 1 << 20)
            if not chunk:
                return
            self.chunks.append(chunk)

    def open(self):
        self._open.set()

    def lines(self):
        """Every line written, once the write end is closed."""
        os.close(self.write_fd)
        self._open.set()
        self._thread.join(10)
        os.close(self.read_fd)
        return [json.loads(line) for line in b"".join(self.chunks).decode().splitlines()]


@pytest.fixture
def pipe():
    p = Pipe()
    yield p
    for fd in (p.read_fd, p.write_fd):
        try:
            os.close(fd)
        except OSError:
            pass


def test_points_go_out_in_batches_not_one_write_each(pipe, monkeypatch):
    writes = []
    real_write = os.write

    def counting_write(fd, data):
        if fd == pipe.write_fd:
            writes.append(len(data))
        return real_write(fd, data)

    monkeypatch.setattr(_events.os, "write", counting_write)
    writer = _events.EventWriter(pipe.write_fd)
    for i in range(20000):
        writer.metric("train:loss", 1.0 / (i + 1), i)
    assert writer.flush(timeout=30)
    writer._stop()
    lines = pipe.lines()
    assert [(e["kind"], e["name"], e["step"]) for e in lines[:2]] == [
        ("metric", "train:loss", 0),
        ("metric", "train:loss", 1),
    ]
    assert len(lines) == 20000 and lines[-1]["value"] == pytest.approx(1 / 20000)
    assert len(writes) <= 200, "{} writes for 20000 lines".format(len(writes))
    assert writer.written == 20000 and writer.dropped == 0


def test_a_full_buffer_drops_points_counts_them_and_says_so(capfd):
    blocked = Pipe(blocked=True)
    os.set_blocking(blocked.write_fd, False)
    try:
        while True:  # fill the pipe: the writer thread must wait for it (EAGAIN)
            os.write(blocked.write_fd, b" " * 65536)
    except BlockingIOError:
        pass
    writer = _events.EventWriter(blocked.write_fd, capacity=100)
    for i in range(5000):
        writer.metric("loss", 0.5, i)
    writer.metrics({"a": 1.0, "b": 2.0}, 5000)
    writer.param("lr", 0.1)  # records are never dropped
    assert writer.dropped >= 4000
    blocked.open()
    assert writer.flush(timeout=30)
    writer._stop()
    events = [e for e in blocked.lines() if e.get("kind")]
    points = [e for e in events if e["kind"] == "metric"]
    facts = [e for e in events if e["kind"] == "facts"]
    assert len(points) + writer.dropped == 5002
    assert [e["name"] for e in events if e["kind"] == "param"] == ["lr"]
    assert facts[-1]["topic"] == "logging" and facts[-1]["body"]["dropped"] == writer.dropped
    assert facts[-1]["body"]["capacity"] == 100
    err = capfd.readouterr().err
    assert "{} logged points dropped".format(writer.dropped) in err


def test_non_finite_values_are_spelled_as_the_codec_reads_them(pipe):
    writer = _events.EventWriter(pipe.write_fd)
    writer.metric("loss", float("nan"), 1)
    writer.metrics({"up": float("inf"), "down": float("-inf"), "n": 3}, 2, phase="eval")
    writer.tensor("gradients", "fc.weight", 3, {"max": float("inf"), "mean": 0.25})
    writer.param("x", float("nan"))
    writer.step(4, forward=1.5, backward=float("nan"))
    writer.flush(10)
    writer._stop()
    lines = pipe.lines()
    assert [e.get("value") for e in lines[:4]] == ["NaN", "Infinity", "-Infinity", 3.0]
    assert lines[1]["phase"] == "eval"
    assert lines[4]["reductions"] == {"max": "Infinity", "mean": 0.25}
    assert lines[5] == {"v": 1, "kind": "param", "t": lines[5]["t"], "name": "x", "value": "NaN"}
    assert lines[6]["backward"] == "NaN" and lines[6]["forward"] == 1.5


def test_a_bad_point_is_reported_and_the_rest_written(pipe, capfd):
    writer = _events.EventWriter(pipe.write_fd)
    writer.metric("", 1.0, 0)
    writer.metric("loss", 1.0, 0, phase="test")
    writer.metric("loss", 2.0, 1)
    writer.flush(10)
    writer._stop()
    assert [(e["name"], e["value"]) for e in pipe.lines()] == [("loss", 2.0)]
    assert (writer.invalid, writer.dropped) == (2, 0)
    err = capfd.readouterr().err
    assert "a metric name must be a non-empty string" in err
    assert 'phase must be "train" or "eval", got \'test\'' in err


def test_every_record_kind_is_a_wire_line(pipe):
    writer = _events.EventWriter(pipe.write_fd)
    writer.profile("forward", "forward", 7, 1700000000.5, 12.5, pid=42)
    writer.artifact("model", "/x/model.pt", "application/octet-stream", kind="output")
    writer.facts("provenance", {"python": "3.11"})
    writer.checkpoint(9, "/c/ckpt.pt", "ab" * 32, 1234)
    writer.progress(9, 100)
    writer.flush(10)
    writer._stop()
    by_kind = {e["kind"]: e for e in pipe.lines()}
    assert by_kind["profile"]["dur"] == 12.5 and by_kind["profile"]["pid"] == 42
    assert by_kind["artifact"]["type"] == "output"
    assert by_kind["artifact"]["media_type"] == "application/octet-stream"
    assert by_kind["facts"]["body"] == {"python": "3.11"}
    assert (by_kind["checkpoint"]["step"], by_kind["checkpoint"]["bytes"]) == (9, 1234)
    assert (by_kind["status"]["state"], by_kind["status"]["total"]) == ("progress", 100)
    with pytest.raises(ValueError, match='artifact\\(m\\): kind must be "output" or "input"'):
        writer.artifact("m", "v", kind="both")


def test_a_forked_child_records_nothing_and_says_so(pipe):
    writer = _events.EventWriter(pipe.write_fd)
    read_err, write_err = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: a data-loader worker that logs
        sys.stderr = os.fdopen(write_err, "w")
        writer.metric("loss", 1.0, 0)
        writer.param("lr", 0.1)
        os._exit(0 if writer.dropped == 2 and not writer.flush(1) else 1)
    os.close(write_err)
    _, status = os.waitpid(pid, 0)
    err = os.read(read_err, 65536).decode()
    os.close(read_err)
    writer.metric("loss", 2.0, 1)
    writer.flush(10)
    writer._stop()
    assert os.waitstatus_to_exitcode(status) == 0
    assert "logging from a forked child process" in err and err.count("mlstudio:") == 1
    assert [e["value"] for e in pipe.lines()] == [2.0]


@pytest.fixture
def rank_writer(pipe, monkeypatch):
    """This process as a rank whose events fd is the pipe."""
    monkeypatch.setenv("STUDIO_EVENTS_FD", str(pipe.write_fd))
    _events.reset()
    monkeypatch.setattr(_script_log, "_next_step", 0)
    yield pipe
    _events.reset()


def test_mlstudio_log_counts_steps_as_wandb_does(rank_writer):
    mlstudio.log({"loss": 0.5, "acc": 1})
    mlstudio.log({"loss": 0.4}, commit=False)
    mlstudio.log({"acc": 2})
    mlstudio.log({"loss": 0.3}, step=10)
    mlstudio.log({"loss": 0.2})
    metrics = {"m": 1.0}
    mlstudio.log(metrics, step=20)
    metrics["m"] = 2.0  # the caller's dict changing afterwards changes nothing logged
    _events.writer().flush(10)
    got = [(e["name"], e["step"], e["value"]) for e in rank_writer.lines() if e["kind"] == "metric"]
    assert got == [
        ("loss", 0, 0.5),
        ("acc", 0, 1.0),
        ("loss", 1, 0.4),
        ("acc", 1, 2.0),
        ("loss", 10, 0.3),
        ("loss", 11, 0.2),
        ("m", 20, 1.0),
    ]


def test_mlstudio_log_takes_numpy_and_torch_scalars_and_names_a_bad_value(rank_writer):
    import numpy
    import torch

    mlstudio.log({"np": numpy.float32(0.25), "t": torch.tensor(1.5), "i": numpy.int64(3)}, step=0)
    _events.writer().flush(10)
    values = {e["name"]: e["value"] for e in rank_writer.lines() if e["kind"] == "metric"}
    assert values == {"np": 0.25, "t": 1.5, "i": 3.0}
    with pytest.raises(TypeError, match="mlstudio.log: 'name' must be a number, got str"):
        mlstudio.log({"loss": 1.0, "name": "x"})
    with pytest.raises(TypeError, match="must be a number, got Tensor"):
        mlstudio.log({"v": torch.ones(3)})
    with pytest.raises(TypeError, match="data must be a dict"):
        mlstudio.log([("loss", 1.0)])
    with pytest.raises(TypeError, match="step must be an integer, got 1.5"):
        mlstudio.log({"loss": 1.0}, step=1.5)
    with pytest.raises(TypeError, match="keys must be non-empty strings"):
        mlstudio.log({"": 1.0})


def test_experiment_name_of_a_script():
    assert _script_log.experiment_name_of_script("/x/train_mnist.v2.py") == "train-mnist-v2"
    assert _script_log.experiment_name_of_script("-c") == "c"
    assert _script_log.experiment_name_of_script("") == "python"


def run_rank(code, events_fd, **env):
    """A Python process started as the launcher starts a rank: events fd passed, package on
    its path. Returns its stderr."""
    environment = dict(os.environ, STUDIO_EVENTS_FD=str(events_fd), **env)
    environment["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=environment,
        pass_fds=(events_fd,),
        stderr=subprocess.PIPE,
        universal_newlines=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_provenance_names_the_environment_never_its_values_and_adds_torch(pipe):
    run_rank(
        """
        import time
        t = time.perf_counter()
        import mlstudio._provenance as provenance
        provenance.start()
        spent = time.perf_counter() - t
        assert spent < 0.5, spent  # generous: the budget is 20 ms, the machine is shared
        import torch
        """,
        pipe.write_fd,
        STUDIO_SECRET_TOKEN="hunter2-do-not-record",
    )
    lines = pipe.lines()
    facts = [e for e in lines if e["kind"] == "facts" and e["topic"] == "provenance"]
    assert len(facts) == 2
    first, last = facts[0]["body"], facts[-1]["body"]
    assert "STUDIO_SECRET_TOKEN" in first["env_names"]
    assert "hunter2-do-not-record" not in json.dumps(lines)
    assert first["python"] == "{}.{}.{}".format(*sys.version_info[:3])
    assert first["executable"] == sys.executable and first["implementation"] == "CPython"
    import numpy
    import torch

    assert first["packages"]["numpy"] == numpy.__version__
    assert first["argv"] == ["-c"] and first["cwd"] == os.getcwd()
    assert "torch" not in first
    assert last["torch"] == torch.__version__ and last["cuda"] == torch.version.cuda
    assert set(last) >= {"cudnn", "nccl", "gpus", "packages", "host", "platform"}


def test_provenance_without_torch_sends_one_event(pipe):
    run_rank("import mlstudio._provenance as p; p.start(); import time; time.sleep(0.3)",
             pipe.write_fd)  # fmt: skip
    kinds = [(e["kind"], e.get("topic")) for e in pipe.lines()]
    assert kinds.count(("facts", "provenance")) == 1


def test_outside_a_job_mlstudio_log_writes_a_run_of_the_scripts_own(cli_binary, studio_home,
                                                                    tmp_path):  # fmt: skip
    script = tmp_path / "fit_model.py"
    script.write_text("import mlstudio\nfor i in range(3):\n    mlstudio.log({'loss': 1.0 / (i + 1)})\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    env.pop("STUDIO_EVENTS_FD", None)
    subprocess.run([sys.executable, str(script)], env=env, check=True, timeout=120)
    failing = tmp_path / "broken.py"
    failing.write_text("import mlstudio\nmlstudio.log({'loss': 2.0})\nraise SystemError('boom')\n")
    assert subprocess.run([sys.executable, str(failing)], env=env, timeout=120).returncode == 1

    runs = {r["name"]: r for r in _cli.cli_json("list", "jobs", "--json")}
    done = [n for n in runs if n.startswith("fit-model-")]
    failed = [n for n in runs if n.startswith("broken-")]
    assert len(done) == 1 and runs[done[0]]["status"] == "Completed"
    assert runs[done[0]]["experiment"] == "fit-model"
    assert len(failed) == 1 and runs[failed[0]]["status"] == "Failed"
    points = json.loads(_cli.cli_run("metrics", done[0], "loss", "--json").stdout)
    assert [(p["step"], p["value"]) for p in points] == [(0, 1.0), (1, 0.5), (2, pytest.approx(1 / 3))]

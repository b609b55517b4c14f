"""mlstudio.checkpoints and mlstudio.spot without a job: the built-in trainer's file layout
(names, manifests with SHA-256), the newest valid checkpoint chosen over a corrupt or truncated
one, pruning, torch states, the checkpoint event inside a job; SIGTERM setting the flag, running
callbacks, chaining the handler installed before, and spot.exit()'s status."""

import hashlib
import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from mlstudio import _events, checkpoints


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.setenv("SM_CHECKPOINT_DIR", str(tmp_path / "ckpt"))
    monkeypatch.delenv("STUDIO_EVENTS_FD", raising=False)
    _events.reset()
    yield tmp_path / "ckpt"
    _events.reset()


def test_a_checkpoint_is_the_trainers_layout_payload_and_manifest(folder):
    saved = checkpoints.save(b"weights", 7)
    assert checkpoints.directory() == str(folder)
    assert saved.path == str(folder / "ckpt-000000007-script.pt")
    assert (folder / "ckpt-000000007-script.pt").read_bytes() == b"weights"
    manifest = json.loads((folder / "ckpt-000000007-script.json").read_text())
    assert manifest == {
        "step": 7,
        "epoch": 0,
        "tag": "script",
        "file": "ckpt-000000007-script.pt",
        "sha256": hashlib.sha256(b"weights").hexdigest(),
        "bytes": 7,
    }
    assert sorted(os.listdir(folder)) == ["ckpt-000000007-script.json", "ckpt-000000007-script.pt"]
    assert checkpoints.latest() == saved
    assert checkpoints.load(raw=True) == b"weights"


def test_latest_skips_corrupt_and_truncated_checkpoints(folder):
    for step in (10, 20, 30):
        checkpoints.save(("state at %d" % step).encode(), step)
    (folder / "ckpt-000000030-script.pt").write_bytes(b"state at 31")  # same size, other bytes
    assert checkpoints.latest().step == 20
    (folder / "ckpt-000000020-script.pt").write_bytes(b"state")
    assert checkpoints.latest().step == 10
    (folder / "ckpt-000000010-script.json").write_text("{not json")
    assert checkpoints.latest() is None and checkpoints.load() is None


def test_only_the_newest_are_kept_per_tag(folder):
    for step in range(8):
        checkpoints.save(b"x", step, keep=3)
    checkpoints.save(b"y", 100, tag="ema")
    steps = sorted(n for n in os.listdir(folder) if n.endswith("-script.pt"))
    assert steps == ["ckpt-000000005-script.pt", "ckpt-000000006-script.pt",
                     "ckpt-000000007-script.pt"]  # fmt: skip
    assert checkpoints.latest("ema").step == 100 and checkpoints.latest().step == 7


def test_torch_states_round_trip(folder):
    import torch

    model = torch.nn.Linear(3, 2)
    checkpoints.save({"model": model.state_dict(), "step": 5}, 5)
    state = checkpoints.load()
    assert state["step"] == 5
    assert torch.equal(state["model"]["weight"], model.weight.detach())


def test_bad_arguments_name_the_field(folder):
    with pytest.raises(ValueError, match="step must be an integer >= 0, got -1"):
        checkpoints.save(b"x", -1)
    with pytest.raises(ValueError, match="tag must be letters"):
        checkpoints.save(b"x", 1, tag="../up")


def test_outside_a_job_the_folder_is_checkpoints_here(tmp_path, monkeypatch):
    monkeypatch.delenv("SM_CHECKPOINT_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    assert checkpoints.directory() == str(tmp_path / "checkpoints")
    assert os.path.isdir(tmp_path / "checkpoints")


def test_inside_a_job_a_save_is_a_checkpoint_event(folder, monkeypatch):
    read_fd, write_fd = os.pipe()
    monkeypatch.setenv("STUDIO_EVENTS_FD", str(write_fd))
    _events.reset()
    try:
        saved = checkpoints.save(b"abc", 12)
        _events.writer().flush(10)
        line = json.loads(os.read(read_fd, 65536).decode().splitlines()[0])
    finally:
        _events.reset()
        os.close(read_fd)
        os.close(write_fd)
    assert line["kind"] == "checkpoint"
    assert (line["step"], line["path"], line["bytes"]) == (12, saved.path, 3)
    assert line["sha256"] == hashlib.sha256(b"abc").hexdigest()


def run_script(code):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    env.pop("STUDIO_EVENTS_FD", None)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
        timeout=60,
    )


def test_sigterm_sets_the_flag_runs_callbacks_and_chains_the_earlier_handler():
    done = run_script(
        """
        import os, signal
        seen = []
        signal.signal(signal.SIGTERM, lambda s, f: seen.append("earlier"))
        from mlstudio import spot
        assert not spot.interrupted()
        spot.on_interruption(lambda: seen.append("first"))

        @spot.on_interruption
        def broken():
            raise RuntimeError("callback bug")

        spot.on_interruption(lambda: seen.append("second"))
        os.kill(os.getpid(), signal.SIGTERM)
        assert spot.interrupted()
        spot.on_interruption(lambda: seen.append("late"))  # runs at once
        print(",".join(seen))
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "first,second,earlier,late"
    assert "a spot interruption callback failed: RuntimeError: callback bug" in done.stderr


def test_spot_exit_ends_the_attempt_as_interrupted():
    done = run_script(
        """
        import os, signal, time
        from mlstudio import spot
        os.kill(os.getpid(), signal.SIGTERM)
        while not spot.interrupted():
            time.sleep(0.01)
        spot.exit()
        """
    )
    assert done.returncode == 128 + signal.SIGTERM, done.stderr


def test_the_handler_is_installed_on_import():
    done = run_script(
        """
        import signal
        from mlstudio import spot
        assert signal.getsignal(signal.SIGTERM) is spot._handle
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        assert spot.install() and signal.getsignal(signal.SIGTERM) is spot._handle
        """
    )
    assert done.returncode == 0, done.stderr

"""Fixtures of the mlstudio SDK tests: a fresh studio home per test, the built CLI, and the
reaping of every job and process a test started (also when it fails).

ctest sets MLSTUDIO_CLI to the built binary and PYTHONPATH to <repo>/python; run by hand:
    MLSTUDIO_CLI=build/bin/mlstudio PYTHONPATH=python /usr/bin/python3 -m pytest tests/python
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pytest

REPO = os.environ.get("STUDIO_REPO") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "..")
)
if os.path.join(REPO, "python") not in sys.path:
    sys.path.insert(0, os.path.join(REPO, "python"))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "integration: runs real jobs through the mlstudio CLI (ctest label integration)"
    )


@pytest.fixture(autouse=True)
def _warnings_said_again():
    """Each test sees the SDK's once-per-process warnings afresh."""
    from mlstudio import _util

    _util._WARNED.clear()
    yield


@pytest.fixture(scope="session")
def repo_root():
    """The source tree (examples, specs, test data)."""
    return REPO


@pytest.fixture(scope="session")
def cli_binary():
    """The mlstudio binary under test: $MLSTUDIO_CLI (ctest sets it to the built one)."""
    path = os.environ.get("MLSTUDIO_CLI")
    if not path or not os.access(path, os.X_OK):
        pytest.fail(
            "MLSTUDIO_CLI={!r}: set it to the built mlstudio binary (ctest does)".format(path)
        )
    return path


def _stop_jobs(cli, env):
    """Stops every job and tuning job of the home that has not ended."""
    listed = []
    for kind in ("tuning-jobs", "jobs"):
        done = subprocess.run(
            [cli, "list", kind, "--json"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            universal_newlines=True,
            timeout=60,
        )
        if done.returncode != 0:
            continue
        try:
            rows = json.loads(done.stdout or "[]")
        except ValueError:
            continue
        for row in rows if isinstance(rows, list) else []:
            status = row.get("status") or row.get("HyperParameterTuningJobStatus")
            name = row.get("name") or row.get("HyperParameterTuningJobName")
            if name and status in ("InProgress", "Stopping"):
                listed.append(name)
    for name in listed:
        subprocess.run(
            [cli, "stop", name],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=60,
        )


def _reap(processes):
    """Waits for the SDK's detached CLI processes, killing their process groups if they
    outlive a grace period (each runs in a session of its own, so its group is its pid)."""
    deadline = time.monotonic() + 30
    for process in processes:
        remaining = max(0.1, deadline - time.monotonic())
        try:
            process.wait(timeout=remaining)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()


@pytest.fixture
def studio_home(monkeypatch):
    """A fresh MLSTUDIO_HOME (a short path: job control sockets live under it), with
    everything started in it stopped and reaped at teardown."""
    from mlstudio import _cli

    home = tempfile.mkdtemp(prefix="mls-")
    os.chmod(home, 0o700)
    monkeypatch.setenv("MLSTUDIO_HOME", home)
    monkeypatch.setenv("XDG_CONFIG_HOME", os.path.join(home, "config"))
    before = len(_cli.spawned_processes())
    try:
        yield home
    finally:
        started = _cli.spawned_processes()[before:]
        cli = os.environ.get("MLSTUDIO_CLI")
        if cli and os.access(cli, os.X_OK):
            env = dict(os.environ, MLSTUDIO_HOME=home)
            try:
                _stop_jobs(cli, env)
            except subprocess.TimeoutExpired:
                pass
        _reap(started)
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """The test's current directory (relative entry points resolve against it)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path

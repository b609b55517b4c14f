"""mlstudio._cli: finding the binary, JSON replies, errors carrying the CLI's stderr, and
detached processes that live in a session of their own."""

import os
import stat

import pytest

from mlstudio import _cli
from mlstudio.exceptions import StudioCliError, StudioCliNotFound


def _script(folder, body):
    path = os.path.join(str(folder), "fake-mlstudio")
    with open(path, "w") as out:
        out.write("#!/bin/sh\n" + body)
    os.chmod(path, stat.S_IRWXU)
    return path


def test_cli_path_prefers_mlstudio_cli(tmp_path, monkeypatch):
    path = _script(tmp_path, "exit 0\n")
    monkeypatch.setenv("MLSTUDIO_CLI", path)
    assert _cli.cli_path() == path


def test_cli_path_names_a_bad_mlstudio_cli(tmp_path, monkeypatch):
    monkeypatch.setenv("MLSTUDIO_CLI", str(tmp_path / "missing"))
    with pytest.raises(StudioCliNotFound, match="MLSTUDIO_CLI="):
        _cli.cli_path()


def test_cli_path_without_any_cli_says_how_to_fix(tmp_path, monkeypatch):
    monkeypatch.delenv("MLSTUDIO_CLI", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(StudioCliNotFound, match="set MLSTUDIO_CLI"):
        _cli.cli_path()


def test_cli_path_falls_back_to_path(tmp_path, monkeypatch):
    folder = tmp_path / "bin"
    folder.mkdir()
    target = folder / "mlstudio"
    target.write_text("#!/bin/sh\nexit 0\n")
    target.chmod(0o700)
    monkeypatch.delenv("MLSTUDIO_CLI", raising=False)
    monkeypatch.setenv("PATH", str(folder))
    assert _cli.cli_path() == str(target)


def test_cli_json_parses_stdout(tmp_path, monkeypatch):
    monkeypatch.setenv("MLSTUDIO_CLI", _script(tmp_path, 'echo "{\\"args\\": \\"$*\\"}"\n'))
    assert _cli.cli_json("show", "job-1", "--json") == {"args": "show job-1 --json"}


def test_cli_json_raises_with_stderr_and_exit_code(tmp_path, monkeypatch):
    monkeypatch.setenv("MLSTUDIO_CLI", _script(tmp_path, "echo 'no job named x' >&2\nexit 2\n"))
    with pytest.raises(StudioCliError) as caught:
        _cli.cli_json("show", "x", "--json")
    assert caught.value.returncode == 2
    assert "no job named x" in str(caught.value)
    assert caught.value.stderr.strip() == "no job named x"


def test_cli_json_refuses_output_that_is_not_json(tmp_path, monkeypatch):
    monkeypatch.setenv("MLSTUDIO_CLI", _script(tmp_path, "echo progress line\n"))
    with pytest.raises(StudioCliError, match="not JSON"):
        _cli.cli_json("list", "jobs", "--json")


def test_cli_run_without_check_returns_the_exit_code(tmp_path, monkeypatch):
    monkeypatch.setenv("MLSTUDIO_CLI", _script(tmp_path, "exit 3\n"))
    assert _cli.cli_run("stop", "x", check=False).returncode == 3


def test_spawn_detached_runs_in_its_own_session_into_a_private_log(tmp_path, monkeypatch):
    monkeypatch.setenv("MLSTUDIO_CLI", _script(tmp_path, "echo started $1\nps -o sid= -p $$\n"))
    log = tmp_path / "logs" / "run.log"
    process = _cli.spawn_detached(["run", "spec.json"], str(log))
    assert process.wait(timeout=30) == 0
    lines = log.read_text().split()
    assert lines[:2] == ["started", "run"]
    assert int(lines[2]) == process.pid  # the session leader is the spawned process
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert process in _cli.spawned_processes()


def test_real_cli_lists_an_empty_home(cli_binary, studio_home):
    assert _cli.cli_json("list", "jobs", "--json") == []


def test_real_cli_error_names_the_job(cli_binary, studio_home):
    with pytest.raises(StudioCliError) as caught:
        _cli.cli_json("show", "no-such-job", "--json")
    assert "no-such-job" in caught.value.stderr

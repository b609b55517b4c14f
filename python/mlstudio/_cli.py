"""How the SDK reaches the engine: the ``mlstudio`` command line and its JSON contract.

Every job, tuning job and record the SDK touches goes through these functions, so jobs started
from Python are the studio's own jobs (same store under ``MLSTUDIO_HOME``, visible in the window,
outliving the Python process). The binary is ``$MLSTUDIO_CLI`` when set, else ``mlstudio`` on
``PATH``.
"""

import json
import os
import shutil
import subprocess

from .exceptions import StudioCliError, StudioCliNotFound

# Every process spawn_detached started in this interpreter, oldest first: the tests reap them,
# and a caller may look for one that is still running.
_SPAWNED = []


def spawned_processes():
    """The Popen objects spawn_detached returned so far (a copy)."""
    return list(_SPAWNED)


def cli_path():
    """The ``mlstudio`` binary to run: ``$MLSTUDIO_CLI``, else ``mlstudio`` on ``PATH``."""
    configured = os.environ.get("MLSTUDIO_CLI")
    if configured:
        if os.path.isfile(configured) and os.access(configured, os.X_OK):
            return configured
        found = shutil.which(configured)
        if found:
            return found
        raise StudioCliNotFound(
            "MLSTUDIO_CLI={}: not an executable file; point it at the studio's mlstudio "
            "binary".format(configured)
        )
    found = shutil.which("mlstudio")
    if found:
        return found
    raise StudioCliNotFound(
        "mlstudio: command not found on PATH; install the studio (its .deb puts mlstudio on "
        "PATH) or set MLSTUDIO_CLI to the binary"
    )


def _environment():
    # TERM=dumb and NO_COLOR keep progress lines and statuses plain in captured output.
    env = dict(os.environ)
    env["TERM"] = "dumb"
    env["NO_COLOR"] = "1"
    return env


def cli_run(*args, check=True, timeout=None, input_text=None):
    """Runs ``mlstudio ARGS``, returns the CompletedProcess (text stdout and stderr).

    With ``check`` a nonzero exit raises StudioCliError carrying the CLI's stderr.
    """
    argv = [cli_path()] + [str(a) for a in args]
    completed = subprocess.run(
        argv,
        stdin=subprocess.DEVNULL if input_text is None else None,
        input=input_text,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
        timeout=timeout,
        env=_environment(),
    )
    if check and completed.returncode != 0:
        raise StudioCliError(args, completed.returncode, completed.stderr, completed.stdout)
    return completed


def cli_json(*args, timeout=None):
    """Runs ``mlstudio ARGS`` (add ``--json`` yourself where the command needs it) and returns
    its stdout parsed as JSON; a nonzero exit raises StudioCliError with the CLI's stderr."""
    completed = cli_run(*args, check=True, timeout=timeout)
    try:
        return json.loads(completed.stdout)
    except ValueError as error:
        raise StudioCliError(
            args,
            completed.returncode,
            "output is not JSON ({}): {}".format(error, completed.stdout[:400]),
        ) from None


def spawn_detached(args, log_path):
    """Starts ``mlstudio ARGS`` in its own session with stdout and stderr appended to
    ``log_path``, so it outlives this Python process (and a kernel restart or interrupt does
    not reach it). Returns the Popen; the caller may poll it or let it run."""
    argv = [cli_path()] + [str(a) for a in args]
    directory = os.path.dirname(os.path.abspath(log_path))
    os.makedirs(directory, mode=0o700, exist_ok=True)
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=fd,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            close_fds=True,
            env=_environment(),
        )
    finally:
        os.close(fd)
    for earlier in _SPAWNED:
        earlier.poll()  # reaps the ones that ended, so a long kernel collects no zombies
    _SPAWNED.append(process)
    return process

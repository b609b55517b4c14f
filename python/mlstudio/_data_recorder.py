"""Where a Run's log calls go: a ``mlstudio record`` process, or the events pipe of a job.

In a notebook or a script, an open Run owns one ``mlstudio record`` process (the run's only
writer to the studio's store) and sends each log call to it as a JSON line on its stdin. Lines
are buffered and sent in batches: when 64 are waiting, when the oldest has waited a second (a
background thread sees to that), and when the run closes, so the store shows a run's metrics
at most about a second after they were logged. The process runs in a session of its own, so a
kernel interrupt (SIGINT to the kernel's process group) does not reach it; when the Python
process dies its stdin closes and it marks the run Failed.

Inside a training job (``STUDIO_EVENTS_FD`` set by the studio's launcher) a Run writes to the
rank's events writer (mlstudio._events) instead, into the job's own record.
"""

import json
import os
import select
import subprocess
import tempfile
import threading
import time

from . import _events
from ._cli import cli_path
from .exceptions import StudioCliError

BATCH_LINES = 64
BATCH_SECONDS = 1.0
_READY_TIMEOUT = 60.0
_END_TIMEOUT = 120.0


def _environment():
    # As _cli runs the CLI: plain output in a pipe.
    env = dict(os.environ)
    env["TERM"] = "dumb"
    env["NO_COLOR"] = "1"
    return env


class RecordProcess:
    """One ``mlstudio record`` process: start it, send lines, end it.

    Thread-safe: log calls from any thread may send; a daemon thread flushes a partial batch
    once its oldest line has waited BATCH_SECONDS.
    """

    def __init__(self, experiment, run, load=False, display_name=None, tags=None):
        args = ["record", "--experiment", experiment, "--run", run]
        if load:
            args.append("--load")
        if display_name:
            args += ["--display-name", display_name]
        for key, value in (tags or {}).items():
            args += ["--tag", "{}={}".format(key, value)]
        self._args = args
        self._lock = threading.Lock()
        self._pending = []
        self._oldest = None
        self._closed = threading.Event()
        self._stderr = tempfile.TemporaryFile(mode="w+b")
        try:
            self._process = subprocess.Popen(
                [cli_path()] + args,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                start_new_session=True,
                close_fds=True,
                env=_environment(),
            )
        except BaseException:
            self._stderr.close()
            raise
        try:
            self.ready = self._read_reply(_READY_TIMEOUT)
        except BaseException:
            self._kill()
            raise
        self._flusher = threading.Thread(target=self._flush_periodically, daemon=True)
        self._flusher.start()

    def send(self, line):
        """Queues one JSON-serialisable line; sends the batch when it is full."""
        text = json.dumps(line, allow_nan=False, separators=(",", ":")) + "\n"
        with self._lock:
            if self._closed.is_set():
                raise RuntimeError("the run is closed; log inside its 'with' block")
            self._pending.append(text)
            if self._oldest is None:
                self._oldest = time.monotonic()
            if len(self._pending) >= BATCH_LINES:
                self._write_pending()

    def flush(self):
        with self._lock:
            self._write_pending()

    def end(self, status, message=""):
        """Sends the end line, waits for the process and returns its final JSON reply."""
        self.send({"kind": "end", "status": status, "message": message})
        with self._lock:
            self._write_pending()
            self._closed.set()
            try:
                self._process.stdin.close()
            except OSError:
                pass
        try:
            reply = self._read_reply(_END_TIMEOUT)
            self._process.wait(timeout=_END_TIMEOUT)
        except BaseException:
            self._kill()
            raise
        finally:
            self._stderr.close()
        return reply

    def abandon(self):
        """Ends the process without an end line: the CLI records the run as Failed."""
        with self._lock:
            self._closed.set()
        self._kill()

    def _write_pending(self):
        if not self._pending:
            return
        data = "".join(self._pending).encode("utf-8")
        self._pending = []
        self._oldest = None
        try:
            self._process.stdin.write(data)
            self._process.stdin.flush()
        except (BrokenPipeError, ValueError, OSError):
            self._closed.set()
            raise self._failure("stopped taking the run's lines") from None

    def _flush_periodically(self):
        while not self._closed.wait(BATCH_SECONDS / 4):
            with self._lock:
                if self._oldest is not None and time.monotonic() - self._oldest >= BATCH_SECONDS:
                    try:
                        self._write_pending()
                    except StudioCliError:
                        return  # the next log call raises it

    def _read_reply(self, timeout):
        """One JSON line from the process's stdout within timeout seconds."""
        stream = self._process.stdout
        line = b""
        deadline = time.monotonic() + timeout
        while not line.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._failure("did not answer within {:.0f} s".format(timeout))
            readable, _, _ = select.select([stream], [], [], left)
            if not readable:
                continue
            chunk = os.read(stream.fileno(), 65536)
            if not chunk:
                self._process.wait(timeout=10)
                raise self._failure("exited")
            line += chunk
        return json.loads(line.decode("utf-8"))

    def _failure(self, what):
        code = self._process.poll()
        try:
            self._stderr.seek(0)
            stderr = self._stderr.read().decode("utf-8", "replace")
        except (OSError, ValueError):
            stderr = ""
        return StudioCliError(
            self._args,
            code if code is not None else -1,
            "mlstudio record {}: {}".format(what, stderr.strip() or "no message"),
        )

    def _kill(self):
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        for stream in (self._process.stdin, self._process.stdout):
            try:
                stream.close()
            except OSError:
                pass
        try:
            self._stderr.close()
        except OSError:
            pass


def job_environment():
    """The job this process runs in, as the studio's launcher describes it, else None:
    ``{"job": name, "events_fd": fd}``."""
    events_fd = _events.events_fd()
    if events_fd is None:
        return None
    name = None
    try:
        name = json.loads(os.environ.get("SM_TRAINING_ENV", "{}")).get("job_name")
    except ValueError:
        pass
    name = name or os.environ.get("TRAINING_JOB_NAME") or os.environ.get("SAGEMAKER_JOB_NAME")
    if not name and os.environ.get("TRAINING_JOB_ARN"):
        name = os.environ["TRAINING_JOB_ARN"].rsplit("/", 1)[-1]
    if not name:
        return None
    return {"job": name, "events_fd": events_fd}

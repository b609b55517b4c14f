"""Following a studio training job from Python: its state (``mlstudio show JOB --json``), its
ranks' logs streamed while waiting (``mlstudio logs JOB --follow``), a live card in a Jupyter
kernel, and SageMaker's ending (UnexpectedStatusException for a Failed job).
"""

import datetime
import json
import logging
import os
import selectors
import subprocess
import sys
import time

from . import _cli
from ._describe import ENDED, describe_from_show
from ._display import LiveCard, job_bundle
from .exceptions import CapacityError, UnexpectedStatusException

LOGGER = logging.getLogger("mlstudio")
_POLL_SECONDS = 1.0
_LOG_MODES = ("All", "None", "Training", "Rules")


def logs_mode(logs):
    """fit()/wait()'s ``logs``: "All", "None", "Training", "Rules"; booleans map to All/None."""
    if logs is True:
        return "All"
    if logs is False or logs is None:
        return "None"
    if logs not in _LOG_MODES:
        raise ValueError(
            'logs: must be "All", "None", "Training", "Rules" or a boolean, got {!r}'.format(logs)
        )
    return logs


def show_job(name):
    """``mlstudio show NAME --json``."""
    return _cli.cli_json("show", name, "--json")


def _progress(show):
    """The newest progress event (step, total) of rank 0, read from the tail of its log
    ("<time> events <json>" lines); (None, None) when it reported none."""
    path = os.path.join(show.get("job_dir") or "", "logs", "rank-0.log")
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 65536))
            tail = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return None, None
    for line in reversed(tail):
        parts = line.split(" ", 2)
        if len(parts) < 3 or parts[1] != "events" or '"progress"' not in parts[2]:
            continue
        try:
            event = json.loads(parts[2])
        except ValueError:
            continue
        if event.get("state") == "progress":
            return event.get("step"), event.get("total")
    return None, None


def card_of(show):
    """The job card (application/vnd.mlstudio.job.v1+json) from ``show --json``."""
    step, total = _progress(show)
    return {
        "job": show.get("name"),
        "status": show.get("status"),
        "secondary_status": show.get("secondary_status"),
        "experiment": show.get("experiment"),
        "trial": show.get("trial"),
        "metrics": {
            name: summary.get("last")
            for name, summary in (show.get("metrics") or {}).items()
            if summary.get("count")
        },
        "step": step,
        "total": total,
        "failure_reason": show.get("failure_reason") or "",
    }


class _LogStream:
    """``mlstudio logs JOB --follow`` read without blocking; lines go to ``out``. The studio's
    own event lines (``<events>``) are left out: they are the metrics the card shows."""

    def __init__(self, name, out):
        self._out = out
        self._process = subprocess.Popen(
            [_cli.cli_path(), "logs", name, "--follow"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=_cli._environment(),
        )
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._process.stdout, selectors.EVENT_READ)
        self._pending = b""

    def pump(self, seconds):
        """Copies what arrives within ``seconds``; False once the stream has ended."""
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return True
            if not self._selector.select(left):
                return True
            chunk = os.read(self._process.stdout.fileno(), 65536)
            if not chunk:
                self._flush_pending()
                return False
            self._write(chunk)

    def _write(self, chunk):
        lines = (self._pending + chunk).split(b"\n")
        self._pending = lines.pop()
        for raw in lines:
            line = raw.decode("utf-8", "replace")
            if "]<events>:" in line:
                continue
            self._out.write(line + "\n")
        self._out.flush()

    def _flush_pending(self):
        if self._pending:
            self._write(b"\n")

    def finish(self, seconds=10.0):
        """Reads until the command ends (it does once the job has ended), at most ``seconds``."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and self.pump(min(0.5, deadline - time.monotonic())):
            if self._process.poll() is not None and not self._selector.select(0):
                break
        self.close()

    def close(self):
        self._selector.close()
        if self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self._process.stdout.close()


def _stamp(seconds):
    return datetime.datetime.fromtimestamp(seconds).strftime("%Y-%m-%d %H:%M:%S")


class _Narrator:
    """What SageMaker prints while it waits: secondary status transitions, rule status
    changes, and at the end the training and billable seconds."""

    def __init__(self, out, mode):
        self._out = out
        self._mode = mode
        self._transitions = 0
        self._rules = {}

    def update(self, show):
        if self._mode == "None":
            return
        transitions = show.get("status_transitions") or []
        for t in transitions[self._transitions:]:
            message = " - " + t["message"] if t.get("message") else ""
            self._out.write(
                "{} {}{}\n".format(_stamp(t.get("start_time") or time.time()),
                                   t.get("secondary_status") or t.get("status"), message)
            )
        self._transitions = len(transitions)
        if self._mode in ("All", "Rules"):
            for r in show.get("rules") or []:
                if self._rules.get(r.get("rule")) != r.get("status"):
                    self._rules[r.get("rule")] = r.get("status")
                    self._out.write("{}: {}\n".format(r.get("rule"), r.get("status")))
        self._out.flush()

    def summary(self, show):
        billing = show.get("billing") or {}
        if self._mode == "None" or not billing:
            return
        training = int(round(billing.get("training_time_s") or 0))
        billable = int(round(billing.get("billable_time_s") or 0))
        self._out.write("Training seconds: {}\nBillable seconds: {}\n".format(training, billable))
        if billing.get("attempts") and billing.get("savings_percent") and training:
            self._out.write(
                "Managed Spot Training savings: {:.1f}%\n".format(billing["savings_percent"])
            )
        self._out.flush()


def check_status(show):
    """SageMaker's ending: Completed returns, Stopped warns, Failed raises
    UnexpectedStatusException (CapacityError when the reason says so)."""
    status = show.get("status")
    if status == "Completed":
        return
    reason = show.get("failure_reason") or "(no reason recorded)"
    if status == "Stopped":
        LOGGER.warning("Training job %s was stopped: %s", show.get("name"), reason)
        return
    message = (
        "Error for Training job {name}: {status}. Reason: {reason}. Check the job's logs "
        "(mlstudio logs {name})".format(name=show.get("name"), status=status, reason=reason)
    )
    cls = CapacityError if "CapacityError" in reason else UnexpectedStatusException
    raise cls(message=message, allowed_statuses=["Completed", "Stopped"], actual_status=status)


def follow(name, logs="All", card=True, out=None, wait=True):
    """Shows the card (in a kernel), then, with ``wait``, streams the logs and keeps the card
    current until the job ends, and applies SageMaker's ending. Returns the last ``show``."""
    mode = logs_mode(logs)
    out = out or sys.stdout
    live = LiveCard(job_bundle) if card else None
    show = show_job(name)
    if live:
        live.update(card_of(show))
    if not wait:
        return show
    narrator = _Narrator(out, mode)
    stream = _LogStream(name, out) if mode in ("All", "Training") else None
    try:
        while True:
            narrator.update(show)
            if show.get("status") in ENDED:
                break
            if stream is None or not stream.pump(_POLL_SECONDS):
                time.sleep(_POLL_SECONDS if stream is None else 0.2)
            show = show_job(name)
            if live:
                live.update(card_of(show))
        if stream is not None:
            stream.finish()
            stream = None
    finally:
        if stream is not None:
            stream.close()
    if live:
        live.update(card_of(show))
    narrator.summary(show)
    check_status(show)
    return show


class _TrainingJob:
    """SageMaker's ``estimator.latest_training_job``: a handle on one studio job."""

    def __init__(self, job_name, estimator=None):
        self.job_name = job_name
        self.name = job_name
        self.estimator = estimator

    def describe(self):
        """DescribeTrainingJob's dict (see mlstudio._describe)."""
        return describe_from_show(show_job(self.name))

    def wait(self, logs="All"):
        """Waits for the job to end (streaming its logs with "All"); raises
        UnexpectedStatusException when it Failed."""
        follow(self.name, logs=logs)

    def stop(self):
        """Stops the job gracefully (ranks get SIGTERM, then SIGKILL after the grace period)."""
        _cli.cli_run("stop", self.name)

    def logs(self, wait=True):
        """Prints the ranks' logs; with ``wait``, follows them until the job ends."""
        if wait:
            follow(self.name, logs="Training", card=False)
            return
        completed = _cli.cli_run("logs", self.name)
        for line in completed.stdout.splitlines():
            if "]<events>:" not in line:
                print(line)

    def what_ran(self):
        """What the job ran: {"source": the code's record (entry point, tree hash, git commit,
        branch and uncommitted diff, environment variable names), "ranks": each Python rank's
        interpreter, packages and torch / CUDA / NCCL versions}."""
        return show_job(self.name).get("what_ran", {})

    def diff(self, other):
        """What differs from another job (a name or a job handle) in code (file and line),
        runtime, packages, hyperparameters and environment names, as `mlstudio diff --json`."""
        return diff_jobs(self.name, getattr(other, "name", other))

    def rule_job_summary(self):
        """The Debugger and profiler rules' statuses as one list, as SageMaker returns them."""
        d = self.describe()
        debug = d.get("DebugRuleEvaluationStatuses", [])
        return debug + d.get("ProfilerRuleEvaluationStatuses", [])

    def __repr__(self):
        return "_TrainingJob({!r})".format(self.name)


def diff_jobs(job_a, job_b):
    """`mlstudio diff --json JOB_A JOB_B`: {"same", "differences": [{section, name, a, b, diff}]}."""
    return _cli.cli_json("diff", job_a, job_b, "--json")


def describe_training_job(job_name):
    """DescribeTrainingJob for any studio job, by name or unique prefix."""
    return describe_from_show(show_job(job_name))

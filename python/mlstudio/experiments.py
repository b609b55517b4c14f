"""mlstudio.experiments: SageMaker Experiments' ``Run``, ``load_run`` and ``list_runs``.

A Run is a trial component of the studio's store, named ``<experiment>-<run>`` (both lower-cased,
as SageMaker does) in the trial ``Default-Run-Group-<experiment>``::

    from mlstudio.experiments import Run, load_run, list_runs

    with Run(experiment_name="fmnist", run_name="baseline") as run:
        run.log_parameters({"lr": 0.01, "optimizer": "sgd"})
        for epoch in range(3):
            run.log_metric("train:loss", 1.0 / (epoch + 1), step=epoch)
        run.log_confusion_matrix(y_true, y_pred, title="test-confusion")

While the block runs the run is InProgress, in the studio window and in ``mlstudio list``; it
ends Completed, or Failed with the exception's message. Its metrics are visible within about a
second of being logged. Files and graphs (confusion matrix, precision-recall, ROC) are kept in
the run's folder ``jobs/<run>/artifacts/`` of the studio home, where SageMaker uploads to S3.

Inside a studio training job, ``load_run()`` returns the job's own run: its metrics, parameters
and artifacts go into the job's record through the rank's events writer (each point with its
rank), and files are copied to the job's output folder (``SM_OUTPUT_DATA_DIR``) and recorded as
artifacts.
"""

import datetime
import enum
import functools
import json
import logging
import math
import mimetypes
import numbers
import os
import re
import shutil
import threading
import time

from . import _data_curves as curves
from . import _events
from ._cli import cli_json
from ._data_recorder import RecordProcess, job_environment

logger = logging.getLogger(__name__)

RUN_NAME_BASE = "mlstudio-run"
TRIAL_NAME_TEMPLATE = "Default-Run-Group-{}"
MAX_RUN_TC_ARTIFACTS_LEN = 30
MAX_NAME_LEN = 59  # each of the experiment's and the run's parts of a 120-character name
_JOB_FLUSH_SECONDS = 30.0  # a job's run waits this long at its block's end for the pipe
_NAME_PATTERN = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9])*$")


class SortByType(enum.Enum):
    """What list_runs sorts by."""

    CREATION_TIME = "CreationTime"
    NAME = "Name"


class SortOrderType(enum.Enum):
    """The order list_runs sorts in."""

    ASCENDING = "Ascending"
    DESCENDING = "Descending"


class _RunContext:
    """The Run whose ``with`` block this process is in (estimators read its experiment_config)."""

    _run = None
    _lock = threading.Lock()

    @classmethod
    def add_run_object(cls, run):
        with cls._lock:
            cls._run = run

    @classmethod
    def drop_current_run(cls):
        with cls._lock:
            run, cls._run = cls._run, None
        return run

    @classmethod
    def get_current_run(cls):
        return cls._run


def _checked_name(field, value):
    if not isinstance(value, str):
        raise ValueError("{}: must be a string, got {!r}".format(field, value))
    if len(value) > MAX_NAME_LEN:
        raise ValueError(
            "The {} (length: {}) must have length less than or equal to {}".format(
                field, len(value), MAX_NAME_LEN
            )
        )
    if not _NAME_PATTERN.match(value):
        raise ValueError(
            "{}: must be letters, digits and hyphens, starting and ending with a letter or "
            "digit, got {!r}".format(field, value)
        )
    return value.lower()


def _unique_run_name():
    now = datetime.datetime.now(datetime.timezone.utc)
    return "{}-{}-{:03d}".format(
        RUN_NAME_BASE, now.strftime("%Y-%m-%d-%H-%M-%S"), now.microsecond // 1000
    )


def _tag_dict(tags):
    """SageMaker's [{"Key": k, "Value": v}] (a plain dict is taken too) as {k: v}."""
    if not tags:
        return {}
    if isinstance(tags, dict):
        return {str(k): str(v) for k, v in tags.items()}
    out = {}
    for i, tag in enumerate(tags):
        if not isinstance(tag, dict) or "Key" not in tag or "Value" not in tag:
            raise ValueError(
                'tags[{}]: must be {{"Key": ..., "Value": ...}}, got {!r}'.format(i, tag)
            )
        out[str(tag["Key"])] = str(tag["Value"])
    return out


def _epoch_seconds(field, value):
    if isinstance(value, datetime.datetime):
        return value.timestamp()
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    raise ValueError("{}: must be a datetime or unix seconds, got {!r}".format(field, value))


def _is_invalid_number(kind, name, value):
    # SageMaker drops NaN and infinite values with a warning rather than failing the run.
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        try:
            bad = math.isnan(value) or math.isinf(value)
        except TypeError:
            bad = False
        if bad:
            logger.warning("Failed to log %s %s. Received invalid value: %s.", kind, name, value)
            return True
    return False


def _inside_run(method):
    """Log methods work only inside the run's ``with`` block (RuntimeError otherwise)."""

    @functools.wraps(method)
    def wrapper(self, *args, **kwargs):
        if not self._inside:
            raise RuntimeError(
                "{}() must be called inside the run's 'with' block: with Run(...) as run: "
                "run.{}(...)".format(method.__name__, method.__name__)
            )
        return method(self, *args, **kwargs)

    return wrapper


class Run:
    """A run of an experiment: parameters, metrics and artifacts of one trial component."""

    def __init__(
        self,
        experiment_name,
        run_name=None,
        experiment_display_name=None,
        run_display_name=None,
        tags=None,
        sagemaker_session=None,
        artifact_bucket=None,
        artifact_prefix=None,
    ):
        self.experiment_name = _checked_name("experiment_name", experiment_name)
        self.run_name = _checked_name("run_name", run_name or _unique_run_name())
        self.run_group_name = TRIAL_NAME_TEMPLATE.format(self.experiment_name)
        self._trial_component_name = "{}-{}".format(self.experiment_name, self.run_name)
        self._display_name = run_display_name
        self._tags = _tag_dict(tags)
        self._init_state()

    def _init_state(self):
        self._in_load = False
        self._job = None  # {"job": name, "events_fd": fd} inside a training job
        self._record = None
        self._events = None
        self._inside = False
        self._depth = 0
        self._artifacts = {"input": set(), "output": set()}
        self._job_steps = {}
        self._warned = set()

    @classmethod
    def _of_job(cls, job):
        """The run of the training job this process is a rank of."""
        run = cls.__new__(cls)
        run._init_state()
        run._job = job
        run.experiment_name = None
        run.run_name = job["job"]
        run.run_group_name = None
        run._trial_component_name = job["job"]
        run._display_name = None
        run._tags = {}
        return run

    @property
    def trial_component_name(self):
        """The studio's name of the run's record: ``<experiment>-<run>``, or the job's name."""
        return self._trial_component_name

    @property
    def experiment_config(self):
        """What a training job launched inside this run records as its experiment_config."""
        return {
            "ExperimentName": self.experiment_name,
            "TrialName": self.run_group_name,
            "RunName": self._trial_component_name,
        }

    _experiment_config = experiment_config

    def __getstate__(self):
        raise NotImplementedError("Instance of Run type is not allowed to be pickled.")

    def __repr__(self):
        return "Run(experiment_name={!r}, run_name={!r})".format(
            self.experiment_name, self.run_name
        )

    def __enter__(self):
        if self._inside:
            # load_run() inside this run's own block returns this run: the block goes on.
            self._depth += 1
            return self
        if not self._in_load and _RunContext.get_current_run() is not None:
            raise RuntimeError("It is not allowed to use nested 'with' statements on the Run.")
        if self._job is not None:
            self._events = _events.writer()
        else:
            self._record = RecordProcess(
                self.experiment_name,
                self.run_name,
                load=self._in_load,
                display_name=self._display_name,
                tags=self._tags,
            )
            artifacts = self._record.ready.get("artifacts", {})
            self._artifacts = {k: set(artifacts.get(k, [])) for k in ("input", "output")}
        self._inside = True
        # A job's own run has no experiment for a job it would launch: it stays out of the
        # context estimators read.
        if _RunContext.get_current_run() is None and self._job is None:
            _RunContext.add_run_object(self)
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        if self._depth > 0:
            self._depth -= 1
            if self._record is not None:
                self._record.flush()
            return False
        if _RunContext.get_current_run() is self:
            _RunContext.drop_current_run()
        self._inside = False
        self._in_load = False
        record, self._record, events, self._events = self._record, None, self._events, None
        if events is not None:
            events.flush(timeout=_JOB_FLUSH_SECONDS)
        if record is None:
            return False
        if exc_value is not None:
            message = "{}: {}".format(type(exc_value).__name__, exc_value).rstrip(": ")
            reply = record.end("Failed", message)
        else:
            reply = record.end("Completed")
        for error in reply.get("errors", []):
            logger.warning("run %s: %s", self._trial_component_name, error)
        return False

    def close(self):
        """Sends what is logged so far to the store (the run stays open)."""
        if self._record is not None:
            self._record.flush()

    @_inside_run
    def log_parameter(self, name, value):
        """Records one parameter (a str, int or float), replacing an earlier value."""
        if not isinstance(name, str) or not name:
            raise ValueError(
                "log_parameter: name must be a non-empty string, got {!r}".format(name)
            )
        if isinstance(value, bool) or not isinstance(value, (str, numbers.Real)):
            raise ValueError(
                "log_parameter({}): value must be a str, int or float, got {!r}".format(name, value)
            )
        if _is_invalid_number("parameter", name, value):
            return
        if isinstance(value, numbers.Integral):
            value = int(value)
        elif isinstance(value, numbers.Real):
            value = float(value)
        if self._events is not None:
            self._events.param(name, value)
            return
        self._record.send({"kind": "param", "name": name, "value": value})

    @_inside_run
    def log_parameters(self, parameters):
        """Records each {name: value} of a dict."""
        if not isinstance(parameters, dict):
            raise ValueError(
                "log_parameters: parameters must be a dict, got {!r}".format(parameters)
            )
        for name, value in parameters.items():
            self.log_parameter(name, value)

    @_inside_run
    def log_metric(self, name, value, timestamp=None, step=None):
        """Records one value of a metric; steps count on from the last when none is given."""
        if not isinstance(name, str) or not name:
            raise ValueError("log_metric: name must be a non-empty string, got {!r}".format(name))
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise ValueError("log_metric({}): value must be a number, got {!r}".format(name, value))
        if _is_invalid_number("metric", name, value):
            return
        when = time.time() if timestamp is None else _epoch_seconds("timestamp", timestamp)
        if step is not None:
            if isinstance(step, bool) or not isinstance(step, numbers.Integral):
                raise ValueError(
                    "log_metric({}): step must be an integer, got {!r}".format(name, step)
                )
            step = int(step)
        if self._events is not None:
            if step is None:
                step = self._job_steps.get(name, 0)
            self._job_steps[name] = max(self._job_steps.get(name, 0), step + 1)
            self._events.metric(name, float(value), step, t=when)
            return
        line = {"kind": "metric", "name": name, "value": float(value), "time": when}
        if step is not None:
            line["step"] = step
        self._record.send(line)

    @_inside_run
    def log_file(self, file_path, name=None, media_type=None, is_output=True, extra_args=None):
        """Keeps a copy of a file with the run (in its folder, where SageMaker uploads to S3)."""
        path = os.fspath(file_path)
        if not os.path.isfile(path):
            raise ValueError("log_file: file_path: no file {!r}".format(path))
        name = name or os.path.basename(path)
        media_type = media_type or mimetypes.guess_type(path, strict=False)[0]
        self._check_artifact_count(name, is_output)
        if self._events is not None:
            kept = self._to_job_output(path, os.path.basename(path))
            self._job_artifact(name, kept or os.path.abspath(path), media_type, is_output)
            return
        self._record.send(
            {
                "kind": "file",
                "name": name,
                "path": os.path.abspath(path),
                "media_type": media_type,
                "is_output": bool(is_output),
            }
        )

    @_inside_run
    def log_artifact(self, name, value, media_type=None, is_output=True):
        """Records an artifact's value (a URI or any string), replacing an earlier one."""
        if not isinstance(name, str) or not name:
            raise ValueError("log_artifact: name must be a non-empty string, got {!r}".format(name))
        if not isinstance(value, str):
            raise ValueError(
                "log_artifact({}): value must be a string, got {!r}".format(name, value)
            )
        self._check_artifact_count(name, is_output)
        if self._events is not None:
            self._job_artifact(name, value, media_type, is_output)
            return
        self._record.send(
            {
                "kind": "artifact",
                "name": name,
                "value": value,
                "media_type": media_type,
                "is_output": bool(is_output),
            }
        )

    @_inside_run
    def log_confusion_matrix(self, y_true, y_pred, title=None, is_output=True):
        """Records the confusion matrix of predicted against true labels (a JSON artifact)."""
        matrix, labels = curves.confusion_matrix(y_true, y_pred)
        data = {
            "type": "ConfusionMatrix",
            "version": 0,
            "title": title,
            "confusionMatrix": matrix,
            "labels": labels,
        }
        self._log_graph(title, data, "ConfusionMatrix", is_output)

    @_inside_run
    def log_precision_recall(
        self,
        y_true,
        predicted_probabilities,
        positive_label=None,
        title=None,
        is_output=True,
        no_skill=None,
    ):
        """Records a binary classifier's precision-recall curve and average precision."""
        precision, recall, _ = curves.precision_recall_curve(
            y_true, predicted_probabilities, positive_label
        )
        data = {
            "type": "PrecisionRecallCurve",
            "version": 0,
            "title": title,
            "precision": precision,
            "recall": recall,
            "averagePrecisionScore": curves.average_precision(precision, recall),
            "noSkill": no_skill,
        }
        self._log_graph(title, data, "PrecisionRecallCurve", is_output)

    @_inside_run
    def log_roc_curve(self, y_true, y_score, title=None, is_output=True):
        """Records a binary classifier's ROC curve and the area under it."""
        fpr, tpr, _ = curves.roc_curve(y_true, y_score)
        area = None if any(math.isnan(v) for v in fpr + tpr) else curves.auc(fpr, tpr)
        data = {
            "type": "ROCCurve",
            "version": 0,
            "title": title,
            "falsePositiveRate": curves.finite_or_none(fpr),
            "truePositiveRate": curves.finite_or_none(tpr),
            "areaUnderCurve": area,
        }
        self._log_graph(title, data, "ROCCurve", is_output)

    def _log_graph(self, title, data, graph_type, is_output):
        # SageMaker means to name an untitled graph uniquely after its type (its code drops the
        # name it makes); the studio does, so two untitled graphs do not replace each other.
        now = datetime.datetime.now(datetime.timezone.utc)
        name = title or "{}-{}-{:03d}".format(
            graph_type, now.strftime("%Y-%m-%d-%H-%M-%S"), now.microsecond // 1000
        )
        self._check_artifact_count(name, is_output)
        if self._events is not None:
            kept = self._to_job_output(None, re.sub(r"[^A-Za-z0-9._-]", "_", name) + ".json", data)
            if kept:
                self._job_artifact(name, kept, "application/json", is_output)
            return
        self._record.send(
            {
                "kind": "graph",
                "name": name,
                "data": data,
                "media_type": "application/json",
                "is_output": bool(is_output),
            }
        )

    def _check_artifact_count(self, name, is_output):
        kind = "output" if is_output else "input"
        names = self._artifacts[kind]
        if name not in names and len(names) >= MAX_RUN_TC_ARTIFACTS_LEN:
            raise ValueError(
                "Cannot add more than {} {}_artifacts under run".format(
                    MAX_RUN_TC_ARTIFACTS_LEN, kind
                )
            )
        names.add(name)

    def _to_job_output(self, source, file_name, data=None):
        """The path of a file's copy (or data's JSON) in the job's output folder, or None."""
        folder = os.environ.get("SM_OUTPUT_DATA_DIR")
        if not folder:
            self._warn_once(
                "output",
                "this training job has no output folder (SM_OUTPUT_DATA_DIR); " "%s is not kept",
                file_name,
            )
            return None
        os.makedirs(folder, exist_ok=True)
        target = os.path.join(folder, file_name)
        if source is not None:
            shutil.copyfile(source, target)
        else:
            with open(target, "w") as out:
                json.dump(data, out, allow_nan=False)
        return target

    def _job_artifact(self, name, value, media_type, is_output):
        self._events.artifact(name, value, media_type, "output" if is_output else "input")

    def _warn_once(self, key, message, *args):
        if key not in self._warned:
            self._warned.add(key)
            logger.warning(message, *args)


def load_run(
    run_name=None,
    experiment_name=None,
    sagemaker_session=None,
    artifact_bucket=None,
    artifact_prefix=None,
    tags=None,
):
    """The run to log to: the named one (made when missing), the one whose ``with`` block is
    open in this process, or inside a training job the job's own run."""
    if run_name and not experiment_name:
        raise ValueError(
            "Invalid input: experiment_name is missing when run_name is supplied. Please "
            "supply valid experiment_name when the run_name is not None."
        )
    if not run_name and experiment_name:
        logger.warning(
            "No run_name is supplied. Ignoring the provided experiment_name since it only takes "
            "effect along with run_name. Will load the Run object from the job environment or "
            "current Run context."
        )
    if run_name:
        run = Run(experiment_name=experiment_name, run_name=run_name, tags=tags)
    elif _RunContext.get_current_run() is not None:
        run = _RunContext.get_current_run()
    elif job_environment() is not None:
        run = Run._of_job(job_environment())
    else:
        raise RuntimeError(
            "Failed to load a Run object. Please make sure a Run object has been initialized "
            "already."
        )
    run._in_load = True
    return run


def _sort_value(enum_type, value, field):
    if isinstance(value, enum_type):
        return value.value
    allowed = [m.value for m in enum_type]
    if value in allowed:
        return value
    raise ValueError("{}: must be one of {}, got {!r}".format(field, ", ".join(allowed), value))


def _stored_experiment(name):
    """The experiment's name as stored (runs lower-case theirs), or None when there is none."""
    names = [e["name"] for e in cli_json("list", "experiments", "--json")]
    if name in names:
        return name
    lower = [n for n in names if n.lower() == str(name).lower()]
    return lower[0] if lower else None


def list_runs(
    experiment_name,
    created_before=None,
    created_after=None,
    sagemaker_session=None,
    max_results=None,
    next_token=None,
    sort_by=SortByType.CREATION_TIME,
    sort_order=SortOrderType.DESCENDING,
):
    """The runs of an experiment (not its training jobs), as Run objects to load and log to."""
    by = _sort_value(SortByType, sort_by, "sort_by")
    order = _sort_value(SortOrderType, sort_order, "sort_order")
    before = None if created_before is None else _epoch_seconds("created_before", created_before)
    after = None if created_after is None else _epoch_seconds("created_after", created_after)
    experiment = _stored_experiment(experiment_name)
    if experiment is None:
        return []
    table = cli_json("analytics", "--experiment", experiment, "--json")
    rows = [c for c in table["components"] if c.get("is_run")]
    rows = [
        c
        for c in rows
        if (before is None or c["created"] < before) and (after is None or c["created"] > after)
    ]
    key = (lambda c: c["name"]) if by == "Name" else (lambda c: c["created"])
    rows.sort(key=key, reverse=order == "Descending")
    if max_results is not None:
        rows = rows[: int(max_results)]
    prefix = experiment + "-"
    runs = []
    for c in rows:
        name = c["name"][len(prefix) :] if c["name"].startswith(prefix) else c["name"]
        runs.append(Run(experiment_name=experiment, run_name=name))
    return runs

"""mlstudio.analytics: SageMaker's analytics DataFrames over the studio's store.

``ExperimentAnalytics`` is an experiment's table (one row per trial component: parameters,
``<metric> - Min|Max|Avg|StdDev|Last|Count``, artifacts, Trials, Experiments), the table
``mlstudio analytics --experiment`` prints. ``TrainingJobAnalytics`` is a job's metric series
(``timestamp``, ``metric_name``, ``value``). ``HyperparameterTuningJobAnalytics`` is one row per
training job of a tuning job. pandas is imported only by ``dataframe()`` (Debian's
python3-pandas); everything else needs the standard library only.
"""

import datetime
import logging
import math
import numbers
import sys

from . import _data_search
from ._cli import cli_json
from .exceptions import StudioCliError

logger = logging.getLogger(__name__)

METRIC_STATISTICS = ("Min", "Max", "Avg", "StdDev", "Last", "Count")
_NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _pandas():
    try:
        import pandas
    except ImportError:
        raise ImportError(
            "mlstudio.analytics: dataframe() needs pandas, which {} cannot import: install "
            "Debian's python3-pandas (apt install python3-pandas) or `pip install pandas`".format(
                sys.executable
            )
        ) from None
    return pandas


def _number(value):
    """The CLI's numbers, with its spelling of non-finite ones back to floats."""
    if isinstance(value, str) and value in _NON_FINITE:
        return _NON_FINITE[value]
    return value


def _utc(seconds):
    if seconds is None:
        return None
    return datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc)


def _epoch(field, value):
    if value is None:
        return None
    if isinstance(value, datetime.datetime):
        return value.timestamp()
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    raise ValueError("{}: must be a datetime or unix seconds, got {!r}".format(field, value))


class AnalyticsMetricsBase:
    """A table fetched once, kept until ``clear_cache()`` or ``dataframe(force_refresh=True)``."""

    def __init__(self):
        self._dataframe = None

    def export_csv(self, filename):
        """Writes the DataFrame to a CSV file."""
        self.dataframe().to_csv(filename)

    def dataframe(self, force_refresh=False):
        """The table as a pandas DataFrame."""
        if force_refresh:
            self.clear_cache()
        if self._dataframe is None:
            self._dataframe = self._fetch_dataframe()
        return self._dataframe

    def clear_cache(self):
        self._dataframe = None

    def _fetch_dataframe(self):
        raise NotImplementedError


def _resolve_sort_key(sort_by, columns):
    """A function giving a row's sort value, for SageMaker's sort_by names or a column."""
    properties = {
        "Name": "TrialComponentName",
        "TrialComponentName": "TrialComponentName",
        "CreationTime": "_created",
        "StartTime": "_started",
        "EndTime": "_ended",
        "LastModifiedTime": "_modified",
    }
    if sort_by in properties:
        key = properties[sort_by]
    elif sort_by.startswith("Parameters.") and sort_by[len("Parameters.") :] in columns:
        key = sort_by[len("Parameters.") :]
    elif sort_by.startswith("Metrics.") and "." in sort_by[len("Metrics.") :]:
        metric, stat = sort_by[len("Metrics.") :].rsplit(".", 1)
        matched = [s for s in METRIC_STATISTICS if s.lower() == stat.lower()]
        key = "{} - {}".format(metric, matched[0]) if matched else None
    else:
        key = sort_by
    if key is None or (not key.startswith("_") and key not in columns):
        raise ValueError(
            "sort_by: no column or property {!r}; use Name, CreationTime, Parameters.<name>, "
            "Metrics.<name>.<Min|Max|Avg|StdDev|Last|Count> or a column of the table".format(
                sort_by
            )
        )
    return lambda row: row.get(key)


def _missing(value):
    return value is None or (isinstance(value, float) and math.isnan(value))


def _sorted_rows(rows, key, descending):
    """Stable sort; rows without a value last in either direction (as the CLI sorts)."""
    present = [r for r in rows if not _missing(key(r))]
    missing = [r for r in rows if _missing(key(r))]
    try:
        present.sort(key=key, reverse=descending)
    except TypeError:
        present.sort(key=lambda r: str(key(r)), reverse=descending)
    return present + missing


class ExperimentAnalytics(AnalyticsMetricsBase):
    """One row per trial component of an experiment (or of a search), as SageMaker's."""

    MAX_TRIAL_COMPONENTS = 10000

    def __init__(
        self,
        experiment_name=None,
        search_expression=None,
        sort_by=None,
        sort_order=None,
        metric_names=None,
        parameter_names=None,
        sagemaker_session=None,
        input_artifact_names=None,
        output_artifact_names=None,
    ):
        super().__init__()
        if not experiment_name and not search_expression:
            raise ValueError("Either experiment_name or search_expression must be supplied.")
        if search_expression is not None:
            _data_search.validate(search_expression)
        if sort_order not in (None, "Ascending", "Descending"):
            raise ValueError(
                "sort_order: must be Ascending or Descending, got {!r}".format(sort_order)
            )
        self._experiment_name = experiment_name
        self._search_expression = search_expression
        self._sort_by = sort_by
        self._sort_order = sort_order
        self._metric_names = list(metric_names or [])
        self._parameter_names = list(parameter_names or [])
        self._input_artifact_names = list(input_artifact_names or [])
        self._output_artifact_names = list(output_artifact_names or [])

    @property
    def name(self):
        return self._experiment_name

    def __repr__(self):
        return "<mlstudio.ExperimentAnalytics for {}>".format(self.name)

    def _fetch_dataframe(self):
        pandas = _pandas()
        columns, rows = self._fetch_rows()
        frame = pandas.DataFrame([{c: r.get(c) for c in columns} for r in rows], columns=columns)
        return frame

    def _fetch_rows(self):
        """The table's columns and its rows as dicts (with private _created and friends)."""
        args = ["analytics", "--json"]
        if self._experiment_name:
            args += ["--experiment", self._experiment_name]
        for flag, names in (
            ("--metric", self._metric_names),
            ("--parameter", self._parameter_names),
            ("--input-artifact", self._input_artifact_names),
            ("--output-artifact", self._output_artifact_names),
        ):
            for n in names:
                args += [flag, n]
        table = cli_json(*args)
        columns = table["columns"]
        rows = []
        for cells, component in zip(table["rows"], table["components"]):
            row = {
                c: _number(v) if c.rpartition(" - ")[2] in METRIC_STATISTICS else v
                for c, v in zip(columns, cells)
            }
            row["Trials"] = [row["Trials"]] if row.get("Trials") else []
            row["Experiments"] = [row["Experiments"]] if row.get("Experiments") else []
            row["_created"] = component["created"]
            row["_started"] = component.get("started")
            row["_ended"] = component.get("ended")
            row["_modified"] = (
                component.get("ended") or component.get("started") or component["created"]
            )
            row["_status"] = component["status"]
            rows.append(row)
        if self._search_expression is not None:
            rows = [
                r
                for r in rows
                if _data_search.matches(self._search_expression, _record(r, columns))
            ]
        if self._sort_by:
            key = _resolve_sort_key(self._sort_by, columns)
            rows = _sorted_rows(rows, key, self._sort_order != "Ascending")
        elif self._sort_order == "Descending":
            rows.reverse()
        return columns, rows[: self.MAX_TRIAL_COMPONENTS]


def _record(row, columns):
    """A row as the search expression's properties."""
    record = {
        "TrialComponentName": row["TrialComponentName"],
        "DisplayName": row["DisplayName"],
        "Parents.ExperimentName": (row["Experiments"] or [None])[0],
        "Parents.TrialName": (row["Trials"] or [None])[0],
        "Status.PrimaryStatus": row["_status"],
        "CreationTime": row["_created"],
        "StartTime": row["_started"],
        "EndTime": row["_ended"],
        "LastModifiedTime": row["_modified"],
    }
    for c in columns:
        if c in ("TrialComponentName", "DisplayName", "Trials", "Experiments"):
            continue
        head, _, stat = c.rpartition(" - ")
        if stat in METRIC_STATISTICS:
            record["Metrics.{}.{}".format(head, stat)] = row.get(c)
        elif stat not in ("MediaType", "Value"):
            record["Parameters." + c] = row.get(c)
    return record


class TrainingJobAnalytics(AnalyticsMetricsBase):
    """A job's metrics as rows of (timestamp, metric_name, value).

    ``timestamp`` is seconds since the first point of that metric, as SageMaker's. The studio
    keeps every point: without ``period`` each is a row; with it, points are averaged over
    ``period``-second buckets as CloudWatch's statistics are.
    """

    CLOUDWATCH_NAMESPACE = "/aws/sagemaker/TrainingJobs"

    def __init__(
        self,
        training_job_name,
        metric_names=None,
        sagemaker_session=None,
        start_time=None,
        end_time=None,
        period=None,
    ):
        super().__init__()
        if not isinstance(training_job_name, str) or not training_job_name:
            raise ValueError(
                "training_job_name: must be a job's name, got {!r}".format(training_job_name)
            )
        if period is not None and (
            isinstance(period, bool) or not isinstance(period, numbers.Real) or period <= 0
        ):
            raise ValueError("period: must be a number of seconds > 0, got {!r}".format(period))
        self._training_job_name = training_job_name
        self._metric_names = list(metric_names) if metric_names else None
        self._start_time = _epoch("start_time", start_time)
        self._end_time = _epoch("end_time", end_time)
        self._period = period

    @property
    def name(self):
        return self._training_job_name

    def __repr__(self):
        return "<mlstudio.TrainingJobAnalytics for {}>".format(self.name)

    def _fetch_dataframe(self):
        pandas = _pandas()
        return pandas.DataFrame(self._fetch_rows(), columns=["timestamp", "metric_name", "value"])

    def _fetch_rows(self):
        show = cli_json("show", self._training_job_name, "--json")
        job = show["name"]
        names = self._metric_names or sorted(show.get("metrics", {}))
        rows = []
        for metric in names:
            if metric not in show.get("metrics", {}):
                logger.warning("Warning: No metrics called %s found", metric)
                continue
            points = sorted(cli_json("metrics", job, metric, "--json"), key=lambda p: p["time"])
            points = [
                p
                for p in points
                if (self._start_time is None or p["time"] >= self._start_time)
                and (self._end_time is None or p["time"] <= self._end_time)
            ]
            rows += self._metric_rows(metric, points)
        return rows

    def _metric_rows(self, metric, points):
        if not points:
            logger.warning("Warning: No metrics called %s found", metric)
            return []
        first = points[0]["time"]
        if not self._period:
            return [
                {
                    "timestamp": p["time"] - first,
                    "metric_name": metric,
                    "value": float(_number(p["value"])),
                }
                for p in points
            ]
        buckets = {}
        for p in points:
            buckets.setdefault(int((p["time"] - first) // self._period), []).append(
                float(_number(p["value"]))
            )
        return [
            {"timestamp": k * self._period, "metric_name": metric, "value": math.fsum(v) / len(v)}
            for k, v in sorted(buckets.items())
        ]


class HyperparameterTuningJobAnalytics(AnalyticsMetricsBase):
    """One row per training job of a tuning job: its tuned hyperparameters, TrainingJobName,
    TrainingJobStatus, FinalObjectiveValue, TrainingStartTime, TrainingEndTime,
    TrainingElapsedTimeSeconds (and the studio's StoppedEarly, StopReason, Bracket,
    ResumedFrom)."""

    def __init__(self, hyperparameter_tuning_job_name, sagemaker_session=None):
        super().__init__()
        if (
            not isinstance(hyperparameter_tuning_job_name, str)
            or not hyperparameter_tuning_job_name
        ):
            raise ValueError(
                "hyperparameter_tuning_job_name: must be a tuning job's name, got "
                "{!r}".format(hyperparameter_tuning_job_name)
            )
        self._tuning_job_name = hyperparameter_tuning_job_name
        self._description = None

    @property
    def name(self):
        return self._tuning_job_name

    def __repr__(self):
        return "<mlstudio.HyperparameterTuningJobAnalytics for {}>".format(self.name)

    def clear_cache(self):
        super().clear_cache()
        self._description = None

    def description(self, force_refresh=False):
        """DescribeHyperParameterTuningJob's fields (``mlstudio show TUNING_JOB --json``)."""
        if force_refresh:
            self.clear_cache()
        if self._description is None:
            described = cli_json("show", self._tuning_job_name, "--json")
            if "HyperParameterTuningJobName" not in described:
                raise ValueError(
                    "hyperparameter_tuning_job_name: {} is a training job, not a "
                    "tuning job".format(self._tuning_job_name)
                )
            self._description = described
        return self._description

    def training_job_summaries(self, force_refresh=False):
        """Each training job's summary: name, status, tuned hyperparameters, objective."""
        return self.description(force_refresh).get("TrainingJobSummaries", [])

    @property
    def tuning_ranges(self):
        """{name: range} of every tuned hyperparameter, as the tuning job's config gives it."""
        out = {}
        ranges = self.description()["HyperParameterTuningJobConfig"]["ParameterRanges"]
        for kind in ranges.values():
            for r in kind:
                out[r["Name"]] = r
        return out

    def _fetch_dataframe(self):
        pandas = _pandas()
        try:
            table = cli_json("analytics", "--tuning-job", self._tuning_job_name, "--json")
        except StudioCliError as error:
            raise ValueError(
                "hyperparameter_tuning_job_name: {}".format(error.stderr.strip() or error)
            ) from None
        columns = table["columns"]
        rows = []
        for cells in table["rows"]:
            row = {c: _number(v) for c, v in zip(columns, cells)}
            for c in ("TrainingStartTime", "TrainingEndTime"):
                row[c] = _utc(row.get(c))
            if "StoppedEarly" in row:
                row["StoppedEarly"] = row["StoppedEarly"] == "true"
            rows.append(row)
        return pandas.DataFrame(rows, columns=columns)

"""The profiler's data of a studio job as pandas DataFrames, with smdebug's PandasFrame names.

``PandasFrame(path)`` (smdebug.profiler.analysis.utils.profiler_data_to_pandas) takes a job's
name or folder. ``get_all_system_metrics()`` has smdebug's columns ``timestamp`` (UTC, smdebug's
``%Y-%m-%dT%H:%M:%S:%f``), ``timestamp_us`` (microseconds since the job's first sample),
``value``, ``system_metric`` (the device: ``cpu``, ``cpu3``, ``gpu0``, ``mem``, ``net``,
``disk``), ``dimension`` (SageMaker's ``CPUUtilization``, ``GPUUtilization``,
``GPUMemoryUtilization`` where one applies, else the studio's metric: ``iowait``, ``used``,
``rx``, ``tx``, ``read``, ``write``), ``nodeID`` (the node's host) and ``type`` (``cpu`` or
``gpu``), then the studio's ``node``, ``device`` and ``metric``. ``get_all_framework_metrics()``
has smdebug's ``start_time``, ``end_time``, ``start_time_us``, ``end_time_us``, ``tid`` (the
rank), ``pid``, ``framework_metric`` (the event), ``step``, ``bytes``, ``process`` (its category:
forward, backward, dataloader, comm, optimizer, step) and ``nodeID``, then ``node``, ``rank``
and ``phase``: the events of the steps the profiler's framework window covered.
``get_step_timings()`` (the studio's) is every rank's timing of every step per phase.
"""

import datetime

from ._cli import cli_json
from ._data_jobs import job_of

SYSTEM_COLUMNS = [
    "timestamp",
    "timestamp_us",
    "value",
    "system_metric",
    "dimension",
    "nodeID",
    "type",
    "node",
    "device",
    "metric",
]
FRAMEWORK_COLUMNS = [
    "start_time",
    "end_time",
    "start_time_us",
    "end_time_us",
    "tid",
    "pid",
    "framework_metric",
    "step",
    "bytes",
    "process",
    "nodeID",
    "node",
    "rank",
    "phase",
]
STEP_COLUMNS = [
    "step",
    "phase",
    "node",
    "rank",
    "nodeID",
    "time",
    "data_ms",
    "forward_ms",
    "backward_ms",
    "comm_ms",
    "optimizer_ms",
    "total_ms",
]


def _pandas():
    try:
        import pandas
    except ImportError:
        raise ImportError(
            "the profiler's DataFrames need pandas (Debian's python3-pandas)"
        ) from None
    return pandas


def human_time(us):
    """smdebug's us_since_epoch_to_human_readable_time."""
    moment = datetime.datetime.fromtimestamp(us / 1e6, tz=datetime.timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S:%f")


def dimension_of(device, metric):
    """SageMaker's dimension name for a studio series, where it has one."""
    gpu = device.startswith("gpu")
    if metric == "util":
        return "GPUUtilization" if gpu else "CPUUtilization"
    if gpu and metric == "mem":
        return "GPUMemoryUtilization"
    return metric


def _hosts(data):
    return {n["node"]: n["host"] or "algo-{}".format(n["node"] + 1) for n in data.get("nodes", [])}


class PandasFrame:
    """A job's system and framework metrics as DataFrames."""

    def __init__(self, path, use_in_memory_cache=False, scan_interval=5000000000):
        self.path = path
        self._job = job_of(path)
        self._system = None
        self._steps = None
        self.start_time = None  # microseconds since the epoch of the job's first sample

    def _system_data(self):
        if self._system is None:
            self._system = cli_json("samples", self._job, "--json")
            self._job = self._system["job"]
            times = [p[0] for s in self._system["series"] for p in s["samples"]]
            if times:
                self.start_time = int(min(times) * 1e6)
        return self._system

    def _step_data(self):
        if self._steps is None:
            self._steps = cli_json("steps", self._job, "--json")
            if self.start_time is None:
                self._system_data()
            if self.start_time is None:
                starts = [e["start"] for e in self._steps["events"]] + [
                    t["time"] for t in self._steps["steps"]
                ]
                self.start_time = int(min(starts) * 1e6) if starts else 0
        return self._steps

    def refresh(self):
        """Reads the job's data again (a running job has more)."""
        self._system = self._steps = None
        self.start_time = None

    def get_all_system_metrics(self, selected_system_metrics=[]):
        data = self._system_data()
        return self._system_frame(data, None, None, selected_system_metrics)

    def get_all_framework_metrics(self, selected_framework_metrics=[]):
        data = self._step_data()
        return self._framework_frame(data, None, None, selected_framework_metrics)

    def get_profiler_data_by_time(
        self,
        start_time_us,
        end_time_us,
        cache_metrics=False,
        selected_framework_metrics=[],
        selected_system_metrics=[],
        get_framework_metrics=True,
        get_system_metrics=True,
    ):
        """(system, framework) DataFrames of a window in microseconds since the epoch."""
        system = self._system_frame(
            self._system_data(),
            start_time_us,
            end_time_us,
            selected_system_metrics if get_system_metrics else None,
        )
        framework = self._framework_frame(
            self._step_data(),
            start_time_us,
            end_time_us,
            selected_framework_metrics if get_framework_metrics else None,
        )
        return system, framework

    def get_profiler_data_by_step(self, start_step, end_step, cache_metrics=False):
        """(system, framework) DataFrames of the steps start_step..end_step (inclusive)."""
        framework = self.get_all_framework_metrics()
        framework = framework[framework["step"].between(start_step, end_step)]
        system = self.get_all_system_metrics()
        if len(framework):
            first, last = framework["start_time_us"].min(), framework["end_time_us"].max()
            system = system[system["timestamp_us"].between(first, last)]
        else:
            system = system.iloc[0:0]
        return system, framework

    def get_step_timings(self):
        data = self._step_data()
        hosts = _hosts(data)
        rows = []
        for t in data["steps"]:
            parts = [
                t["data_ms"],
                t["forward_ms"],
                t["backward_ms"],
                t["comm_ms"],
                t["optimizer_ms"],
            ]
            rows.append(
                [t["step"], t["phase"], t["node"], t["rank"], hosts.get(t["node"]), t["time"]]
                + parts
                + [sum(parts)]
            )
        return _pandas().DataFrame(rows, columns=STEP_COLUMNS)

    def _system_frame(self, data, start_us, end_us, selected):
        hosts = _hosts(data)
        base = self.start_time or 0
        rows = []
        for s in data["series"] if selected is not None else []:
            dimension = dimension_of(s["device"], s["metric"])
            if selected and s["device"] not in selected and dimension not in selected:
                continue
            for t, value in s["samples"]:
                us = int(t * 1e6)
                if (start_us is not None and us < start_us) or (end_us is not None and us > end_us):
                    continue
                rows.append(
                    [
                        human_time(us),
                        us - base,
                        value,
                        s["device"],
                        dimension,
                        hosts.get(s["node"], "algo-{}".format(s["node"] + 1)),
                        "gpu" if s["device"].startswith("gpu") else "cpu",
                        s["node"],
                        s["device"],
                        s["metric"],
                    ]
                )
        frame = _pandas().DataFrame(rows, columns=SYSTEM_COLUMNS)
        return frame.sort_values(["timestamp_us", "node", "device"], kind="stable").reset_index(
            drop=True
        )

    def _framework_frame(self, data, start_us, end_us, selected):
        hosts = _hosts(data)
        base = self.start_time or 0
        rows = []
        for e in data["events"] if selected is not None else []:
            if selected and e["name"] not in selected and e["category"] not in selected:
                continue
            begin = int(e["start"] * 1e6)
            end = begin + int(e["duration_ms"] * 1e3)
            if (start_us is not None and end < start_us) or (end_us is not None and begin > end_us):
                continue
            rows.append(
                [
                    human_time(begin),
                    human_time(end),
                    begin - base,
                    end - base,
                    e["rank"],
                    e["pid"],
                    e["name"],
                    e["step"],
                    -1,
                    e["category"],
                    hosts.get(e["node"], "algo-{}".format(e["node"] + 1)),
                    e["node"],
                    e["rank"],
                    e["phase"],
                ]
            )
        frame = _pandas().DataFrame(rows, columns=FRAMEWORK_COLUMNS)
        return frame.sort_values(["start_time_us", "rank"], kind="stable").reset_index(drop=True)

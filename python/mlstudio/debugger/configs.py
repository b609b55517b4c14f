"""Debugger and profiler configuration objects with the SageMaker SDK's names and arguments
(``sagemaker.debugger``): DebuggerHookConfig, CollectionConfig, ProfilerConfig, FrameworkProfile,
TensorBoardOutputConfig. Each knows its job-spec form (``to_spec()``, see SPEC.md, "Debugger and
profiler"); the engine validates the values when the job is submitted.
"""

from .._util import absolute_path, check_bool, field_error, warn_once

_INTERVALS = (100, 200, 500, 1000, 5000, 60000)


class CollectionConfig:
    """A tensor collection to save: ``CollectionConfig("gradients", {"save_interval": "10"})``.
    Equal by name and parameters, as SageMaker de-duplicates them."""

    def __init__(self, name, parameters=None):
        if not isinstance(name, str) or not name:
            raise field_error("CollectionConfig.name", "a non-empty string", name)
        if parameters is not None and not isinstance(parameters, dict):
            raise field_error("CollectionConfig.parameters", "a dict", parameters)
        self.name = name
        self.parameters = dict(parameters or {})

    def _to_request_dict(self):
        out = {"CollectionName": self.name}
        if self.parameters:
            out["CollectionParameters"] = {k: str(v) for k, v in self.parameters.items()}
        return out

    def to_spec(self):
        out = {"name": self.name}
        if self.parameters:
            out["parameters"] = dict(self.parameters)
        return out

    def __eq__(self, other):
        return (
            isinstance(other, CollectionConfig)
            and self.name == other.name
            and self.parameters == other.parameters
        )

    def __hash__(self):
        return hash((self.name, tuple(sorted((k, str(v)) for k, v in self.parameters.items()))))

    def __repr__(self):
        return "CollectionConfig({!r}, {!r})".format(self.name, self.parameters)


def collection_spec(value, path):
    """A CollectionConfig, a SageMaker request dict or a spec dict as ``{"name", "parameters"}``."""
    if isinstance(value, CollectionConfig):
        return value.to_spec()
    if isinstance(value, dict) and "CollectionName" in value:
        parameters = value.get("CollectionParameters")
        return CollectionConfig(value["CollectionName"], parameters).to_spec()
    if isinstance(value, dict) and "name" in value:
        return dict(value)
    raise field_error(path, 'a CollectionConfig or {"name", "parameters"}', value)


class DebuggerHookConfig:
    """Which tensors the job's hook saves (SageMaker's DebuggerHookConfig)."""

    def __init__(
        self,
        s3_output_path=None,
        container_local_output_path=None,
        hook_parameters=None,
        collection_configs=None,
    ):
        if hook_parameters is not None and not isinstance(hook_parameters, dict):
            raise field_error("DebuggerHookConfig.hook_parameters", "a dict", hook_parameters)
        self.s3_output_path = s3_output_path
        self.container_local_output_path = container_local_output_path
        self.hook_parameters = dict(hook_parameters or {})
        self.collection_configs = list(collection_configs or [])
        for i, c in enumerate(self.collection_configs):
            collection_spec(c, "DebuggerHookConfig.collection_configs[{}]".format(i))

    def to_spec(self):
        out = {}
        if self.s3_output_path:
            out["s3_output_path"] = self.s3_output_path
        if self.container_local_output_path:
            out["container_local_output_path"] = self.container_local_output_path
        if self.hook_parameters:
            out["hook_parameters"] = dict(self.hook_parameters)
        if self.collection_configs:
            out["collection_configs"] = [
                collection_spec(c, "debugger_hook_config.collection_configs[{}]".format(i))
                for i, c in enumerate(self.collection_configs)
            ]
        return out

    def __repr__(self):
        return "DebuggerHookConfig({!r})".format(self.to_spec())


class TensorBoardOutputConfig:
    """Where the job's metrics are written live as TensorBoard event files: the folder
    ``container_local_output_path`` on this machine (``s3_output_path`` is accepted alone only
    as SageMaker takes it; the studio then has nowhere to write, and says so at fit)."""

    def __init__(self, s3_output_path=None, container_local_output_path=None):
        self.s3_output_path = s3_output_path
        self.container_local_output_path = container_local_output_path

    def to_spec(self):
        out = {}
        if self.container_local_output_path:
            out["local_path"] = absolute_path(self.container_local_output_path)
        if self.s3_output_path:
            out["s3_output_path"] = self.s3_output_path
        return out


class _ProfilingConfigBase:
    """A per-area profiling config (detailed, dataloader, Python, Horovod, SMDataParallel): the
    studio's framework profiler records every phase of each profiled step, so these change
    nothing; they are accepted as SageMaker takes them."""

    def __init__(self, start_step=None, num_steps=None, start_unix_time=None, duration=None, **kw):
        self.start_step = start_step
        self.num_steps = num_steps
        self.start_unix_time = start_unix_time
        self.duration = duration
        self.extra = kw


def _profiling_config(name):
    return type(name, (_ProfilingConfigBase,), {"__module__": __name__})


DetailedProfilingConfig = _profiling_config("DetailedProfilingConfig")
DataloaderProfilingConfig = _profiling_config("DataloaderProfilingConfig")
PythonProfilingConfig = _profiling_config("PythonProfilingConfig")
HorovodProfilingConfig = _profiling_config("HorovodProfilingConfig")
SMDataParallelProfilingConfig = _profiling_config("SMDataParallelProfilingConfig")


class FrameworkProfile:
    """Which steps the framework profiler records: ``start_step`` and ``num_steps``, or
    ``start_unix_time`` and ``duration`` (SageMaker's FrameworkProfile)."""

    def __init__(
        self,
        local_path="/opt/ml/output/profiler",
        file_max_size=10485760,
        file_close_interval=60,
        file_open_fail_threshold=50,
        detailed_profiling_config=None,
        dataloader_profiling_config=None,
        python_profiling_config=None,
        horovod_profiling_config=None,
        smdataparallel_profiling_config=None,
        start_step=None,
        num_steps=None,
        start_unix_time=None,
        duration=None,
    ):
        if (start_step is not None or num_steps is not None) and (
            start_unix_time is not None or duration is not None
        ):
            raise ValueError(
                "FrameworkProfile: start_step/num_steps and start_unix_time/duration are "
                "mutually exclusive; give one pair"
            )
        self.start_step = start_step
        self.num_steps = num_steps
        self.start_unix_time = start_unix_time
        self.duration = duration
        self.local_path = local_path
        self.file_max_size = file_max_size
        self.file_close_interval = file_close_interval
        self.file_open_fail_threshold = file_open_fail_threshold
        areas = {
            "detailed_profiling_config": detailed_profiling_config,
            "dataloader_profiling_config": dataloader_profiling_config,
            "python_profiling_config": python_profiling_config,
            "horovod_profiling_config": horovod_profiling_config,
            "smdataparallel_profiling_config": smdataparallel_profiling_config,
        }
        for name, value in areas.items():
            if value is not None:
                warn_once(
                    "FrameworkProfile." + name,
                    "FrameworkProfile({}=...): the studio records every phase of each profiled "
                    "step (data loading, forward and backward per block, gradient sync, "
                    "optimizer); per-area configs change nothing".format(name),
                )

    def to_spec(self):
        out = {}
        for key in ("start_step", "num_steps", "start_unix_time", "duration"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        return out

    def __repr__(self):
        return "FrameworkProfile({!r})".format(self.to_spec())


class ProfilerConfig:
    """System sampling and framework profiling (SageMaker's ProfilerConfig)."""

    def __init__(
        self,
        s3_output_path=None,
        system_monitor_interval_millis=None,
        framework_profile_params=None,
        profile_params=None,
        disable_profiler=False,
    ):
        path = "profiler_config.system_monitor_interval_millis"
        interval = system_monitor_interval_millis
        if interval is not None and interval not in _INTERVALS:
            raise field_error(path, "one of 100, 200, 500, 1000, 5000, 60000", interval)
        if framework_profile_params is not None and not isinstance(
            framework_profile_params, (FrameworkProfile, dict)
        ):
            raise field_error(
                "profiler_config.framework_profile_params", "a FrameworkProfile",
                framework_profile_params,
            )
        if profile_params is not None:
            warn_once(
                "ProfilerConfig.profile_params",
                "ProfilerConfig(profile_params=...): SageMaker Profiler's CUDA tracing does not "
                "run here; the studio's framework profiler takes framework_profile_params",
            )
        self.s3_output_path = s3_output_path
        self.system_monitor_interval_millis = interval
        self.framework_profile_params = framework_profile_params
        self.profile_params = profile_params
        self.disable_profiler = check_bool("profiler_config.disable_profiler", disable_profiler)

    def to_spec(self):
        out = {}
        if self.system_monitor_interval_millis is not None:
            out["system_monitor_interval_millis"] = self.system_monitor_interval_millis
        fp = self.framework_profile_params
        if isinstance(fp, FrameworkProfile):
            out["framework_profile_params"] = fp.to_spec()
        elif isinstance(fp, dict):
            out["framework_profile_params"] = dict(fp)
        if self.disable_profiler:
            out["disable_profiler"] = True
        if self.s3_output_path:
            out["s3_output_path"] = self.s3_output_path
        return out

    def __repr__(self):
        return "ProfilerConfig({!r})".format(self.to_spec())


def spec_of(value, cls, path):
    """The spec form of a config object, or a dict taken as the spec form already."""
    if isinstance(value, cls):
        return value.to_spec()
    if isinstance(value, dict):
        return dict(value)
    raise field_error(path, "a {} or a dict".format(cls.__name__), value)


__all__ = [
    "CollectionConfig",
    "DebuggerHookConfig",
    "TensorBoardOutputConfig",
    "ProfilerConfig",
    "FrameworkProfile",
    "DetailedProfilingConfig",
    "DataloaderProfilingConfig",
    "PythonProfilingConfig",
    "HorovodProfilingConfig",
    "SMDataParallelProfilingConfig",
]

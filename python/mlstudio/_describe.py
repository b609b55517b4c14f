"""DescribeTrainingJob for a studio job: SageMaker's keys mapped from ``mlstudio show JOB
--json`` (the JSON contract, README "JSON output") and the job's stored spec
(``<job dir>/spec.json``, the spec as run). Times are aware UTC datetimes, as boto3 gives them.
"""

import json
import os
import time

from ._util import to_datetime

ARN_PREFIX = "arn:aws:sagemaker:local:000000000000:"
ENDED = ("Completed", "Failed", "Stopped")


def stored_spec(show):
    """The spec the job ran with, ``{}`` when its folder is gone or unreadable."""
    path = os.path.join(show.get("job_dir") or "", "spec.json")
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def _hyperparameter_text(value):
    return value if isinstance(value, str) else json.dumps(value)


def _transitions(show):
    out = []
    for t in show.get("status_transitions") or []:
        entry = {
            "Status": t.get("secondary_status") or t.get("status"),
            "StartTime": to_datetime(t.get("start_time")),
            "StatusMessage": t.get("message") or "",
        }
        if t.get("end_time"):
            entry["EndTime"] = to_datetime(t["end_time"])
        out.append(entry)
    return out


def _rule_statuses(show, kind):
    return [
        {
            "RuleConfigurationName": r.get("rule"),
            "RuleEvaluationJobArn": ARN_PREFIX + "processing-job/{}-{}".format(
                show.get("name"), r.get("rule", "").lower()
            ),
            "RuleEvaluationStatus": r.get("status"),
            "StatusDetails": r.get("message") or "",
            "LastModifiedTime": to_datetime(r.get("updated")),
        }
        for r in show.get("rules") or []
        if r.get("kind") == kind
    ]


def _input_channels(spec):
    return [
        {
            "ChannelName": name,
            "DataSource": {
                "S3DataSource": {
                    "S3DataType": "S3Prefix",
                    "S3Uri": path if "://" in path else "file://" + path,
                    "S3DataDistributionType": "FullyReplicated",
                }
            },
        }
        for name, path in sorted((spec.get("inputs") or {}).items())
        if isinstance(path, str)
    ]


def _final_metrics(show):
    stamp = to_datetime(show.get("ended") or time.time())
    return [
        {"MetricName": name, "Value": summary.get("last"), "Timestamp": stamp}
        for name, summary in sorted((show.get("metrics") or {}).items())
        if summary.get("count")
    ]


def _debugger(spec, show, out):
    hook = spec.get("debugger_hook_config")
    if hook is not False:
        hook = hook if isinstance(hook, dict) else {}
        out["DebugHookConfig"] = {
            "LocalPath": os.path.join(show.get("job_dir") or "", "debug-output"),
            "HookParameters": hook.get("hook_parameters") or {},
            "CollectionConfigurations": [
                {"CollectionName": c.get("name"), "CollectionParameters": c.get("parameters") or {}}
                for c in hook.get("collection_configs") or []
            ],
        }
    rules = spec.get("rules") or []
    if rules:
        out["DebugRuleConfigurations"] = [
            {
                "RuleConfigurationName": r.get("name"),
                "RuleEvaluatorImage": "local" if "source" in r else "DEFAULT_RULE_EVALUATOR_IMAGE",
                "RuleParameters": {
                    k: _hyperparameter_text(v)
                    for k, v in dict(
                        r.get("parameters") or r.get("rule_parameters") or {},
                        rule_to_invoke=r.get("rule_to_invoke") or r.get("name"),
                    ).items()
                },
            }
            for r in rules
        ]
    out["DebugRuleEvaluationStatuses"] = _rule_statuses(show, "model")
    out["ProfilerRuleEvaluationStatuses"] = _rule_statuses(show, "profiler")
    profiler = spec.get("profiler_config") if isinstance(spec.get("profiler_config"), dict) else {}
    disabled = bool(spec.get("disable_profiler") or profiler.get("disable_profiler"))
    out["ProfilerConfig"] = {
        "ProfilingIntervalInMilliseconds": profiler.get("system_monitor_interval_millis", 500),
        "DisableProfiler": disabled,
    }
    if profiler.get("framework_profile_params"):
        out["ProfilerConfig"]["ProfilingParameters"] = {
            k: str(v) for k, v in profiler["framework_profile_params"].items()
        }
    out["ProfilingStatus"] = "Disabled" if disabled else "Enabled"


def _billing(show, out):
    billing = show.get("billing") or {}
    if show.get("status") in ENDED and billing:
        out["TrainingTimeInSeconds"] = int(round(billing.get("training_time_s") or 0))
        out["BillableTimeInSeconds"] = int(round(billing.get("billable_time_s") or 0))


def describe_from_show(show):
    """DescribeTrainingJob's dict from ``mlstudio show JOB --json`` and the stored spec."""
    spec = stored_spec(show)
    name = show.get("name")
    job_dir = show.get("job_dir") or ""
    entry = spec.get("entry_point") or show.get("entry_point")
    out = {
        "TrainingJobName": name,
        "TrainingJobArn": ARN_PREFIX + "training-job/" + (name or ""),
        "TrainingJobStatus": show.get("status"),
        "SecondaryStatus": show.get("secondary_status"),
        "SecondaryStatusTransitions": _transitions(show),
        "HyperParameters": {
            k: _hyperparameter_text(v) for k, v in (spec.get("hyperparameters") or {}).items()
        },
        "AlgorithmSpecification": {
            "TrainingImage": entry if isinstance(entry, str) else " ".join(entry or []),
            "TrainingInputMode": "File",
            "MetricDefinitions": spec.get("metric_definitions") or [],
            "EnableSageMakerMetricsTimeSeries": True,
        },
        "RoleArn": spec.get("role") or ARN_PREFIX.replace("sagemaker", "iam") + "role/mlstudio",
        "InputDataConfig": _input_channels(spec),
        "OutputDataConfig": {"S3OutputPath": "file://" + job_dir, "CompressionType": "NONE"},
        "ResourceConfig": {
            "InstanceType": show.get("instance_type") or spec.get("instance_type") or "local",
            "InstanceCount": show.get("instance_count") or spec.get("instance_count") or 1,
            "VolumeSizeInGB": spec.get("volume_size", 30),
        },
        "StoppingCondition": {"MaxRuntimeInSeconds": spec.get("max_run", 86400)},
        "CreationTime": to_datetime(show.get("created")),
        "EnableManagedSpotTraining": bool(spec.get("use_spot_instances")),
        "ModelArtifacts": {"S3ModelArtifacts": "file://" + os.path.join(job_dir, "model")},
        "FinalMetricDataList": _final_metrics(show),
        "CheckpointConfig": {
            "LocalPath": spec.get("checkpoint_local_path") or os.path.join(job_dir, "checkpoints")
        },
        "ExperimentConfig": {
            "ExperimentName": show.get("experiment"),
            "TrialName": show.get("trial"),
            "TrialComponentDisplayName": show.get("display_name") or name,
        },
    }
    if show.get("failure_reason"):
        out["FailureReason"] = show["failure_reason"]
    if spec.get("max_wait"):
        out["StoppingCondition"]["MaxWaitTimeInSeconds"] = spec["max_wait"]
    if spec.get("max_retry_attempts"):
        out["RetryStrategy"] = {"MaximumRetryAttempts": spec["max_retry_attempts"]}
    if show.get("started"):
        out["TrainingStartTime"] = to_datetime(show["started"])
    if show.get("ended"):
        out["TrainingEndTime"] = to_datetime(show["ended"])
    times = [t.get("StartTime") for t in out["SecondaryStatusTransitions"]]
    times += [out.get("TrainingEndTime"), out["CreationTime"]]
    known = [t for t in times if t is not None]
    if known:
        out["LastModifiedTime"] = max(known)
    environment = {
        k: v for k, v in (spec.get("environment") or {}).items() if isinstance(v, str)
    }
    if environment:
        out["Environment"] = environment
    if spec.get("tensorboard_output_config"):
        tb = spec["tensorboard_output_config"]
        out["TensorBoardOutputConfig"] = {
            "LocalPath": tb.get("local_path") or tb.get("container_local_output_path"),
            "S3OutputPath": tb.get("s3_output_path", ""),
        }
    _debugger(spec, show, out)
    _billing(show, out)
    return out

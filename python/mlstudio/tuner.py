"""``HyperparameterTuner`` (``sagemaker.tuner``): a studio tuning job (resources/specs/TUNING.md)
built from an estimator and ranges; ``fit()`` starts ``mlstudio tune`` in a session of its own,
so the tuning job and its training jobs are the studio's. A live card follows it in a notebook.
"""

import enum
import os
import re
import time

from . import _cli, _spec
from ._describe import ENDED, stored_spec
from ._display import LiveCard, tuning_bundle
from ._job import LOGGER, show_job
from ._util import (
    check_integer,
    field_error,
    shown,
    timestamp,
    to_datetime,
    write_private_json,
)
from .exceptions import StudioCliError, UnexpectedStatusException
from .parameter import (  # noqa: F401 (SageMaker exports the ranges from sagemaker.tuner too)
    CategoricalParameter,
    ContinuousParameter,
    IntegerParameter,
    ParameterRange,
)
from .session import sdk_folder

_STRATEGIES = ("Bayesian", "Random", "Grid", "Hyperband")
_NAME = re.compile(r"^[A-Za-z0-9](-*[A-Za-z0-9]){0,31}$")
_POLL_SECONDS = 2.0


class WarmStartTypes(enum.Enum):
    IDENTICAL_DATA_AND_ALGORITHM = "IdenticalDataAndAlgorithm"
    TRANSFER_LEARNING = "TransferLearning"


class WarmStartConfig:
    """Earlier tuning jobs whose training jobs count as observations (1 to 5 parents)."""

    def __init__(self, warm_start_type, parents):
        if isinstance(warm_start_type, str):
            try:
                warm_start_type = WarmStartTypes(warm_start_type)
            except ValueError:
                raise field_error("warm_start_config.type",
                                  '"IdenticalDataAndAlgorithm" or "TransferLearning"',
                                  warm_start_type) from None
        if not isinstance(warm_start_type, WarmStartTypes):
            raise field_error("warm_start_config.type", "a WarmStartTypes value", warm_start_type)
        if isinstance(parents, str) or not parents:
            raise field_error("warm_start_config.parents", "a non-empty set of tuning job names",
                              parents)
        self.type = warm_start_type
        self.parents = set(parents)

    def to_spec(self):
        return {"parents": sorted(self.parents), "type": self.type.value}

    def to_input_req(self):
        return {
            "WarmStartType": self.type.value,
            "ParentHyperParameterTuningJobs": [
                {"HyperParameterTuningJobName": p} for p in sorted(self.parents)
            ],
        }


class HyperbandStrategyConfig:
    def __init__(self, max_resource=None, min_resource=None):
        self.max_resource = max_resource
        self.min_resource = min_resource


class StrategyConfig:
    """``StrategyConfig(hyperband_strategy_config=HyperbandStrategyConfig(...))``."""

    def __init__(self, hyperband_strategy_config):
        self.hyperband_strategy_config = hyperband_strategy_config

    def to_spec(self):
        h = self.hyperband_strategy_config
        return {"hyperband": {k: v for k, v in (("min_resource", h.min_resource),
                                                ("max_resource", h.max_resource)) if v is not None}}


class TuningJobCompletionCriteriaConfig:
    def __init__(self, max_number_training_jobs_not_improving=None, complete_on_convergence=None,
                 target_objective_metric_value=None):
        self.max_number_training_jobs_not_improving = max_number_training_jobs_not_improving
        self.complete_on_convergence = complete_on_convergence
        self.target_objective_metric_value = target_objective_metric_value

    def to_spec(self):
        keys = ("max_number_training_jobs_not_improving", "complete_on_convergence",
                "target_objective_metric_value")
        return {k: getattr(self, k) for k in keys if getattr(self, k) is not None}


def _with_times(value):
    """The describe dict with every ``...Time`` number as a datetime, as boto3 returns it."""
    if isinstance(value, dict):
        return {
            k: to_datetime(v) if k.endswith("Time") and isinstance(v, (int, float))
            and not isinstance(v, bool) else _with_times(v)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_with_times(v) for v in value]
    return value


def tuning_card(d):
    """The tuning card (application/vnd.mlstudio.tuning.v1+json) from the describe dict."""
    config = d.get("HyperParameterTuningJobConfig") or {}
    objective = config.get("HyperParameterTuningJobObjective") or {}
    counters = d.get("TrainingJobStatusCounters") or {}
    best = d.get("BestTrainingJob") or {}
    best_metric = best.get("FinalHyperParameterTuningJobObjectiveMetric") or {}
    return {
        "tuning": d.get("HyperParameterTuningJobName"),
        "status": d.get("HyperParameterTuningJobStatus"),
        "max_jobs": (config.get("ResourceLimits") or {}).get("MaxNumberOfTrainingJobs"),
        "done": sum(counters.get(k, 0) for k in ("Completed", "Stopped", "NonRetryableError")),
        "best_job": best.get("TrainingJobName"),
        "best_objective": best_metric.get("Value"),
        "objective": {"name": objective.get("MetricName"), "type": objective.get("Type")},
        "jobs": [
            {
                "job": j.get("TrainingJobName"),
                "objective": j.get("FinalObjectiveValue"),
                "status": j.get("TrainingJobStatus"),
                "stopped_early": bool(j.get("StoppedEarly")),
            }
            for j in d.get("TrainingJobSummaries") or []
        ],
    }


class _TuningJob:
    """``tuner.latest_tuning_job``: a handle on one studio tuning job."""

    def __init__(self, name):
        self.name = name

    def describe(self):
        """DescribeHyperParameterTuningJob's dict, with TrainingJobSummaries."""
        return _with_times(_cli.cli_json("show", self.name, "--json"))

    def stop(self):
        _cli.cli_run("stop", self.name)

    def wait(self, card=True):
        """Waits for the tuning job to end (a live card in a notebook); raises
        UnexpectedStatusException when it Failed."""
        live = LiveCard(tuning_bundle) if card else None
        while True:
            raw = _cli.cli_json("show", self.name, "--json")
            if live:
                live.update(tuning_card(raw))
            status = raw.get("HyperParameterTuningJobStatus")
            if status in ENDED:
                break
            time.sleep(_POLL_SECONDS)
        if status == "Failed":
            raise UnexpectedStatusException(
                message="Error for HyperParameterTuning job {}: Failed. Reason: {}".format(
                    self.name, raw.get("StatusMessage") or "(no reason recorded)"),
                allowed_statuses=["Completed", "Stopped"],
                actual_status=status,
            )
        if status == "Stopped":
            LOGGER.warning("Tuning job %s was stopped: %s", self.name, raw.get("StatusMessage"))
        return _with_times(raw)

    def __repr__(self):
        return "_TuningJob({!r})".format(self.name)


class HyperparameterTuner:
    """SageMaker's HyperparameterTuner over a studio estimator."""

    def __init__(
        self,
        estimator,
        objective_metric_name,
        hyperparameter_ranges,
        metric_definitions=None,
        strategy="Bayesian",
        objective_type="Maximize",
        max_jobs=None,
        max_parallel_jobs=1,
        max_runtime_in_seconds=None,
        tags=None,
        base_tuning_job_name=None,
        warm_start_config=None,
        strategy_config=None,
        completion_criteria_config=None,
        early_stopping_type="Off",
        estimator_name=None,
        random_seed=None,
        autotune=False,
        hyperparameters_to_keep_static=None,
    ):
        from .estimator import Estimator

        if not isinstance(estimator, Estimator):
            raise field_error("estimator", "an Estimator (or PyTorch)", estimator)
        if not isinstance(objective_metric_name, str) or not objective_metric_name:
            raise field_error("tuning.objective_metric_name", "a metric name",
                              objective_metric_name)
        if not isinstance(hyperparameter_ranges, dict) or not hyperparameter_ranges:
            raise field_error("tuning.hyperparameter_ranges",
                              "a dict of name -> ContinuousParameter, IntegerParameter or "
                              "CategoricalParameter", hyperparameter_ranges)
        for name, r in hyperparameter_ranges.items():
            if not isinstance(r, ParameterRange):
                raise field_error("tuning.hyperparameter_ranges.{}".format(name),
                                  "a ContinuousParameter, IntegerParameter or CategoricalParameter",
                                  r)
        if strategy not in _STRATEGIES:
            raise field_error("tuning.strategy", "one of " + ", ".join(_STRATEGIES), strategy)
        if objective_type not in ("Maximize", "Minimize"):
            raise field_error("tuning.objective_type", '"Maximize" or "Minimize"', objective_type)
        if early_stopping_type not in ("Off", "Auto"):
            raise field_error("tuning.early_stopping_type", '"Off" or "Auto"', early_stopping_type)
        if max_jobs is not None:
            check_integer("tuning.max_jobs", max_jobs, 1, 500)
        check_integer("tuning.max_parallel_jobs", max_parallel_jobs, 1, 100)
        if max_runtime_in_seconds is not None:
            check_integer("tuning.max_runtime_in_seconds", max_runtime_in_seconds, 1)
        if random_seed is not None:
            check_integer("tuning.random_seed", random_seed, 0)
        if base_tuning_job_name is not None and not (
            isinstance(base_tuning_job_name, str) and _NAME.match(base_tuning_job_name)
        ):
            raise ValueError(
                "base_tuning_job_name: up to 32 letters, digits and hyphens, starting and ending "
                "with a letter or digit, got {}".format(shown(base_tuning_job_name)))
        if warm_start_config is not None and not isinstance(warm_start_config, WarmStartConfig):
            raise field_error("warm_start_config", "a WarmStartConfig", warm_start_config)
        if autotune:
            raise ValueError("autotune: not available here; give hyperparameter_ranges")
        if estimator_name is not None:
            raise ValueError("estimator_name: multi-algorithm tuning is not available here")
        self.estimator = estimator
        self.objective_metric_name = objective_metric_name
        self._hyperparameter_ranges = dict(hyperparameter_ranges)
        self.metric_definitions = _spec.metric_definitions(metric_definitions)
        self.strategy = strategy
        self.objective_type = objective_type
        self.max_jobs = max_jobs
        self.max_parallel_jobs = max_parallel_jobs
        self.max_runtime_in_seconds = max_runtime_in_seconds
        self.tags = _spec.tags(tags)
        self.base_tuning_job_name = base_tuning_job_name
        self.warm_start_config = warm_start_config
        self.strategy_config = strategy_config
        self.completion_criteria_config = completion_criteria_config
        self.early_stopping_type = early_stopping_type
        self.random_seed = random_seed
        self.hyperparameters_to_keep_static = list(hyperparameters_to_keep_static or [])
        self.latest_tuning_job = None

    def hyperparameter_ranges(self):
        """SageMaker's ParameterRanges: {"ContinuousParameterRanges": [...], ...}."""
        out = {"ContinuousParameterRanges": [], "IntegerParameterRanges": [],
               "CategoricalParameterRanges": []}
        for name, r in self._hyperparameter_ranges.items():
            out["{}ParameterRanges".format(r.type_name)].append(r.as_tuning_range(name))
        return out

    def tuning_spec(self, inputs=None):
        """The tuning spec ``fit()`` runs: {"tuning": {...}, "training": {...}}."""
        training = self.estimator.job_spec(inputs=inputs)
        names = {d["Name"] for d in training.get("metric_definitions", [])}
        extra = [d for d in self.metric_definitions if d["Name"] not in names]
        if extra:
            training["metric_definitions"] = training.get("metric_definitions", []) + extra
        if self.tags:
            training["tags"] = training.get("tags", []) + self.tags
        tuning = {
            "objective_metric_name": self.objective_metric_name,
            "objective_type": self.objective_type,
            "hyperparameter_ranges": {
                name: r.to_spec() for name, r in self._hyperparameter_ranges.items()
            },
            "strategy": self.strategy,
            "max_parallel_jobs": self.max_parallel_jobs,
            "early_stopping_type": self.early_stopping_type,
        }
        if self.max_jobs is not None:
            tuning["max_jobs"] = self.max_jobs
        elif self.strategy != "Grid":
            tuning["max_jobs"] = 1  # SageMaker's default, except for Grid
        if self.base_tuning_job_name:
            tuning["name"] = self.base_tuning_job_name
        optional = (
            ("max_runtime_in_seconds", self.max_runtime_in_seconds),
            ("random_seed", self.random_seed),
            ("warm_start_config", self.warm_start_config),
            ("strategy_config", self.strategy_config),
            ("completion_criteria", self.completion_criteria_config),
        )
        for key, value in optional:
            if value is not None:
                tuning[key] = value.to_spec() if hasattr(value, "to_spec") else value
        if self.hyperparameters_to_keep_static:
            tuning["hyperparameters_to_keep_static"] = list(self.hyperparameters_to_keep_static)
        return {"tuning": tuning, "training": training}

    def fit(self, inputs=None, job_name=None, include_cls_metadata=False, estimator_kwargs=None,
            wait=True, **kwargs):
        """Starts the tuning job; with ``wait`` follows it to its end (a live card in a
        notebook). ``job_name`` is the tuning job's exact name (up to 32 characters; its
        training jobs are ``<job_name>-001-...``); without it the studio names it
        ``<base_tuning_job_name>-<timestamp>``."""
        if job_name is not None and not (isinstance(job_name, str) and _NAME.match(job_name)):
            raise ValueError("job_name: up to 32 letters, digits and hyphens, starting and "
                             "ending with a letter or digit, got {}".format(shown(job_name)))
        spec = self.tuning_spec(inputs=inputs)
        stamp = timestamp()
        path = write_private_json(os.path.join(sdk_folder("specs"), "tuning-" + stamp + ".json"),
                                  spec)
        _spec.validate_spec_file(path)
        log_path = os.path.join(sdk_folder("logs"), "tuning-" + stamp + ".log")
        process = _cli.spawn_detached(
            ["tune", path] + (["--job-name", job_name] if job_name else []), log_path
        )
        self.latest_tuning_job = _TuningJob(_tuning_name_from_log(process, log_path))
        if wait:
            self.wait()
        else:
            LiveCard(tuning_bundle).update(
                tuning_card(_cli.cli_json("show", self.latest_tuning_job.name, "--json")))

    def _job(self):
        if self.latest_tuning_job is None:
            raise ValueError("No tuning job available: call fit() or HyperparameterTuner.attach()")
        return self.latest_tuning_job

    def wait(self):
        self._job().wait()

    def stop_tuning_job(self):
        self._job().stop()

    stop = stop_tuning_job

    def describe(self):
        return self._job().describe()

    def best_training_job(self):
        """The name of the best training job so far."""
        best = self.describe().get("BestTrainingJob")
        if not best:
            raise RuntimeError(
                "Best training job not available for tuning job: {}".format(self._job().name))
        return best["TrainingJobName"]

    def best_estimator(self, best_training_job=None):
        """An estimator attached to the best training job."""
        name = best_training_job or self.best_training_job()
        return type(self.estimator).attach(name)

    def analytics(self):
        """HyperparameterTuningJobAnalytics of the latest tuning job."""
        from .analytics import HyperparameterTuningJobAnalytics

        return HyperparameterTuningJobAnalytics(self._job().name)

    def _warm_start_tuner(self, warm_start_type, additional_parents, estimator):
        parents = {self._job().name} | set(additional_parents or [])
        tuner = HyperparameterTuner(
            estimator or self.estimator, self.objective_metric_name,
            self._hyperparameter_ranges, metric_definitions=self.metric_definitions,
            strategy=self.strategy, objective_type=self.objective_type, max_jobs=self.max_jobs,
            max_parallel_jobs=self.max_parallel_jobs,
            base_tuning_job_name=self.base_tuning_job_name,
            warm_start_config=WarmStartConfig(warm_start_type, parents),
            early_stopping_type=self.early_stopping_type,
        )
        return tuner

    def transfer_learning_tuner(self, additional_parents=None, estimator=None):
        return self._warm_start_tuner(WarmStartTypes.TRANSFER_LEARNING, additional_parents,
                                      estimator)

    def identical_dataset_and_algorithm_tuner(self, additional_parents=None):
        return self._warm_start_tuner(WarmStartTypes.IDENTICAL_DATA_AND_ALGORITHM,
                                      additional_parents, None)

    @classmethod
    def attach(cls, tuning_job_name, sagemaker_session=None, job_details=None, estimator_cls=None):
        """A tuner for an existing tuning job, its estimator rebuilt from a training job's
        stored spec (the tuned hyperparameters left out). It does not wait."""
        from .estimator import Estimator

        d = _cli.cli_json("show", tuning_job_name, "--json")
        config = d["HyperParameterTuningJobConfig"]
        ranges = _ranges_from_config(config.get("ParameterRanges") or {})
        summaries = d.get("TrainingJobSummaries") or []
        if not summaries:
            raise ValueError("tuning job {} has no training job yet to rebuild its estimator "
                             "from".format(d["HyperParameterTuningJobName"]))
        spec = stored_spec(show_job(summaries[0]["TrainingJobName"]))
        params = Estimator._init_params_from_spec(spec, sagemaker_session)
        params["hyperparameters"] = {k: v for k, v in params["hyperparameters"].items()
                                     if k not in ranges}
        params.pop("base_job_name", None)
        estimator = (estimator_cls or Estimator)(**params)
        objective = config["HyperParameterTuningJobObjective"]
        limits = config.get("ResourceLimits") or {}
        tuner = cls(estimator, objective["MetricName"], ranges, strategy=config.get("Strategy"),
                    objective_type=objective.get("Type", "Maximize"),
                    max_jobs=limits.get("MaxNumberOfTrainingJobs"),
                    max_parallel_jobs=limits.get("MaxParallelTrainingJobs", 1),
                    early_stopping_type=config.get("TrainingJobEarlyStoppingType", "Off"))
        tuner.latest_tuning_job = _TuningJob(d["HyperParameterTuningJobName"])
        return tuner


def _ranges_from_config(ranges):
    out = {}
    for r in ranges.get("ContinuousParameterRanges") or []:
        out[r["Name"]] = ContinuousParameter(float(r["MinValue"]), float(r["MaxValue"]),
                                             r.get("ScalingType", "Auto"))
    for r in ranges.get("IntegerParameterRanges") or []:
        out[r["Name"]] = IntegerParameter(int(float(r["MinValue"])), int(float(r["MaxValue"])),
                                          r.get("ScalingType", "Auto"))
    for r in ranges.get("CategoricalParameterRanges") or []:
        out[r["Name"]] = CategoricalParameter(list(r["Values"]))
    return out


def _tuning_name_from_log(process, log_path, timeout=60.0):
    """The tuning job's name from ``mlstudio tune``'s first line ("Tuning job NAME: ..."); a
    command that exits first failed to submit, and its log says why."""
    pattern = re.compile(r"^Tuning job (\S+): ", re.M)
    deadline = time.monotonic() + timeout
    while True:
        try:
            with open(log_path, errors="replace") as f:
                text = f.read()
        except OSError:
            text = ""
        found = pattern.search(text)
        if found:
            return found.group(1)
        code = process.poll()
        if code is not None:
            raise StudioCliError(["tune", log_path], code, text.strip() or "no output")
        if time.monotonic() > deadline:
            raise StudioCliError(["tune", log_path], None,
                                 "the tuning job did not start within {:.0f} s".format(timeout))
        time.sleep(0.1)

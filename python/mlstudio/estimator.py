"""``Estimator`` (``sagemaker.estimator``): a training job of the studio described with the
SageMaker Python SDK's arguments; ``fit()`` writes its job spec under the studio home and starts
it with ``mlstudio run`` in a session of its own, so the job is the studio's (shown in the window,
outliving this Python process, attachable).
"""

import difflib
import os
import sys
import time

from . import _cli, _spec
from ._describe import stored_spec
from ._job import _TrainingJob, follow, show_job
from ._util import (
    absolute_path,
    base_name_from,
    check_job_name,
    field_error,
    name_from_base,
    warn_once,
    write_private_json,
)
from .exceptions import StudioCliError
from .session import Session, sdk_folder

# SageMaker arguments that mean nothing on the studio, with why; each warns once per process
# when given a value other than SageMaker's default.
_IGNORED = {
    "framework_version": ("the ranks run the machine's own PyTorch", None),
    "py_version": ("the ranks run the machine's own Python", None),
    "volume_size": ("jobs write to the studio home's disk", 30),
    "volume_kms_key": ("nothing is encrypted with KMS here", None),
    "output_kms_key": ("nothing is encrypted with KMS here", None),
    "output_path": ("a job's model stays in <home>/jobs/<job>/model (see model_data)", None),
    "checkpoint_s3_uri": ("checkpoints stay local (checkpoint_local_path)", None),
    "subnets": ("there is no VPC", None),
    "security_group_ids": ("there is no VPC", None),
    "model_uri": ("give the model's folder as an input channel", None),
    "model_channel_name": ("give the model's folder as an input channel", "model"),
    "encrypt_inter_container_traffic": ("ranks talk over this machine's network", False),
    "enable_network_isolation": ("ranks use this machine's network", False),
    "enable_sagemaker_metrics": ("metrics are always recorded", None),
    "container_log_level": ("ranks log what they print", 20),
    "code_location": ("code runs from source_dir in place", None),
    "dependencies": ("put libraries in source_dir or the machine's Python", None),
    "git_config": ("check the repository out and give its folder as source_dir", None),
    "keep_alive_period_in_seconds": ("ranks start on this machine or the cluster", None),
    "instance_groups": ("use instance_count (and cluster)", None),
    "training_repository_access_mode": ("there are no images", None),
    "training_repository_credentials_provider_arn": ("there are no images", None),
    "input_mode": ("channels are read as local folders", "File"),
    "compiler_config": ("Training Compiler does not run here", None),
    "training_recipe": ("recipes do not run here", None),
    "recipe_overrides": ("recipes do not run here", None),
    "disable_output_compression": ("outputs are not compressed", False),
    "enable_infra_check": ("there is no infrastructure check", None),
    "enable_remote_debug": ("attach a debugger to the ranks yourself", None),
    "container_entry_point": ("use entry_point", None),
    "container_arguments": ("use hyperparameters", None),
    "enable_session_tag_chaining": ("there are no IAM sessions", None),
    "training_plan": ("there are no reserved capacities", None),
    "instance_placement_config": ("placement is the cluster's", None),
    "environment_variables": ("use environment", None),
}
# Accepted and ignored silently: every SageMaker notebook passes them.
_SILENT = ("role", "image_uri", "sagemaker_session")


class Estimator:
    """A training job's configuration with SageMaker's argument names (SPEC.md lists each).

    ``entry_point`` is a script (run with the machine's Python), an argv list, or
    ``"builtin:<model>"`` for the studio's trainer (``image_uri="builtin:<model>"`` works too).
    """

    def __init__(
        self,
        image_uri=None,
        role=None,
        instance_count=None,
        instance_type=None,
        entry_point=None,
        source_dir=None,
        hyperparameters=None,
        distribution=None,
        use_spot_instances=False,
        max_run=None,
        max_wait=None,
        max_retry_attempts=None,
        checkpoint_local_path=None,
        checkpoint_s3_uri=None,
        metric_definitions=None,
        debugger_hook_config=None,
        profiler_config=None,
        rules=None,
        disable_profiler=None,
        environment=None,
        tags=None,
        base_job_name=None,
        tensorboard_output_config=None,
        output_path=None,
        volume_size=None,
        sagemaker_session=None,
        cluster=None,
        slurm=None,
        spot_simulation=None,
        local_prices=None,
        **kwargs
    ):
        unknown = sorted(set(kwargs) - set(_IGNORED))
        if unknown:
            hint = difflib.get_close_matches(unknown[0], self._argument_names(), n=1)
            raise TypeError(
                "{}() got an unexpected keyword argument {!r}{}".format(
                    type(self).__name__, unknown[0],
                    "; did you mean {!r}?".format(hint[0]) if hint else "",
                )
            )
        self.image_uri = image_uri
        self.role = role
        self.instance_count = 1 if instance_count is None else instance_count
        self.instance_type = instance_type
        self.entry_point = entry_point
        self.source_dir = source_dir
        self._hyperparameters = dict(hyperparameters or {})
        self.distribution = distribution
        self.use_spot_instances = use_spot_instances
        self.max_run = max_run
        self.max_wait = max_wait
        self.max_retry_attempts = max_retry_attempts
        self.checkpoint_local_path = checkpoint_local_path
        self.checkpoint_s3_uri = checkpoint_s3_uri
        self.metric_definitions = metric_definitions
        self.debugger_hook_config = debugger_hook_config
        self.profiler_config = profiler_config
        self.rules = list(rules) if rules is not None else None
        self.disable_profiler = disable_profiler
        self.environment = environment
        self.tags = tags
        self.base_job_name = base_job_name
        self.tensorboard_output_config = tensorboard_output_config
        self.output_path = output_path
        self.volume_size = volume_size
        self.sagemaker_session = sagemaker_session or Session()
        self.cluster = cluster
        self.slurm = slurm
        self.spot_simulation = spot_simulation
        self.local_prices = local_prices
        self.latest_training_job = None
        self._current_job_name = None
        for key, value in kwargs.items():
            setattr(self, key, value)
        given = dict(kwargs, output_path=output_path, volume_size=volume_size,
                     checkpoint_s3_uri=checkpoint_s3_uri)
        for key, value in given.items():
            if value is not None and value != _IGNORED[key][1]:
                warn_once(key, "{}: accepted as SageMaker takes it; {}, so it changes nothing "
                               "here".format(key, _IGNORED[key][0]))
        self._resolve_entry()
        _spec.checked_fields(self)
        if base_job_name is not None:
            self._check_base_name(base_job_name)

    @classmethod
    def _argument_names(cls):
        import inspect

        names = []
        for klass in cls.__mro__:
            if "__init__" in vars(klass) and klass is not object:
                names += list(inspect.signature(klass.__init__).parameters)
        return [n for n in names if n not in ("self", "kwargs")] + list(_IGNORED)

    # -- the entry point ---------------------------------------------------------------------

    def _builtin(self):
        for value in (self.entry_point, self.image_uri):
            if isinstance(value, str) and value.startswith("builtin:"):
                return value
        return None

    def _resolve_entry(self):
        """Makes script paths absolute now, against the current directory (SageMaker resolves
        entry_point against source_dir when given)."""
        builtin = self._builtin()
        if self.image_uri and not builtin and self.entry_point is None:
            raise ValueError(
                "image_uri: {!r} cannot run here; give entry_point (a script, or "
                '"builtin:<model>" for the studio\'s trainer)'.format(self.image_uri)
            )
        if builtin:
            self._entry = {"entry_point": builtin}
            return
        if self.entry_point is None:
            raise ValueError(
                'entry_point: required: "builtin:<model>", a script path, or an argv list such '
                'as ["/usr/bin/python3", "train.py"]'
            )
        if isinstance(self.entry_point, (list, tuple)):
            if not self.entry_point or not all(isinstance(a, str) for a in self.entry_point):
                raise field_error("entry_point", "a non-empty list of strings", self.entry_point)
            source = absolute_path(self.source_dir) if self.source_dir else os.getcwd()
            self._entry = {"entry_point": list(self.entry_point), "source_dir": source}
            return
        if hasattr(self.entry_point, "__fspath__"):
            self.entry_point = self.entry_point.__fspath__()
        if not isinstance(self.entry_point, str) or not self.entry_point:
            raise field_error("entry_point", 'a script path or "builtin:<model>"', self.entry_point)
        base = absolute_path(self.source_dir) if self.source_dir else None
        script = absolute_path(self.entry_point, base)
        self._entry = {
            "entry_point": script,
            "source_dir": _spec.source_dir_for(script, self.source_dir),
        }

    def _entry_spec(self):
        return dict(self._entry)

    def _instance_type_spec(self):
        # SageMaker's local mode types are this machine.
        if self.instance_type in (None, "local", "local_gpu"):
            return None
        return self.instance_type

    @staticmethod
    def _check_base_name(base):
        if not isinstance(base, str) or base_name_from(base) != base:
            raise ValueError(
                "base_job_name: up to 38 letters, digits and hyphens, starting and ending with a "
                "letter or digit (a timestamp is appended), got {!r}".format(base)
            )

    def _base_name(self):
        if self.base_job_name:
            return self.base_job_name
        entry = self._entry["entry_point"]
        if isinstance(entry, list):
            entry = entry[-1]
        if entry.startswith("builtin:"):
            return base_name_from(entry[len("builtin:"):])
        return base_name_from(os.path.splitext(os.path.basename(entry))[0])

    # -- hyperparameters ---------------------------------------------------------------------

    def hyperparameters(self):
        """The hyperparameters the job gets (a copy)."""
        return dict(self._hyperparameters)

    def set_hyperparameters(self, **kwargs):
        """Adds or replaces hyperparameters."""
        merged = dict(self._hyperparameters, **kwargs)
        _spec.hyperparameters(merged)
        self._hyperparameters = merged

    # -- running -----------------------------------------------------------------------------

    def job_spec(self, inputs=None, experiment_config=None):
        """The job spec ``fit()`` would run, as a dict (paths absolute)."""
        return _spec.build_spec(self, self._base_name(), inputs, experiment_config)

    def fit(self, inputs=None, wait=True, logs="All", job_name=None, experiment_config=None):
        """Starts the training job. ``inputs``: a path or file:// URI (channel "training"), a
        dict of channel -> path/TrainingInput, or a TrainingInput. With ``wait`` it streams the
        logs (``logs="All"``), shows a live card in a notebook and raises
        UnexpectedStatusException when the job fails; otherwise it returns once the job exists."""
        name = check_job_name(job_name) if job_name else name_from_base(self._base_name())
        experiment = experiment_config or _current_run_config()
        spec = _spec.build_spec(self, self._base_name(), inputs, experiment)
        if _job_exists(name):
            raise ValueError(
                "job_name: a job named {!r} exists already (job names are unique)".format(name)
            )
        path = write_private_json(os.path.join(sdk_folder("specs"), name + ".json"), spec)
        _spec.validate_spec_file(path)
        log_path = os.path.join(sdk_folder("logs"), name + ".log")
        process = _cli.spawn_detached(["run", path, "--job-name", name, "-q"], log_path)
        _wait_until_recorded(name, process, log_path)
        self._current_job_name = name
        self.latest_training_job = _TrainingJob(name, estimator=self)
        follow(name, logs=logs, wait=wait)

    def _job(self):
        if self.latest_training_job is None:
            raise ValueError(
                "Estimator has not been fit yet: call fit() or Estimator.attach(job_name) first"
            )
        return self.latest_training_job

    def wait(self, logs="All"):
        self._job().wait(logs=logs)

    def stop(self):
        self._job().stop()

    def logs(self):
        """Streams the latest job's logs until it ends."""
        self._job().logs(wait=True)

    def describe(self):
        return self._job().describe()

    @property
    def model_data(self):
        """The latest job's model folder as a file:// URI (ModelArtifacts.S3ModelArtifacts)."""
        return self._job().describe()["ModelArtifacts"]["S3ModelArtifacts"]

    def _job_dir(self):
        return show_job(self._job().name)["job_dir"]

    def latest_job_debugger_artifacts_path(self):
        """The latest job's Debugger output folder (raw tensors, the index of each rank)."""
        return os.path.join(self._job_dir(), "debug-output")

    def latest_job_profiler_artifacts_path(self):
        """The latest job's profiler output folder (profiler-report.html, report.json)."""
        return os.path.join(self._job_dir(), "profiler-output")

    def latest_job_tensorboard_artifacts_path(self):
        """Where the latest job's TensorBoard event files are written, None without
        tensorboard_output_config."""
        spec = stored_spec(show_job(self._job().name))
        local = (spec.get("tensorboard_output_config") or {}).get("local_path")
        return os.path.join(local, self._job().name) if local else None

    @property
    def training_job_analytics(self):
        from .analytics import TrainingJobAnalytics

        return TrainingJobAnalytics(self._job().name)

    # -- attach ------------------------------------------------------------------------------

    @classmethod
    def attach(cls, training_job_name, sagemaker_session=None, model_channel_name="model",
               logs="None"):
        """An estimator for an existing job (by name or unique prefix), rebuilt from the spec it
        ran with; as SageMaker's attach, it waits for the job to end (a live card in a notebook,
        no logs unless ``logs``)."""
        show = show_job(training_job_name)
        spec = stored_spec(show)
        estimator = cls(**cls._init_params_from_spec(spec, sagemaker_session))
        name = show["name"]
        estimator._current_job_name = name
        estimator.latest_training_job = _TrainingJob(name, estimator=estimator)
        follow(name, logs=logs)
        return estimator

    @classmethod
    def _init_params_from_spec(cls, spec, sagemaker_session):
        params = {"sagemaker_session": sagemaker_session}
        same = ("entry_point", "source_dir", "instance_type", "instance_count", "distribution",
                "use_spot_instances", "max_run", "max_wait", "max_retry_attempts",
                "checkpoint_local_path", "metric_definitions", "debugger_hook_config",
                "profiler_config", "rules", "disable_profiler", "environment", "tags",
                "tensorboard_output_config", "cluster", "slurm", "spot_simulation",
                "local_prices", "role")
        for key in same:
            if key in spec:
                params[key] = spec[key]
        params["hyperparameters"] = spec.get("hyperparameters") or {}
        if spec.get("name") or spec.get("base_job_name"):
            params["base_job_name"] = spec.get("name") or spec.get("base_job_name")
        if isinstance(params.get("entry_point"), str) and not os.path.exists(params["entry_point"]):
            if not params["entry_point"].startswith("builtin:"):
                warn_once("attach.entry_point", "attach: the job's script {} is gone; the "
                          "estimator can describe the job but not fit again".format(
                              params["entry_point"]))
        return params


def _job_exists(name):
    """Whether the store has a job of exactly this name."""
    try:
        return show_job(name).get("name") == name
    except StudioCliError:
        return False


def _wait_until_recorded(name, process, log_path, timeout=60.0):
    """Waits until the job is in the store (``mlstudio show`` finds it). A ``mlstudio run`` that
    exits first failed to submit: its log says why."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            show_job(name)
            return
        except StudioCliError:
            pass
        code = process.poll()
        if code is not None:
            try:
                show_job(name)
                return
            except StudioCliError:
                pass
            with open(log_path, errors="replace") as f:
                text = f.read().strip()
            raise StudioCliError(["run", "--job-name", name], code, text or "no output")
        if time.monotonic() > deadline:
            raise StudioCliError(["run", "--job-name", name], None,
                                 "the job was not recorded within {:.0f} s".format(timeout))
        time.sleep(0.1)


def _current_run_config():
    """Inside ``with Run(...)`` (mlstudio.experiments), that run's experiment_config, as
    SageMaker's fit() takes it."""
    experiments = sys.modules.get("mlstudio.experiments")
    context = getattr(experiments, "_RunContext", None)
    run = context.get_current_run() if context is not None else None
    return dict(run.experiment_config) if run is not None else None


def describe_training_job(job_name):
    """DescribeTrainingJob's dict of a studio job."""
    from ._job import describe_training_job as describe

    return describe(job_name)


__all__ = ["Estimator", "describe_training_job"]

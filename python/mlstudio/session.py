"""``mlstudio.Session`` and ``get_execution_role``: the boto-free parts of ``sagemaker.Session``
that notebooks call, mapped onto the studio's home folder.

There is no bucket here: the "default bucket" is a folder under ``MLSTUDIO_HOME`` and uploads are
copies into it, returned as ``file://`` URIs that job specs accept as inputs.
"""

import os
import shutil
import warnings

from . import _cli

_PLACEHOLDER_ROLE = "arn:aws:iam::000000000000:role/mlstudio-local"


def studio_home():
    """The studio's data folder: ``$MLSTUDIO_HOME``, else ``$XDG_DATA_HOME/mlstudio``, else
    ``~/.local/share/mlstudio`` (the same rule as the CLI)."""
    home = os.environ.get("MLSTUDIO_HOME")
    if home:
        return os.path.abspath(home)
    data = os.environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return os.path.join(data, "mlstudio")


def sdk_folder(*parts):
    """A folder under ``<home>/sdk`` (created 0700), where the SDK keeps specs and logs."""
    path = os.path.join(studio_home(), "sdk", *parts)
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


def get_execution_role(sagemaker_session=None):
    """Accepted as SageMaker's is; there are no IAM roles here, so it returns a placeholder
    ARN-like string that ``role=`` arguments accept and ignore."""
    return _PLACEHOLDER_ROLE


class Session:
    """The local stand-in for ``sagemaker.Session``: the studio home instead of S3."""

    def __init__(self, boto_session=None, sagemaker_client=None, default_bucket=None, **kwargs):
        self._bucket_name = default_bucket or "default-bucket"
        if os.sep in self._bucket_name or self._bucket_name in (".", ".."):
            raise ValueError(
                "default_bucket: must be a plain name without '/', got {!r}".format(default_bucket)
            )
        self.boto_region_name = "local"
        self.local_mode = True

    def default_bucket(self):
        """The folder that plays the default bucket, ``<home>/sdk/buckets/<name>``."""
        return sdk_folder("buckets", self._bucket_name)

    def upload_data(self, path, bucket=None, key_prefix="data", extra_args=None, callback=None):
        """Copies a file or folder into the bucket folder under ``key_prefix`` and returns its
        ``file://`` URI (SageMaker returns the ``s3://`` URI of the upload)."""
        source = os.path.abspath(os.path.expanduser(path))
        if not os.path.exists(source):
            raise ValueError("path: {} does not exist".format(path))
        root = sdk_folder("buckets", bucket) if bucket else self.default_bucket()
        target_dir = os.path.join(root, key_prefix.strip("/")) if key_prefix else root
        os.makedirs(target_dir, mode=0o700, exist_ok=True)
        if os.path.isdir(source):
            target = target_dir
            shutil.copytree(source, target, dirs_exist_ok=True)
        else:
            target = os.path.join(target_dir, os.path.basename(source))
            shutil.copy2(source, target)
        return "file://" + target

    def upload_string_as_file_body(self, body, bucket, key, kms_key=None):
        """Writes ``body`` to ``<bucket folder>/<key>`` and returns its ``file://`` URI."""
        target = os.path.join(sdk_folder("buckets", bucket), key.lstrip("/"))
        os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
        with open(target, "w") as out:
            out.write(body)
        return "file://" + target

    def download_data(self, path, bucket, key_prefix="", extra_args=None):
        """Copies what ``upload_data`` stored under ``key_prefix`` into the folder ``path``."""
        source = os.path.join(sdk_folder("buckets", bucket), key_prefix.strip("/"))
        if not os.path.exists(source):
            raise ValueError("key_prefix: nothing stored under {}".format(source))
        os.makedirs(path, exist_ok=True)
        if os.path.isdir(source):
            shutil.copytree(source, path, dirs_exist_ok=True)
            return [os.path.join(path, n) for n in sorted(os.listdir(source))]
        target = os.path.join(path, os.path.basename(source))
        shutil.copy2(source, target)
        return [target]

    def describe_training_job(self, job_name):
        """DescribeTrainingJob's dict for a studio job (see ``mlstudio.estimator``)."""
        from ._job import describe_training_job

        return describe_training_job(job_name)

    def describe_tuning_job(self, job_name):
        """DescribeHyperParameterTuningJob's dict, as ``mlstudio show TUNING --json`` prints it."""
        return _cli.cli_json("show", job_name, "--json")

    def wait_for_job(self, job, poll=5):
        """Waits for a training job to end and returns its description; raises
        UnexpectedStatusException when it Failed."""
        from ._job import _TrainingJob

        handle = _TrainingJob(job)
        handle.wait(logs="None")
        return handle.describe()

    def stop_training_job(self, job_name):
        _cli.cli_run("stop", job_name)

    def __repr__(self):
        return "mlstudio.Session(home={!r})".format(studio_home())


class LocalSession(Session):
    """``sagemaker.local.LocalSession``: the same as Session here, everything runs locally."""

    def __init__(self, boto_session=None, default_bucket=None, disable_local_code=False, **kwargs):
        if kwargs:
            warnings.warn("LocalSession: {} change nothing here".format(", ".join(sorted(kwargs))))
        super().__init__(default_bucket=default_bucket)

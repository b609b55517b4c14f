"""Exceptions of the mlstudio SDK, named as the SageMaker Python SDK v2 names them.

Code written for ``sagemaker.exceptions`` catches the same classes here: a failed job raises
``UnexpectedStatusException`` (a ``ValueError``) with ``allowed_statuses`` and ``actual_status``.
"""


class UnexpectedStatusException(ValueError):
    """A job ended in a status the caller did not allow (SageMaker's name and fields)."""

    def __init__(self, message, allowed_statuses, actual_status):
        self.allowed_statuses = allowed_statuses
        self.actual_status = actual_status
        super().__init__(message)


class CapacityError(UnexpectedStatusException):
    """SageMaker raises this when the failure reason names a capacity error."""


class StudioCliError(RuntimeError):
    """The ``mlstudio`` command line failed: its arguments, exit code and standard error."""

    def __init__(self, args, returncode, stderr, stdout=""):
        self.args_list = list(args)
        self.returncode = returncode
        self.stderr = stderr or ""
        self.stdout = stdout or ""
        detail = self.stderr.strip() or self.stdout.strip() or "no output"
        super().__init__(
            "mlstudio {} exited with {}: {}".format(" ".join(self.args_list), returncode, detail)
        )


class StudioCliNotFound(FileNotFoundError):
    """Neither ``MLSTUDIO_CLI`` nor ``mlstudio`` on ``PATH`` names a runnable command line."""


class IgnoredArgumentWarning(UserWarning):
    """A SageMaker argument was accepted that changes nothing on the studio (said once per name)."""

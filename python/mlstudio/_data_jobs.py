"""Which studio job a path names, for the Debugger's trial and profiler readers.

smdebug's readers take the folder a job wrote its tensors or profiler data to. The studio's are
``jobs/<job>/debug-output`` and ``jobs/<job>/profiler-output`` in the studio home (what
``estimator.latest_job_debugger_artifacts_path()`` returns); the job itself, a job folder, or a
job's name (or a unique prefix of it) are taken too.
"""

import os

_OUTPUT_FOLDERS = ("debug-output", "profiler-output", "tensors", "profiler-reports")


def job_of(path, field="path"):
    """The job name (or prefix) the CLI resolves for a folder or a name."""
    if path is None:
        raise ValueError("{}: give a job's name or its folder, got None".format(field))
    text = os.fspath(path)
    if text.startswith("s3://"):
        raise ValueError(
            "{}: {} is an S3 path; the studio's jobs keep their data on this machine: give the "
            "job's name or its folder (estimator.latest_job_debugger_artifacts_path())".format(
                field, text
            )
        )
    if os.path.isdir(text):
        folder = os.path.abspath(text).rstrip(os.sep)
        while os.path.basename(folder) in _OUTPUT_FOLDERS:
            folder = os.path.dirname(folder)
        return os.path.basename(folder)
    if os.sep in text:
        raise ValueError("{}: no folder {!r} (and a job's name has no '/')".format(field, text))
    return text

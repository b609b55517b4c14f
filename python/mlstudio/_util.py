"""Small shared pieces of the SDK: warnings said once, errors worded as the CLI words them, job
names as SageMaker makes them, and paths made absolute against the caller's directory.
"""

import datetime
import json
import numbers
import os
import re
import sys
import time
import warnings

from .exceptions import IgnoredArgumentWarning

_WARNED = set()

# SageMaker's rule for training job names (CreateTrainingJob's TrainingJobName pattern).
_JOB_NAME = re.compile(r"^[A-Za-z0-9](-*[A-Za-z0-9]){0,62}$")
# The engine's rule for a spec's base name: a timestamp of 24 characters is appended.
MAX_BASE_NAME = 38


def _caller_stacklevel():
    """The stacklevel of the first frame outside this package, so a warning points at the
    user's line (a notebook cell) rather than at the SDK."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame = sys._getframe(2)
    level = 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame = frame.f_back
        level += 1
    return level


def warn_once(key, message):
    """Warns with IgnoredArgumentWarning the first time ``key`` is seen in this process."""
    if key in _WARNED:
        return
    _WARNED.add(key)
    warnings.warn(message, IgnoredArgumentWarning, stacklevel=_caller_stacklevel())


def shown(value):
    """A value as the error messages show it: Python's repr, shortened to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def field_error(path, what, value):
    """The engine's wording, in Python terms: ``path: must be WHAT, got VALUE``."""
    return ValueError("{}: must be {}, got {}".format(path, what, shown(value)))


def python_wording(line):
    """Rewrites an engine message's ``got <JSON value>`` tail as Python shows that value, so
    ``hyperparameters.epochs: must be an integer >= 1, got "many"`` reads ``got 'many'``."""
    head, sep, tail = line.rpartition(", got ")
    if not sep:
        return line
    try:
        value = json.loads(tail)
    except ValueError:
        return line
    return head + sep + shown(value)


def is_integer(value):
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_number(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_integer(path, value, minimum, maximum=None):
    """An integer in [minimum, maximum] (strings of digits accepted, as the engine does)."""
    parsed = value
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]+", value.strip()):
        parsed = int(value)
    if isinstance(value, float) and value.is_integer():
        parsed = int(value)
    if is_integer(parsed) and parsed >= minimum and (maximum is None or parsed <= maximum):
        return int(parsed)
    what = (
        "an integer >= {}".format(minimum)
        if maximum is None
        else "an integer between {} and {}".format(minimum, maximum)
    )
    raise field_error(path, what, value)


def check_bool(path, value):
    if isinstance(value, bool):
        return value
    raise field_error(path, "true or false", value)


def check_string(path, value):
    if isinstance(value, str):
        return value
    raise field_error(path, "a string", value)


def check_job_name(name, path="job_name"):
    """SageMaker's training job name rule: 1-63 letters, digits and hyphens, starting and
    ending with a letter or digit."""
    if isinstance(name, str) and _JOB_NAME.match(name):
        return name
    raise ValueError(
        "{}: 1 to 63 letters, digits and hyphens, starting and ending with a letter or digit, "
        "got {}".format(path, shown(name))
    )


def timestamp(now=None):
    """``YYYY-MM-DD-HH-MM-SS-mmm`` in UTC, as SageMaker and the engine suffix job names."""
    now = time.time() if now is None else now
    millis = int(round(now * 1000))
    stamp = time.strftime("%Y-%m-%d-%H-%M-%S", time.gmtime(millis // 1000))
    return "{}-{:03d}".format(stamp, millis % 1000)


def base_name_from(text):
    """A base name from free text (a script's stem): letters and digits, other runs become one
    hyphen, at most MAX_BASE_NAME characters; "job" when nothing is left."""
    out = re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-")
    out = out[:MAX_BASE_NAME].rstrip("-")
    return out or "job"


def name_from_base(base, now=None, max_length=63):
    """SageMaker's ``name_from_base``: the base, cut to fit, then ``-`` and the timestamp."""
    suffix = timestamp(now)
    room = max_length - len(suffix) - 1
    return "{}-{}".format(base[:room].rstrip("-"), suffix)


def absolute_path(path, base=None):
    """``path`` made absolute against ``base`` (default: the current directory); ``~`` and
    ``file://`` are understood."""
    if path.startswith("file://"):
        path = path[len("file://"):]
    path = os.path.expanduser(path)
    if os.path.isabs(path):
        return os.path.normpath(path)
    return os.path.normpath(os.path.join(base or os.getcwd(), path))


def to_datetime(seconds):
    """Unix seconds as an aware UTC datetime (None stays None), as boto3 returns times."""
    if seconds is None or seconds == "":
        return None
    return datetime.datetime.fromtimestamp(float(seconds), tz=datetime.timezone.utc)


def write_private_json(path, document):
    """Writes JSON to ``path`` readable by this user only (0600), atomically."""
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    temporary = path + ".tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        json.dump(document, out, indent=2, sort_keys=False)
        out.write("\n")
    os.replace(temporary, path)
    return path

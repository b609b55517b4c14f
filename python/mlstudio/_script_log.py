"""``mlstudio.log({"loss": v, "acc": a}, step=i)``: the one-line logging of W&B and Trackio.

Inside a job the points go to the rank's events writer (mlstudio._events): a call appends one
entry to a buffer and returns, so a training loop can log every step. Outside a job they go
to a Run: the one whose ``with`` block is open, else a run of its own that the first call opens
in the experiment named after the script (``train.py`` logs to experiment "train") and the
process's exit closes (Completed, or Failed when the script died of an exception).

Steps: ``step=`` sets it; without one each call is the next step of this process (counting from
0), and ``commit=False`` keeps the step for the next call, as in ``wandb.log``.
"""

import atexit
import numbers
import os
import re
import sys
import threading

from . import _events
from ._events import _METRICS, _now

_lock = threading.Lock()
_next_step = 0
_own_run = None


def _number(key, value):
    """value as a float, or TypeError naming the key."""
    if not isinstance(key, str) or not key:
        raise TypeError("mlstudio.log: keys must be non-empty strings, got {!r}".format(key))
    if isinstance(value, bool) or isinstance(value, (str, bytes, dict, list, tuple)):
        raise TypeError(
            "mlstudio.log: {!r} must be a number, got {}".format(key, type(value).__name__)
        )
    try:
        return float(value)  # numpy scalars and one-element tensors too
    except (TypeError, ValueError) as error:
        raise TypeError(
            "mlstudio.log: {!r} must be a number, got {} ({})".format(
                key, type(value).__name__, error
            )
        ) from None


def _converted(data):
    """data as a new {name: float}, or TypeError naming what is wrong."""
    if not isinstance(data, dict):
        raise TypeError(
            "mlstudio.log: data must be a dict of {{name: number}}, got {}".format(
                type(data).__name__
            )
        )
    return {k: _number(k, v) for k, v in data.items()}


def _checked_step(step, commit):
    global _next_step
    if isinstance(step, bool) or not isinstance(step, numbers.Integral):
        raise TypeError("mlstudio.log: step must be an integer, got {!r}".format(step))
    step = int(step)
    _next_step = step + 1 if commit is not False else step
    return step


def log(data, step=None, commit=None):
    """Logs {name: number} at a step: inside a job to the job, else to a Run (see the module)."""
    global _next_step
    # The fast path (plain floats and ints under string names) costs about a microsecond:
    # training loops call this every step. Anything else is converted or refused by name.
    if type(data) is dict:  # noqa: E721 - exactly a dict: its copy below is a plain dict
        for key, value in data.items():
            kind = type(value)
            if (kind is not float and kind is not int) or type(key) is not str or not key:
                data = _converted(data)
                break
        else:
            data = data.copy()  # the caller may change its dict after the call
    else:
        data = _converted(data)
    if step is None:
        step = _next_step  # threads logging without steps share one counter, as in wandb
        if commit is not False:
            _next_step = step + 1
    elif type(step) is int:  # noqa: E721 - bool is refused by the slow path
        _next_step = step + 1 if commit is not False else step
    else:
        step = _checked_step(step, commit)
    writer = _events._writer if _events._looked else _events.writer()
    if writer is not None:
        # EventWriter.metrics inlined: a method call is a fifth of this function's cost.
        queue = writer._q
        if len(queue) < writer._cap:
            queue.append((_METRICS, data, step, "train", _now()))
        else:
            writer._drop(len(data))
        return
    run = _run_outside_a_job()
    for name, value in data.items():
        run.log_metric(name, value, step=step)


def experiment_name_of_script(argv0=None):
    """The experiment a script's own run goes into: its file name, made a valid name."""
    base = os.path.splitext(os.path.basename(argv0 if argv0 is not None else sys.argv[0]))[0]
    name = re.sub(r"[^a-zA-Z0-9]+", "-", base).strip("-")[:59].strip("-")
    return name or "python"


def _run_outside_a_job():
    """The open Run of this process, else a run of the script's own (opened once)."""
    global _own_run
    from .experiments import Run, _RunContext

    current = _RunContext.get_current_run()
    if current is not None:
        return current
    with _lock:
        if _own_run is None:
            run = Run(experiment_name=experiment_name_of_script())
            run.__enter__()
            _own_run = run
            atexit.register(_close_own_run)
        return _own_run


def _close_own_run():
    global _own_run
    run, _own_run = _own_run, None
    if run is None:
        return
    # An uncaught exception has been printed and left in sys.last_value by the time atexit runs.
    error = getattr(sys, "last_value", None)
    run.__exit__(type(error) if error else None, error, None)


def finish():
    """Closes the run that mlstudio.log opened outside a job (as ``wandb.finish()``); a no-op
    inside a job, where the writer flushes at exit, and when no run was opened."""
    writer = _events.writer()
    if writer is not None:
        writer.flush()
        return
    _close_own_run()

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


def _checked(data):
    """A copy of data whose values are all floats or ints (the caller may change its dict)."""
    if type(data) is not dict:  # noqa: E721 - exact type: the fast path below relies on it
        if not isinstance(data, dict):
            raise TypeError(
                "mlstudio.log: data must be a dict of {{name: number}}, got {}".format(
                    type(data).__name__
                )
            )
        data = dict(data)
    for key, value in data.items():
        kind = type(value)
        if (kind is not float and kind is not int) or type(key) is not str or not key:
            return {k: _number(k, v) for k, v in data.items()}
    return dict(data)


def _step_of(step, commit):
    """The step of this call and what the next call without a step gets."""
    global _next_step
    if step is None:
        with _lock:
            current = _next_step
            if commit is not False:
                _next_step = current + 1
        return current
    if isinstance(step, bool) or not isinstance(step, numbers.Integral):
        raise TypeError("mlstudio.log: step must be an integer, got {!r}".format(step))
    step = int(step)
    with _lock:
        _next_step = step + 1 if commit is not False else step
    return step


def log(data, step=None, commit=None):
    """Logs {name: number} at a step: inside a job to the job, else to a Run (see the module)."""
    values = _checked(data)
    at = _step_of(step, commit)
    writer = _events.writer()
    if writer is not None:
        writer.metrics(values, at)
        return
    run = _run_outside_a_job()
    for name, value in values.items():
        run.log_metric(name, value, step=at)


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

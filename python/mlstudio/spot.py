"""mlstudio.spot: telling a training loop that its spot capacity is being reclaimed.

When a spot job is interrupted (the simulated market, the EC2 metadata service's notice, or
``mlstudio interrupt JOB``), every rank gets SIGTERM and some seconds of grace before SIGKILL.
Importing this module installs a SIGTERM handler that sets a flag and runs the callbacks
registered with ``on_interruption``; it does not end the process, so the loop can save a
checkpoint and leave::

    from mlstudio import checkpoints, spot

    for step in range(start, steps):
        train_one_step()
        if spot.interrupted():
            checkpoints.save(state, step)
            spot.exit()  # the attempt ends as interrupted; the next one resumes

A handler the script (or a library) had installed before runs after the studio's; one
installed later replaces it (``install()`` puts it back, chaining again). Only the main thread
can install signal handlers, as Python requires.
"""

import signal
import sys
import threading

from . import _events

EXIT_CODE = 128 + signal.SIGTERM  # what a process killed by SIGTERM reports

_flag = threading.Event()
_callbacks = []
_lock = threading.Lock()
_previous = None
_installed = False


def interrupted():
    """True once an interruption notice (SIGTERM) has come."""
    return _flag.is_set()


def on_interruption(callback):
    """Calls callback() (in the main thread, from the signal handler) when the notice comes;
    at once when it has already come. Returns callback, so it works as a decorator."""
    if not callable(callback):
        raise TypeError("on_interruption: callback must be callable, got {!r}".format(callback))
    with _lock:
        _callbacks.append(callback)
        already = _flag.is_set()
    install()
    if already:
        callback()
    return callback


def _handle(signum, frame):
    _flag.set()
    with _lock:
        callbacks = list(_callbacks)
    for callback in callbacks:
        try:
            callback()
        except Exception as error:  # noqa: BLE001 - one callback's failure must not stop others
            _events._warn("a spot interruption callback failed: {}: {}".format(
                type(error).__name__, error))  # fmt: skip
    previous = _previous
    if callable(previous) and previous is not _handle:
        previous(signum, frame)


def install():
    """Installs the SIGTERM handler (done on import); False where it cannot be (not the main
    thread), with one line on stderr."""
    global _previous, _installed
    if threading.current_thread() is not threading.main_thread():
        if not _installed:
            _events._warn("mlstudio.spot: SIGTERM is handled only when imported in the main thread")
        return False
    current = signal.getsignal(signal.SIGTERM)
    if current is _handle:
        return True
    _previous = current
    signal.signal(signal.SIGTERM, _handle)
    _installed = True
    return True


def exit(code=EXIT_CODE):  # noqa: A001 - the module's verb, as sys.exit
    """Flushes what the rank logged and ends the process as an interrupted attempt (exit code
    143, not 0: a rank that exits 0 ends a spot job as Completed)."""
    writer = _events.writer()
    if writer is not None:
        writer.flush(timeout=5.0)
    sys.stdout.flush()
    sys.stderr.flush()
    raise SystemExit(code)


install()

"""The events writer of a training job's rank: wire lines on ``STUDIO_EVENTS_FD``.

Everything a script (or the Debugger hook, the profiler, a callback) tells the studio from
inside a job goes through the one ``EventWriter`` of its process, ``writer()``. The caller's
side only appends a tuple to a bounded buffer, so logging costs about a microsecond and
never waits on the pipe; a daemon thread turns the tuples into JSON lines (the protocol of
engine/wire/codec.cpp) and writes them in large batches. When the buffer is full, points
(metrics, tensors, step timings, profile records) are dropped and counted, never silently:
``flush()`` and the process's exit report the count in a "logging" facts event and one stderr
line. Parameters, artifacts, checkpoints and facts are few and never dropped.

Outside a job ``writer()`` is None. A forked child of a rank (a data-loader worker) gets a
writer that records nothing and says so once: its lines could tear the parent's batches.
"""

import atexit
import collections
import json
import math
import numbers
import os
import select
import stat
import sys
import threading
import time
import weakref

# Entries in the buffer: (tag, ...). Points are droppable; records are not.
_METRIC = 0  # (tag, name, value, step, phase, t)
_METRICS = 1  # (tag, {name: value}, step, phase, t)
_RECORD = 2  # (tag, dict of the whole line), serialised with json
_POINT = 3  # (tag, dict of the whole line), like _RECORD but droppable

DEFAULT_CAPACITY = 65536  # buffer entries (~25 MB at most of 2-point dicts); STUDIO_EVENTS_BUFFER
_BATCH_ENTRIES = 8192  # entries serialised into one os.write
_IDLE_WAIT = 0.05  # seconds the writer thread sleeps when the buffer is empty
_EXIT_TIMEOUT = 10.0  # seconds atexit waits for the pipe to take what is buffered
_PHASES = ("train", "eval")
_now = time.time
# A metric line up to its name; the codec reads fields in any order.
_HEAD = '{"v":1,"kind":"metric","t":%s,"step":%d,"phase":"%s","name":'
_TAIL = '%s%s,"value":%r}\n'  # a finite float's repr is JSON
_TAIL_TEXT = '%s%s,"value":%s}\n'


def number(value):
    """A float as a JSON value the codec reads: non-finite ones as "NaN"/"Infinity"."""
    f = float(value)
    if f - f == 0.0:
        return f
    if f != f:
        return "NaN"
    return "Infinity" if f > 0 else "-Infinity"


def _number_text(value):
    f = float(value)
    if f - f == 0.0:
        return repr(f)
    if f != f:
        return '"NaN"'
    return '"Infinity"' if f > 0 else '"-Infinity"'


def _finite_json(obj):
    """obj with every non-finite float in the codec's spelling (JSON has no NaN)."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return number(obj)
    if isinstance(obj, dict):
        return {k: _finite_json(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite_json(v) for v in obj]
    return obj


def _dumps(obj):
    try:
        return json.dumps(obj, allow_nan=False, separators=(",", ":"), default=str)
    except ValueError:
        return json.dumps(_finite_json(obj), allow_nan=False, separators=(",", ":"), default=str)


def _warn(message):
    try:
        sys.stderr.write("mlstudio: {}\n".format(message))
        sys.stderr.flush()
    except (OSError, ValueError):
        pass  # stderr closed at exit: nothing left to tell


class EventWriter:
    """The events writer of one rank process. Thread-safe: any thread may log.

    Points (metric, tensor, step, profile) are dropped and counted when ``capacity`` entries
    wait; ``flush()`` blocks until what was logged before it is written.
    """

    def __init__(self, fd, capacity=DEFAULT_CAPACITY):
        self._fd = fd
        self._cap = int(capacity)
        self._q = collections.deque()
        self._drop_lock = threading.Lock()
        self._dropped = 0
        self._reported = 0
        self._written = 0
        self._invalid = set()  # the messages already said about points that were not numbers
        self._invalid_count = 0
        self._names = {}
        self._broken = None
        self._disabled = None
        self._closing = False
        self._wake = threading.Event()
        _instances.add(self)
        self._thread = threading.Thread(target=self._run, name="mlstudio-events", daemon=True)
        self._thread.start()

    # ---- the caller's side: append and return ----

    def metric(self, name, value, step, phase="train", t=None):
        """One metric point; phase is "train" or "eval"."""
        q = self._q
        if len(q) < self._cap:
            q.append((_METRIC, name, value, step, phase, t or _now()))
        else:
            self._drop(1)

    def metrics(self, values, step, phase="train", t=None):
        """Several points of one step, {name: number}; the dict must not change afterwards."""
        q = self._q
        if len(q) < self._cap:
            q.append((_METRICS, values, step, phase, t or _now()))
        else:
            self._drop(len(values))

    def tensor(self, collection, name, step, reductions, phase="train", t=None):
        """A tensor's reductions at a step ({"min": x, "max": y, ...})."""
        self._point(
            {
                "v": 1,
                "kind": "tensor",
                "t": t or time.time(),
                "collection": collection,
                "name": name,
                "step": int(step),
                "reductions": dict(reductions),
                "phase": phase,
            }
        )

    def step(self, step, phase="train", data=0.0, forward=0.0, backward=0.0, comm=0.0,
             optimizer=0.0, t=None):  # fmt: skip
        """One step's timings in milliseconds, as the built-in trainer's "step" events."""
        self._point(
            {
                "v": 1,
                "kind": "step",
                "t": t or time.time(),
                "step": int(step),
                "phase": phase,
                "data": data,
                "forward": forward,
                "backward": backward,
                "comm": comm,
                "optimizer": optimizer,
            }
        )

    def profile(self, name, category, step, start, dur_ms, phase="train", pid=None):
        """One timed span: start in unix seconds, its duration in milliseconds."""
        self._point(
            {
                "v": 1,
                "kind": "profile",
                "t": time.time(),
                "name": name,
                "category": category,
                "step": int(step),
                "start": start,
                "dur": max(0.0, float(dur_ms)),
                "pid": os.getpid() if pid is None else int(pid),
                "phase": phase,
            }
        )

    def param(self, name, value):
        """A parameter of the job: a string or a number."""
        if not isinstance(value, str):
            value = number(value)
        self._record({"v": 1, "kind": "param", "t": time.time(), "name": name, "value": value})

    def artifact(self, name, value, media_type=None, kind="output"):
        """An artifact of the job: a value (a path or URI) with its media type."""
        if kind not in ("output", "input"):
            raise ValueError('artifact({}): kind must be "output" or "input"'.format(name))
        line = {"v": 1, "kind": "artifact", "t": time.time(), "name": name, "value": value,
                "type": kind}  # fmt: skip
        if media_type:
            line["media_type"] = media_type
        self._record(line)

    def facts(self, topic, body):
        """Facts about the rank under a topic ("provenance", "operators", "logging")."""
        self._record({"v": 1, "kind": "facts", "t": time.time(), "topic": topic, "body": body})

    def checkpoint(self, step, path, sha256, nbytes):
        """A checkpoint the rank wrote: its step, path, SHA-256 and size."""
        self._record(
            {
                "v": 1,
                "kind": "checkpoint",
                "t": time.time(),
                "step": int(step),
                "path": str(path),
                "sha256": sha256,
                "bytes": int(nbytes),
            }
        )

    def progress(self, step, total):
        """The job's progress bar: step of total."""
        self._record(
            {"v": 1, "kind": "status", "t": time.time(), "state": "progress", "step": int(step),
             "total": int(total)}  # fmt: skip
        )

    @property
    def dropped(self):
        """Points dropped so far because the buffer was full (or the pipe gone)."""
        return self._dropped

    @property
    def invalid(self):
        """Points not written because they were not numbers (each kind said once on stderr)."""
        return self._invalid_count

    @property
    def written(self):
        """Lines written to the pipe so far."""
        return self._written

    def flush(self, timeout=None):
        """Blocks until everything logged before this call is written; False on timeout.
        Reports points dropped since the last report."""
        done = self._sync(timeout)
        self._report_drops(timeout)
        return done

    def _sync(self, timeout):
        if self._disabled or not self._thread.is_alive():
            return False
        marker = threading.Event()
        self._q.append(marker)
        self._wake.set()
        return marker.wait(timeout)

    def _point(self, line):
        if len(self._q) >= self._cap:
            self._drop(1)
            return
        self._q.append((_POINT, line))

    def _record(self, line):
        if self._disabled:
            self._drop(1)
            return
        self._q.append((_RECORD, line))

    def _drop(self, n):
        with self._drop_lock:
            self._dropped += n
            first = self._dropped == n
        if first and self._disabled:
            _warn(self._disabled)

    def _report_drops(self, timeout):
        """A stderr line and a "logging" facts event when points were dropped since the last
        report; True when it reported."""
        with self._drop_lock:
            dropped, new = self._dropped, self._dropped - self._reported
            self._reported = dropped
        if new <= 0 or self._disabled:
            return False
        _warn(
            "{} logged points dropped so far in rank {} (pid {}): the events buffer of {} "
            "entries was full{}".format(
                dropped,
                os.environ.get("RANK", "0"),
                os.getpid(),
                self._cap,
                "" if self._broken is None else " or the pipe closed ({})".format(self._broken),
            )
        )
        self.facts("logging", self._logging_body())
        self._sync(timeout)
        return True

    def _logging_body(self):
        return {"dropped": self._dropped, "invalid": self._invalid_count,
                "written": self._written, "capacity": self._cap, "pid": os.getpid()}  # fmt: skip

    def close(self, timeout=_EXIT_TIMEOUT):
        """Writes what is buffered and a final "logging" facts event; the writer stays usable."""
        if self._disabled:
            return
        if not (self._written or self._dropped or self._q):
            return
        self._sync(timeout)
        if not self._report_drops(timeout):
            self.facts("logging", self._logging_body())
            self._sync(timeout)

    # ---- the writer thread ----

    def _stop(self):
        self._closing = True
        self._wake.set()
        self._thread.join(5.0)

    def _run(self):
        q = self._q
        while True:
            if not q:
                if self._closing:
                    return
                self._wake.wait(_IDLE_WAIT)
                self._wake.clear()
                continue
            parts = []
            markers = []
            for _ in range(_BATCH_ENTRIES):
                if not q:
                    break
                entry = q.popleft()
                if type(entry) is not tuple:  # a flush() marker (a threading.Event)
                    markers.append(entry)
                    break  # what came before it is written before it is set
                self._serialise(entry, parts)
            if parts:
                self._write("".join(parts).encode("utf-8", "replace"), len(parts))
            for m in markers:
                m.set()

    def _serialise(self, entry, parts):
        tag = entry[0]
        if tag == _METRICS:
            _, values, step, phase, t = entry
        elif tag == _METRIC:
            _, name, value, step, phase, t = entry
            values = {name: value}
        else:
            try:
                parts.append(_dumps(entry[1]) + "\n")
            except (TypeError, ValueError, OverflowError) as error:
                self._invalid_points(1, error)
            return
        try:
            head = _HEAD % (repr(float(t)), _step(step), _phase(phase))
        except (TypeError, ValueError, OverflowError) as error:
            self._invalid_points(len(values), error)
            return
        names = self._names
        for name, value in values.items():
            text = names.get(name)
            # The common case inline: a known name and a finite float.
            if text is not None and type(value) is float and value - value == 0.0:
                parts.append(_TAIL % (head, text, value))
                continue
            try:
                parts.append(_TAIL_TEXT % (head, self._name(name), _number_text(value)))
            except (TypeError, ValueError, OverflowError) as error:
                self._invalid_points(1, error)

    def _name(self, name):
        text = self._names.get(name)
        if text is None:
            if not isinstance(name, str) or not name:
                raise ValueError("a metric name must be a non-empty string, got {!r}".format(name))
            if len(self._names) > 65536:
                self._names.clear()
            text = self._names[name] = json.dumps(name)
        return text

    def _invalid_points(self, n, error):
        self._invalid_count += n
        key = str(error)
        if key not in self._invalid and len(self._invalid) < 100:
            self._invalid.add(key)
            _warn("a logged point is not recorded: {}".format(error))

    def _write(self, data, lines):
        if self._broken is not None:
            self._drop(lines)
            return
        view = memoryview(data)
        while view:
            try:
                n = os.write(self._fd, view)
            except (BlockingIOError, InterruptedError):
                select.select([], [self._fd], [], 1.0)  # a non-blocking pipe that is full
                continue
            except OSError as error:
                self._broken = error
                self._drop(lines)
                _warn("the job's events pipe (fd {}) is gone: {}".format(self._fd, error))
                return
            view = view[n:]
        self._written += lines

    def _after_fork_in_child(self):
        self._q = collections.deque()
        self._drop_lock = threading.Lock()
        self._dropped = self._reported = self._written = 0
        self._cap = 0
        self._disabled = (
            "logging from a forked child process (pid {}) of a rank is not recorded; log from "
            "the rank's own process".format(os.getpid())
        )


def _step(step):
    if type(step) is int:
        return step
    if isinstance(step, bool) or not isinstance(step, numbers.Integral):
        raise ValueError("a step must be an integer, got {!r}".format(step))
    return int(step)


def _phase(phase):
    if phase not in _PHASES:
        raise ValueError('phase must be "train" or "eval", got {!r}'.format(phase))
    return phase


_writer = None
_writer_lock = threading.Lock()
_instances = weakref.WeakSet()  # every writer of the process, disabled in a forked child
_looked = False


def events_fd():
    """The rank's events fd from STUDIO_EVENTS_FD, or None (unset, not a number, not open,
    or not a pipe or socket: a process the rank started with the variable but not the fd)."""
    text = os.environ.get("STUDIO_EVENTS_FD")
    if not text:
        return None
    try:
        fd = int(text)
        mode = os.fstat(fd).st_mode
    except (ValueError, OSError):
        return None
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        return None
    return fd


def writer():
    """This process's EventWriter, or None outside a job. Made on first call."""
    global _writer, _looked
    if _looked:
        return _writer
    with _writer_lock:
        if not _looked:
            fd = events_fd()
            if fd is not None:
                capacity = DEFAULT_CAPACITY
                try:
                    capacity = max(1, int(os.environ.get("STUDIO_EVENTS_BUFFER", capacity)))
                except ValueError:
                    _warn("STUDIO_EVENTS_BUFFER must be a number of entries; using the default")
                _writer = EventWriter(fd, capacity)
                atexit.register(_writer.close)
            _looked = True
    return _writer


def reset():
    """Closes and forgets this process's writer, so the next writer() reads STUDIO_EVENTS_FD
    again (tests; a process that hands its rank's fd over). The fd stays open."""
    global _writer, _looked
    with _writer_lock:
        old, _writer, _looked = _writer, None, False
    if old is not None:
        atexit.unregister(old.close)
        old.close(timeout=5.0)
        old._stop()


def _reset_after_fork():
    global _writer_lock
    _writer_lock = threading.Lock()
    for w in list(_instances):
        w._after_fork_in_child()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)

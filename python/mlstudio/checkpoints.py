"""mlstudio.checkpoints: a script's checkpoints, kept as the built-in trainer keeps its own.

::

    from mlstudio import checkpoints, spot

    last = checkpoints.latest()
    start = 0
    if last is not None:
        state = checkpoints.load(last.path)
        model.load_state_dict(state["model"])
        start = last.step + 1
    for step in range(start, steps):
        ...
        if step % 100 == 0 or spot.interrupted():
            checkpoints.save({"model": model.state_dict()}, step)
        if spot.interrupted():
            spot.exit()

Inside a job the folder is the job's ``checkpoint_local_path`` (``SM_CHECKPOINT_DIR``), where a
spot job's next attempt finds them; outside a job it is ``./checkpoints``. Each checkpoint is a
payload ``ckpt-<step, 9 digits>-<tag>.pt`` and a manifest ``.json`` beside it holding the step,
the payload's SHA-256 and size (the built-in trainer's layout, engine/train/checkpoint_files),
both written atomically (temporary file, fsync, rename, fsync of the folder), so a rank killed
mid-write leaves the previous checkpoint whole. ``latest()`` skips a checkpoint whose bytes do
not match its manifest. Inside a job ``save`` also tells the studio (a ``checkpoint`` event): a
spot job's interrupted attempt then drops the metrics of the steps after the newest checkpoint,
which the next attempt computes again.

``step`` is the last step whose work the state holds: the loop resumes at ``step + 1``. In a
data-parallel job one rank (rank 0) saves, as PyTorch's DDP tutorial does.
"""

import collections
import hashlib
import io
import json
import os
import re

from . import _events

DEFAULT_TAG = "script"
DEFAULT_KEEP = 5
_TAG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")

Checkpoint = collections.namedtuple("Checkpoint", ["step", "path", "sha256", "bytes"])
Checkpoint.__doc__ = "A checkpoint on disk: its step, payload path, SHA-256 and size."


def directory():
    """The folder of this job's checkpoints (``SM_CHECKPOINT_DIR``), else ``./checkpoints``;
    created when missing."""
    folder = os.environ.get("SM_CHECKPOINT_DIR") or os.path.join(os.getcwd(), "checkpoints")
    os.makedirs(folder, exist_ok=True)
    return folder


def _checked_tag(tag):
    if not isinstance(tag, str) or not _TAG.match(tag):
        raise ValueError(
            "checkpoints: tag must be letters, digits, '_', '.' or '-', got {!r}".format(tag)
        )
    return tag


def _base_name(step, tag):
    return "ckpt-{:09d}-{}".format(step, tag)


def _write_atomically(path, data):
    """Writes data so that readers see the old file or the new one, never a torn one."""
    tmp = "{}.tmp-{}".format(path, os.getpid())
    try:
        os.unlink(tmp)  # a leftover of this pid's earlier life
    except FileNotFoundError:
        pass
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    os.close(fd)
    try:
        os.rename(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    folder = os.open(os.path.dirname(path) or ".", os.O_RDONLY)
    try:
        os.fsync(folder)  # the rename itself survives a crash
    finally:
        os.close(folder)


def _payload(state):
    if isinstance(state, (bytes, bytearray, memoryview)):
        return bytes(state)
    try:
        import torch
    except ImportError:
        raise TypeError(
            "checkpoints.save: state must be bytes when torch is not installed, got {}".format(
                type(state).__name__
            )
        ) from None
    buffer = io.BytesIO()
    torch.save(state, buffer)
    return buffer.getvalue()


def save(state, step, tag=DEFAULT_TAG, keep=DEFAULT_KEEP):
    """Saves state (bytes as they are, anything else with torch.save) as the checkpoint of
    step, atomically; keeps the newest ``keep`` of the tag. Returns the Checkpoint."""
    if isinstance(step, bool) or not isinstance(step, int) or step < 0:
        raise ValueError("checkpoints.save: step must be an integer >= 0, got {!r}".format(step))
    tag = _checked_tag(tag)
    data = _payload(state)
    folder = directory()
    base = _base_name(step, tag)
    path = os.path.join(folder, base + ".pt")
    digest = hashlib.sha256(data).hexdigest()
    _write_atomically(path, data)
    manifest = {"step": step, "epoch": 0, "tag": tag, "file": base + ".pt", "sha256": digest,
                "bytes": len(data)}  # fmt: skip
    _write_atomically(os.path.join(folder, base + ".json"), json.dumps(manifest).encode())
    _prune(folder, tag, keep)
    writer = _events.writer()
    if writer is not None:
        writer.checkpoint(step, path, digest, len(data))
    return Checkpoint(step, path, digest, len(data))


def _manifests(folder, tag):
    """(step, manifest path, manifest) of a tag, newest first; unreadable ones skipped."""
    suffix = "-{}.json".format(tag)
    found = []
    try:
        names = os.listdir(folder)
    except FileNotFoundError:
        return found
    for name in names:
        if not (name.startswith("ckpt-") and name.endswith(suffix)):
            continue
        path = os.path.join(folder, name)
        try:
            with open(path) as f:
                manifest = json.load(f)
            step = manifest["step"]
            file_name = manifest["file"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if not isinstance(step, int) or not isinstance(file_name, str) or "/" in file_name:
            continue  # the trainer's rule: a bare file name inside the folder
        if file_name in ("", ".", ".."):
            continue
        found.append((step, path, manifest))
    found.sort(key=lambda item: item[0], reverse=True)
    return found


def _prune(folder, tag, keep):
    for _, manifest_path, manifest in _manifests(folder, tag)[max(1, int(keep)) :]:
        for path in (os.path.join(folder, manifest["file"]), manifest_path):
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass


def _verified(folder, manifest):
    """The Checkpoint when the payload's size and SHA-256 match its manifest, else None."""
    path = os.path.join(folder, manifest["file"])
    digest = hashlib.sha256()
    size = 0
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
                size += len(chunk)
    except OSError:
        return None
    expected = manifest.get("bytes", -1)
    if isinstance(expected, int) and expected >= 0 and size != expected:
        return None
    if digest.hexdigest() != manifest.get("sha256"):
        return None
    return Checkpoint(manifest["step"], path, manifest["sha256"], size)


def latest(tag=DEFAULT_TAG):
    """The newest checkpoint of the tag whose bytes match its manifest, or None."""
    folder = directory()
    for _, _, manifest in _manifests(folder, _checked_tag(tag)):
        found = _verified(folder, manifest)
        if found is not None:
            return found
    return None


def load(path=None, tag=DEFAULT_TAG, raw=False, **torch_load_args):
    """A checkpoint's state: the newest valid one of the tag when path is None (None when
    there is none). Bytes with raw=True, else torch.load (map_location etc. passed on)."""
    if path is None:
        found = latest(tag)
        if found is None:
            return None
        path = found.path
    path = os.fspath(path)
    if raw:
        with open(path, "rb") as f:
            return f.read()
    import torch

    return torch.load(path, **torch_load_args)

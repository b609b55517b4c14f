"""Raw tensors of collections with save_raw_tensor, in the built-in trainer's layout
(engine/train/debug_hook.cpp, writeRaw) so ``mlstudio.debugger.trials`` reads them:

    <local_path>/tensors/step-<12 digits>/rank-<R>/<tensor, file-safe>.npy
    <local_path>/index-rank-<R>.jsonl   {"step","rank","collection","tensor","file","shape","dtype"}

Floating tensors are written as float32, others as int64; each file is written to a temporary
name and renamed, so a reader never sees half a file.
"""

import json
import os
import re

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def file_safe(name):
    return _UNSAFE.sub("_", name)


class RawTensorWriter:
    """Writes one rank's raw tensors; does nothing without a folder."""

    def __init__(self, local_path, rank):
        self._root = local_path
        self._rank = int(rank)

    def write(self, step, collection, name, tensor):
        if not self._root:
            return None
        import numpy
        import torch

        folder = os.path.join(self._root, "tensors", "step-%012d" % int(step),
                              "rank-%d" % self._rank)  # fmt: skip
        path = os.path.join(folder, file_safe(name) + ".npy")
        if os.path.exists(path):  # already written for another collection
            return path
        os.makedirs(folder, exist_ok=True)
        t = tensor.detach().cpu().contiguous()
        integral = not t.is_floating_point()
        array = t.to(torch.int64 if integral else torch.float32).numpy()
        temporary = path + ".tmp"
        with open(temporary, "wb") as f:
            numpy.save(f, array, allow_pickle=False)
        os.replace(temporary, path)
        line = {
            "step": int(step),
            "rank": self._rank,
            "collection": collection,
            "tensor": name,
            "file": os.path.relpath(path, self._root),
            "shape": list(array.shape),
            "dtype": "int64" if integral else "float32",
        }
        index = os.path.join(self._root, "index-rank-%d.jsonl" % self._rank)
        with open(index, "a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")
        return path

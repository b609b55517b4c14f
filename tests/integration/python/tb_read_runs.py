"""Reads a TensorBoard log folder with TensorBoard's own loader (event_accumulator, every point
kept) and prints each run's scalars, HParams session and end status as one JSON object:
{"<run>": {"scalars": {tag: [[step, value, wall_time], ...]}, "hparams": {...}, "group": "...",
"status": <hparams.Status or null>}}. Usage: tb_read_runs.py LOGDIR
"""
import json
import os
import sys

from tensorboard.backend.event_processing import event_accumulator
from tensorboard.plugins.hparams import metadata as hp_metadata
from tensorboard.util import tensor_util


def read_run(path):
    acc = event_accumulator.EventAccumulator(
        path, size_guidance={event_accumulator.TENSORS: 0, event_accumulator.SCALARS: 0})
    acc.Reload()
    run = {"scalars": {}, "hparams": None, "group": None, "status": None}
    tags = acc.Tags()
    for tag in tags["tensors"]:
        if not tag.startswith("_hparams_/"):
            run["scalars"][tag] = [[e.step, float(tensor_util.make_ndarray(e.tensor_proto)),
                                    e.wall_time] for e in acc.Tensors(tag)]
    for tag in tags["scalars"]:
        run["scalars"][tag] = [[e.step, e.value, e.wall_time] for e in acc.Scalars(tag)]
    try:
        content = acc.PluginTagToContent("hparams")
    except KeyError:  # no HParams summary in this run
        content = {}
    if hp_metadata.SESSION_START_INFO_TAG in content:
        info = hp_metadata.parse_session_start_info_plugin_data(
            content[hp_metadata.SESSION_START_INFO_TAG])
        run["group"] = info.group_name
        run["hparams"] = {name: value.WhichOneof("kind") and getattr(value, value.WhichOneof("kind"))
                          for name, value in info.hparams.items()}
    if hp_metadata.SESSION_END_INFO_TAG in content:
        run["status"] = hp_metadata.parse_session_end_info_plugin_data(
            content[hp_metadata.SESSION_END_INFO_TAG]).status
    return run


def main():
    logdir = sys.argv[1]
    runs = {}
    for folder, _, files in os.walk(logdir):
        if any("tfevents" in f for f in files):
            runs[os.path.relpath(folder, logdir)] = read_run(folder)
    print(json.dumps(runs, sort_keys=True))


if __name__ == "__main__":
    main()

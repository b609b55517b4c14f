"""bench_tensorboard's anchor: TensorBoard's own Python code doing the bench's work.

  write DIR N   TensorBoard's EventFileWriter writes N scalar points (the bench's values: 4 tags,
                2 runs of N/2 points, tensor form with the scalars plugin's metadata on each
                tag's first value, as the studio writes them) into DIR/node0-rank0 and
                DIR/node0-rank1; prints {"seconds": s, "points": n}.
  read DIR      TensorBoard's EventFileLoader reads every event file under DIR and decodes each
                scalar to (tag, step, wall time, value); prints {"seconds": s, "points": n}.
Times exclude the interpreter's start and imports (as the bench's own figures exclude its
process start), one thread.
"""
import json
import os
import struct
import sys
import time

from tensorboard.backend.event_processing.event_file_loader import EventFileLoader
from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, types_pb2
from tensorboard.summary.writer.event_file_writer import EventFileWriter

TAGS = ["train:loss", "train:accuracy", "eval:loss", "eval:accuracy"]


def value_of(rank, tag, step):
    """The bench's value for a point (tests/bench/bench_tensorboard.cpp: pointValue)."""
    return 1.0 / (1 + step) + 0.25 * TAGS.index(tag) + 0.125 * rank


def write(folder, n):
    per_run = n // 2
    start = time.perf_counter()
    for rank in (0, 1):
        w = EventFileWriter(os.path.join(folder, f"node0-rank{rank}"))
        steps = per_run // len(TAGS)
        for tag in TAGS:
            for step in range(steps):
                v = summary_pb2.Summary.Value(tag=tag, tensor=tensor_pb2.TensorProto(
                    dtype=types_pb2.DT_FLOAT, tensor_shape=tensor_shape_pb2.TensorShapeProto(),
                    tensor_content=struct.pack("<f", value_of(rank, tag, step))))
                if step == 0:
                    v.metadata.plugin_data.plugin_name = "scalars"
                w.add_event(event_pb2.Event(wall_time=1.7e9 + step, step=step,
                                            summary=summary_pb2.Summary(value=[v])))
        w.close()
    return time.perf_counter() - start, 2 * (per_run // len(TAGS)) * len(TAGS)


def read(folder):
    start = time.perf_counter()
    points = []
    for root, _, files in os.walk(folder):
        for name in sorted(files):
            if "tfevents" not in name:
                continue
            for event in EventFileLoader(os.path.join(root, name)).Load():
                for v in event.summary.value:
                    if v.HasField("tensor") and v.tensor.tensor_content:
                        value = struct.unpack("<f", v.tensor.tensor_content)[0]
                    elif v.HasField("simple_value"):
                        value = v.simple_value
                    else:
                        continue
                    points.append((v.tag, event.step, event.wall_time, value))
    return time.perf_counter() - start, len(points)


def main():
    if sys.argv[1] == "write":
        seconds, n = write(sys.argv[2], int(sys.argv[3]))
    else:
        seconds, n = read(sys.argv[2])
    print(json.dumps({"seconds": seconds, "points": n}))


if __name__ == "__main__":
    main()

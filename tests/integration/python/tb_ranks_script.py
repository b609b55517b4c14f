"""A script that writes TensorBoard event files itself, as Horovod and Keras scripts do: every
rank writes `train/loss` into $SM_TENSORBOARD_DIR with TensorBoard's own writer (the file named
with the rank's pid), values 100 * rank + step / 4 and wall times 1.7e9 + 1000 * rank + step.
Steps 0-4 first; then it waits (at most 60 s) for the file --go-file names, which the test
creates once it has seen those points in the store, and writes steps 5-9.
"""
import argparse
import os
import time

from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.summary.writer.event_file_writer import EventFileWriter


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--go-file", required=True)
    args = parser.parse_args()
    rank = int(os.environ["RANK"])
    writer = EventFileWriter(os.environ["SM_TENSORBOARD_DIR"], flush_secs=3600)

    def scalar(step):
        value = summary_pb2.Summary.Value(tag="train/loss", simple_value=100 * rank + step / 4)
        writer.add_event(event_pb2.Event(wall_time=1.7e9 + 1000 * rank + step, step=step,
                                         summary=summary_pb2.Summary(value=[value])))

    for step in range(5):
        scalar(step)
    writer.flush()
    deadline = time.monotonic() + 60
    while not os.path.exists(args.go_file) and time.monotonic() < deadline:
        time.sleep(0.05)
    for step in range(5, 10):
        scalar(step)
    writer.close()


if __name__ == "__main__":
    main()

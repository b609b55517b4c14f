"""A rank for bench_script_logging: logs LOG_STEPS steps of {"loss", "acc"} with mlstudio.log as
fast as it can, and writes what it measured to the JSON file LOG_MARK_FILE: when the first
point was logged (unix seconds), how long the loop took, and the writer's counts at exit."""
import json
import os
import time

import mlstudio
from mlstudio import _events


def main():
    steps = int(os.environ["LOG_STEPS"])
    log = mlstudio.log
    first = time.time()
    start = time.perf_counter()
    for i in range(steps):
        log({"loss": 1.0 / (i + 1), "acc": i / steps}, step=i)
    loop = time.perf_counter() - start
    writer = _events.writer()
    flush_start = time.perf_counter()
    writer.flush()
    flushed = time.perf_counter() - flush_start
    mark = {"first": first, "loop_s": loop, "flush_s": flushed, "points": 2 * steps,
            "dropped": writer.dropped, "invalid": writer.invalid}
    with open(os.environ["LOG_MARK_FILE"], "w") as f:
        json.dump(mark, f)


if __name__ == "__main__":
    main()

"""A script that writes its gradients' reductions to STUDIO_EVENTS_FD itself (no hook): the
abs mean grows by 5 a step. --steps, --sleep (seconds a step)."""
import argparse
import json
import os
import time

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=200)
parser.add_argument("--sleep", type=float, default=0.05)
args, _ = parser.parse_known_args()
fd = int(os.environ["STUDIO_EVENTS_FD"])
for step in range(args.steps):
    event = {"v": 1, "kind": "tensor", "t": time.time(), "collection": "gradients",
             "name": "gradient/fc.weight", "step": step,
             "reductions": {"mean": 5.0 * step, "abs_mean": 5.0 * step}}
    os.write(fd, (json.dumps(event) + "\n").encode())
    print("step", step, flush=True)
    time.sleep(args.sleep)
print("finished", flush=True)

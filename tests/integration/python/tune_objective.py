"""A training job with a known objective for the tuning tests: no model, no data, a curve.

The objective after epoch e is peak * (1 - 0.6 ** e), where peak = 1 - (x - 0.3)^2 - (y - 0.7)^2
plus a bonus for kind "b": every configuration improves with epochs, the good ones stay good,
and the search's ranking is known in advance. --fail makes the job fail after one epoch. The
last epoch done is kept in $SM_CHECKPOINT_DIR/epoch.txt, and a job finding one there goes on
after it, as a trainer resuming from its checkpoint does.
"""
import argparse
import os
import sys
import time

parser = argparse.ArgumentParser()
parser.add_argument("--x", type=float, default=0.5)
parser.add_argument("--y", type=float, default=0.5)
parser.add_argument("--kind", default="a")
parser.add_argument("--epochs", type=int, default=4)
parser.add_argument("--seconds-per-epoch", type=float, default=0.3)
parser.add_argument("--fail", default="false")
args, _ = parser.parse_known_args()

checkpoint = os.path.join(os.environ.get("SM_CHECKPOINT_DIR", "."), "epoch.txt")
first = 1
if os.path.exists(checkpoint):
    with open(checkpoint) as f:
        first = int(f.read().strip() or 0) + 1
    print(f"resuming after epoch {first - 1}", flush=True)

peak = 1.0 - (args.x - 0.3) ** 2 - (args.y - 0.7) ** 2 + (0.1 if args.kind == "b" else 0.0)
for epoch in range(first, args.epochs + 1):
    time.sleep(args.seconds_per_epoch)
    print(f"epoch {epoch} objective={peak * (1.0 - 0.6 ** epoch):.6f}", flush=True)
    with open(checkpoint + ".tmp", "w") as f:
        f.write(str(epoch))
    os.replace(checkpoint + ".tmp", checkpoint)
    if args.fail == "true":
        print("failing on purpose", file=sys.stderr, flush=True)
        sys.exit(3)

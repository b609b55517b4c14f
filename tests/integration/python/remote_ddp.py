"""A PyTorch DistributedDataParallel-style script (Gloo, env:// rendezvous) for the remote-run
tests. It all-reduces a small tensor each step and prints one "loss=" line per step (the spec's
metric_definitions turn them into metrics), then rank 0 writes what it was given (its argv,
SM_HPS, SM_USER_ARGS, chosen variables) to SM_OUTPUT_DATA_DIR/received.json and a model to
SM_MODEL_DIR, so a test compares the bytes that arrived with the bytes it sent."""
import json
import os
import socket
import sys
import time

import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo", init_method="env://")
    rank, world = dist.get_rank(), dist.get_world_size()
    steps = int(os.environ.get("TEST_STEPS", "20"))
    delay = float(os.environ.get("TEST_STEP_SECONDS", "0"))
    weights = torch.zeros(4)
    for step in range(1, steps + 1):
        grad = torch.full((4,), float(rank + step))
        dist.all_reduce(grad)
        weights -= 0.001 * grad / world
        if rank == 0:
            print(f"step={step} loss={float(weights.abs().sum()):.6f}", flush=True)
        time.sleep(delay)
    # Which address each rank's Gloo device bound: every rank reports its own.
    here = torch.tensor([float(rank)])
    dist.all_reduce(here)
    if rank == 0:
        os.makedirs(os.environ["SM_MODEL_DIR"], exist_ok=True)
        torch.save({"weights": weights}, os.path.join(os.environ["SM_MODEL_DIR"], "model.pt"))
        out = os.environ["SM_OUTPUT_DATA_DIR"]
        os.makedirs(out, exist_ok=True)
        received = {
            "argv": sys.argv[1:],
            "hps": json.loads(os.environ.get("SM_HPS", "{}")),
            "user_args": json.loads(os.environ.get("SM_USER_ARGS", "[]")),
            "env": {k: os.environ.get(k) for k in ("HOSTILE", "GLOO_SOCKET_IFNAME", "MASTER_ADDR",
                                                    "SM_CURRENT_HOST", "SM_CHANNEL_TRAIN")},
            "world": world,
            "rank_sum": here.item(),
            "cwd": os.getcwd(),
            "host": socket.gethostname(),
        }
        with open(os.path.join(out, "received.json"), "w") as f:
            json.dump(received, f)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

"""An mpi4py job for distribution.mpi: every rank all-reduces its rank number (plus the round)
and prints the world size and the sum, so each rank's log shows that all of them met in one MPI
world. Each round's sum is also a metric event on STUDIO_EVENTS_FD, and each rank leaves what it
saw (world, sum, its environment) in SM_OUTPUT_DATA_DIR/rank-<R>.json.

--fail-rank R makes rank R exit with code 3 after the rounds, without MPI_Finalize, so mpirun
ends the job at once; --sleep S keeps the ranks alive afterwards (a stop's target), and
--save-seconds S makes a SIGTERM take S seconds of "saving" before the rank writes
SM_OUTPUT_DATA_DIR/saved-<R> and exits, as a rank checkpointing at a spot interruption would. Run scripts
as `python3 -m mpi4py script.py` to have an exception or sys.exit abort every rank at once:
otherwise MPI_Finalize waits for the ranks that are still running.
"""
import argparse
import json
import os
import signal
import sys
import time

from mpi4py import MPI


def events_file():
    fd = os.environ.get("STUDIO_EVENTS_FD")
    return os.fdopen(int(fd), "w", buffering=1) if fd else None


def save_and_exit(rank, seconds):
    time.sleep(seconds)
    out = os.environ.get("SM_OUTPUT_DATA_DIR", ".")
    with open(os.path.join(out, f"saved-{rank}"), "w") as f:
        f.write("saved\n")
    os._exit(0)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--fail-rank", type=int, default=-1)
    parser.add_argument("--sleep", type=float, default=0)
    parser.add_argument("--save-seconds", type=float, default=-1)
    args, _ = parser.parse_known_args()
    comm = MPI.COMM_WORLD
    rank, world = comm.Get_rank(), comm.Get_size()
    if args.save_seconds >= 0:
        signal.signal(signal.SIGTERM, lambda *_: save_and_exit(rank, args.save_seconds))
    events = events_file()
    sums = []
    for step in range(args.rounds):
        total = comm.allreduce(rank + step, op=MPI.SUM)
        expected = world * (world - 1) // 2 + step * world
        sums.append(total)
        print(f"rank {rank} of {world}: round={step} sum={total} expected={expected}", flush=True)
        if events:
            events.write(json.dumps({"v": 1, "kind": "metric", "name": "allreduce:sum",
                                     "step": step, "value": total}) + "\n")
    print(f"rank {rank} done", file=sys.stderr, flush=True)
    out = os.environ.get("SM_OUTPUT_DATA_DIR")
    if out:
        os.makedirs(out, exist_ok=True)
        keys = ["RANK", "LOCAL_RANK", "WORLD_SIZE", "SM_CURRENT_HOST", "SM_HPS",
                "OMPI_COMM_WORLD_RANK", "HOSTILE", "HOSTILE2"]
        seen = {"world": world, "rank": rank, "sums": sums,
                "env": {k: os.environ[k] for k in keys if k in os.environ},
                "netns": os.readlink("/proc/self/ns/net")}
        with open(os.path.join(out, f"rank-{rank}.json"), "w") as f:
            json.dump(seen, f)
    if rank == args.fail_rank:
        print(f"rank {rank} fails on purpose", file=sys.stderr, flush=True)
        os._exit(3)
    time.sleep(args.sleep)


if __name__ == "__main__":
    main()

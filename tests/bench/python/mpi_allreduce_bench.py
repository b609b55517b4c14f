"""A rank of bench_mpi: times an all-reduce of --size-mb megabytes of float64 in mpi4py.

Each iteration's time is the slowest rank's (an all-reduce of the elapsed times with MAX).
Rank 0 prints one line "BENCH <json>": the world size, the bytes, every iteration's seconds, and
whether every element of every result was right (the sum of the ranks' fills).
"""
import argparse
import json
import time

import numpy as np
from mpi4py import MPI


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--size-mb", type=float, default=8)
    parser.add_argument("--iters", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    args, _ = parser.parse_known_args()
    comm = MPI.COMM_WORLD
    rank, world = comm.Get_rank(), comm.Get_size()
    n = int(args.size_mb * 1e6) // 8
    send = np.full(n, float(rank + 1))
    recv = np.empty(n)
    expected = world * (world + 1) / 2
    correct = True
    times = []
    for i in range(args.warmup + args.iters):
        comm.Barrier()
        start = time.perf_counter()
        comm.Allreduce(send, recv, op=MPI.SUM)
        elapsed = comm.allreduce(time.perf_counter() - start, op=MPI.MAX)
        correct = correct and bool(recv[0] == expected and recv[-1] == expected)
        if i >= args.warmup:
            times.append(elapsed)
    correct = comm.allreduce(correct, op=MPI.LAND)
    if rank == 0:
        print("BENCH " + json.dumps({"world": world, "bytes": n * 8, "seconds": times,
                                     "correct": correct}), flush=True)


if __name__ == "__main__":
    main()

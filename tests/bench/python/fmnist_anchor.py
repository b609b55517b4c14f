"""The anchor of bench_trainer: the same work as studio-train's fmnist-cnn, written as a PyTorch
user writes it (pytorch/examples' MNIST network, DataLoader, SGD, DistributedDataParallel with Gloo
when WORLD_SIZE > 1). Prints one JSON line with the measured samples per second, the peak
resident memory, the torch version and the CPUs the process may run on (the bench pins DDP ranks
the way studio-launcher pins studio-train's).

  /usr/bin/python3 fmnist_anchor.py --steps 60 --warmup 10 [--batch 64] [--channels-last]
  (ranks: run one process per rank with RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT set)
"""
import argparse
import gzip
import json
import os
import resource
import struct
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic, n = struct.unpack(">II", data[:8])
    if magic == 2051:
        rows, cols = struct.unpack(">II", data[8:16])
        return torch.frombuffer(bytearray(data[16:]), dtype=torch.uint8).view(n, 1, rows, cols).float().div(255)
    return torch.frombuffer(bytearray(data[8:]), dtype=torch.uint8).long()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout2(x)
        return F.log_softmax(self.fc2(x), dim=1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--batch", type=int, default=64, help="per rank")
    parser.add_argument("--data", default="/usr/share/datasets/fashion-mnist")
    parser.add_argument("--channels-last", action="store_true")
    args = parser.parse_args()

    torch.set_num_threads(1)
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    if world > 1:
        dist.init_process_group("gloo", init_method="env://")
    torch.manual_seed(1)
    images = (read_idx(os.path.join(args.data, "train-images-idx3-ubyte.gz")) - 0.2860) / 0.3530
    labels = read_idx(os.path.join(args.data, "train-labels-idx1-ubyte.gz"))
    dataset = TensorDataset(images, labels)
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, seed=1) if world > 1 else None
    loader = DataLoader(dataset, batch_size=args.batch, sampler=sampler, shuffle=sampler is None, drop_last=True)
    model = Net()
    if args.channels_last:
        model = model.to(memory_format=torch.channels_last)
    if world > 1:
        model = nn.parallel.DistributedDataParallel(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01 * world, momentum=0.9)

    model.train()
    step, start = 0, None
    for x, y in loader:
        if args.channels_last:
            x = x.contiguous(memory_format=torch.channels_last)
        if step == args.warmup:
            start = time.perf_counter()
        optimizer.zero_grad()
        F.nll_loss(model(x), y).backward()
        optimizer.step()
        step += 1
        if step == args.warmup + args.steps:
            break
    seconds = time.perf_counter() - start
    if world > 1:
        dist.barrier()
        dist.destroy_process_group()
    # Linux gives ru_maxrss in KiB: the process's peak resident set.
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"rank": rank, "world": world, "steps": args.steps,
                      "samples_per_s": args.steps * args.batch * world / seconds,
                      "peak_rss_mib": peak_mib, "torch": torch.__version__,
                      "cpus": sorted(os.sched_getaffinity(0))}), flush=True)


if __name__ == "__main__":
    main()

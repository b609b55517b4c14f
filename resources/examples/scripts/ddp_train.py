"""A plain PyTorch DistributedDataParallel training script (Gloo, env:// rendezvous).

It knows nothing about ML Studio: it reads the variables torchrun and SageMaker set (RANK,
WORLD_SIZE, MASTER_ADDR/PORT, SM_CHANNEL_TRAIN) and prints its loss; the job spec's
metric_definitions turn those lines into metrics.
"""
import argparse
import gzip
import os
import struct
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        data = f.read()
    magic, count = struct.unpack(">II", data[:8])
    if magic == 2051:
        rows, cols = struct.unpack(">II", data[8:16])
        pixels = torch.frombuffer(bytearray(data[16:]), dtype=torch.uint8)
        return pixels.view(count, 1, rows, cols).float().div(255.0)
    if magic == 2049:
        return torch.frombuffer(bytearray(data[8:]), dtype=torch.uint8).long()
    raise ValueError(f"{path}: not an IDX image or label file (magic {magic})")


def load(folder, prefix, limit):
    def find(name):
        for candidate in (name + ".gz", name):
            path = os.path.join(folder, candidate)
            if os.path.exists(path):
                return path
        raise FileNotFoundError(os.path.join(folder, name))

    images = read_idx(find(f"{prefix}-images-idx3-ubyte"))[:limit]
    labels = read_idx(find(f"{prefix}-labels-idx1-ubyte"))[:limit]
    return TensorDataset((images - 0.2860) / 0.3530, labels)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3)
        self.fc1 = nn.Linear(8 * 13 * 13, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv(x)), 2)
        return self.fc2(F.relu(self.fc1(torch.flatten(x, 1))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--max-steps", type=int, default=0)
    parser.add_argument("--train-samples", type=int, default=6000)
    args = parser.parse_args()

    # One host: the ranks meet through the launcher's private store file, so nothing listens
    # for the rendezvous; several hosts meet at MASTER_ADDR:MASTER_PORT.
    store_file = os.environ.get("STUDIO_STORE_FILE")
    if store_file:
        dist.init_process_group("gloo", init_method="file://" + store_file,
                                rank=int(os.environ["RANK"]),
                                world_size=int(os.environ["WORLD_SIZE"]))
    else:
        dist.init_process_group("gloo", init_method="env://")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1)
    torch.set_num_threads(1)

    data_dir = os.environ.get("SM_CHANNEL_TRAIN", "/usr/share/datasets/fashion-mnist")
    train = load(data_dir, "train", args.train_samples)
    test = load(data_dir, "t10k", 2000)
    sampler = DistributedSampler(train, num_replicas=world, rank=rank, shuffle=True, seed=1)
    loader = DataLoader(train, batch_size=max(1, args.batch_size // world), sampler=sampler)

    model = DDP(Net())
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    if rank == 0:
        print(f"world size {world}, {len(train)} training samples, batch {args.batch_size}", flush=True)

    step = 0
    started = time.time()
    for epoch in range(1, args.epochs + 1):
        sampler.set_epoch(epoch)
        for images, labels in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(images), labels)
            loss.backward()
            optimizer.step()
            step += 1
            if rank == 0 and step % 5 == 0:
                print(f"epoch={epoch} step={step} loss={loss.item():.4f}", flush=True)
            if args.max_steps and step >= args.max_steps:
                break
        if args.max_steps and step >= args.max_steps:
            break

    model.eval()
    correct = torch.zeros(1)
    with torch.no_grad():
        for images, labels in DataLoader(test, batch_size=500):
            correct += (model(images).argmax(1) == labels).sum()
    if rank == 0:
        print(f"test_accuracy={correct.item() / len(test):.4f} after {step} steps "
              f"in {time.time() - started:.1f}s", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()

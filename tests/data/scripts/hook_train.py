"""A plain PyTorch training script for the Debugger hook's job tests: DistributedDataParallel
over Gloo when the job has several ranks, an MLP on Fashion-MNIST ($SM_CHANNEL_TRAIN) or on a
fixed synthetic set, and a model picked to make one rule fire:

  --model mlp           ReLU MLP (the built-in trainer's "mlp": 784 -> hidden x depth -> 10)
  --model deep-sigmoid  20 sigmoid layers with small weights: the first layers' gradients
                        vanish (VanishingGradient)
  --model dead-relu     hidden biases of -10: every ReLU is dead (DeadRelu)

--hook auto leaves the script alone (the zero-change hook attaches itself); --hook explicit
makes the hook as a SageMaker script does (Hook.create_from_json_file, register_module,
register_loss). A large --lr diverges (ExplodingTensor). Each step prints "step N loss X".
"""

import argparse
import gzip
import os
import struct
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic, count = struct.unpack(">II", data[:8])
    if magic == 2051:
        rows, cols = struct.unpack(">II", data[8:16])
        pixels = torch.frombuffer(bytearray(data[16:]), dtype=torch.uint8)
        return pixels.view(count, rows * cols).float().div(255.0)
    return torch.frombuffer(bytearray(data[8:]), dtype=torch.uint8).long()


def dataset(kind, samples):
    if kind == "fashion-mnist":
        folder = os.environ.get("SM_CHANNEL_TRAIN", "/usr/share/datasets/fashion-mnist")
        images = read_idx(os.path.join(folder, "train-images-idx3-ubyte.gz"))[:samples]
        labels = read_idx(os.path.join(folder, "train-labels-idx1-ubyte.gz"))[:samples]
        return TensorDataset((images - 0.2860) / 0.3530, labels)
    g = torch.Generator().manual_seed(7)
    centers = torch.randn(10, 784, generator=g)
    labels = torch.randint(0, 10, (samples,), generator=g)
    return TensorDataset(centers[labels] + 0.5 * torch.randn(samples, 784, generator=g), labels)


def model_for(kind, hidden, depth):
    if kind == "deep-sigmoid":
        layers, width = [], 784
        for _ in range(20):
            linear = nn.Linear(width, 32)
            nn.init.normal_(linear.weight, std=0.05)
            layers += [linear, nn.Sigmoid()]
            width = 32
        return nn.Sequential(*layers, nn.Linear(32, 10))
    layers, width = [], 784
    for _ in range(depth):
        linear = nn.Linear(width, hidden)
        if kind == "dead-relu":
            nn.init.constant_(linear.bias, -10.0)
            nn.init.normal_(linear.weight, std=0.001)
        layers += [linear, nn.ReLU()]
        width = hidden
    return nn.Sequential(*layers, nn.Linear(width, 10))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--hook", choices=["auto", "explicit"], default="auto")
    p.add_argument("--model", choices=["mlp", "deep-sigmoid", "dead-relu"], default="mlp")
    p.add_argument("--data", choices=["synthetic", "fashion-mnist"], default="synthetic")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--depth", type=int, default=2)
    p.add_argument("--sleep", type=float, default=0.0)
    args, _ = p.parse_known_args()

    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    if world > 1:
        dist.init_process_group("gloo", init_method="file://" + os.environ["STUDIO_STORE_FILE"],
                                rank=rank, world_size=world)
    torch.manual_seed(1)
    torch.set_num_threads(1)
    data = dataset(args.data, args.steps * args.batch_size)
    sampler = DistributedSampler(data, world, rank, shuffle=True, seed=1) if world > 1 else None
    loader = DataLoader(data, batch_size=max(1, args.batch_size // world), sampler=sampler,
                        shuffle=sampler is None)
    net = model_for(args.model, args.hidden, args.depth)
    model = nn.parallel.DistributedDataParallel(net) if world > 1 else net
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    if args.hook == "explicit":
        from mlstudio.debugger.pytorch import Hook

        hook = Hook.create_from_json_file()
        hook.register_module(model)
        hook.register_loss(loss_fn)

    step = 0
    while step < args.steps:
        for x, y in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            if rank == 0:
                print("step {} loss {:.4f}".format(step, loss.item()), flush=True)
            step += 1
            time.sleep(args.sleep)
            if step == args.steps:
                break
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()

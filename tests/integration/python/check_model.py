"""Loads studio-train's model.pt with PyTorch and evaluates it with PyTorch's own MNIST example
network on the Fashion-MNIST test set. Prints {"accuracy": ...} as JSON.

  /usr/bin/python3 check_model.py MODEL_DIR [DATA_DIR [SAMPLES]]
"""
import gzip
import json
import os
import struct
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic, n = struct.unpack(">II", data[:8])
    if magic == 2051:
        rows, cols = struct.unpack(">II", data[8:16])
        return torch.frombuffer(bytearray(data[16:]), dtype=torch.uint8).view(n, 1, rows, cols).float().div(255)
    return torch.frombuffer(bytearray(data[8:]), dtype=torch.uint8).long()


class Net(nn.Module):  # pytorch/examples mnist, in eval mode
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv2(F.relu(self.conv1(x)))), 2)
        x = F.relu(self.fc1(torch.flatten(x, 1)))
        return F.log_softmax(self.fc2(x), dim=1)


def main():
    model_dir = sys.argv[1]
    data_dir = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/datasets/fashion-mnist"
    limit = int(sys.argv[3]) if len(sys.argv) > 3 else None
    # weights_only: what PyTorch 2.6 and later do by default; the file must not need more.
    state = torch.load(os.path.join(model_dir, "model.pt"), weights_only=True)
    net = Net()
    names = list(net.state_dict().keys())
    ours = list(state.items())
    if len(ours) != len(names):
        raise SystemExit(f"{len(ours)} tensors in model.pt, the network has {len(names)}")
    mapped = {}
    for name, (their_name, tensor) in zip(names, ours):
        if tuple(tensor.shape) != tuple(net.state_dict()[name].shape):
            raise SystemExit(f"{their_name} {tuple(tensor.shape)} does not fit {name}")
        mapped[name] = tensor
    net.load_state_dict(mapped)
    net.eval()
    images = (read_idx(os.path.join(data_dir, "t10k-images-idx3-ubyte.gz")) - 0.2860) / 0.3530
    labels = read_idx(os.path.join(data_dir, "t10k-labels-idx1-ubyte.gz"))
    images, labels = images[:limit], labels[:limit]
    with torch.no_grad():
        correct = sum((net(images[i:i + 1000]).argmax(1) == labels[i:i + 1000]).sum().item()
                      for i in range(0, len(labels), 1000))
    print(json.dumps({"accuracy": correct / len(labels), "tensors": [n for n, _ in ours]}))


if __name__ == "__main__":
    main()

"""A plain PyTorch script that diverges on purpose: a linear model trained by gradient descent
with a learning rate past the stable limit, so its gradients grow by --growth a step (1.25: from
about 0.1 at step 5 to 10 near step 28). --hook explicit registers mlstudio's smdebug hook;
otherwise the script has no studio import at all (the hook attaches itself when the job's spec
has debugger_hook_config)."""
import argparse
import time

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=300)
parser.add_argument("--growth", type=float, default=1.25)
parser.add_argument("--sleep", type=float, default=0.02)
parser.add_argument("--hook", default="auto")
args, _ = parser.parse_known_args()

torch.manual_seed(0)
model = torch.nn.Linear(16, 1)
x = torch.randn(64, 16)
y = torch.randn(64, 1)
# The largest curvature of the mean squared error: steps of lr = (1 + g) / curvature make the
# error along that direction grow by g a step.
inputs = torch.cat([x, torch.ones(64, 1)], 1)
curvature = torch.linalg.eigvalsh(2 * inputs.T @ inputs / len(x)).max().item()
loss_fn = torch.nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=(1 + args.growth) / curvature)
if args.hook == "explicit":
    from mlstudio.debugger.pytorch import Hook

    hook = Hook.create_from_json_file()
    hook.register_module(model)
    hook.register_loss(loss_fn)

for step in range(args.steps):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    print("step {} loss={:.4g}".format(step, loss.item()), flush=True)
    time.sleep(args.sleep)
print("finished", flush=True)

#!/usr/bin/env python3
"""The Debugger hook's cost to a PyTorch script: the step time of a ResNet-18 (CIFAR layout,
32x32 inputs, defined here: torchvision is not installed) training on CPU, with the hook and
without it (the anchor: the same script, the same data, steps and threads, no mlstudio
imported).

  default hook   losses every step, weights, biases and gradients every 500 steps, and the step
                 profiler's step events, as in a job with debugger_hook_config (goal <= 1.02x)
  rules hook     gradients every 10 steps with the reductions of VanishingGradient (abs_mean),
                 ExplodingTensor (nonfinite on every collection) and PoorWeightInitialization
                 (p5, p95; relu_input variance every 500 steps) (goal <= 1.10x)

Each measurement is a process of its own (the hook patches torch for the whole process), its
events going to a real pipe that this process drains; rounds interleave the variants,
alternating their order. A measured window is the hook's steps 480-540 (after 3 warm-up
steps), so it holds the saving steps of both schedules; a figure is the step time over a whole
500-step cycle, from the medians of each kind of step: plain steps (losses only), steps saving
gradients (every 10th) and steps saving everything (step 500), weighted by how often each comes
(499:1, or 450:49:1); the anchor is the median step without the hook; each is the best of the
rounds (the one least disturbed by other processes). Step times are the
process's CPU time (every thread, so the events writer's work counts), which other processes'
load does not inflate as it does wall time on a shared machine; wall times are in details. Prints one JSON report
like the other benches (tests/bench/bench_support.h); --json FILE writes it too; --quick runs a
few steps from step 0 to check the hook saved what it should, and never fails on a time.

    bench_hook_overhead.py [--quick] [--json FILE] [--rounds N] [--threads N] [--batch N]
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "python")
VARIANTS = ("none", "default", "rules")
WARM_UP = 3


# ---- the worker: one variant, one process ----

def resnet18(torch):
    nn = torch.nn

    class BasicBlock(nn.Module):
        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.relu = nn.ReLU(inplace=True)
            self.shortcut = nn.Sequential()
            if stride != 1 or cin != cout:
                self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                              nn.BatchNorm2d(cout))

        def forward(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            out += self.shortcut(x)
            return self.relu(out)

    class ResNet18(nn.Module):
        def __init__(self, classes=10):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            stages, cin = [], 64
            for cout, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
                stages.append(nn.Sequential(BasicBlock(cin, cout, stride),
                                            BasicBlock(cout, cout, 1)))
                cin = cout
            self.layer1, self.layer2, self.layer3, self.layer4 = stages
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(512, classes)

        def forward(self, x):
            x = self.relu(self.bn1(self.conv1(x)))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(torch.flatten(self.pool(x), 1))

    return ResNet18()


def collection(name, regex, interval, reductions):
    return {"name": name, "include_regex": [regex], "save_interval": interval,
            "save_steps": [], "start_step": 0, "end_step": -1, "reductions": reductions,
            "default_reductions": True, "save_raw_tensor": False, "every_eval": True}


def plan(variant):
    """The plans engine/debugger/hook_plan.cpp makes for the two specs."""
    if variant == "default":
        collections = [collection("losses", "^loss$", 1, []),
                       collection("weights", "^(?!gradient).*weight$", 500, []),
                       collection("biases", "^(?!gradient).*bias$", 500, []),
                       collection("gradients", "^gradient/", 500, [])]
    else:
        collections = [collection("losses", "^loss$", 1, ["nonfinite"]),
                       collection("gradients", "^gradient/", 10,
                                  ["abs_mean", "p5", "p95", "nonfinite"]),
                       collection("relu_input", ".*relu_input", 500, ["variance", "nonfinite"])]
    # A job with a hook config has the step profiler on too (step events, no detailed window).
    return {"enabled": True, "collections": collections,
            "profiler": {"enabled": True, "framework": False}}


def worker(args):
    import torch

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    model = resnet18(torch)
    loss_fn = torch.nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(args.batch, 3, 32, 32)
    y = torch.randint(0, 10, (args.batch,))
    hook = None
    if args.worker != "none":
        sys.path.insert(0, PACKAGE)
        from mlstudio.debugger.pytorch import Hook
        from mlstudio.debugger.pytorch._plan import HookPlan

        hook = Hook._from_plan(HookPlan.from_dict(plan(args.worker)))
        hook.register_module(model)
        hook.register_loss(loss_fn)
    first = max(0, args.start - WARM_UP)
    if hook is not None:
        hook._step = first  # the hook counts from here: the window holds the saving steps
    times, cpu_times = [], []
    for step in range(first, args.start + args.steps):
        start, cpu_start = time.perf_counter(), time.process_time()
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        if step >= args.start:
            times.append((step, (time.perf_counter() - start) * 1000.0))
            cpu_times.append((step, (time.process_time() - cpu_start) * 1000.0))
    if hook is not None:
        hook.close()
    print(json.dumps({"step_ms": times, "cpu_ms": cpu_times}))


# ---- the bench ----

class Drain(threading.Thread):
    """Reads a worker's events pipe, counting lines by kind."""

    def __init__(self, fd):
        super().__init__(daemon=True)
        self.fd, self.data = fd, []

    def run(self):
        while True:
            chunk = os.read(self.fd, 1 << 16)
            if not chunk:
                break
            self.data.append(chunk)
        os.close(self.fd)

    def lines(self):
        return [json.loads(line) for line in b"".join(self.data).decode().splitlines()]


def measure(variant, args):
    env = dict(os.environ, RANK="0", PYTHONPATH=PACKAGE)
    for name in ("STUDIO_DEBUG_HOOK_CONFIG", "STUDIO_EVENTS_FD"):
        env.pop(name, None)
    argv = [sys.executable, os.path.abspath(__file__), "--worker", variant, "--steps",
            str(args.steps), "--start", str(args.start), "--threads", str(args.threads),
            "--batch", str(args.batch)]
    fds, drain = (), None
    if variant != "none":
        read, write = os.pipe()
        env["STUDIO_EVENTS_FD"] = str(write)
        fds = (write,)
        drain = Drain(read)
        drain.start()
    done = subprocess.Popen(argv, env=env, pass_fds=fds, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, universal_newlines=True)
    for fd in fds:
        os.close(fd)
    out, err = done.communicate(timeout=3600)
    if done.returncode != 0:
        raise RuntimeError("worker {} failed: {}".format(variant, err))
    if drain is not None:
        drain.join(60)
    measured = json.loads(out.strip().splitlines()[-1])
    return measured, (drain.lines() if drain else [])


def check_events(variant, events, args):
    """What the hook must have sent: every step's loss, the tensors of the saving steps."""
    steps = range(max(0, args.start - WARM_UP), args.start + args.steps)
    tensors = [e for e in events if e["kind"] == "tensor"]
    losses = sorted(e["step"] for e in tensors if e["name"] == "loss")
    saved = sorted({e["step"] for e in tensors if e["collection"] != "losses"})
    interval = 500 if variant == "default" else 10
    step_events = [e for e in events if e["kind"] == "step"]
    return (losses == list(steps) and saved == [s for s in steps if s % interval == 0]
            and len(step_events) == len(steps))


def median(values):
    v = sorted(values)
    n = len(v)
    return (v[n // 2] + v[(n - 1) // 2]) / 2 if v else float("nan")


# How often each kind of step comes in a 500-step cycle: (steps saved at, share).
_CYCLE = {"default": [(lambda s: s % 500 == 0, 1 / 500.0)],
          "rules": [(lambda s: s % 500 == 0, 1 / 500.0),
                    (lambda s: s % 10 == 0 and s % 500 != 0, 49 / 500.0)]}


def cycle_time(variant, times):
    """The mean step time over a 500-step cycle, from the median of each kind of step."""
    kinds = _CYCLE[variant]
    plain = median([ms for s, ms in times if not any(saves(s) for saves, _ in kinds)])
    total, share_left = 0.0, 1.0
    for saves, share in kinds:
        total += share * median([ms for s, ms in times if saves(s)])
        share_left -= share
    return total + share_left * plain


def report(args, results, checks):
    figures = []
    every_step = {v: [t for run in runs for t in run["cpu_ms"]] for v, runs in results.items()}
    anchor = min(median([ms for _, ms in run["cpu_ms"]]) for run in results["none"])
    for variant, goal in (("default", 1.02), ("rules", 1.10)):
        ours = min(cycle_time(variant, run["cpu_ms"]) for run in results[variant])
        ratio = ours / anchor
        figures.append({"figure": "step time, {} hook".format(variant), "unit": "CPU ms",
                        "ours": ours, "anchor": anchor, "anchor_name": "no hook",
                        "ratio": ratio, "goal": {"on": "ratio", "at_most": goal},
                        "met": ratio <= goal,
                        "note": "the best round's CPU time of the process (all threads, the "
                                "hook's writer included) over a 500-step cycle, from the median "
                                "of each kind of step; wall times in details"})
    medians = {v: {"cpu": [median([ms for _, ms in run["cpu_ms"]]) for run in runs],
                   "wall": [median([ms for _, ms in run["step_ms"]]) for run in runs]}
               for v, runs in results.items()}
    import torch

    out = {
        "bench": "bench_hook_overhead", "mode": "quick" if args.quick else "full",
        "anchors": [{"name": "no hook", "what": "the same ResNet-18 script without mlstudio",
                     "version": "torch " + torch.__version__, "threads": args.threads,
                     "work": "ResNet-18, batch {} of 3x32x32, SGD, {} measured steps a "
                             "round".format(args.batch, args.steps)}],
        "figures": figures,
        "checks": [{"check": c, "ok": ok} for c, ok in checks],
        "details": {"rounds": args.rounds, "steps": args.steps, "threads": args.threads,
                    "batch": args.batch, "python": platform.python_version(),
                    "window": [args.start, args.start + args.steps - 1],
                    "median_step_ms": medians,
                    "saving_step_cpu_ms": {v: {str(s): ms for s, ms in every_step[v]
                                               if s % 10 == 0} for v in ("default", "rules")}},
        "ok": all(ok for _, ok in checks),
    }
    if args.quick:
        out["timings"] = "quick mode: a correctness run; its timings mean nothing"
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--json")
    p.add_argument("--rounds", type=int)
    p.add_argument("--steps", type=int)
    p.add_argument("--start", type=int)
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--worker", choices=VARIANTS)
    args = p.parse_args()
    if args.worker:
        worker(args)
        return 0
    args.rounds = args.rounds or (1 if args.quick else 3)
    args.steps = args.steps or (20 if args.quick else 61)
    args.start = args.start if args.start is not None else (0 if args.quick else 480)
    results = {v: [] for v in VARIANTS}
    checks = []
    for r in range(args.rounds):
        order = VARIANTS if r % 2 == 0 else tuple(reversed(VARIANTS))
        for variant in order:
            measured, events = measure(variant, args)
            results[variant].append(measured)
            if variant != "none":
                checks.append(("round {}: the {} hook sent every step's loss and the saving "
                               "steps' tensors, and a step event a step".format(r, variant),
                               check_events(variant, events, args)))
    document = report(args, results, checks)
    text = json.dumps(document, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
    return 0 if document["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())

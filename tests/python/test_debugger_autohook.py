"""The zero-change hook and the framework profiler in a rank's own process, as a job starts it
(the start-up folder first on PYTHONPATH, STUDIO_EVENTS_FD a pipe read here, the hook config
file as the launcher writes it) but without a job: torch imported only by the script, the
model and loss found at the first optimizer step, an explicit hook saving each tensor once,
auto_attach off, step events for every step, the profiled window's spans, its torch.profiler
trace and the operators facts."""

import json
import os
import subprocess
import sys
import time

import pytest

pytest.importorskip("torch")

HERE = os.path.dirname(os.path.abspath(__file__))
PACKAGE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "python")
BOOT = os.path.join(PACKAGE, "mlstudio", "_boot")

TRAIN = '''
import os, sys
print("torch at start:", "torch" in sys.modules, flush=True)
import torch, torch.nn as nn, torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 16)
        self.fc2 = nn.Linear(16, 3)
    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))

torch.manual_seed(0)
model, loss_fn = Net(), nn.CrossEntropyLoss()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
MODE = os.environ.get("HOOK_MODE", "auto")
if MODE == "profiler-step-started":
    import mlstudio.profiler
    mlstudio.profiler.start()
if MODE == "explicit":
    from mlstudio.debugger.pytorch import Hook
    hook = Hook.create_from_json_file()
    hook.register_module(model)
    hook.register_loss(loss_fn)
data = DataLoader(TensorDataset(torch.randn(48, 4), torch.randint(0, 3, (48,))), batch_size=8)
for x, y in data:
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    if MODE.startswith("profiler-step"):
        import mlstudio.profiler
        mlstudio.profiler.step()
print("steps done", flush=True)
'''


def collection(name, regex, interval, reductions=()):
    return {"name": name, "include_regex": [regex], "save_interval": interval, "save_steps": [],
            "start_step": 0, "end_step": -1, "reductions": list(reductions),
            "default_reductions": False, "save_raw_tensor": False, "every_eval": True}


def config(tmp_path, auto_attach=True, framework=False, enabled=True):
    return {
        "enabled": enabled, "all_workers": False, "local_path": str(tmp_path / "debug-output"),
        "collections": [collection("losses", "^loss$", 1),
                        collection("gradients", "^gradient/", 2, ["abs_mean", "nonfinite"]),
                        collection("relu_output", ".*relu_output", 2,
                                   ["inactive_units_percent"])],
        "relu_inactivity_percent": 1.0, "saturation_inactivity_percent": 1.0,
        "tanh_range": [-9.4999, 9.4999], "sigmoid_range": [-23, 16.99999],
        "input_channel_axis": 1,
        "profiler": {"enabled": True, "framework": framework, "start_step": 1, "num_steps": 2,
                     "start_unix_time": -1, "duration_seconds": -1},
        "auto_attach": auto_attach}


def run_rank(tmp_path, hook_config, mode="auto", script=TRAIN):
    """Runs the script as a rank; returns its stdout and the events it wrote, parsed."""
    (tmp_path / "train.py").write_text(script)
    env = dict(os.environ, RANK="0", HOOK_MODE=mode,
               PYTHONPATH=os.pathsep.join([BOOT, PACKAGE]))
    env.pop("STUDIO_DEBUG_HOOK_CONFIG", None)
    if hook_config is not None:
        path = tmp_path / "debughookconfig.json"
        path.write_text(json.dumps(hook_config))
        env["STUDIO_DEBUG_HOOK_CONFIG"] = str(path)
    read, write = os.pipe()
    env["STUDIO_EVENTS_FD"] = str(write)
    process = subprocess.Popen([sys.executable, "train.py"], cwd=str(tmp_path), env=env,
                               pass_fds=(write,), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    os.close(write)
    try:
        chunks = []
        while True:
            chunk = os.read(read, 1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
        out, err = process.communicate(timeout=120)
    finally:
        os.close(read)
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err.decode()
    assert b"mlstudio:" not in err, err.decode()  # no start-up step failed
    events = [json.loads(line) for line in b"".join(chunks).decode().splitlines()]
    return out.decode(), events


def tensors(events, collection=None):
    return [(e["collection"], e["name"], e["step"]) for e in events if e["kind"] == "tensor"
            and (collection is None or e["collection"] == collection)]


def test_zero_change_attaches_to_the_model_the_first_optimizer_step_trains(tmp_path):
    out, events = run_rank(tmp_path, config(tmp_path))
    assert "torch at start: False" in out  # start-up never imports torch itself
    assert tensors(events, "losses") == [("losses", "loss", s) for s in range(6)]
    grads = tensors(events, "gradients")
    assert sorted({s for _, _, s in grads}) == [0, 2, 4]
    assert sorted({n for _, n, _ in grads}) == ["gradient/fc1.bias", "gradient/fc1.weight",
                                                "gradient/fc2.bias", "gradient/fc2.weight"]
    # Activations from the step after the attach on (step 0 ran before the model was known).
    assert tensors(events, "relu_output") == [("relu_output", "fc1_relu_output", 2),
                                              ("relu_output", "fc1_relu_output", 4)]
    assert len(tensors(events)) == len(set(tensors(events)))


def test_an_explicit_hook_saves_each_tensor_once_from_the_first_step(tmp_path):
    _, events = run_rank(tmp_path, config(tmp_path), mode="explicit")
    assert tensors(events, "losses") == [("losses", "loss", s) for s in range(6)]
    assert tensors(events, "relu_output") == [("relu_output", "fc1_relu_output", s)
                                              for s in (0, 2, 4)]
    assert len(tensors(events)) == len(set(tensors(events)))
    loss = [e for e in events if e["kind"] == "tensor" and e["name"] == "loss"][0]
    assert set(loss["reductions"]) == {"value"}


def test_auto_attach_false_leaves_a_plain_script_alone(tmp_path):
    _, events = run_rank(tmp_path, config(tmp_path, auto_attach=False))
    assert tensors(events) == []
    # The profiler is on all the same: every step's timings.
    assert [e["step"] for e in events if e["kind"] == "step"] == [1, 2, 3, 4, 5, 6]


def test_step_events_and_the_profiled_window(tmp_path):
    _, events = run_rank(tmp_path, config(tmp_path, framework=True))
    steps = [e for e in events if e["kind"] == "step"]
    assert [e["step"] for e in steps] == [1, 2, 3, 4, 5, 6]
    for e in steps:
        assert e["forward"] > 0 and e["backward"] > 0 and e["data"] > 0, e
    assert all(e["optimizer"] > 0 for e in steps[1:])
    profiles = [e for e in events if e["kind"] == "profile"]
    assert sorted({e["step"] for e in profiles}) == [1, 2]
    kinds = {(e["category"], e["name"]) for e in profiles}
    assert {("dataloader", "dataloader"), ("forward", "fc1"), ("forward", "fc2"),
            ("backward", "fc1"), ("backward", "fc2"), ("optimizer", "SGD"),
            ("step", "step")} <= kinds
    window = [e for e in profiles if e["category"] == "step"]
    assert all(0 < e["dur"] < 10000 and e["start"] > time.time() - 600 for e in window)
    operators = [e for e in events if e["kind"] == "facts" and e["topic"] == "operators"]
    assert len(operators) == 1
    body = operators[0]["body"]
    assert body["start_step"] == 1 and body["num_steps"] == 2
    assert body["trace"] == "framework/pytorch_profiler/rank0-steps1-2.json"
    trace = json.loads((tmp_path / "debug-output" / body["trace"]).read_text())
    trace = trace["traceEvents"] if isinstance(trace, dict) else trace  # PyTorch 2 / 1.13
    assert any("addmm" in e.get("name", "") for e in trace)
    assert 0 < len(body["ops"]) <= 30
    assert set(body["ops"][0]) == {"name", "calls", "cpu_total_ms", "self_cpu_ms",
                                   "cuda_total_ms", "self_cuda_ms", "cpu_memory_bytes"}
    selfs = [op["self_cpu_ms"] for op in body["ops"]]
    assert selfs == sorted(selfs, reverse=True)
    assert [e["value"] for e in events if e["kind"] == "metric"
            and e["name"] == "profiler:batch_size"] == [8]


def test_explicit_profiler_steps_without_a_hook_config(tmp_path):
    _, events = run_rank(tmp_path, None, mode="profiler-step-started")
    assert [e["step"] for e in events if e["kind"] == "step"] == [1, 2, 3, 4, 5, 6]
    assert tensors(events) == []
    # Not started before the loop: the first step() starts the clock.
    _, events = run_rank(tmp_path, None, mode="profiler-step")
    assert [e["step"] for e in events if e["kind"] == "step"] == [2, 3, 4, 5, 6]


def test_install_costs_nothing_without_a_config():
    code = ("import sys, time; t = time.perf_counter(); "
            "import mlstudio.debugger._autohook as a; r = a.install(); "
            "print(r, 'torch' in sys.modules, (time.perf_counter() - t) * 1000)")
    env = dict(os.environ, PYTHONPATH=PACKAGE)
    env.pop("STUDIO_DEBUG_HOOK_CONFIG", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                         check=True, universal_newlines=True, timeout=60).stdout.split()
    assert out[:2] == ["None", "False"]
    assert float(out[2]) < 200  # about 3 ms; generous for a loaded machine


def test_a_script_ending_inside_the_window_still_gets_its_trace(tmp_path):
    hook_config = config(tmp_path, framework=True)
    hook_config["profiler"].update(start_step=4, num_steps=10)  # 6 steps: the window is open
    _, events = run_rank(tmp_path, hook_config)
    [operators] = [e for e in events if e["kind"] == "facts" and e["topic"] == "operators"]
    assert operators["body"]["start_step"] == 4 and operators["body"]["num_steps"] == 2
    assert (tmp_path / "debug-output" / operators["body"]["trace"]).is_file()
    assert sorted({e["step"] for e in events if e["kind"] == "profile"}) == [4, 5]

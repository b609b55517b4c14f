"""mlstudio.debugger.pytorch's hook on real CPU PyTorch, no job: reductions against NumPy's,
the plan's save steps, tensor names and collections as the built-in trainer names them (and so
as the rules' default regexes find them), eval mode, ranks, raw .npy files in the trials'
layout, no device read-back on steps that save nothing, and an explicit hook replacing the
automatic one. The zero-change attach and the profiler run in test_debugger_autohook.py."""

import json
import math
import os

import numpy
import pytest

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional

from mlstudio.debugger.pytorch import (  # noqa: E402
    Collection,
    Hook,
    ReductionConfig,
    SaveConfig,
    SaveConfigMode,
    SMDebugError,
    get_hook,
    modes,
)
from mlstudio.debugger.pytorch import _reduce, hook as hook_module  # noqa: E402
from mlstudio.debugger.pytorch._plan import HookPlan  # noqa: E402


class FakeWriter:
    """Records what the hook would send on the events pipe."""

    def __init__(self):
        self.tensors = []
        self.metrics = []

    def tensor(self, collection, name, step, reductions, phase="train", t=None):
        self.tensors.append((collection, name, step, dict(reductions), phase))

    def metric(self, name, value, step, phase="train", t=None):
        self.metrics.append((name, value, step, phase))

    def flush(self, timeout=None):
        return True

    def of(self, collection=None, name=None):
        return [t for t in self.tensors if (collection is None or t[0] == collection)
                and (name is None or t[1] == name)]


def collection(name, regex, interval=1, reductions=(), defaults=False, raw=False, **extra):
    c = {"name": name, "include_regex": [regex], "save_interval": interval, "save_steps": [],
         "start_step": 0, "end_step": -1, "reductions": list(reductions),
         "default_reductions": defaults, "save_raw_tensor": raw, "every_eval": True}
    c.update(extra)
    return c


def make_hook(collections, **plan):
    document = {"enabled": True, "collections": collections}
    document.update(plan)
    hook = Hook._from_plan(HookPlan.from_dict(document))
    hook._writer = FakeWriter()
    return hook


@pytest.fixture(autouse=True)
def _close_hooks():
    yield
    current = get_hook()
    if current is not None:
        current.close()
    hook_module.del_hook()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 8)
        self.act = nn.Tanh()
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(self.act(F.relu(self.fc1(x))))


def train(hook, model, steps, seed=0, lr=0.1):
    torch.manual_seed(seed)
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.CrossEntropyLoss()
    losses = []
    for _ in range(steps):
        x, y = torch.randn(10, 6), torch.randint(0, 3, (10,))
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses, loss_fn


# ---- reductions ----

def sample():
    g = torch.Generator().manual_seed(3)
    x = torch.randn(4, 5, 3, 2, generator=g)
    x[0, 0] = 0.0
    return x


@pytest.mark.parametrize("name,expected", [
    ("min", lambda a: a.min()),
    ("max", lambda a: a.max()),
    ("mean", lambda a: a.mean()),
    ("std", lambda a: a.std()),
    ("variance", lambda a: a.var()),
    ("sum", lambda a: a.sum()),
    ("prod", lambda a: a.prod()),
    ("l1_norm", lambda a: numpy.abs(a).sum()),
    ("l2_norm", lambda a: numpy.sqrt((a.astype(numpy.float64) ** 2).sum())),
    ("abs_mean", lambda a: numpy.abs(a).mean()),
    ("abs_max", lambda a: numpy.abs(a).max()),
    ("zero_percent", lambda a: (a == 0).sum() * 100.0 / a.size),
    ("p5", lambda a: numpy.percentile(a, 5, method="lower")),
    ("p95", lambda a: numpy.percentile(a, 95, method="lower")),
])
def test_reductions_equal_numpys(name, expected):
    x = sample()
    out = dict(_reduce.reduce_tensor(x, [name]))
    assert float(out[name]) == pytest.approx(float(expected(x.numpy())), rel=1e-5, abs=1e-6)


def test_non_finite_counts_and_integer_tensors():
    x = torch.tensor([1.0, float("nan"), float("inf"), -float("inf"), 0.0])
    out = {k: float(v) for k, v in _reduce.reduce_tensor(x, ["nonfinite", "nan", "max"])}
    assert out["nonfinite"] == 3 and out["nan"] == 1
    assert math.isnan(out["max"])  # a NaN max is itself a finding for ExplodingTensor
    ints = {k: float(v) for k, v in _reduce.reduce_tensor(torch.arange(5), ["mean", "sum"])}
    assert ints == {"mean": 2.0, "sum": 10.0}
    assert _reduce.reduce_tensor(torch.zeros(0), ["mean"]) == []


def test_inactive_units_and_channel_means_equal_numpys():
    x = sample()
    a = x.numpy()
    # Units are channels of [B, C, H, W]: each one's share of positive values over the rest.
    active = (a > 0).transpose(1, 0, 2, 3).reshape(5, -1).mean(axis=1) * 100
    threshold = 45.0
    options = _reduce.ReductionOptions(inactivity_percent=threshold)
    out = {k: float(v) for k, v in _reduce.reduce_tensor(
        x, ["inactive_units_percent", "channel_mean_"], options)}
    assert out["inactive_units_percent"] == pytest.approx((active < threshold).mean() * 100)
    for c in range(5):
        assert out["channel_mean_{}".format(c)] == pytest.approx(a[:, c].mean(), rel=1e-6)
    assert out["samples"] == 4
    # tanh/sigmoid: a unit is active inside the range; [B, T, D] judges the last axis.
    y = torch.tensor([[[0.0, 20.0], [1.0, -30.0]]])
    ranged = _reduce.ReductionOptions(inactivity_percent=50.0, active_range=(-9.5, 9.5))
    assert float(dict(_reduce.reduce_tensor(y, ["inactive_units_percent"], ranged))[
        "inactive_units_percent"]) == 50.0


def test_label_counts():
    target = torch.tensor([0, 1, 1, 2, 2, 2])
    predicted = torch.tensor([0, 1, 0, 2, 1, 2])
    assert dict(_reduce.label_counts(target, predicted)) == {
        "class_0": 1, "class_1": 2, "class_2": 3, "mispredicted_1": 1, "mispredicted_2": 1,
        "samples": 6}
    assert dict(_reduce.prediction_counts(predicted)) == {
        "class_0": 2, "class_1": 2, "class_2": 2, "samples": 6}


def test_step_reductions_are_read_back_together():
    pending = _reduce.StepReductions()
    pending.add("a", _reduce.reduce_tensor(torch.ones(3), ["sum", "mean"]))
    pending.add("b", [("class_1", 4.0)])
    assert pending.values() == [("a", {"sum": 3.0, "mean": 1.0}), ("b", {"class_1": 4.0})]


# ---- configuration ----

@pytest.mark.parametrize("config,saved", [
    (SaveConfigMode(save_interval=3), [0, 3, 6, 9]),
    (SaveConfigMode(save_interval=3, start_step=2), [2, 5, 8]),  # relative to start_step
    (SaveConfigMode(save_interval=2, end_step=5), [0, 2, 4]),
    (SaveConfigMode(save_steps="1,7"), [1, 7]),
    (SaveConfig({modes.TRAIN: SaveConfigMode(save_interval=5)}), [0, 5]),
    (SaveConfigMode(save_interval=0), []),
])
def test_save_steps_as_the_built_in_plan_counts_them(config, saved):
    assert [s for s in range(10) if config.should_save_step(s)] == saved


def test_reduction_config_names_and_refusals():
    config = ReductionConfig(reductions=["min", "nonfinite"], abs_reductions=["mean"],
                             norms=["l2"], abs_norms=["l1"])
    assert config.reductions == ["min", "nonfinite", "abs_mean", "l2_norm", "abs_l1_norm"]
    assert ReductionConfig.from_names("max,abs_l2_norm").reductions == ["max", "abs_l2_norm"]
    with pytest.raises(SMDebugError, match="ReductionConfig.reductions: 'median'"):
        ReductionConfig(reductions=["median"])
    with pytest.raises(SMDebugError, match="norms: 'l3'"):
        ReductionConfig(norms=["l3"])


def test_plan_errors_name_the_field(tmp_path):
    bad = tmp_path / "hook.json"
    bad.write_text(json.dumps({"collections": [collection("c", "(")]}))
    hook = Hook.create_from_json_file(str(bad))
    with pytest.raises(SMDebugError, match="collection c: include_regex"):
        hook.plan.collections_of("x")
    bad.write_text(json.dumps({"tanh_range": [1]}))
    with pytest.raises(SMDebugError, match="tanh_range: expected"):
        Hook.create_from_json_file(str(bad))
    bad.write_text("{")
    with pytest.raises(SMDebugError, match="not JSON"):
        Hook.create_from_json_file(str(bad))


def test_create_from_json_file_without_a_config_says_what_is_missing(monkeypatch):
    monkeypatch.delenv("STUDIO_DEBUG_HOOK_CONFIG", raising=False)
    monkeypatch.delenv("SMDEBUG_CONFIG_FILE_PATH", raising=False)
    with pytest.raises(SMDebugError, match="STUDIO_DEBUG_HOOK_CONFIG is not set"):
        Hook.create_from_json_file()
    hook = get_hook(create_if_not_exists=True)  # smdebug's way: a hook, here one that saves
    assert hook is get_hook() and not hook.plan.enabled


# ---- what a script's steps save ----

def test_names_collections_and_save_steps():
    hook = make_hook([
        collection("losses", "^loss$"),
        collection("weights", "^(?!gradient).*weight$", 2, defaults=True),
        collection("gradients", "^gradient/", 2, ["abs_mean"]),
        collection("relu_output", ".*relu_output", 2, ["inactive_units_percent"]),
        collection("saturated_activation", ".*tanh_input|.*sigmoid_input", 2,
                   ["inactive_units_percent"]),
        collection("inputs", "_input_0$", 2, ["mean"]),
    ])
    model = Net()
    hook.register_module(model)
    losses, _ = train(hook, model, 5)
    w = hook._writer
    assert [(t[2], t[3]["value"]) for t in w.of("losses")] == [
        (i, pytest.approx(v)) for i, v in enumerate(losses)]  # backward()'s loss, every step
    assert sorted({t[1] for t in w.of("weights")}) == ["fc1.weight", "fc2.weight"]
    assert sorted({t[2] for t in w.of("weights")}) == [0, 2, 4]
    assert set(w.of("weights")[0][3]) == {"min", "max", "mean", "std", "l2_norm"}
    assert sorted({t[1] for t in w.of("gradients")}) == [
        "gradient/fc1.bias", "gradient/fc1.weight", "gradient/fc2.bias", "gradient/fc2.weight"]
    assert set(w.of("gradients")[0][3]) == {"abs_mean"}
    # The rules' default regexes (DeadRelu '.*relu_output', SaturatedActivation
    # '.*tanh_input|.*sigmoid_input') find the script's activations.
    assert {t[1] for t in w.of("relu_output")} == {"fc1_relu_output"}
    assert {t[1] for t in w.of("saturated_activation")} == {"act_tanh_input"}
    assert {t[1] for t in w.of("inputs")} == {"Net_input_0", "fc1_input_0", "act_input_0",
                                               "fc2_input_0"}
    assert hook._step == 5


def test_gradients_are_the_optimizers_and_weights_the_updated_ones():
    hook = make_hook([collection("gradients", "^gradient/", 1, ["l2_norm", "mean"]),
                      collection("weights", "^(?!gradient).*weight$", 1,
                                 ["l2_norm", "update_l2_norm"])])
    model = Net()
    hook.register_module(model)
    before = model.fc1.weight.detach().clone()
    train(hook, model, 1)
    w = hook._writer
    grad = w.of("gradients", "gradient/fc1.weight")[0][3]
    assert grad["l2_norm"] == pytest.approx(model.fc1.weight.grad.norm().item(), rel=1e-6)
    weight = w.of("weights", "fc1.weight")[0][3]
    assert weight["l2_norm"] == pytest.approx(model.fc1.weight.norm().item(), rel=1e-6)
    assert weight["update_l2_norm"] == pytest.approx(
        (model.fc1.weight.detach() - before).norm().item(), rel=1e-5)


def test_activations_of_modules_and_functions_are_named_after_their_producer():
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 4, 3, padding=1)
            self.bn = nn.BatchNorm2d(4)
            self.relu = nn.ReLU(inplace=True)
            self.head = nn.Sequential(nn.Flatten(), nn.Linear(4 * 4 * 4, 8), nn.ReLU(),
                                      nn.Linear(8, 2))

        def forward(self, x):
            x = self.relu(self.bn(self.conv(x)))
            x = torch.sigmoid(x * 2)  # not a module's output: named after the running module
            return self.head(x)

    hook = make_hook([collection("acts", "relu_(in|out)put$|sigmoid_input$", 1,
                                 ["mean", "zero_percent"])])
    model = Block()
    hook.register_module(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(3, 2, 4, 4)
    out = model(x)
    out.sum().backward()
    opt.step()
    saved = {t[1]: t[3] for t in hook._writer.of("acts")}
    assert set(saved) == {"bn_relu_input", "bn_relu_output", "Block_sigmoid_input",
                          "head.1_relu_input", "head.1_relu_output"}
    # The in-place ReLU's input was copied before the ReLU overwrote it.
    assert saved["bn_relu_input"]["zero_percent"] == 0
    assert saved["bn_relu_output"]["zero_percent"] > 0


def test_eval_losses_are_averaged_once_per_evaluation_at_the_last_train_step():
    hook = make_hook([collection("losses", "^loss$", 2)])
    model = Net()
    hook.register_module(model)
    _, loss_fn = train(hook, model, 3)
    hook.register_loss(loss_fn)
    hook.set_mode(modes.EVAL)
    evals = []
    with torch.no_grad():
        for _ in range(3):
            evals.append(loss_fn(model(torch.randn(4, 6)), torch.randint(0, 3, (4,))).item())
    hook.set_mode(modes.TRAIN)
    saved = [t for t in hook._writer.of("losses") if t[4] == "eval"]
    assert saved == [("losses", "loss", 2, {"value": pytest.approx(numpy.mean(evals))}, "eval")]
    assert [t[2] for t in hook._writer.of("losses") if t[4] == "train"] == [0, 2]
    # Without set_mode, a pass without gradients (or a model in eval()) is an evaluation: it
    # neither starts a step nor saves activations, and its losses are the next eval value.
    hook._mode = None
    with torch.no_grad():
        loss_fn(model(torch.randn(4, 6)), torch.randint(0, 3, (4,)))
    model.eval()
    loss_fn(model(torch.randn(4, 6)), torch.randint(0, 3, (4,)))
    model.train()
    train(hook, model, 1)
    assert [t[2] for t in hook._writer.of("losses") if t[4] == "eval"] == [2, 2]
    assert hook._step == 4


def test_labels_and_predictions_from_a_registered_classification_loss():
    hook = make_hook([collection("labels", "^labels$"), collection("predictions",
                                                                     "^predictions$")])
    model = Net()
    loss_fn = nn.CrossEntropyLoss()
    hook.register_module(model)
    hook.register_loss(loss_fn)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x, y = torch.randn(10, 6), torch.tensor([0, 1, 2, 0, 1, 2, 0, 1, 2, 2])
    out = model(x)
    loss_fn(out, y).backward()
    opt.step()
    labels = hook._writer.of("labels")[0][3]
    assert labels["class_2"] == 4 and labels["samples"] == 10
    missed = sum(v for k, v in labels.items() if k.startswith("mispredicted_"))
    assert missed == (out.argmax(-1) != y).sum().item()
    assert hook._writer.of("predictions")[0][3]["samples"] == 10


def test_steps_that_save_nothing_read_nothing_back(monkeypatch):
    hook = make_hook([collection("losses", "^loss$", 4),
                      collection("gradients", "^gradient/", 4, ["abs_mean"])])
    model = Net()
    hook.register_module(model)
    reads = []
    item = torch.Tensor.item
    tolist = torch.Tensor.tolist
    monkeypatch.setattr(torch.Tensor, "item", lambda t: reads.append(hook._step) or item(t))
    monkeypatch.setattr(torch.Tensor, "tolist",
                        lambda t: reads.append(hook._step) or tolist(t))
    torch.manual_seed(0)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(8):
        opt.zero_grad()
        F.cross_entropy(model(torch.randn(4, 6)), torch.randint(0, 3, (4,))).backward()
        opt.step()
    assert set(reads) == {0, 4}  # the saved steps' loss and reductions, nothing else


def test_other_ranks_save_only_with_all_workers(monkeypatch):
    monkeypatch.setenv("RANK", "1")
    quiet = make_hook([collection("losses", "^loss$"), collection("weights", "weight$")])
    model = Net()
    quiet.register_module(model)
    train(quiet, model, 2)
    assert quiet._writer.tensors == [] and quiet._step == 2
    quiet.close()
    every = make_hook([collection("losses", "^loss$"), collection("weights", "weight$", 1,
                                                                   ["mean"])],
                      all_workers=True)
    every.register_module(model)
    train(every, model, 1)
    # Every worker's tensors; the loss is the first rank's only, as in the built-in trainer.
    assert {t[0] for t in every._writer.tensors} == {"weights"}


def test_raw_tensors_in_the_trials_layout(tmp_path):
    hook = make_hook([collection("gradients", "^gradient/", 2, ["mean"], raw=True)],
                     local_path=str(tmp_path))
    model = Net()
    hook.register_module(model)
    train(hook, model, 3)
    folder = tmp_path / "tensors" / "step-000000000002" / "rank-0"
    assert sorted(os.listdir(folder)) == ["gradient_fc1.bias.npy", "gradient_fc1.weight.npy",
                                          "gradient_fc2.bias.npy", "gradient_fc2.weight.npy"]
    value = numpy.load(folder / "gradient_fc1.weight.npy")
    assert value.dtype == numpy.float32 and value.shape == (8, 6)
    numpy.testing.assert_allclose(value, model.fc1.weight.grad.numpy(), rtol=1e-6)
    index = [json.loads(line) for line in (tmp_path / "index-rank-0.jsonl").read_text().split(
        "\n") if line]
    assert len(index) == 8  # steps 0 and 2
    assert index[-1]["file"].startswith("tensors/step-000000000002/rank-0/gradient_")
    assert {i["collection"] for i in index} == {"gradients"} and index[0]["dtype"] == "float32"


def test_record_tensor_value_save_scalar_and_explicit_collections():
    hook = make_hook([collection("losses", "^loss$"), collection("custom", "^probe", 1,
                                                                   ["max"])])
    hook.register_module(Net())
    value = torch.tensor(2.5)
    hook.record_tensor_value("my_loss", value)  # a functional loss: the step's loss
    hook.save_tensor("probe_in", torch.arange(4.0))
    hook.save_scalar("accuracy", 0.75, sm_metric=True)
    w = hook._writer
    assert w.of("custom", "probe_in")[0][3] == {"max": 3.0}
    assert w.of("scalars")[0][1:4] == ("scalar/accuracy", 0, {"value": 0.75})
    assert w.metrics == [("scalar/accuracy_TRAIN", 0.75, 0, "train")]
    assert hook._explicit_loss and float(hook._losses[0]) == 2.5
    with pytest.raises(SMDebugError, match="one element"):
        hook.save_scalar("bad", torch.ones(2))
    with pytest.raises(SMDebugError, match="torch.nn.Module"):
        hook.register_module(object())


def test_the_smdebug_constructor():
    hook = Hook(include_collections=["weights", Collection("custom").name],
                save_config=SaveConfig(save_interval=2),
                reduction_config=ReductionConfig(reductions=["mean"]))
    hook._writer = FakeWriter()
    hook.get_collection("custom").include("^fc2\\.bias$")
    model = Net()
    hook.register_module(model)
    train(hook, model, 3)
    names = {(t[0], t[1], t[2]) for t in hook._writer.tensors}
    assert ("custom", "fc2.bias", 2) in names and ("weights", "fc1.weight", 0) in names
    assert ("losses", "loss", 1) not in names  # every 2 steps, losses included
    assert set(hook.get_collections()) == {"weights", "custom", "losses"}


def test_an_explicit_hook_replaces_the_automatic_one():
    from mlstudio.debugger._autohook import AutoAttacher

    auto = make_hook([collection("losses", "^loss$")])
    auto._auto = AutoAttacher(auto)
    auto._auto.start()
    model = Net()
    train(auto, model, 2)  # attached at the first optimizer step
    assert auto._roots == [model] and auto._step == 2
    explicit = make_hook([collection("losses", "^loss$")])
    explicit.register_module(model)
    train(explicit, model, 2)
    assert [t[2] for t in auto._writer.tensors] == [0, 1]
    assert [t[2] for t in explicit._writer.tensors] == [2, 3]  # its steps go on, once each
    assert get_hook() is explicit


def test_a_model_in_distributed_data_parallel_keeps_its_own_names(tmp_path):
    import torch.distributed as dist

    dist.init_process_group("gloo", init_method="file://" + str(tmp_path / "store"), rank=0,
                            world_size=1)
    try:
        model = Net()
        hook = make_hook([collection("gradients", "^gradient/", 1, ["mean"])])
        ddp = nn.parallel.DistributedDataParallel(model)
        hook.register_module(ddp)
        train(hook, ddp, 1)
        assert "gradient/fc1.weight" in {t[1] for t in hook._writer.tensors}
    finally:
        dist.destroy_process_group()


def test_smdebugs_module_name_gives_the_same_hook():
    import mlstudio.smdebug.pytorch as smd
    from mlstudio.debugger import trials

    assert smd.Hook is Hook and smd.get_hook is get_hook and smd.modes.EVAL is modes.EVAL
    assert smd.create_trial is trials.create_trial


def test_input_images_get_channel_means_for_check_input_images():
    class Conv(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 2, 3)

        def forward(self, x):
            return self.conv(x).mean((2, 3))

    # CheckInputImages' collection: its regex, the channel_mean_ reductions, axis 1.
    hook = make_hook([collection("input_image", ".*Conv_input_0", 1, ["channel_mean_"])],
                     input_channel_axis=1)
    model = Conv()
    hook.register_module(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.rand(5, 3, 4, 4) + torch.tensor([0.0, 1.0, 2.0]).view(1, 3, 1, 1)
    model(x).sum().backward()
    opt.step()
    [(_, name, step, reductions, _)] = hook._writer.of("input_image")
    assert name == "Conv_input_0" and step == 0
    assert set(reductions) == {"channel_mean_0", "channel_mean_1", "channel_mean_2", "samples"}
    for c in range(3):
        assert reductions["channel_mean_{}".format(c)] == pytest.approx(x[:, c].mean().item())
    assert reductions["samples"] == 5

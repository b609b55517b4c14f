"""The reductions a script's hook sends for a tensor, computed as the built-in trainer computes
them (engine/train/tensor_reductions.cpp): smdebug's min, max, mean, std, variance, sum, prod,
l1_norm, l2_norm and their abs_ forms, and the statistics the rules read (nonfinite, nan,
zero_percent, p5, p95, inactive_units_percent, channel_mean_<c> with samples, class counts).

Reductions stay tensors until a step's are all known: ``StepReductions.values()`` reads them
back with one copy, so a GPU rank synchronizes once per saved step, not once per number. Each
runs in the tensor's own precision (as LibTorch does), integers as float32.
"""

import math

_BASIC = ("min", "max", "mean", "std", "variance", "sum", "prod", "l1_norm", "l2_norm")


class ReductionOptions:
    """How activations are judged (ReductionOptions of tensor_reductions.h)."""

    def __init__(self, inactivity_percent=1.0, active_range=None, channel_axis=1):
        self.inactivity_percent = float(inactivity_percent)
        self.active_range = active_range  # (low, high) for tanh/sigmoid inputs, else None
        self.channel_axis = int(channel_axis)


def _basic(x, name):
    if name == "min":
        return x.min()
    if name == "max":
        return x.max()
    if name == "mean":
        return x.mean()
    if name == "std":
        return x.std(unbiased=False) if x.numel() > 1 else x.new_zeros(())
    if name == "variance":
        return x.var(unbiased=False) if x.numel() > 1 else x.new_zeros(())
    if name == "sum":
        return x.sum()
    if name == "prod":
        return x.prod()
    if name == "l1_norm":
        return x.abs().sum()
    return x.norm()  # l2_norm


def _unit_axis(x):
    """The axis whose entries are units: features of [B, F], channels of [B, C, H, W], the
    model dimension of [B, T, D]."""
    if x.dim() == 3:
        return 2
    return 1 if x.dim() >= 2 else 0


_PERCENTILES = {"p5": 5.0, "p95": 95.0}


def _percentiles(x, names):
    """{name: value} of the percentiles asked, each the k-th smallest value with
    k = floor(q/100 (n-1)) + 1 (what the built-in's kthvalue takes). On the CPU one
    numpy.partition pass finds them all, about twice as fast as a kthvalue each."""
    flat = x.reshape(-1)
    n = flat.numel()
    ks = {name: min(max(int(math.floor(_PERCENTILES[name] / 100.0 * (n - 1))), 0), n - 1)
          for name in names}
    if flat.device.type == "cpu":
        import numpy

        values = numpy.partition(flat.contiguous().numpy(), sorted(set(ks.values())))
        return {name: float(values[k]) for name, k in ks.items()}
    return {name: flat.kthvalue(k + 1).values for name, k in ks.items()}


def _finite_on_cpu(x):
    """True when a CPU tensor has no NaN or infinity (its sum is finite then, and only then
    unless the finite values overflow): saves counting them one by one."""
    return x.device.type == "cpu" and math.isfinite(float(x.sum()))


def _inactive_units(x, options):
    import torch

    axis = _unit_axis(x)
    if options.active_range is not None:
        low, high = options.active_range
        active = x.ge(low).logical_and(x.le(high))
    else:
        active = x.gt(0)
    per_unit = active.to(torch.float32).movedim(axis, 0).flatten(1).mean(1) * 100
    inactive = per_unit.lt(options.inactivity_percent).sum()
    return inactive.to(torch.float64) * (100.0 / per_unit.numel())


def reduce_tensor(tensor, names, options=None):
    """[(name, 0-dim tensor)] in the order asked; names that are not reductions (or do not
    apply, as inactive_units_percent of a vector) are left out. "channel_mean_" expands to
    channel_mean_0..C-1 and "samples"."""
    import torch

    options = options or ReductionOptions()
    out = []
    if tensor is None or tensor.numel() == 0:
        return out
    with torch.no_grad():
        x = tensor.detach()
        if not x.is_floating_point():
            x = x.to(torch.float32)
        absolute = percentiles = finite = None
        for name in names:
            if name in _BASIC:
                out.append((name, _basic(x, name)))
            elif name.startswith("abs_") and name[4:] in _BASIC:
                if absolute is None:
                    absolute = x.abs()
                out.append((name, _basic(absolute, name[4:])))
            elif name in ("nonfinite", "nan"):
                if finite is None:
                    finite = _finite_on_cpu(x)
                if finite:
                    out.append((name, 0.0))
                elif name == "nan":
                    out.append((name, torch.isnan(x).sum()))
                else:
                    out.append((name, x.numel() - torch.isfinite(x).sum()))
            elif name == "zero_percent":
                out.append((name, x.eq(0).sum().to(torch.float64) * (100.0 / x.numel())))
            elif name in _PERCENTILES:
                if percentiles is None:
                    percentiles = _percentiles(x, [n for n in names if n in _PERCENTILES])
                out.append((name, percentiles[name]))
            elif name == "inactive_units_percent":
                if x.dim() >= 2:
                    out.append((name, _inactive_units(x, options)))
            elif name == "channel_mean_":
                out.extend(_channel_means(x, options.channel_axis))
    return out


def _channel_means(x, axis):
    import torch

    if axis < 0 or axis >= x.dim():
        return []
    means = x.to(torch.float64).movedim(axis, 0).flatten(1).mean(1)
    out = [("channel_mean_{}".format(c), means[c]) for c in range(means.numel())]
    out.append(("samples", torch.tensor(float(x.size(0)), dtype=torch.float64)))
    return out


def _counts(classes, prefix):
    import torch

    if classes is None or classes.numel() == 0:
        return []
    bins = torch.bincount(classes.flatten().to(torch.long).cpu()).tolist()
    return [("{}{}".format(prefix, k), float(n)) for k, n in enumerate(bins) if n > 0]


def label_counts(target, predicted):
    """class_<k> of the targets, mispredicted_<k> of those the predictions missed, samples."""
    target = target.detach().flatten()
    predicted = predicted.detach().flatten()
    out = _counts(target, "class_")
    out += _counts(target[target.ne(predicted)], "mispredicted_")
    out.append(("samples", float(target.numel())))
    return out


def prediction_counts(predicted):
    """class_<k> of the predictions, samples."""
    predicted = predicted.detach().flatten()
    return _counts(predicted, "class_") + [("samples", float(predicted.numel()))]


class StepReductions:
    """The reductions of one saved step, read back together."""

    def __init__(self):
        self._items = []  # (key, [(name, tensor or float)])

    def add(self, key, reductions):
        if reductions:
            self._items.append((key, reductions))

    def __len__(self):
        return len(self._items)

    def values(self):
        """[(key, {name: float})] in the order added, with one device-to-host copy."""
        import torch

        tensors = []
        for _, reductions in self._items:
            for _, v in reductions:
                if torch.is_tensor(v):
                    tensors.append(v.detach().reshape(1).to(torch.float64))
        # One concatenation per device, then one copy each (a model may span devices).
        by_device = {}
        for index, t in enumerate(tensors):
            by_device.setdefault(t.device, []).append(index)
        flat = [0.0] * len(tensors)
        for indices in by_device.values():
            for index, v in zip(indices, torch.cat([tensors[j] for j in indices]).tolist()):
                flat[index] = v
        out, i = [], 0
        for key, reductions in self._items:
            values = {}
            for name, v in reductions:
                if torch.is_tensor(v):
                    values[name] = flat[i]
                    i += 1
                else:
                    values[name] = float(v)
            out.append((key, values))
        self._items = []
        return out

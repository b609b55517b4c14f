"""Activations of a saved step: copies of what a forward pass computes, under the names the
built-in trainer gives them (engine/train/activation_capture.h), so the rules' default regexes
find them in a script too:

- ``<producer>_relu_input`` / ``<producer>_relu_output`` (also ``tanh``, ``sigmoid``): a ReLU,
  tanh or sigmoid, as a module (``nn.ReLU``) or a function (``F.relu``, ``torch.tanh``,
  ``x.sigmoid()``), applied to the output of module ``<producer>`` (``fc1``,
  ``layer1.0.bn1``). Applied to anything else, the producer is the module running it, and a
  second such call in one pass is ``<module>_1_relu_output``.
- ``<module>_output_0`` / ``<module>_input_0`` (``_1``, ... for further tensors): every module's
  outputs and inputs, as smdebug names them; the root module by its class name (``Net``).

Module paths are those of ``named_modules()`` of the registered model. Only steps that save
activations pay: the module hooks and a ``TorchFunctionMode`` that sees the activation calls
are in place from the root module's forward start to its end, and removed after.
Not thread-safe: one forward pass at a time.
"""

_ACTIVATIONS = {
    "relu": "relu",
    "relu_": "relu",
    "tanh": "tanh",
    "tanh_": "tanh",
    "sigmoid": "sigmoid",
    "sigmoid_": "sigmoid",
}


def _tensors(value):
    """The tensors of a module's inputs or outputs, in order (tuples and lists flattened once)."""
    import torch

    if torch.is_tensor(value):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if torch.is_tensor(v)]
    return []


class ActivationCapture:
    """Collects the activations `wanted(name)` asks for while started."""

    def __init__(self, names, wanted):
        self._names = names  # {module: path}
        self._wanted = wanted
        self.tensors = []  # [(name, tensor copy)], the first of a name stands for the step
        self._seen = set()
        self._producer = {}  # id(tensor) -> (path, tensor), for this pass
        self._stack = []
        self._calls = {}  # base name -> calls in this pass
        self._handles = []
        self._mode = None

    def start(self, root, inputs):
        """In the root module's forward pre-hook (global pre-hooks for it have run)."""
        from torch.nn.modules import module as torch_module

        self.stop()
        self._producer.clear()
        self._calls.clear()
        self._stack = []
        self._handles = [
            torch_module.register_module_forward_pre_hook(self._pre),
            torch_module.register_module_forward_hook(self._post),
        ]
        self._mode = _activation_mode(self)
        self._mode.__enter__()
        self._pre(root, inputs)

    def stop(self):
        """After the root module's forward pass (or when a pass raised)."""
        if self._mode is not None:
            mode, self._mode = self._mode, None
            try:
                mode.__exit__(None, None, None)
            except (RuntimeError, AssertionError):
                pass  # already popped by PyTorch after an exception in the pass
        for handle in self._handles:
            handle.remove()
        self._handles = []
        self._producer.clear()

    def clear(self):
        self.stop()
        self.tensors = []
        self._seen.clear()

    def add(self, name, tensor):
        if name in self._seen or not self._wanted(name):
            return
        self._seen.add(name)
        self.tensors.append((name, tensor.detach().clone()))

    def _path(self, module):
        return self._names.get(module)

    def _pre(self, module, inputs):
        path = self._path(module)
        self._stack.append(path)
        if path is None:
            return
        for i, t in enumerate(_tensors(inputs)):
            self.add("{}_input_{}".format(path, i), t)

    def _post(self, module, inputs, output):
        if self._stack:
            self._stack.pop()
        path = self._path(module)
        if path is None:
            return
        for i, t in enumerate(_tensors(output)):
            self._producer[id(t)] = (path, t)
            self.add("{}_output_{}".format(path, i), t)

    def base_name(self, tensor):
        """The block an activation belongs to: the module that produced its input, else the
        innermost known module running (numbered from its second call in a pass)."""
        produced = self._producer.get(id(tensor))
        if produced is not None and produced[1] is tensor:
            return produced[0]
        running = next((p for p in reversed(self._stack) if p is not None), None)
        base = running if running is not None else "model"
        calls = self._calls.get(base, 0)
        self._calls[base] = calls + 1
        return base if calls == 0 else "{}_{}".format(base, calls)

    def activation(self, kind, func, args, kwargs):
        """Runs one activation call, copying its input and output when wanted."""
        x = args[0] if args else kwargs.get("input")
        if x is None:
            return func(*args, **kwargs)
        base = self.base_name(x)
        self.add("{}_{}_input".format(base, kind), x)
        out = func(*args, **kwargs)
        self.add("{}_{}_output".format(base, kind), out)
        return out


def _activation_mode(capture):
    from torch.overrides import TorchFunctionMode

    class _ActivationMode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            kind = _ACTIVATIONS.get(getattr(func, "__name__", None))
            if kind is None:
                return func(*args, **kwargs)
            return capture.activation(kind, func, args, kwargs)

    return _ActivationMode()

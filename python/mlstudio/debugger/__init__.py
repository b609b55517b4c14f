"""``mlstudio.debugger``: SageMaker Debugger's SDK names for the studio's rules and hook.

``from mlstudio.debugger import Rule, ProfilerRule, rule_configs, DebuggerHookConfig,
CollectionConfig, ProfilerConfig, FrameworkProfile`` works as ``sagemaker.debugger`` does.
``mlstudio.debugger.trials`` reads a job's saved tensors (smdebug's trial API).
"""

import importlib

# Names imported on first use: every rank of a job imports this package at start-up
# (mlstudio.debugger._autohook), which must stay cheap.
_NAMES = {
    "ActionList": "actions",
    "CollectionConfig": "configs",
    "DataloaderProfilingConfig": "configs",
    "DebuggerHookConfig": "configs",
    "DetailedProfilingConfig": "configs",
    "Email": "actions",
    "FrameworkProfile": "configs",
    "HorovodProfilingConfig": "configs",
    "Notify": "actions",
    "ProfilerConfig": "configs",
    "ProfilerRule": "rules",
    "PythonProfilingConfig": "configs",
    "Rule": "rules",
    "SMDataParallelProfilingConfig": "configs",
    "SMS": "actions",
    "StopTraining": "actions",
    "TensorBoardOutputConfig": "configs",
}


def __getattr__(name):
    if name == "rule_configs":
        value = importlib.import_module(".rule_configs", __name__)
    elif name in _NAMES:
        value = getattr(importlib.import_module("." + _NAMES[name], __name__), name)
    else:
        raise AttributeError("module {!r} has no attribute {!r}".format(__name__, name))
    globals()[name] = value
    return value


__all__ = [
    "ActionList",
    "CollectionConfig",
    "DataloaderProfilingConfig",
    "DebuggerHookConfig",
    "DetailedProfilingConfig",
    "Email",
    "FrameworkProfile",
    "HorovodProfilingConfig",
    "Notify",
    "ProfilerConfig",
    "ProfilerRule",
    "PythonProfilingConfig",
    "Rule",
    "SMDataParallelProfilingConfig",
    "SMS",
    "StopTraining",
    "TensorBoardOutputConfig",
    "rule_configs",
]

"""``mlstudio.debugger``: SageMaker Debugger's SDK names for the studio's rules and hook.

``from mlstudio.debugger import Rule, ProfilerRule, rule_configs, DebuggerHookConfig,
CollectionConfig, ProfilerConfig, FrameworkProfile`` works as ``sagemaker.debugger`` does.
``mlstudio.debugger.trials`` reads a job's saved tensors (smdebug's trial API).
"""

from . import rule_configs
from .actions import SMS, ActionList, Email, Notify, StopTraining
from .configs import (
    CollectionConfig,
    DataloaderProfilingConfig,
    DebuggerHookConfig,
    DetailedProfilingConfig,
    FrameworkProfile,
    HorovodProfilingConfig,
    ProfilerConfig,
    PythonProfilingConfig,
    SMDataParallelProfilingConfig,
    TensorBoardOutputConfig,
)
from .rules import ProfilerRule, Rule

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

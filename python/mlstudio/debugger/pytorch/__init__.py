"""``mlstudio.debugger.pytorch``: smdebug's PyTorch hook for a script in a studio job.

::

    from mlstudio.debugger.pytorch import Hook      # smdebug.pytorch's names
    import mlstudio.debugger.pytorch as smd

    hook = Hook.create_from_json_file()               # the job's debugger_hook_config
    hook.register_module(model)
    hook.register_loss(criterion)
    ...
    hook.set_mode(smd.modes.EVAL)

The job's Debugger rules then read the script's tensors as they read the built-in trainer's.
With ``debugger_hook_config`` in the spec, none of this is needed: the hook attaches itself
(``mlstudio.debugger._autohook``). Importing this package does not import torch.
"""

from ..._data_smdebug import ModeKeys, SMDebugError, modes
from ._plan import (
    Collection,
    CollectionKeys,
    ReductionConfig,
    SaveConfig,
    SaveConfigMode,
)
from .hook import Hook, del_hook, get_hook, set_hook

__all__ = [
    "Collection",
    "CollectionKeys",
    "Hook",
    "ModeKeys",
    "ReductionConfig",
    "SMDebugError",
    "SaveConfig",
    "SaveConfigMode",
    "del_hook",
    "get_hook",
    "modes",
    "set_hook",
]

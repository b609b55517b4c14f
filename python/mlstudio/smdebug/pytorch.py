"""``smdebug.pytorch``'s names: ``import mlstudio.smdebug.pytorch as smd`` gives the studio's hook
(mlstudio.debugger.pytorch) as ``smd.Hook``, ``smd.get_hook()``, ``smd.modes``,
``smd.SaveConfig``, ... and ``smd.create_trial`` (read on first use)."""

import importlib

from ..debugger.pytorch import (  # noqa: F401 - re-exported
    Collection,
    CollectionKeys,
    Hook,
    ModeKeys,
    ReductionConfig,
    SaveConfig,
    SaveConfigMode,
    SMDebugError,
    del_hook,
    get_hook,
    modes,
    set_hook,
)

__all__ = ["Collection", "CollectionKeys", "Hook", "ModeKeys", "ReductionConfig", "SMDebugError",
           "SaveConfig", "SaveConfigMode", "create_trial", "del_hook", "get_hook", "modes",
           "set_hook"]  # fmt: skip


def __getattr__(name):
    if name == "create_trial":
        return importlib.import_module(".trials", __package__).create_trial
    raise AttributeError("module {!r} has no attribute {!r}".format(__name__, name))

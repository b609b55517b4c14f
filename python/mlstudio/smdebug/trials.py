"""``smdebug.trials``: ``create_trial(path_or_job)`` over a studio job's saved tensors (the same
reader as ``mlstudio.debugger.trials``)."""

from ..debugger.trials import Collection, Tensor, Trial, create_trial

__all__ = ["create_trial", "Trial", "Tensor", "Collection"]

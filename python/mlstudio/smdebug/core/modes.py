"""``smdebug.core.modes``: the modes a step or a tensor belongs to."""

from ..._data_smdebug import ModeKeys

ALLOWED_MODES = [ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT, ModeKeys.GLOBAL]
ALLOWED_MODE_NAMES = [m.name for m in ALLOWED_MODES]

__all__ = ["ModeKeys", "ALLOWED_MODES", "ALLOWED_MODE_NAMES"]

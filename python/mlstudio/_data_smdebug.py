"""smdebug's modes, step states and errors, as mlstudio.debugger.trials raises and returns them.

The names, fields and messages are smdebug's (smdebug/core/modes.py, smdebug/exceptions.py), so
code that catches smdebug's errors catches these after its imports change.
"""

import enum


class ModeKeys(enum.Enum):
    """smdebug's modes; GLOBAL means any mode."""

    TRAIN = 1
    EVAL = 2
    PREDICT = 3
    GLOBAL = 4


modes = ModeKeys


class StepState(enum.Enum):
    UNAVAILABLE = 0
    AVAILABLE = 1
    NOT_YET_AVAILABLE = 2


class SMDebugError(Exception):
    """Base of the errors smdebug's readers raise."""


class TensorUnavailable(SMDebugError):
    def __init__(self, tname):
        super().__init__(tname)
        self.tname = tname

    def __str__(self):
        return "Tensor {} was not saved.".format(self.tname)


class TensorUnavailableForStep(SMDebugError):
    def __init__(self, tname, step, mode=ModeKeys.GLOBAL, has_reductions=False):
        super().__init__(tname, step)
        self.tname, self.step, self.mode, self.has_reductions = tname, step, mode, has_reductions

    def __str__(self):
        msg = (
            "Value for tensor {} is not available for step {} with mode {} as it was not "
            "saved.".format(self.tname, self.step, self.mode.name)
        )
        if self.has_reductions:
            msg += (
                " This tensor has reductions saved for this step. You might want to query "
                "for the reductions."
            )
        return msg


class StepUnavailable(SMDebugError):
    def __init__(self, step, mode):
        super().__init__(step)
        self.step, self.mode = step, mode

    def __str__(self):
        return "Step {} of mode {} is not available as it was not saved".format(
            self.step, self.mode.name
        )


class StepNotYetAvailable(SMDebugError):
    def __init__(self, step, mode):
        super().__init__(step)
        self.step, self.mode = step, mode

    def __str__(self):
        return "Step {} of mode {} not yet available".format(self.step, self.mode.name)


class NoMoreData(SMDebugError):
    def __init__(self, step, mode, last_step):
        super().__init__(step)
        self.step, self.mode, self.last_step = step, mode, last_step

    def __str__(self):
        return (
            "Looking for step {} of mode {} and reached end of training. Max step available "
            "is {}".format(self.step, self.mode.name, self.last_step)
        )


class ShapeUnavailableForStep(SMDebugError):
    def __init__(self, tname, step, mode=ModeKeys.GLOBAL):
        super().__init__(tname, step)
        self.tname, self.step, self.mode = tname, step, mode

    def __str__(self):
        return (
            "Shape for tensor {} is not available for step {} with mode {} as it was not "
            "saved.".format(self.tname, self.step, self.mode.name)
        )


class InvalidWorker(SMDebugError):
    def __init__(self, worker):
        super().__init__(worker)
        self.worker = worker

    def __str__(self):
        return "Invalid Worker: {}".format(self.worker)

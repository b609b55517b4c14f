"""``mlstudio.smdebug``: smdebug's names for the parts of its API the studio provides.

A custom rule written for SageMaker Debugger runs unchanged apart from its imports::

    from mlstudio.smdebug.rules.rule import Rule            # smdebug.rules.rule
    from mlstudio.smdebug.exceptions import TensorUnavailableForStep
    from mlstudio.smdebug.trials import create_trial        # smdebug.trials
    from mlstudio.smdebug import modes

Inside a job's rule process (``python -m mlstudio.debugger._rule_host``) the plain ``smdebug``
imports work too when the real smdebug is not installed: that process aliases them here.
"""

from .._data_smdebug import ModeKeys, modes

__all__ = ["ModeKeys", "modes"]

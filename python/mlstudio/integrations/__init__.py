"""mlstudio.integrations: callbacks that record a framework's training in the studio.

- ``mlstudio.integrations.transformers.StudioCallback``: a Hugging Face ``TrainerCallback``.
- ``mlstudio.integrations.lightning.StudioLogger`` and ``StudioDebuggerCallback``: a Lightning
  ``Logger`` and ``Callback`` (``lightning.pytorch`` or ``pytorch_lightning``).

Inside a studio job they send metrics, hyperparameters and checkpoints through the rank's
events pipe, and attach the Debugger hook when the job has a hook configuration; outside a job
they record a local run of an experiment in the studio's store (``mlstudio.experiments.Run``).
This package imports neither framework: each submodule imports its own when it is imported.
"""

__all__ = ["lightning", "transformers"]

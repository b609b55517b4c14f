"""Start-up of every Python rank of a studio job.

The launcher puts this folder first on a script rank's PYTHONPATH, so Python imports this
module at start-up in place of the site's own ``sitecustomize``; that one still runs first.
Then, inside a job only, the studio's rank start-up: the record of what ran
(``mlstudio._provenance``) and the Debugger hook that attaches itself when the job's
configuration asks for it (``mlstudio.debugger._autohook``). Each step that fails prints one
line to stderr and the script goes on: a studio feature never stops a user's script.
"""

import importlib
import importlib.machinery
import importlib.util
import os
import sys

_STEPS = (
    ("mlstudio._provenance", "start"),
    ("mlstudio.debugger._autohook", "install"),
)


def _run_site_customize():
    here = os.path.dirname(os.path.abspath(__file__))
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)


def _start_rank():
    if not os.environ.get("STUDIO_EVENTS_FD"):
        return
    for module_name, function in _STEPS:
        try:
            getattr(importlib.import_module(module_name), function)()
        except Exception as error:  # noqa: BLE001 - reported, never raised into the script
            sys.stderr.write(
                "mlstudio: {}.{}() at start-up failed: {}: {}\n".format(
                    module_name, function, type(error).__name__, error
                )
            )


try:
    _run_site_customize()
except Exception as error:  # noqa: BLE001
    sys.stderr.write("mlstudio: the site's sitecustomize failed: {}\n".format(error))
_start_rank()

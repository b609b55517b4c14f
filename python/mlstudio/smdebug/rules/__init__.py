"""``smdebug.rules``: the base class of custom rules and the loop that invokes one over a trial."""

from .req_tensors import RequiredTensors
from .rule import Rule
from .rule_invoker import invoke_rule

__all__ = ["Rule", "RequiredTensors", "invoke_rule"]

"""``smdebug.rules.rule.Rule``: the base class of a custom Debugger rule.

::

    from mlstudio.smdebug.rules.rule import Rule

    class CustomGradientRule(Rule):
        def __init__(self, base_trial, threshold=10.0):
            super().__init__(base_trial)
            self.threshold = float(threshold)   # rule parameters arrive as strings

        def invoke_at_step(self, step):
            for tname in self.base_trial.tensor_names(collection="gradients"):
                t = self.base_trial.tensor(tname)
                if t.reduction_value(step, "mean", abs=True) > self.threshold:
                    return True
            return False

A job's spec names the file and the class (``Rule.custom(source=, rule_to_invoke=)``); the studio
runs it in a rule process beside the job, calling ``invoke(step)`` for each step the job saved.
Returning True (or raising ``RuleEvaluationConditionMet``) records a finding and runs the rule's
actions from the spec (StopTraining, Notify); ``action_str`` is accepted for smdebug's signature
and not used. ``invoke_rule(rule)`` runs one over a finished job's trial.
"""

import abc
import logging

from ..exceptions import RuleEvaluationConditionMet
from .req_tensors import RequiredTensors


class Rule(abc.ABC):
    """smdebug's Rule: ``base_trial``, ``other_trials``, ``trials``, ``req_tensors``, ``logger``,
    ``rule_name`` (the class's name) and ``report``."""

    def __init__(self, base_trial, action_str="", other_trials=None):
        # smdebug's code takes action_str second and positionally; the AWS guide calls
        # super().__init__(base_trial) or (base_trial, other_trials=None): both work here.
        self.base_trial = base_trial
        self.other_trials = other_trials
        self.trials = [base_trial] + list(other_trials or [])
        self.req_tensors = RequiredTensors(base_trial, other_trials)
        self.rule_name = self.__class__.__name__
        self.logger = logging.getLogger("mlstudio.smdebug.rules." + self.rule_name)
        self.action_str = action_str
        self.report = {"RuleTriggered": 0, "Violations": 0, "Details": {}}

    def set_required_tensors(self, step):
        """Override to call ``self.req_tensors.add(name, steps, trial=None,
        should_match_regex=False)``: the step is skipped when one was not saved."""

    @abc.abstractmethod
    def invoke_at_step(self, step):
        """True when the rule's condition holds at ``step``."""

    def invoke(self, step):
        """Evaluates the rule at ``step``: waits for it on the base trial, checks the required
        tensors, calls ``invoke_at_step``; a truthy result raises RuleEvaluationConditionMet
        (carrying the result as ``.returned``)."""
        self.base_trial.wait_for_steps([step])
        self.req_tensors.clear()
        self.set_required_tensors(step)
        self.req_tensors.fetch()
        result = self.invoke_at_step(step)
        if result:
            self.report["RuleTriggered"] += 1
            self.report["Violations"] += 1
            met = RuleEvaluationConditionMet(self.rule_name, step)
            met.returned = result
            raise met
        return result

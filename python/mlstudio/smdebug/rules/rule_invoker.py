"""``smdebug.rules.invoke_rule``: a rule evaluated step after step over its base trial, as
smdebug's rule containers run it (here, over a studio job's trial from ``create_trial``)."""

import logging

from ..exceptions import (
    RuleEvaluationConditionMet,
    StepUnavailable,
    TensorUnavailable,
    TensorUnavailableForStep,
)

_log = logging.getLogger("mlstudio.smdebug.rules")


def invoke_rule(rule_obj, start_step=0, end_step=None, raise_eval_cond=False):
    """Calls ``rule_obj.invoke(step)`` for step = start_step, start_step + 1, ... (end_step
    excluded). A step without the rule's data is skipped; a met condition is logged, or re-raised
    with ``raise_eval_cond``, and ends the loop only when its ``end_of_rule`` is set. With no
    end_step the loop ends as smdebug's does: NoMoreData from the trial once the job has ended
    and no later step was saved."""
    step = start_step if start_step is not None else 0
    while end_step is None or step < end_step:
        try:
            rule_obj.invoke(step)
        except (TensorUnavailableForStep, StepUnavailable, TensorUnavailable) as skipped:
            _log.debug("%s: step %d skipped: %s", rule_obj.rule_name, step, skipped)
        except RuleEvaluationConditionMet as met:
            if raise_eval_cond:
                raise
            _log.info("%s", met)
            if met.end_of_rule:
                return
        step += 1

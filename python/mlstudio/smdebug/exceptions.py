"""``smdebug.exceptions``: the errors trials raise and rules use, with smdebug's names, fields and
messages, so a rule's ``except TensorUnavailableForStep:`` catches what the studio's trials
raise. The readers' errors live in ``mlstudio._data_smdebug``; the rules' own are here."""

from .._data_smdebug import (
    InvalidWorker,
    NoMoreData,
    ShapeUnavailableForStep,
    SMDebugError,
    StepNotYetAvailable,
    StepUnavailable,
    TensorUnavailable,
    TensorUnavailableForStep,
)

__all__ = [
    "SMDebugError",
    "TensorUnavailable",
    "TensorUnavailableForStep",
    "StepUnavailable",
    "StepNotYetAvailable",
    "NoMoreData",
    "NoMoreProfilerData",
    "ShapeUnavailableForStep",
    "InvalidWorker",
    "RuleEvaluationConditionMet",
    "InsufficientInformationForRuleInvocation",
    "MissingCollectionFiles",
]


class RuleEvaluationConditionMet(SMDebugError):
    """A rule's condition held at a step (``Rule.invoke`` raises it when ``invoke_at_step``
    returns True; a rule may raise it itself). ``end_of_rule`` stops the rule's evaluation."""

    def __init__(self, rule_name, step, end_of_rule=False):
        super().__init__(rule_name, step)
        self.rule_name, self.step, self.end_of_rule = rule_name, step, end_of_rule

    def __str__(self):
        return (
            "Evaluation of the rule {} at step {} resulted in the condition being "
            "met".format(self.rule_name, self.step)
        )


class InsufficientInformationForRuleInvocation(SMDebugError):
    def __init__(self, rule_name, message):
        super().__init__(rule_name, message)
        self.rule_name, self.message = rule_name, message

    def __str__(self):
        return "Insufficient information to invoke rule {}: {}".format(
            self.rule_name, self.message
        )


class NoMoreProfilerData(SMDebugError):
    def __init__(self, timestamp):
        super().__init__(timestamp)
        self.timestamp = timestamp

    def __str__(self):
        return "Looking for timestamp {} and reached end of training.".format(self.timestamp)


class MissingCollectionFiles(SMDebugError):
    def __str__(self):
        return "Training job has ended. All the collection files could not be loaded"

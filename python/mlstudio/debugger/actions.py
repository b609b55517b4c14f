"""Rule actions, as ``smdebug_rulesconfig.actions`` names them: StopTraining, Email, SMS and
ActionList. On the studio StopTraining stops the job (status Stopped, "Stopped by rule ...");
Email and SMS become the studio's Notify action (a notification recorded once per rule and job,
shown by the window and ``mlstudio findings``): no message leaves the machine.
"""

from .._util import shown, warn_once


class Action:
    """One action of a rule; ``spec_action`` is its name in the job spec."""

    spec_action = None

    def __init__(self, action_parameters=None):
        self.action_parameters = dict(action_parameters or {})

    def serialize(self):
        return {self.__class__.__name__.lower(): dict(self.action_parameters)}

    def __eq__(self, other):
        return type(self) is type(other) and self.action_parameters == other.action_parameters

    def __hash__(self):
        return hash((type(self).__name__, tuple(sorted(self.action_parameters.items()))))

    def __repr__(self):
        return "{}({})".format(type(self).__name__, self.action_parameters or "")


class StopTraining(Action):
    """Stops the training job when the rule fires (SageMaker's StopTraining)."""

    spec_action = "StopTraining"

    def __init__(self, training_job_prefix=None):
        params = {"training_job_prefix": training_job_prefix} if training_job_prefix else {}
        super().__init__(params)
        if training_job_prefix is not None:
            warn_once(
                "StopTraining.training_job_prefix",
                "StopTraining(training_job_prefix=...): the studio stops the job whose rule "
                "fired; the prefix changes nothing",
            )


class Email(Action):
    """SageMaker sends an e-mail through SNS; the studio records a notification instead."""

    spec_action = "Notify"

    def __init__(self, email_address):
        super().__init__({"endpoint": email_address})
        warn_once(
            "Email",
            "Email({!r}): the studio records a notification (shown in the window and by "
            "mlstudio findings) instead of sending e-mail".format(email_address),
        )


class SMS(Action):
    """SageMaker sends a text message through SNS; the studio records a notification."""

    spec_action = "Notify"

    def __init__(self, phone_number):
        super().__init__({"endpoint": phone_number})
        warn_once(
            "SMS",
            "SMS({!r}): the studio records a notification (shown in the window and by "
            "mlstudio findings) instead of sending a text message".format(phone_number),
        )


class Notify(Action):
    """The studio's own notification action (no SageMaker counterpart)."""

    spec_action = "Notify"


class ActionList:
    """Several actions for one rule."""

    def __init__(self, *actions):
        for action in actions:
            if not isinstance(action, Action):
                raise TypeError(
                    "ActionList: every action must be StopTraining(), Email(...) or SMS(...), "
                    "got {}".format(shown(action))
                )
        self.actions = list(actions)

    def serialize(self):
        return [a.serialize() for a in self.actions]

    def __iter__(self):
        return iter(self.actions)

    def __repr__(self):
        return "ActionList({})".format(", ".join(repr(a) for a in self.actions))


def is_valid_action_object(actions):
    return isinstance(actions, (Action, ActionList))


def spec_actions(actions, path):
    """An Action, ActionList or list of them as the spec's ``["StopTraining", "Notify"]``."""
    if actions is None:
        return []
    if isinstance(actions, Action):
        actions = [actions]
    elif isinstance(actions, ActionList):
        actions = actions.actions
    elif isinstance(actions, (list, tuple)):
        actions = list(actions)
    else:
        # SageMaker raises RuntimeError here too.
        raise RuntimeError(
            "{}: must be an Action or an ActionList (rule_configs.StopTraining(), Email(...), "
            "SMS(...)), got {}".format(path, shown(actions))
        )
    out = []
    for i, action in enumerate(actions):
        if isinstance(action, str) and action in ("StopTraining", "Notify"):
            name = action
        elif isinstance(action, Action):
            name = action.spec_action
        else:
            raise RuntimeError(
                "{}[{}]: must be an Action (StopTraining(), Email(...), SMS(...)), got "
                "{}".format(path, i, shown(action))
            )
        if name not in out:
            out.append(name)
    return out

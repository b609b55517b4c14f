# A rule with a bug at step 3: its traceback is the rule's status message.
from smdebug.rules.rule import Rule


class RaisingRule(Rule):
    def invoke_at_step(self, step):
        if step == 3:
            return self.ratio(step)
        return False

    def ratio(self, step):
        return 1.0 / (step - 3)

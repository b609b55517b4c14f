# Fires at the first step from `from_step` on at which the trial holds every step since 0 of the
# gradient it watches: a rule process that started late (a job taken over) must have read the
# earlier steps from the store.
from mlstudio.smdebug.rules.rule import Rule


class HistoryRule(Rule):
    def __init__(self, base_trial, tensor="gradient/fc.weight", from_step="0"):
        super().__init__(base_trial)
        self.tensor_name = tensor
        self.from_step = int(from_step)

    def invoke_at_step(self, step):
        if step < self.from_step:
            return False
        steps = self.base_trial.tensor(self.tensor_name).steps()
        return steps[: step + 1] == list(range(step + 1))

"""``smdebug.rules.req_tensors``: the tensors a rule says it needs at a step
(``set_required_tensors``). The studio's trials hold their data in memory or read it on demand,
so fetching is checking: a required tensor or step that was not saved raises the error that makes
the rule skip the step, as smdebug's fetch does."""

from ..exceptions import TensorUnavailable, TensorUnavailableForStep


class RequiredTensors:
    """{trial: {tensor name or regex: set of steps}} a rule asked for at the current step."""

    def __init__(self, base_trial, other_trials=None):
        self.trials = [base_trial] + list(other_trials or [])
        self._required = {}  # id(trial) -> {name: (steps, should_match_regex)}

    def _trial(self, trial):
        trial = self.trials[0] if trial is None else trial
        if not any(trial is t for t in self.trials):
            raise ValueError(
                "req_tensors.add(trial=...): {!r} is neither the rule's base trial nor one of its "
                "other trials".format(trial)
            )
        return trial

    def add(self, name, steps, trial=None, should_match_regex=False):
        """Requires tensor ``name`` (a regex when ``should_match_regex``) at each of ``steps``."""
        trial = self._trial(trial)
        wanted = self._required.setdefault(id(trial), {})
        known, _ = wanted.get(name, (set(), should_match_regex))
        wanted[name] = (known | set(steps), should_match_regex)

    def clear(self):
        self._required = {}

    def get_names(self, trial=None):
        """The names (or regexes) required of a trial."""
        return sorted(self._required.get(id(self._trial(trial)), {}))

    def get(self, trial=None):
        """{name: sorted steps} required of a trial."""
        wanted = self._required.get(id(self._trial(trial)), {})
        return {name: sorted(steps) for name, (steps, _) in wanted.items()}

    def fetch(self):
        """Checks that every required tensor was saved at its steps: TensorUnavailable or
        TensorUnavailableForStep otherwise (a regex matching nothing requires nothing)."""
        for trial in self.trials:
            for name, (steps, regex) in self._required.get(id(trial), {}).items():
                names = trial.tensor_names(regex=name) if regex else [name]
                for tname in names:
                    if not trial.has_tensor(tname):
                        raise TensorUnavailable(tname)
                    saved = set(trial.tensor(tname).steps())
                    for step in sorted(steps):
                        if step not in saved:
                            raise TensorUnavailableForStep(tname, step)

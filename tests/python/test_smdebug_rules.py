"""mlstudio.smdebug's rule API and the live trial the rule process feeds, in process: metric modes
as the engine's rules see them, non-blocking waits, invoke_rule's loop, Rule's constructor forms,
required tensors, and the store's data merged under live events."""

import pytest

from mlstudio.debugger._live_trial import LiveTrial, metric_collection, metric_mode
from mlstudio.smdebug import modes
from mlstudio.smdebug.exceptions import (
    NoMoreData,
    RuleEvaluationConditionMet,
    StepNotYetAvailable,
    StepUnavailable,
    TensorUnavailable,
    TensorUnavailableForStep,
)
from mlstudio.smdebug.rules import RequiredTensors, Rule, invoke_rule


@pytest.mark.parametrize("name, phase, mode", [
    ("train:loss", "train", modes.TRAIN),
    ("train:loss", "eval", modes.EVAL),
    ("val:loss", "train", modes.EVAL),
    ("val_loss", "train", modes.EVAL),
    ("train:val-loss", "train", modes.EVAL),
    ("val2", "train", modes.EVAL),
    ("validation_accuracy", "train", modes.EVAL),
    ("Test/Acc", "train", modes.EVAL),
    ("interval_loss", "train", modes.TRAIN),
    ("latest", "train", modes.TRAIN),
    ("evaluated", "train", modes.TRAIN),
])
def test_metric_modes_follow_the_engines_reading_of_names(name, phase, mode):
    assert metric_mode(name, phase) is mode


def test_metric_collections():
    assert metric_collection("train:Loss") == "losses"
    assert metric_collection("accuracy") == "metrics"


def live(*steps, ended=False):
    trial = LiveTrial("job-1")
    for step in steps:
        trial.add_tensor("gradients", "gradient/w", step, {"abs_mean": float(step)})
    if ended:
        trial.end()
    return trial


def test_waiting_never_blocks():
    trial = live(0, 2)
    trial.wait_for_steps([0, 2])
    with pytest.raises(StepUnavailable):
        trial.wait_for_steps([1])
    with pytest.raises(StepNotYetAvailable):
        trial.wait_for_steps([3])
    trial.end()
    with pytest.raises(NoMoreData) as ended:
        trial.wait_for_steps([3])
    assert ended.value.last_step == 2


def test_the_store_s_data_merges_with_live_events():
    trial = LiveTrial("job-1")
    trial.merge_store({"job": "job-1", "status": "InProgress", "debug_output": "/nowhere",
                       "tensors": [{"name": "gradient/w", "collections": ["gradients"],
                                    "values": [{"step": 0, "phase": "train", "rank": 0,
                                                "reductions": {"mean": "NaN"}}]}]})
    trial.add_tensor("gradients", "gradient/w", 1, {"mean": 2.0}, rank=1)
    t = trial.tensor("gradient/w")
    assert trial.steps() == [0, 1] and t.steps() == [0, 1]
    assert trial.workers() == ["worker_0", "worker_1"]
    assert str(t.reduction_value(0, "mean")) == "nan"
    assert t.reduction_value(1, "mean") == 2.0
    assert trial.path == "/nowhere"
    assert trial.saved_reductions("gradient/w", 1) == ["mean"]


class Threshold(Rule):
    def __init__(self, base_trial, threshold="1"):
        super().__init__(base_trial)
        self.threshold = float(threshold)
        self.invoked = []

    def invoke_at_step(self, step):
        self.invoked.append(step)
        t = self.base_trial.tensor("gradient/w")
        return t.reduction_value(step, "mean", abs=True) > self.threshold


def test_invoke_rule_skips_unsaved_steps_and_ends_with_no_more_data():
    rule = Threshold(live(0, 2, 5, ended=True), threshold="1")
    with pytest.raises(NoMoreData):  # smdebug's loop ends so once training has ended
        invoke_rule(rule)
    assert rule.invoked == [0, 2, 5]
    assert rule.report["RuleTriggered"] == 2

    rule = Threshold(live(0, 2, 5, ended=True), threshold="1")
    invoke_rule(rule, start_step=1, end_step=5)
    assert rule.invoked == [2]

    rule = Threshold(live(0, 2, 5, ended=True), threshold="1")
    with pytest.raises(RuleEvaluationConditionMet) as met:
        invoke_rule(rule, raise_eval_cond=True)
    assert (met.value.rule_name, met.value.step, met.value.returned) == ("Threshold", 2, True)
    assert str(met.value) == ("Evaluation of the rule Threshold at step 2 resulted in the "
                              "condition being met")


class Plain(Rule):
    def invoke_at_step(self, step):
        return False


def test_rule_takes_smdebug_s_constructor_forms():
    base, other = live(0), live(0)
    assert Plain(base).trials == [base]
    assert Plain(base, "").action_str == ""
    rule = Plain(base, other_trials=[other])
    assert rule.trials == [base, other] and rule.other_trials == [other]
    assert rule.rule_name == "Plain"
    assert rule.invoke(0) is False
    with pytest.raises(TypeError):
        Rule(base)  # invoke_at_step is abstract


def test_required_tensors_check_names_regexes_and_steps():
    base, other = live(0, 1), live(0)
    required = RequiredTensors(base, [other])
    required.add("gradient/w", steps=[0, 1])
    required.add("^gradient/", steps=[0], trial=other, should_match_regex=True)
    assert required.get() == {"gradient/w": [0, 1]}
    assert required.get_names(other) == ["^gradient/"]
    required.fetch()
    required.add("gradient/w", steps=[1], trial=other)
    with pytest.raises(TensorUnavailableForStep):
        required.fetch()
    required.clear()
    required.add("gradient/b", steps=[0])
    with pytest.raises(TensorUnavailable):
        required.fetch()
    with pytest.raises(ValueError, match="neither the rule's base trial"):
        required.add("gradient/w", steps=[0], trial=live(0))

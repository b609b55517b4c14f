"""The custom rule process (python -m mlstudio.debugger._rule_host) driven through its stdin with
synthetic wire events, as the controller drives it: findings at the right steps, acks for every
line, the end, errors with the rule's traceback, and a stdout that carries only the protocol."""

import json
import os
import select
import subprocess
import sys
import time

import numpy
import pytest

from conftest import REPO

SEED_RULE = '''
from {module} import Rule

class CustomGradientRule(Rule):
    def __init__(self, base_trial, threshold=10.0):
        super().__init__(base_trial)
        self.threshold = float(threshold)

    def invoke_at_step(self, step):
        for tname in self.base_trial.tensor_names(collection="gradients"):
            t = self.base_trial.tensor(tname)
            abs_mean = t.reduction_value(step, "mean", abs=True)
            if abs_mean > self.threshold:
                return True
        return False
'''


def tensor(step, value, name="gradient/fc.weight", collection="gradients", rank=0, t=None,
           reductions=None, phase=None):
    line = {"v": 1, "kind": "tensor", "t": 1000.0 + step if t is None else t, "node": 0,
            "rank": rank, "collection": collection, "name": name, "step": step,
            "reductions": reductions if reductions is not None else {"abs_mean": value}}
    if phase:
        line["phase"] = phase
    return line


def metric(step, value, name="train:loss", phase="train", rank=0):
    return {"v": 1, "kind": "metric", "t": 2000.0 + step, "node": 0, "rank": rank,
            "name": name, "step": step, "value": value, "phase": phase}


class RuleProcess:
    """One rule host process: lines in, protocol messages out (each line must be JSON)."""

    def __init__(self, source, rule_to_invoke, params=None, debug_output=None, **config):
        env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
        env.pop("MLSTUDIO_HOME", None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mlstudio.debugger._rule_host"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self._buffer = b""
        self.acked = 0  # the acks add up to the event lines handled
        cfg = {"name": "my-rule", "source": str(source), "rule_to_invoke": rule_to_invoke,
               "rule_parameters": params or {}, "job": "job-1"}
        if debug_output:
            cfg["debug_output"] = str(debug_output)
        cfg.update(config)
        self.send({"config": cfg})

    def send(self, *messages, raw=None):
        data = raw if raw is not None else "".join(json.dumps(m) + "\n" for m in messages)
        self.proc.stdin.write(data.encode())
        self.proc.stdin.flush()

    def read(self, timeout=20.0):
        """The next protocol message, waiting at most timeout seconds."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.proc.stdout], [], [], max(left, 0))
            if not ready:
                raise AssertionError("no message from the rule process within {} s".format(timeout))
            chunk = os.read(self.proc.stdout.fileno(), 65536)
            if not chunk:
                raise AssertionError("the rule process closed stdout; stderr: "
                                     + self.proc.stderr.read().decode())
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def read_until_acked(self, total, timeout=20.0):
        """Messages until the acks add up to ``total`` lines (findings come before the ack of
        the line that completed their step)."""
        found = []
        while self.acked < total:
            message = self.read(timeout)
            found.append(message)
            self.acked += message.get("ack", 0)
            assert "error" not in message, message
        assert self.acked == total, found
        return found

    def end(self, send_end=True, timeout=30.0):
        """Sends the end (or closes stdin); returns (messages left, exit status, stderr)."""
        end = (json.dumps({"end": True}) + "\n").encode() if send_end else b""
        out, err = self.proc.communicate(input=end, timeout=timeout)  # closes stdin
        data = self._buffer + out
        self._buffer = b""
        messages = [json.loads(line) for line in data.splitlines()]
        self.acked += sum(m.get("ack", 0) for m in messages)
        return messages, self.proc.returncode, err.decode()

    def close(self):
        if self.proc.returncode is None:
            self.proc.kill()
            self.proc.communicate()


@pytest.fixture
def hosts():
    started = []

    def start(*args, **kwargs):
        started.append(RuleProcess(*args, **kwargs))
        return started[-1]

    yield start
    for host in started:
        host.close()


def write_rule(tmp_path, text, name="my_rule.py"):
    path = tmp_path / name
    path.write_text(text)
    return path


def findings(messages):
    return [m["finding"] for m in messages if "finding" in m]


@pytest.mark.parametrize("module", ["mlstudio.smdebug.rules.rule", "smdebug.rules.rule"])
def test_seed_rule_fires_at_the_step_its_gradient_crosses(tmp_path, hosts, module):
    rule = write_rule(tmp_path, SEED_RULE.format(module=module))
    host = hosts(rule, "CustomGradientRule", {"threshold": "20.0"})
    host.send(*[tensor(s, 5.0 * s) for s in range(8)])
    messages, status, err = host.end()
    assert status == 0, err
    got = findings(messages)
    assert [f["step"] for f in got] == [5, 6, 7]
    assert got[0]["time"] == 1005.0
    assert got[0]["device"] == "gradient/fc.weight"
    assert got[0]["message"] == ("CustomGradientRule: invoke_at_step(5) returned True "
                                 "(last tensor read: gradient/fc.weight)")
    assert host.acked == 8
    assert "8 step(s) evaluated, 3 found, 0 skipped" in err


def step_event(step, rank=0):
    return {"v": 1, "kind": "step", "t": 3000.0 + step, "node": 0, "rank": rank, "step": step,
            "phase": "train", "data": 1.0, "forward": 2.0, "backward": 3.0, "comm": 0.0,
            "optimizer": 1.0}


def test_a_step_is_evaluated_once_every_rank_that_sent_it_moved_on(tmp_path, hosts):
    rule = write_rule(tmp_path, SEED_RULE.format(module="mlstudio.smdebug.rules.rule"))
    host = hosts(rule, "CustomGradientRule", {"threshold": "1"})
    host.send(tensor(0, 50.0))
    assert host.read_until_acked(1) == [{"ack": 1}]  # step 0 may still get more data
    host.send(tensor(0, 0.0, name="gradient/fc.bias", rank=1), metric(0, 3.0))
    assert findings(host.read_until_acked(3)) == []
    host.send(tensor(1, 0.0), metric(5, 1.0))  # rank 0 moved on; rank 1 may still send step 0
    assert findings(host.read_until_acked(5)) == []
    host.send(step_event(0, rank=1))
    messages = host.read_until_acked(6)
    assert [f["step"] for f in findings(messages)] == [0]
    assert messages == [messages[0], {"ack": 1}]  # the finding, then the line's ack
    # Late data of step 0 is kept, not evaluated again; step 1 waits for rank 0's next step.
    host.send(tensor(0, 90.0, rank=1))
    assert host.read_until_acked(7) == [{"ack": 1}]
    messages, status, err = host.end()
    assert status == 0 and messages == [] and host.acked == 7
    assert "3 step(s) evaluated" in err  # 0, 1 and 5 (a step with a metric only)


def test_a_ranks_step_event_completes_its_step(tmp_path, hosts):
    rule = write_rule(tmp_path, SEED_RULE.format(module="mlstudio.smdebug.rules.rule"))
    host = hosts(rule, "CustomGradientRule", {"threshold": "1"})
    host.send(tensor(0, 0.5), step_event(0), tensor(1, 5.0))
    assert findings(host.read_until_acked(3)) == []
    host.send(step_event(1))
    assert [f["step"] for f in findings(host.read_until_acked(4))] == [1]
    messages, status, _ = host.end()
    assert status == 0 and messages == []


def test_every_line_is_acknowledged_in_order_ignored_ones_too(tmp_path, hosts):
    rule = write_rule(tmp_path, SEED_RULE.format(module="mlstudio.smdebug.rules.rule"))
    host = hosts(rule, "CustomGradientRule")
    host.send(raw="not json\n" + json.dumps({"v": 1, "kind": "step", "step": 0}) + "\n"
              + json.dumps({"v": 1, "kind": "future-kind", "x": 1}) + "\n\n"
              + json.dumps([1, 2]) + "\n" + json.dumps({"kind": "tensor", "step": "x"}) + "\n")
    assert host.read_until_acked(5) == [{"ack": 5}]
    host.send(*[metric(s, 1.0) for s in range(100)])
    assert all(list(m) == ["ack"] for m in host.read_until_acked(105))
    messages, status, err = host.end()
    assert status == 0 and messages == [] and host.acked == 105
    assert "event ignored" in err  # the tensor line without its fields


def test_the_end_or_the_end_of_input_evaluates_the_last_step(tmp_path, hosts):
    rule = write_rule(tmp_path, SEED_RULE.format(module="mlstudio.smdebug.rules.rule"))
    for send_end in (True, False):
        host = hosts(rule, "CustomGradientRule", {"threshold": "2"})
        host.send(tensor(0, 1.0), tensor(1, 3.0))
        messages, status, _ = host.end(send_end=send_end)
        assert status == 0
        assert [f["step"] for f in findings(messages)] == [1]
        assert host.acked == 2


def test_a_raising_rule_reports_its_traceback_and_exits_1(tmp_path, hosts):
    rule = write_rule(tmp_path, '''
from mlstudio.smdebug.rules.rule import Rule

class Broken(Rule):
    def invoke_at_step(self, step):
        if step == 2:
            return self.ratio(step)
        return False

    def ratio(self, step):
        return 1 / (step - 2)
''')
    host = hosts(rule, "Broken")
    host.send(*[tensor(s, 0.0) for s in range(5)])
    messages, status, _ = host.end()
    assert status == 1
    error = messages[-1]["error"]
    assert error.startswith("Broken.invoke_at_step(2) raised:\nTraceback (most recent call last):")
    assert 'my_rule.py", line 7, in invoke_at_step' in error
    assert 'my_rule.py", line 11, in ratio' in error
    assert error.rstrip().endswith("ZeroDivisionError: division by zero")
    assert "_rule_host.py" not in error
    assert not findings(messages)


@pytest.mark.parametrize("source, params, expected", [
    ("class Other:\n    pass\n", {}, "defines no class Wanted; its classes: Other"),
    ("class Wanted:\n    pass\n", {}, "class Wanted of {path} has no invoke_at_step(step)"),
    ("def broken(:\n", {}, "loading {path} failed:"),
    ("raise RuntimeError('no GPU here')\n", {}, "RuntimeError: no GPU here"),
    ("from smdebug.rules.rule import Rule\nclass Wanted(Rule):\n"
     "    def invoke_at_step(self, step):\n        return False\n", {"threshold": "3"},
     "Wanted(base_trial, threshold='3') failed:"),
    ("import smdebug.profiler\n", {}, "No module named 'smdebug.profiler'"),
])
def test_a_rule_that_does_not_load_is_an_error(tmp_path, hosts, source, params, expected):
    rule = write_rule(tmp_path, source)
    host = hosts(rule, "Wanted", params)
    messages, status, _ = host.end()
    assert status == 1
    assert expected.format(path=rule) in messages[-1]["error"]


def test_a_bad_config_is_an_error(tmp_path, hosts):
    host = hosts(tmp_path / "missing.py", "Rule")
    messages, status, _ = host.end()
    assert status == 1
    assert messages == [{"error": "config.source: file {} does not exist".format(
        tmp_path / "missing.py")}]


def test_what_the_rule_prints_stays_off_the_protocol(tmp_path, hosts):
    rule = write_rule(tmp_path, '''
import os, subprocess, sys
from mlstudio.smdebug.rules.rule import Rule

print("loading")

class Chatty(Rule):
    def invoke_at_step(self, step):
        print("step", step)
        sys.stdout.write("raw write\\n")
        os.write(1, b"fd 1 write\\n")
        subprocess.run(["echo", "child output"], check=True)
        return step == 1
''')
    host = hosts(rule, "Chatty")
    host.send(tensor(0, 0.0), tensor(1, 0.0))
    messages, status, err = host.end()  # end() parses every stdout line as JSON
    assert status == 0
    assert [f["step"] for f in findings(messages)] == [1]
    for text in ("loading", "step 0", "raw write", "fd 1 write", "child output"):
        assert text in err


def test_a_step_without_the_rules_data_is_skipped_and_said_once(tmp_path, hosts):
    rule = write_rule(tmp_path, SEED_RULE.format(module="mlstudio.smdebug.rules.rule"))
    host = hosts(rule, "CustomGradientRule")
    host.send(*[tensor(s, 0.0, reductions={"mean": 99.0, "max": 100.0}) for s in range(4)])
    messages, status, err = host.end()
    assert status == 0 and not findings(messages)
    skips = [line for line in err.splitlines() if "skipped:" in line]
    assert len(skips) == 1
    assert "step 0 skipped: Value for tensor gradient/fc.weight is not available" in skips[0]
    assert "saved at that step: max, mean" in skips[0]
    assert "(TensorUnavailableForStep: 4)" in err


def test_the_trial_offers_metrics_modes_workers_and_collections(tmp_path, hosts):
    rule = write_rule(tmp_path, '''
import json, sys
from smdebug import modes
from smdebug.exceptions import TensorUnavailableForStep
from smdebug.rules.rule import Rule

class Inspect(Rule):
    def invoke_at_step(self, step):
        trial = self.base_trial
        loss = trial.tensor("train:loss")
        seen = {
            "steps": trial.steps(),
            "train_steps": trial.steps(mode=modes.TRAIN),
            "eval_steps": trial.steps(mode=modes.EVAL),
            "collections": sorted(trial.collections()),
            "losses": sorted(trial.collection("losses").tensor_names),
            "workers": trial.workers(),
            "loss": float(loss.value(step)),
            "loss_steps": loss.steps(),
            "by_regex": trial.tensor_names(regex="^gradient/"),
            "reductions": sorted("{}{}".format("abs_" if a else "", n)
                                 for n, a in trial.tensor("gradient/w").reduction_values(step)),
            "has_mean": bool(trial.tensor("gradient/w").reduction_value(step, "mean") == 0.5),
            "passed": trial.has_passed_step(step).name,
            "future": trial.has_passed_step(step + 100).name,
        }
        try:
            trial.tensor("gradient/w").value(step)
        except TensorUnavailableForStep as error:
            seen["no_value"] = error.has_reductions
        sys.stderr.write("SEEN " + json.dumps(seen) + "\\n")
        return step == 1
''')
    host = hosts(rule, "Inspect")
    host.send(tensor(0, 0, name="gradient/w", reductions={"mean": 0.5, "abs_mean": 0.5}),
              metric(0, 2.0), metric(0, 1.5, name="val:loss"),
              metric(0, 0.9, name="accuracy", phase="eval"),
              tensor(1, 0, name="gradient/w", reductions={"mean": 0.5}, rank=1),
              metric(1, 1.0))
    messages, status, err = host.end()
    assert status == 0, err
    seen = [json.loads(line[5:]) for line in err.splitlines() if line.startswith("SEEN ")]
    assert seen[0] == {
        "steps": [0, 1], "train_steps": [0, 1], "eval_steps": [0],
        "collections": ["gradients", "losses", "metrics"],
        "losses": ["train:loss", "val:loss"], "workers": ["worker_0", "worker_1"],
        "loss": 2.0, "loss_steps": [0, 1], "by_regex": ["gradient/w"],
        "reductions": ["abs_mean", "mean"], "has_mean": True,
        "passed": "AVAILABLE", "future": "NOT_YET_AVAILABLE", "no_value": True,
    }
    assert seen[1]["loss"] == 1.0 and seen[1]["reductions"] == ["mean"]
    assert seen[1]["future"] == "UNAVAILABLE"  # the job ended
    assert [f["step"] for f in findings(messages)] == [1]
    assert findings(messages)[0]["device"] == "gradient/w"


def test_raw_tensors_under_debug_output_are_read(tmp_path, hosts):
    debug = tmp_path / "debug-output"
    (debug / "tensors" / "step-000000000003" / "rank-0").mkdir(parents=True)
    array = numpy.array([[1.0, -3.0], [2.0, -6.0]], dtype=numpy.float32)
    numpy.save(str(debug / "tensors" / "step-000000000003" / "rank-0" / "w.npy"), array)
    rule = write_rule(tmp_path, '''
import sys
from mlstudio.smdebug.rules.rule import Rule

class Raw(Rule):
    def invoke_at_step(self, step):
        t = self.base_trial.tensor("gradient/w")
        sys.stderr.write("RAW {} {} {}\\n".format(step, t.value(step).tolist(),
                                                  float(t.reduction_value(step, "max", abs=True))))
        return True
''')
    host = hosts(rule, "Raw", debug_output=debug)
    host.send(tensor(3, 0.0, name="gradient/w", reductions={"mean": -1.5}))
    assert host.read_until_acked(1) == [{"ack": 1}]
    # The hook writes the file and its index line after the event; read when step 3 is invoked.
    (debug / "index-rank-0.jsonl").write_text(json.dumps({
        "step": 3, "rank": 0, "collection": "gradients", "tensor": "gradient/w",
        "file": "tensors/step-000000000003/rank-0/w.npy", "shape": [2, 2],
        "dtype": "float32"}) + "\n")
    messages, status, err = host.end()
    assert status == 0, err
    assert "RAW 3 [[1.0, -3.0], [2.0, -6.0]] 6.0" in err
    assert [f["step"] for f in findings(messages)] == [3]


def test_rule_evaluation_condition_met_and_the_end_of_a_rule(tmp_path, hosts):
    rule = write_rule(tmp_path, '''
from mlstudio.smdebug.exceptions import NoMoreData, RuleEvaluationConditionMet
from mlstudio.smdebug.rules.rule import Rule

class Once(Rule):
    def invoke_at_step(self, step):
        if step == 1:
            raise RuleEvaluationConditionMet(self.rule_name, step)
        if step == 2:
            raise RuleEvaluationConditionMet(self.rule_name, step, end_of_rule=True)
        raise AssertionError("invoked after the end of the rule")
''')
    host = hosts(rule, "Once")
    host.send(*[tensor(s, 0.0) for s in (1, 2, 3, 4)])
    messages, status, err = host.end()
    assert status == 0, err
    got = findings(messages)
    assert [f["step"] for f in got] == [1, 2]
    assert got[0]["message"] == "Once: invoke_at_step(1) raised RuleEvaluationConditionMet"
    assert "the rule ended its evaluation at step 2" in err
    assert host.acked == 4


def test_a_class_that_is_not_a_rule_subclass_runs_by_its_invoke_at_step(tmp_path, hosts):
    rule = write_rule(tmp_path, '''
class Plain:
    def __init__(self, base_trial, limit):
        self.trial, self.limit = base_trial, float(limit)

    def invoke_at_step(self, step):
        value = float(self.trial.tensor("train:loss").value(step))
        return "loss {} over {}".format(value, self.limit) if value > self.limit else None
''')
    host = hosts(rule, "Plain", {"limit": 2})
    host.send(metric(0, 1.0), metric(1, 2.5), metric(2, 1.0))
    messages, status, _ = host.end()
    assert status == 0
    assert [f["message"] for f in findings(messages)] == [
        "Plain: invoke_at_step(1) returned 'loss 2.5 over 2.0' (last tensor read: train:loss)"]


def test_required_tensors_skip_a_step_that_lacks_them(tmp_path, hosts):
    rule = write_rule(tmp_path, '''
from mlstudio.smdebug.rules.rule import Rule

class Needs(Rule):
    def set_required_tensors(self, step):
        self.req_tensors.add("gradient/w", steps=[step])

    def invoke_at_step(self, step):
        return True
''')
    host = hosts(rule, "Needs")
    host.send(metric(0, 1.0), metric(1, 1.0), tensor(2, 0.0, name="gradient/w"), metric(3, 1.0))
    messages, status, err = host.end()
    assert status == 0
    assert [f["step"] for f in findings(messages)] == [2]
    assert "step 0 skipped: Tensor gradient/w was not saved." in err
    assert "step 1 skipped: Value for tensor gradient/w is not available for step 1" in err
    assert "(TensorUnavailable: 1, TensorUnavailableForStep: 2)" in err

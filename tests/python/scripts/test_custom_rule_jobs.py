"""Custom Python rules on real script jobs: the seed's CustomGradientRule (its import changed only)
stops a job whose gradients grow, whether the script writes its tensors itself or the Debugger
hook saves them; a rule that raises shows status Error with its traceback; a job's rule process
ends with it (also when the job is stopped), and a job taken over by another studio gets its rule
back, with the steps stored before."""

import json
import os
import signal
import subprocess
import time

import pytest

pytestmark = pytest.mark.integration

RULES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "custom_rules")
HOST_MODULE = b"mlstudio.debugger._rule_host"


def custom_rule(name, source, rule_to_invoke, params=None, actions=("StopTraining",),
                collections=None):
    rule = {"name": name, "source": os.path.join(RULES, source), "rule_to_invoke": rule_to_invoke,
            "rule_parameters": params or {}, "actions": list(actions)}
    if collections:
        rule["collections_to_save"] = collections
    return rule


def write_spec(directory, entry_point, rules, hyperparameters=None, **extra):
    spec = {"name": "custom-rule", "entry_point": entry_point, "source_dir": RULES,
            "instance_count": 1, "hyperparameters": hyperparameters or {}, "rules": rules,
            "disable_profiler": True}
    spec.update(extra)
    path = os.path.join(str(directory), "spec.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    return path


class Job:
    """``mlstudio run SPEC --job-name NAME`` in its own session (killed at teardown if alive)."""

    def __init__(self, cli, home, spec, name, args=("run",)):
        self.cli, self.home, self.name = cli, home, name
        argv = [cli] + list(args) + ([spec, "--job-name", name, "-q"] if spec else [name])
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        universal_newlines=True, start_new_session=True,
                                        env=dict(os.environ, MLSTUDIO_HOME=home))
        self.output = None

    def wait(self, timeout=180):
        try:
            self.output, _ = self.process.communicate(timeout=timeout)
        finally:
            self.kill()
        return self.process.returncode

    def kill(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.output = (self.output or "") + self.process.communicate()[0]

    def kill_studio(self):
        """SIGKILL to the mlstudio process alone, as when a studio crashes: its job goes on."""
        self.process.send_signal(signal.SIGKILL)
        self.output = self.process.communicate()[0]

    def cli_json(self, *args):
        done = subprocess.run([self.cli] + list(args) + ["--json"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=60,
                              env=dict(os.environ, MLSTUDIO_HOME=self.home))
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    def show(self):
        return self.cli_json("show", self.name)

    def rule(self, name):
        found = self.cli_json("findings", self.name)
        rules = {r["rule"]: r for r in found["rules"]}
        assert name in rules, "rule {} not among {}".format(name, sorted(rules))
        return rules[name], [f for f in found["findings"] if f.get("rule") == name]

    def logged_steps(self):
        done = subprocess.run([self.cli, "logs", self.name], stdout=subprocess.PIPE,
                              universal_newlines=True, timeout=60,
                              env=dict(os.environ, MLSTUDIO_HOME=self.home))
        return [int(line.split("step ")[1].split()[0]) for line in done.stdout.splitlines()
                if "<stdout>:step " in line]


def rule_hosts(home):
    """Pids of the rule processes started for jobs of this studio home."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/{}/cmdline".format(pid), "rb") as f:
                if HOST_MODULE not in f.read():
                    continue
            with open("/proc/{}/environ".format(pid), "rb") as f:
                if "MLSTUDIO_HOME={}".format(home).encode() not in f.read().split(b"\0"):
                    continue
        except OSError:  # ended meanwhile, or not ours to read
            continue
        found.append(int(pid))
    return found


def wait_for(predicate, timeout=60.0, what="condition"):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError("timed out after {} s waiting for {}".format(timeout, what))


@pytest.fixture
def jobs(cli_binary, studio_home):
    started = []

    def start(spec, name, args=("run",)):
        started.append(Job(cli_binary, studio_home, spec, name, args))
        return started[-1]

    yield start
    for job in started:
        job.kill()


def test_the_seed_rule_stops_a_script_whose_gradients_grow(jobs, studio_home, tmp_path):
    spec = write_spec(tmp_path, "events_train.py", [custom_rule(
        "grad-rule", "gradient_rule.py", "CustomGradientRule", {"threshold": "20.0"})],
        {"steps": 400, "sleep": 0.05})
    job = jobs(spec, "seed-events")
    hosts = wait_for(lambda: rule_hosts(studio_home), what="the job's rule process")
    assert job.wait() != 0  # exit 0 only if Completed
    shown = job.show()
    assert shown["status"] == "Stopped", job.output
    assert "grad-rule" in json.dumps(shown)  # the reason names the rule
    rule, found = job.rule("grad-rule")
    assert rule["status"] == "IssuesFound"
    assert found[0]["step"] == 5  # abs_mean 25 > 20
    assert "CustomGradientRule: invoke_at_step(5) returned True" in found[0]["message"]
    assert max(job.logged_steps()) < 200  # stopped, not run out
    wait_for(lambda: not any(os.path.exists("/proc/{}".format(p)) for p in hosts), 10,
             "the rule process to end with its job")
    assert rule_hosts(studio_home) == []


@pytest.mark.parametrize("variant", ["explicit", "zero-change"])
def test_the_seed_rule_stops_a_pytorch_script_through_the_hook(jobs, studio_home, tmp_path,
                                                               variant):
    pytest.importorskip("mlstudio.debugger.pytorch")
    gradients = [{"name": "gradients",
                  "parameters": {"save_interval": "1", "reductions": "mean,abs_mean"}}]
    spec = write_spec(tmp_path, "torch_train.py", [custom_rule(
        "grad-rule", "gradient_rule.py", "CustomGradientRule", {"threshold": "10"},
        collections=gradients)],
        {"steps": 300, "hook": "explicit" if variant == "explicit" else "auto"},
        debugger_hook_config={"collection_configs": gradients})
    job = jobs(spec, "seed-hook-" + variant)
    job.wait()
    assert job.show()["status"] == "Stopped", job.output
    rule, found = job.rule("grad-rule")
    assert rule["status"] == "IssuesFound"
    # The gradients grow 1.25x a step and pass 10 near step 28 (torch_train.py).
    assert 20 <= found[0]["step"] <= 35, found[0]
    assert found[0]["message"].startswith("CustomGradientRule: invoke_at_step(")
    assert max(job.logged_steps()) < 150
    assert rule_hosts(studio_home) == []


def test_a_raising_rule_is_error_with_its_traceback(jobs, studio_home, tmp_path):
    spec = write_spec(tmp_path, "events_train.py", [custom_rule(
        "raising", "raising_rule.py", "RaisingRule")], {"steps": 30, "sleep": 0.02})
    job = jobs(spec, "raising-rule")
    assert job.wait() == 0, job.output  # a rule's error does not stop the job
    assert job.show()["status"] == "Completed"
    rule, found = job.rule("raising")
    assert rule["status"] == "Error"
    assert "RaisingRule.invoke_at_step(3) raised:" in rule["message"]
    assert 'raising_rule.py", line 8, in invoke_at_step' in rule["message"]
    assert 'raising_rule.py", line 12, in ratio' in rule["message"]
    assert "ZeroDivisionError: float division by zero" in rule["message"]
    assert found == []
    assert rule_hosts(studio_home) == []


def test_stopping_a_job_ends_its_rule_process(jobs, studio_home, tmp_path):
    spec = write_spec(tmp_path, "events_train.py", [custom_rule(
        "grad-rule", "gradient_rule.py", "CustomGradientRule", {"threshold": "1e9"})],
        {"steps": 2000, "sleep": 0.05})
    job = jobs(spec, "stopped-job")
    hosts = wait_for(lambda: rule_hosts(studio_home), what="the job's rule process")
    wait_for(lambda: len(job.logged_steps()) > 10, what="the job's first steps")
    stop = jobs(None, "stopped-job", args=("stop",))
    assert stop.wait(60) == 0, stop.output
    job.wait()
    assert job.show()["status"] == "Stopped"
    assert job.rule("grad-rule")[0]["status"] == "NoIssuesFound"
    wait_for(lambda: not any(os.path.exists("/proc/{}".format(p)) for p in hosts), 10,
             "the rule process to end with its job")


def test_a_job_taken_over_gets_its_rule_back_with_the_stored_steps(jobs, studio_home, tmp_path):
    spec = write_spec(tmp_path, "events_train.py", [custom_rule(
        "history", "history_rule.py", "HistoryRule", {"from_step": "80"})],
        {"steps": 600, "sleep": 0.05})
    first = jobs(spec, "taken-over")
    old_hosts = wait_for(lambda: rule_hosts(studio_home), what="the job's rule process")
    wait_for(lambda: len(first.logged_steps()) > 30, what="the job's first steps")
    first.kill_studio()
    wait_for(lambda: not any(os.path.exists("/proc/{}".format(p)) for p in old_hosts), 10,
             "the rule process to end with its studio")
    attached = jobs(None, "taken-over", args=("attach",))
    new_hosts = wait_for(lambda: rule_hosts(studio_home), what="the rule process of the takeover")
    assert set(new_hosts).isdisjoint(old_hosts)
    attached.wait()
    assert attached.show()["status"] == "Stopped", attached.output
    rule, found = attached.rule("history")
    assert rule["status"] == "IssuesFound"
    assert found[0]["step"] == 80, found
    assert max(attached.logged_steps()) < 400
    # The new rule process was fed the steps after the takeover (past 30) only, not 0..80: the
    # earlier ones the rule saw at step 80 came from the store.
    with open(os.path.join(studio_home, "jobs", "taken-over", "logs", "rule-history.log")) as f:
        summaries = [line for line in f if "step(s) evaluated" in line]
    evaluated = int(summaries[-1].split(": ")[1].split()[0])
    assert evaluated <= 80 - 20, summaries

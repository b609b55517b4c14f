"""The Debugger hook on real script jobs (tests/data/scripts/hook_train.py, plain PyTorch):
a diverging DDP script with 2 ranks, hooked explicitly and with no change, is stopped by
ExplodingTensor's StopTraining; VanishingGradient and DeadRelu fire on scripts built to make
them fire; the built-in trainer and the same MLP as a script get the same verdicts from the
same rules; a profiled window gives step events, the torch.profiler trace and the operators
facts."""

import json
import os
import signal
import subprocess

import pytest

pytestmark = pytest.mark.integration

REPO = os.environ.get("STUDIO_REPO") or os.path.abspath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
SCRIPTS = os.path.join(REPO, "tests", "data", "scripts")
FASHION_MNIST = "/usr/share/datasets/fashion-mnist"
TWO_RANKS = {"torch_distributed": {"enabled": True},
             "mpi": {"enabled": True, "processes_per_host": 2}}


class Job:
    """``mlstudio run SPEC --job-name NAME``, waited for (its process group killed at the end
    whatever happens)."""

    def __init__(self, cli, home, directory, spec, name):
        self.cli, self.home, self.name = cli, home, name
        path = os.path.join(str(directory), name + ".json")
        with open(path, "w") as f:
            json.dump(spec, f)
        self.process = subprocess.Popen([cli, "run", path, "--job-name", name, "-q"],
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        universal_newlines=True, start_new_session=True,
                                        env=dict(os.environ, MLSTUDIO_HOME=home))
        self.output = ""

    def wait(self, timeout=240):
        try:
            self.output = self.process.communicate(timeout=timeout)[0]
        finally:
            self.kill()
        return self

    def kill(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.output += self.process.communicate()[0]

    def cli_json(self, *args):
        done = subprocess.run([self.cli] + list(args) + ["--json"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, universal_newlines=True, timeout=60,
                              env=dict(os.environ, MLSTUDIO_HOME=self.home))
        assert done.returncode == 0, done.stderr + "\n" + self.output
        return json.loads(done.stdout)

    def status(self):
        return self.cli_json("show", self.name)["status"]

    def verdicts(self):
        found = self.cli_json("findings", self.name)
        return {r["rule"]: r["status"] for r in found["rules"]}, found["findings"]

    def last_logged_step(self):
        done = subprocess.run([self.cli, "logs", self.name], stdout=subprocess.PIPE,
                              universal_newlines=True, timeout=60,
                              env=dict(os.environ, MLSTUDIO_HOME=self.home))
        steps = [int(line.split("step ")[1].split()[0]) for line in done.stdout.splitlines()
                 if "<stdout>:step " in line]
        return max(steps) if steps else -1


@pytest.fixture
def run_job(cli_binary, studio_home, tmp_path):
    started = []

    def run(spec, name):
        started.append(Job(cli_binary, studio_home, tmp_path, spec, name))
        return started[-1].wait()

    yield run
    for job in started:
        job.kill()


def script_spec(hyperparameters, rules, collections=None, **extra):
    spec = {"name": "hook", "entry_point": "hook_train.py", "source_dir": SCRIPTS,
            "instance_count": 1, "hyperparameters": hyperparameters, "rules": rules,
            "disable_profiler": True,
            "debugger_hook_config": {"collection_configs": collections or []}}
    spec.update(extra)
    return spec


# Collections the spec knows by name only through the rules that read them.
REGEX = {"relu_output": ".*relu_output", "relu_input": ".*relu_input"}


def every(interval, *names, **parameters):
    out = []
    for n in names:
        p = dict({"save_interval": str(interval)}, **parameters)
        if n in REGEX:
            p["include_regex"] = REGEX[n]
        out.append({"name": n, "parameters": p})
    return out


@pytest.mark.parametrize("hook", ["explicit", "auto"])
def test_exploding_tensor_stops_a_diverging_ddp_script(run_job, hook):
    job = run_job(script_spec(
        {"hook": hook, "lr": 1e4, "steps": 400, "sleep": 0.02},
        [{"name": "ExplodingTensor", "actions": ["StopTraining"]}],
        every(1, "losses") + every(5, "gradients"), distribution=TWO_RANKS),
        "exploding-" + hook)
    assert job.status() == "Stopped", job.output
    verdicts, findings = job.verdicts()
    assert verdicts["ExplodingTensor"] == "IssuesFound"
    first = [f for f in findings if f["rule"] == "ExplodingTensor"][0]
    assert first["step"] <= 20, first  # the loss turns NaN within a few steps at lr 1e4
    assert job.last_logged_step() < 399  # stopped, not run out


def test_vanishing_gradient_fires_on_a_deep_sigmoid_script(run_job):
    job = run_job(script_spec(
        {"model": "deep-sigmoid", "steps": 12},
        [{"name": "VanishingGradient"}, {"name": "ExplodingTensor"}],
        every(5, "gradients")), "vanishing")
    assert job.status() == "Completed", job.output
    verdicts, findings = job.verdicts()
    assert verdicts["VanishingGradient"] == "IssuesFound"
    assert verdicts["ExplodingTensor"] == "NoIssuesFound"
    message = [f for f in findings if f["rule"] == "VanishingGradient"][0]["message"]
    assert "gradient/0.weight" in message  # the first layer's, the smallest


def test_dead_relu_fires_on_a_script_with_dead_units(run_job):
    job = run_job(script_spec(
        {"model": "dead-relu", "hook": "explicit", "steps": 12},
        [{"name": "DeadRelu"}], every(5, "relu_output")), "dead-relu")
    assert job.status() == "Completed", job.output
    verdicts, findings = job.verdicts()
    assert verdicts["DeadRelu"] == "IssuesFound"
    message = [f for f in findings if f["rule"] == "DeadRelu"][0]["message"]
    assert "0_relu_output" in message and "2_relu_output" in message


RULES = [{"name": "ExplodingTensor"}, {"name": "VanishingGradient"}, {"name": "DeadRelu"},
         {"name": "PoorWeightInitialization"}, {"name": "WeightUpdateRatio"}]


@pytest.mark.parametrize("lr,tag", [(0.05, "healthy"), (1e4, "diverging")])
def test_the_built_in_trainer_and_a_script_get_the_same_verdicts(run_job, lr, tag):
    if not os.path.isdir(FASHION_MNIST):
        pytest.skip(FASHION_MNIST + " is not installed")
    collections = every(5, "gradients", "weights", "relu_output", "relu_input") + every(
        1, "losses")
    common = {"lr": lr, "batch-size": 64}
    builtin = run_job({
        "name": "builtin", "entry_point": "builtin:mlp", "instance_count": 1,
        "inputs": {"train": FASHION_MNIST}, "disable_profiler": True, "rules": RULES,
        "hyperparameters": dict(common, **{"max-steps": 30, "hidden": 64, "depth": 2,
                                           "momentum": 0.9, "lr-scaling": "none"}),
        "debugger_hook_config": {"collection_configs": collections}}, "builtin-" + tag)
    script = run_job(script_spec(
        dict(common, steps=30, data="fashion-mnist", hidden=64, depth=2), RULES, collections,
        inputs={"train": FASHION_MNIST}), "script-" + tag)
    assert builtin.status() == "Completed", builtin.output
    assert script.status() == "Completed", script.output
    expected, _ = builtin.verdicts()
    got, _ = script.verdicts()
    assert got == expected
    assert set(expected.values()) <= {"IssuesFound", "NoIssuesFound"}  # every rule had data
    assert expected["ExplodingTensor"] == ("IssuesFound" if lr > 1 else "NoIssuesFound")


def test_a_profiled_window_gives_steps_a_trace_and_operators(run_job, studio_home, tmp_path):
    job = run_job(script_spec(
        {"steps": 10}, [{"name": "StepOutlier"}], disable_profiler=False,
        distribution=TWO_RANKS,
        profiler_config={"framework_profile_params": {"start_step": 2, "num_steps": 3}}),
        "profiled")
    assert job.status() == "Completed", job.output
    steps = job.cli_json("steps", job.name)
    text = json.dumps(steps)
    assert '"forward"' in text and '"dataloader"' in text, text[:2000]
    debug_output = os.path.join(studio_home, "jobs", job.name, "debug-output")
    traces = sorted(os.listdir(os.path.join(debug_output, "framework", "pytorch_profiler")))
    assert traces == ["rank0-steps2-4.json", "rank1-steps2-4.json"]
    # The ranks' operators facts reach the store: the profiler report lists the top ones.
    done = subprocess.run([job.cli, "report", job.name, "--out", str(tmp_path)],
                          stdout=subprocess.PIPE, universal_newlines=True, timeout=120,
                          env=dict(os.environ, MLSTUDIO_HOME=studio_home), check=True)
    with open(done.stdout.strip().splitlines()[-1]) as f:
        html = f.read()
    assert "Top operators, steps 2 to 4 (torch.profiler)" in html
    assert "aten::addmm" in html and "framework/pytorch_profiler/rank" in html
    verdicts, _ = job.verdicts()
    assert verdicts["StepOutlier"] not in ("NotApplicable", "Error")

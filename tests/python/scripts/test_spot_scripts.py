"""A bring-your-own script as a managed spot job: the seeded simulated market interrupts it twice;
each time mlstudio.spot tells the loop, which saves a checkpoint with mlstudio.checkpoints and
leaves with spot.exit(); each next attempt resumes from checkpoints.latest(). The job completes
with every step's metrics stored exactly once, its running sum never broken (no step lost or
computed twice into the state), and no step counted as lost."""

import json
import math
import subprocess
import textwrap

import pytest

from mlstudio import _cli

pytestmark = pytest.mark.integration

STEPS = 400  # 20 ms each: 8 s of work, more than the two attempts the market interrupts
RATE_PER_HOUR = 600

SCRIPT = textwrap.dedent(
    """
    import json, time
    import mlstudio
    from mlstudio import checkpoints, spot

    start, total = 0, 0
    last = checkpoints.latest()
    if last is not None:
        start, total = last.step + 1, json.loads(checkpoints.load(raw=True))["total"]
        print("resumed from the checkpoint at step %d" % last.step, flush=True)
    for step in range(start, {steps}):
        time.sleep(0.02)
        total += step
        mlstudio.log({{"loss": 1.0 / (step + 1), "total": total}}, step=step)
        if step % 25 == 0 or spot.interrupted():
            checkpoints.save(json.dumps({{"total": total}}).encode(), step)
        if spot.interrupted():
            print("interrupted after step %d" % step, flush=True)
            spot.exit()
    print("final total %d" % total, flush=True)
    """
).format(steps=STEPS)

_MASK = (1 << 64) - 1


def _mix64(x):
    # engine/digest/mix64.h (SplitMix64's finaliser), so the test picks its seed as the
    # controller's SimulatedMarket will draw from it.
    x = (x + 0x9E3779B97F4A7C15) & _MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _MASK
    return x ^ (x >> 31)


def interruption_delay(seed, attempt, rate=RATE_PER_HOUR):
    """engine/spot/interruption_source.cpp's SimulatedMarket::interruptionDelay."""
    bits = _mix64(_mix64(seed) ^ _mix64((attempt * 2) & _MASK))
    uniform = ((bits >> 11) + 0.5) / 9007199254740992.0
    return -math.log(uniform) * 3600.0 / rate


def seed_interrupting_twice():
    """A seed whose first two attempts are interrupted 3-4.5 s after their ranks start (the
    script is well into its loop, far from done) and whose third runs 30 s undisturbed."""
    for seed in range(1, 100000):
        d = [interruption_delay(seed, a) for a in (1, 2, 3)]
        if 3.0 <= d[0] <= 4.5 and 3.0 <= d[1] <= 4.5 and d[2] >= 30:
            return seed
    raise AssertionError("no seed interrupts twice")


def test_a_script_interrupted_twice_resumes_with_no_step_lost(cli_binary, studio_home, workdir):
    (workdir / "train.py").write_text(SCRIPT)
    spec = {
        "name": "spot-script",
        "entry_point": "train.py",
        "source_dir": ".",
        "instance_type": "ml.m5.large",
        "use_spot_instances": True,
        "max_run": 600,
        "max_wait": 900,
        "spot_simulation": {
            "interruptions_per_hour": RATE_PER_HOUR,
            "mean_capacity_wait_s": 1,
            "seed": seed_interrupting_twice(),
        },
        "disable_profiler": True,
        "debugger_hook_config": False,
    }
    (workdir / "spec.json").write_text(json.dumps(spec))
    done = subprocess.run(
        [cli_binary, "run", "--quiet", "--job-name", "spot-script-1", "spec.json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
        timeout=300,
    )
    logs = _cli.cli_run("logs", "spot-script-1").stdout
    show = _cli.cli_json("show", "spot-script-1", "--json")
    assert show["status"] == "Completed", (done.stdout, logs)

    billing = show["billing"]
    assert (billing["interruptions"], billing["attempts"]) == (2, 3), logs
    assert billing["lost_steps"] == 0, logs
    assert logs.count("interrupted after step") == 2, logs
    assert logs.count("resumed from the checkpoint at step") == 2, logs
    assert "final total %d" % (STEPS * (STEPS - 1) // 2) in logs

    for name in ("loss", "total"):
        points = json.loads(_cli.cli_run("metrics", "spot-script-1", name, "--json").stdout)
        assert sorted(p["step"] for p in points) == list(range(STEPS)), name
    totals = json.loads(_cli.cli_run("metrics", "spot-script-1", "total", "--json").stdout)
    assert all(p["value"] == p["step"] * (p["step"] + 1) // 2 for p in totals)
    saved = {c["step"] for c in show["checkpoints"]}
    interrupted_at = [int(line.rsplit(" ", 1)[1]) for line in logs.splitlines()
                      if "interrupted after step" in line]  # fmt: skip
    assert set(interrupted_at) <= saved and 0 in saved, (interrupted_at, saved)

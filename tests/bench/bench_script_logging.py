#!/usr/bin/env python3
"""bench_script_logging: metric points from a script into the store, against MLflow and W&B.

Ours: a one-rank script job (tests/bench/python/logging_rank.py) logs STEPS steps of {"loss",
"acc"} with mlstudio.log as fast as it can; the figure is points / (the moment the store holds
them all - the moment the rank logged the first), the job's start-up apart. The bench watches
the store's database read-only for the count. The rank's events buffer is sized to hold the
whole burst (STUDIO_EVENTS_BUFFER), so that no point is dropped and the figure is the pipeline's
rate (rank's writer thread, pipe, launcher, controller, SQLite), not the rate of the points
that fit. The rank also measures its loop: points / loop seconds is the rate into its buffer
(its writer thread formatting lines meanwhile, as in a real loop); the details keep when the
rank's pipe had taken every line (rank_written_s), to tell the rank's share from the studio's.

Anchors (tests/bench/python/logging_anchor.py, in the tools venv): the same points, one call a
step, through mlflow.log_metrics into a local file store and into a SQLite store, and through
wandb.log in offline mode; seconds from the first point to all stored (wandb: finish()
returned), their run's start-up apart. Each side's runs alternate with the others' (rounds in
alternating order); the best round is the figure, the median is in the details.

  bench_script_logging.py [--quick] [--json FILE] [ROUNDS]

Environment: MLSTUDIO_CLI (the built mlstudio; default build/bin/mlstudio of this tree),
STUDIO_TOOLS_PYTHON (default build/pytools/bin/python). --quick (ctest) runs small counts
once; it fails only when a check fails (points lost, a side that gave no result), never on a
time.
"""

import json
import os
import platform
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ANCHORS = ("mlflow-file", "mlflow-sqlite", "wandb")
# Steps per run (2 points each): sized so every side runs for seconds in full mode.
FULL_STEPS = {"ours": 500000, "mlflow-file": 5000, "mlflow-sqlite": 300, "wandb": 20000}
QUICK_STEPS = {"ours": 5000, "mlflow-file": 100, "mlflow-sqlite": 20, "wandb": 500}
BUFFER_GOAL = 1_000_000.0  # points/s into the rank's buffer
RATIO_GOAL = 10.0  # ours / each anchor, points/s into the store

STORED_POINTS_SQL = (
    "SELECT COUNT(*) FROM metric_points p JOIN metric_series s ON s.id = p.series_id "
    "JOIN trial_components c ON c.id = s.component_id WHERE c.name = ?"
)


def stored_points(db, job):
    """Points of the job in the store now (0 while the database or the job is not there)."""
    if not os.path.exists(db):
        return 0
    try:
        with sqlite3.connect("file:{}?mode=ro".format(db), uri=True, timeout=1) as conn:
            return conn.execute(STORED_POINTS_SQL, (job,)).fetchone()[0]
    except sqlite3.OperationalError:
        return 0  # created or locked at this moment: look again


def run_ours(cli, steps, folder, name):
    """One job: {"buffer_rate", "store_rate", "seconds", "stored", "dropped"}."""
    home = os.path.join(folder, "home")
    os.makedirs(home, mode=0o700, exist_ok=True)
    source = os.path.join(folder, "src")
    os.makedirs(source, exist_ok=True)
    shutil.copy(os.path.join(HERE, "python", "logging_rank.py"), source)
    mark = os.path.join(folder, name + ".json")
    spec = {
        "name": "bench-logging",
        "entry_point": "logging_rank.py",
        "source_dir": source,
        "instance_type": "local",
        "environment": {"LOG_STEPS": str(steps), "LOG_MARK_FILE": mark,
                        "STUDIO_EVENTS_BUFFER": str(steps + 64)},  # fmt: skip
        "disable_profiler": True,
        "debugger_hook_config": False,
    }
    spec_path = os.path.join(folder, name + "-spec.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    env = dict(os.environ, MLSTUDIO_HOME=home)
    db = os.path.join(home, "studio.db")
    points = 2 * steps
    job = subprocess.Popen([cli, "run", "--quiet", "--job-name", name, spec_path], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)  # fmt: skip
    try:
        stored_at, count = None, 0
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            count = stored_points(db, name)
            if count >= points:
                stored_at = time.time()
                break
            if job.poll() is not None and stored_points(db, name) == count:
                break  # the job ended short of the points: a failed check below
            time.sleep(0.005)
        output = job.communicate(timeout=300)[0].decode("utf-8", "replace")
    finally:
        if job.poll() is None:
            job.kill()
            job.wait()
    if not os.path.exists(mark):
        return {"error": "the rank wrote no measurements; mlstudio run said:\n" + output[-2000:]}
    with open(mark) as f:
        rank = json.load(f)
    result = {"stored": count, "points": points, "dropped": rank["dropped"],
              "buffer_rate": points / rank["loop_s"], "loop_s": rank["loop_s"],
              "rank_written_s": rank["loop_s"] + rank["flush_s"]}  # fmt: skip
    if stored_at is not None:
        result["seconds"] = stored_at - rank["first"]
        result["store_rate"] = points / result["seconds"]
    return result


def run_anchor(python, side, steps, folder):
    """One anchor run: logging_anchor.py's object plus "store_rate", or {"error": ...}."""
    work = tempfile.mkdtemp(prefix=side + "-", dir=folder)
    done = subprocess.run(
        [python, os.path.join(HERE, "python", "logging_anchor.py"), side, str(steps), work],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=900,
        cwd=work)  # fmt: skip
    if done.returncode != 0:
        return {"error": "logging_anchor.py {} exited {}: {}".format(
            side, done.returncode, done.stderr.strip()[-1500:])}  # fmt: skip
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["store_rate"] = result["points"] / result["seconds"]
    return result


def summary(values):
    return {"n": len(values), "best": max(values), "median": statistics.median(values),
            "min": min(values), "max": max(values)} if values else None  # fmt: skip


def figure(name, ours, anchor=None, anchor_name=None, goal=None, note=None):
    f = {"figure": name, "unit": "points/s", "ours": ours}
    if anchor is not None:
        f["anchor"] = anchor
        f["anchor_name"] = anchor_name
        f["ratio"] = ours / anchor
    if goal is not None:
        on, bound = goal
        value = f.get("ratio") if on == "ratio" else ours
        f["goal"] = {"on": on, "at_least": bound}
        f["met"] = value is not None and value >= bound
    if note:
        f["note"] = note
    return f


def anchor_records(python, results):
    """The anchors' records: what ran, its version, the conditions."""
    versions = {side: next((r["version"] for r in runs if "version" in r), "?")
                for side, runs in results.items() if side != "ours"}  # fmt: skip
    work = "one call a step of {loss, acc} (2 points), one run, one process"
    return [
        {"name": "mlflow-file", "what": "mlflow.log_metrics into a local file store ("
         "MLFLOW_ALLOW_FILE_STORE=true), synchronous as by default, in " + python,
         "version": "mlflow-skinny " + versions.get("mlflow-file", "?"), "work": work},
        {"name": "mlflow-sqlite", "what": "mlflow.log_metrics into a SQLite store "
         "(sqlite:///), synchronous as by default, in " + python,
         "version": "mlflow-skinny " + versions.get("mlflow-sqlite", "?"), "work": work},
        {"name": "wandb", "what": "wandb.log in offline mode (WANDB_MODE=offline), until "
         "finish() returns, in " + python,
         "version": "wandb " + versions.get("wandb", "?"), "work": work},
    ]  # fmt: skip


def measure(cli, python, steps, rounds, folder):
    """{side: [result of each round]}; rounds alternate the order of the sides."""
    sides = ["ours"] + list(ANCHORS)
    results = {side: [] for side in sides}
    for r in range(rounds):
        for side in sides if r % 2 == 0 else reversed(sides):
            if side == "ours":
                results[side].append(run_ours(cli, steps[side], folder, "bench-logging-%d" % r))
            else:
                results[side].append(run_anchor(python, side, steps[side], folder))
    return results


def report_of(results, python, quick, steps):
    checks, figures, details = [], [], {"steps": steps, "runs": results}
    ours = [r for r in results["ours"] if "error" not in r]
    for i, r in enumerate(results["ours"]):
        ok = "error" not in r and r["stored"] == r["points"] and r["dropped"] == 0
        checks.append({"check": "round %d: every one of our %d points stored, none dropped"
                       % (i, 2 * steps["ours"]), "ok": ok})  # fmt: skip
    for side in ANCHORS:
        for i, r in enumerate(results[side]):
            ok = "error" not in r and r.get("read_back", r["points"]) == r["points"]
            checks.append({"check": "round %d: %s logged and stored every point" % (i, side),
                           "ok": ok})  # fmt: skip
    buffer_rates = [r["buffer_rate"] for r in ours]
    store_rates = [r["store_rate"] for r in ours if "store_rate" in r]
    if buffer_rates:
        figures.append(figure("points/s into the rank's buffer (mlstudio.log, 2 points a call)",
                              max(buffer_rates), goal=("value", BUFFER_GOAL)))  # fmt: skip
    for side in ANCHORS:
        rates = [r["store_rate"] for r in results[side] if "store_rate" in r]
        if store_rates and rates:
            figures.append(figure(
                "points/s into the store from one rank, against " + side, max(store_rates),
                max(rates), side, ("ratio", RATIO_GOAL)))  # fmt: skip
    details["ours_store_rate"] = summary(store_rates)
    details["ours_buffer_rate"] = summary(buffer_rates)
    for side in ANCHORS:
        details[side + "_store_rate"] = summary(
            [r["store_rate"] for r in results[side] if "store_rate" in r])
    details["conditions"] = (
        "ours: a one-rank script job of the built mlstudio, its events buffer sized to the "
        "burst; the rank and the anchors run /usr/bin/python3 and {} on the same machine, one "
        "at a time; python {}").format(python, platform.python_version())
    report = {"bench": "bench_script_logging", "mode": "quick" if quick else "full",
              "anchors": anchor_records(python, results), "figures": figures,
              "checks": checks, "details": details}  # fmt: skip
    if quick:
        report["timings"] = "quick mode: a correctness run; its timings mean nothing"
    report["ok"] = all(c["ok"] for c in checks)
    return report


def main(argv):
    quick = "--quick" in argv
    json_path = argv[argv.index("--json") + 1] if "--json" in argv else None
    own = [a for i, a in enumerate(argv) if not a.startswith("--") and
           (i == 0 or argv[i - 1] != "--json")]  # fmt: skip
    rounds = int(own[0]) if own else (1 if quick else 3)
    cli = os.environ.get("MLSTUDIO_CLI") or os.path.join(REPO, "build", "bin", "mlstudio")
    python = os.environ.get("STUDIO_TOOLS_PYTHON") or os.path.join(
        REPO, "build", "pytools", "bin", "python")
    steps = QUICK_STEPS if quick else FULL_STEPS
    folder = tempfile.mkdtemp(prefix="bench-logging-")
    try:
        results = measure(cli, python, steps, rounds, folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    report = report_of(results, python, quick, steps)
    text = json.dumps(report, indent=2)
    print(text)
    for c in report["checks"]:
        if not c["ok"]:
            sys.stderr.write("bench_script_logging: check failed: {}\n".format(c["check"]))
    if json_path:
        with open(json_path, "w") as f:
            f.write(text + "\n")
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

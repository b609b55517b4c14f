"""Logging from a script job's ranks, through the real launcher and controller: mlstudio.log and
load_run().log_metric from 2 ranks store every point once with its rank; parameters and
artifacts (log_file's copy in the output folder) reach the job's record; every rank's
provenance (interpreter, packages, environment names only, torch) and its logging counts are
stored as facts; nothing in the spec sets PYTHONPATH: the launcher gives ranks the package."""

import json
import os
import sqlite3
import subprocess
import textwrap

import pytest

from mlstudio import _cli

pytestmark = pytest.mark.integration

STEPS = 50
RUN_STEPS = 20

SCRIPT = textwrap.dedent(
    """
    import os
    import mlstudio
    from mlstudio.experiments import load_run

    rank = int(os.environ["RANK"])
    for i in range({steps}):
        mlstudio.log({{"loss": 1.0 / (i + 1) + rank, "acc": i / 100.0}}, step=i)
    # Each rank its own file: both ranks run in the same folder.
    with open("notes-%d.txt" % rank, "w") as f:
        f.write("rank %d" % rank)
    with load_run() as run:
        run.log_parameters({{"lr": 0.05, "optimizer": "adam"}})
        for i in range({run_steps}):
            run.log_metric(name="train:loss", value=float(i * 10 + rank), step=i)
        run.log_artifact("dataset", "s3://bucket/fmnist", media_type="s3/uri", is_output=False)
        if rank == 0:
            run.log_file("notes-0.txt", name="notes")
    import torch  # after the points: provenance's second event names torch
    print("rank %d logged" % rank, flush=True)
    """
).format(steps=STEPS, run_steps=RUN_STEPS)


def run_job(cli, spec_path, name):
    done = subprocess.run(
        [cli, "run", "--quiet", "--job-name", name, str(spec_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
        timeout=300,
    )
    show = _cli.cli_json("show", name, "--json")
    assert show["status"] == "Completed", (done.stdout, _cli.cli_run("logs", name).stdout)
    return show


def metric_points(job, name):
    return json.loads(_cli.cli_run("metrics", job, name, "--json").stdout)


def logging_facts(home, job):
    """{rank: body} of the "logging" facts the job's ranks sent (kept in the store; `show`
    prints only the provenance ones, under what_ran)."""
    db = "file:{}?mode=ro".format(os.path.join(home, "studio.db"))
    with sqlite3.connect(db, uri=True) as conn:
        rows = conn.execute(
            "SELECT f.rank, f.body FROM component_facts f JOIN trial_components c "
            "ON c.id = f.component_id WHERE c.name = ? AND f.topic = 'logging'",
            (job,),
        ).fetchall()
    return {rank: json.loads(body) for rank, body in rows}


@pytest.fixture
def logged_job(cli_binary, studio_home, workdir):
    (workdir / "train.py").write_text(SCRIPT)
    spec = {
        "name": "script-logging",
        "entry_point": "train.py",
        "source_dir": ".",
        "instance_type": "local",
        "instance_count": 1,
        "hyperparameters": {"epochs": 1},
        "distribution": {
            "torch_distributed": {"enabled": True},
            "mpi": {"enabled": True, "processes_per_host": 2},
        },
        "environment": {"STUDIO_TEST_SECRET": "value-never-stored"},
    }
    path = workdir / "spec.json"
    path.write_text(json.dumps(spec))
    return run_job(cli_binary, path, "script-logging-1")


def test_every_point_of_two_ranks_is_stored_once_with_its_rank(logged_job):
    for name, steps in (("loss", STEPS), ("acc", STEPS), ("train:loss", RUN_STEPS)):
        points = metric_points("script-logging-1", name)
        keys = [(p["rank"], p["step"]) for p in points]
        assert sorted(keys) == [(r, s) for r in (0, 1) for s in range(steps)], name
    loss = {(p["rank"], p["step"]): p["value"] for p in metric_points("script-logging-1", "loss")}
    assert loss[(0, 0)] == 1.0 and loss[(1, 3)] == pytest.approx(1.25)
    run_loss = metric_points("script-logging-1", "train:loss")
    assert {(p["rank"], p["step"], p["value"]) for p in run_loss} >= {(0, 19, 190.0), (1, 2, 21.0)}


def test_parameters_and_artifacts_reach_the_jobs_record(logged_job):
    params = logged_job["parameters"]
    assert params["lr"] == 0.05 and params["optimizer"] == "adam"
    assert params["epochs"] in (1, "1", 1.0)  # the hyperparameter is still there
    artifacts = {a["name"]: a for a in logged_job["artifacts"]}
    assert (artifacts["dataset"]["kind"], artifacts["dataset"]["value"]) == ("input", "s3://bucket/fmnist")
    assert artifacts["dataset"]["media_type"] == "s3/uri"
    notes = artifacts["notes"]
    assert notes["kind"] == "output" and notes["media_type"] == "text/plain"
    assert notes["value"].startswith(logged_job["job_dir"])
    with open(notes["value"]) as f:
        assert f.read() == "rank 0"


def test_every_rank_records_what_ran_and_its_logging(logged_job, studio_home):
    provenance = {r["rank"]: r for r in logged_job["what_ran"]["ranks"]}
    assert sorted(provenance) == [0, 1]
    import torch

    for rank, body in provenance.items():
        assert body["executable"] and body["packages"].get("torch") is not None, rank
        assert "STUDIO_TEST_SECRET" in body["env_names"] and "RANK" in body["env_names"]
        assert body["torch"] == torch.__version__
    assert "value-never-stored" not in json.dumps(logged_job["what_ran"])
    logging = logging_facts(studio_home, "script-logging-1")
    assert sorted(logging) == [0, 1]
    assert all(body["dropped"] == 0 and body["invalid"] == 0 for body in logging.values())
    assert all(body["written"] >= 2 * STEPS + RUN_STEPS for body in logging.values())

"""What ran, through real jobs: two runs of a script from a git work tree, the second with one
line of one file edited: `mlstudio diff` names that file and that line (and the changed
hyperparameter), and nothing else of the code; `show --json` carries the record (git commit,
branch, dirty diff, tree hash, each rank's interpreter and torch) with environment variable
names but not their values; the copy of the source is in the job's folder."""

import json
import os
import subprocess
import textwrap
import warnings

import pytest

from mlstudio import _cli

pytestmark = pytest.mark.integration

TRAIN = textwrap.dedent(
    """
    import torch
    import mlstudio

    LR = 0.05
    model = torch.nn.Linear(4, 1)
    for step in range(5):
        loss = model(torch.ones(2, 4)).pow(2).mean()
        mlstudio.log({"train:loss": loss.item() * LR}, step=step)
    """
)
UTIL = "def helper():\n    return 1\n"
SECRET = "s3cr3t-value-never-stored"


def git(repo, *args):
    subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@localhost"] + list(args),
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def run(cli, spec, name, lr):
    done = subprocess.run(
        [cli, "run", "--quiet", "--job-name", name, "--set", "hyperparameters.lr=" + lr, str(spec)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        universal_newlines=True,
        timeout=300,
    )
    show = _cli.cli_json("show", name, "--json")
    assert show["status"] == "Completed", done.stdout
    return show


@pytest.fixture
def two_jobs(cli_binary, studio_home, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "train.py").write_text(TRAIN)
    (repo / "util.py").write_text(UTIL)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "first")
    spec = tmp_path / "spec.json"
    spec.write_text(
        json.dumps(
            {
                "entry_point": "train.py",
                "source_dir": str(repo),
                "hyperparameters": {"lr": 0.05},
                "environment": {"RUN_MODE": SECRET},
            }
        )
    )
    first = run(cli_binary, spec, "what-ran-a", "0.05")
    (repo / "train.py").write_text(TRAIN.replace("LR = 0.05", "LR = 0.5"))
    second = run(cli_binary, spec, "what-ran-b", "0.5")
    return repo, first, second


def test_diff_names_the_edited_file_and_line(two_jobs, cli_binary):
    text = _cli.cli_run("diff", "what-ran-a", "what-ran-b").stdout
    assert "train.py" in text
    assert "-LR = 0.05" in text and "+LR = 0.5" in text
    assert "util.py" not in text
    assert "lr: 0.05 -> 0.5" in text
    assert "(clean) -> " in text and "(uncommitted changes)" in text
    data = _cli.cli_json("diff", "what-ran-a", "what-ran-b", "--json")
    code = [d for d in data["differences"] if d["section"] == "code" and d["name"] == "train.py"]
    assert len(code) == 1 and "+LR = 0.5" in code[0]["diff"]
    same = _cli.cli_json("diff", "what-ran-a", "what-ran-a", "--json")
    assert same["same"] is True and same["differences"] == []
    # The SDK says the same, from a notebook or a script.
    import mlstudio
    from mlstudio.estimator import Estimator

    assert mlstudio.diff("what-ran-a", "what-ran-b")["differences"] == data["differences"]
    with warnings.catch_warnings():  # attach says the relative script is not in this folder
        warnings.simplefilter("ignore")
        job = Estimator.attach("what-ran-b").latest_training_job
    assert job.what_ran()["source"]["entry_point"] == "train.py"
    assert job.diff("what-ran-b")["same"] is True


def test_show_records_what_ran_with_names_never_values(two_jobs, studio_home):
    repo, first, second = two_jobs
    head = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "HEAD"], stdout=subprocess.PIPE,
        universal_newlines=True, check=True,
    ).stdout.strip()
    source = second["what_ran"]["source"]
    assert source["entry_point"] == "train.py"
    assert source["git"]["commit"] == head and source["git"]["branch"] == "main"
    assert source["git"]["dirty"] is True and "+LR = 0.5" in source["git"]["diff"]
    assert first["what_ran"]["source"]["git"]["dirty"] is False
    assert len(source["tree_hash"]) == 64
    assert source["tree_hash"] != first["what_ran"]["source"]["tree_hash"]
    assert "RUN_MODE" in source["environment_names"]
    ranks = second["what_ran"]["ranks"]
    assert [r["rank"] for r in ranks] == [0]
    assert ranks[0]["python"] and ranks[0]["torch"].startswith(("1.", "2."))
    assert "torch" in {name.lower() for name in ranks[0]["packages"]}
    assert "RUN_MODE" in ranks[0]["env_names"]
    folder = os.path.join(os.environ["MLSTUDIO_HOME"], "jobs", "what-ran-b")
    with open(os.path.join(folder, "source", "train.py")) as f:
        assert "LR = 0.5" in f.read()
    # The record names the job's environment variables; their values stay in the spec only.
    assert SECRET not in json.dumps(second["what_ran"])

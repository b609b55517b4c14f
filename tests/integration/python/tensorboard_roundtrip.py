"""TensorBoard in and out, checked by the real TensorBoard package.

1. Runs written by TensorBoard's own writer (legacy simple_value and the tensor form, hparams
   from the HParams plugin's summary) import with the same values, steps, wall times, hparams.
2. A native job (a script printing metrics, run by `mlstudio run`) exports; TensorBoard's
   loaders read exactly the job's stored metrics and hyperparameters.
3. Export -> import is lossless (values as float32).
4. A truncated and a corrupt file import up to the bad record with a warning naming the file
   and the byte offset.
Usage: tensorboard_roundtrip.py MLSTUDIO  (run by ctest with the build's tools Python)
"""
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

from tensorboard.backend.event_processing import event_accumulator
from tensorboard.compat.proto import event_pb2, summary_pb2
from tensorboard.plugins.hparams import metadata as hp_metadata
from tensorboard.plugins.hparams import summary_v2 as hp
from tensorboard.summary.writer.event_file_writer import EventFileWriter
from tensorboard.util import tensor_util

MLSTUDIO = sys.argv[1]


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def cli(*args, check=True):
    r = subprocess.run([MLSTUDIO, *args], capture_output=True, text=True, timeout=300)
    if check and r.returncode != 0:
        raise AssertionError(f"mlstudio {' '.join(args)}: exit {r.returncode}\n{r.stdout}\n{r.stderr}")
    return r


def metrics(job, name):
    return json.loads(cli("metrics", job, name, "--json").stdout)


def write_tb_runs(logdir):
    """Two runs as TensorBoard's writer leaves them; returns the expected points."""
    expected = {}
    for run, lr in (("baseline", 0.1), ("tuned", 0.01)):
        w = EventFileWriter(os.path.join(logdir, run))
        w.add_event(event_pb2.Event(wall_time=1700000000.0, summary=hp.hparams_pb(
            {"lr": lr, "optimizer": "sgd", "nesterov": True}, start_time_secs=1700000000)))
        points = []
        for step in range(50):
            t = 1700000001.0 + step
            loss = 1.0 / (step + 1) + lr
            # Legacy form for the loss, TF2 tensor form (metadata on the first value) for acc.
            w.add_event(event_pb2.Event(wall_time=t, step=step, summary=summary_pb2.Summary(
                value=[summary_pb2.Summary.Value(tag="loss", simple_value=loss)])))
            value = summary_pb2.Summary.Value(tag="acc", tensor=tensor_util.make_tensor_proto(
                step / 50.0, dtype="float32"))
            if step == 0:
                value.metadata.plugin_data.plugin_name = "scalars"
            w.add_event(event_pb2.Event(wall_time=t, step=step,
                                        summary=summary_pb2.Summary(value=[value])))
            points.append((step, t, f32(loss), f32(step / 50.0)))
        w.close()
        expected[run] = (lr, points)
    return expected


def check_import_of_tensorboard_files(work):
    logdir = os.path.join(work, "tb-written")
    expected = write_tb_runs(logdir)
    out = json.loads(cli("import", "--tensorboard", logdir, "--experiment", "from-tb",
                         "--json").stdout)
    assert sorted(out["jobs"]) == ["baseline", "tuned"], out
    assert out["points"] == 200 and out["warnings"] == [], out
    for run, (lr, points) in expected.items():
        loss, acc = metrics(run, "loss"), metrics(run, "acc")
        assert [(p["step"], p["time"], p["value"]) for p in loss] == \
            [(s, t, l) for s, t, l, _ in points], run
        assert [(p["step"], p["value"]) for p in acc] == [(s, a) for s, _, _, a in points], run
        show = json.loads(cli("show", run, "--json").stdout)
        assert show["status"] == "Imported", show["status"]
        params = show["parameters"]
        assert float(params["lr"]) == lr and params["optimizer"] == "sgd" and \
            params["nesterov"] == "true", params
    listed = json.loads(cli("list", "--json", "--experiment", "from-tb").stdout)
    assert sorted((j["name"], j["status"]) for j in listed) == \
        [("baseline", "Imported"), ("tuned", "Imported")], listed
    # A name already taken: refused, unless --rename.
    r = cli("import", "--tensorboard", logdir, check=False)
    assert r.returncode != 0 and "baseline" in r.stderr, r.stderr
    out = json.loads(cli("import", "--tensorboard", logdir, "--rename", "--json").stdout)
    assert sorted(out["jobs"]) == ["baseline-2", "tuned-2"], out
    print("import of TensorBoard's files: ok")


SCRIPT = """
import json, os, sys, time
hp = json.loads(os.environ["SM_HPS"])
for step in range(30):
    print(f"step={step} loss={1.0 / (step + 1) * float(hp['scale']):.6f} acc={step / 30:.6f}",
          flush=True)
"""


def run_native_job(work):
    src = os.path.join(work, "src")
    os.makedirs(src)
    with open(os.path.join(src, "train.py"), "w") as f:
        f.write(SCRIPT)
    spec = {
        "name": "tb-export", "entry_point": ["/usr/bin/python3", "train.py"], "source_dir": src,
        "hyperparameters": {"scale": 0.5, "optimizer": "adam", "nesterov": False},
        "metric_definitions": [{"Name": "train:loss", "Regex": "loss=([0-9.]+)"},
                               {"Name": "train:acc", "Regex": "acc=([0-9.]+)"}],
        "experiment_config": {"ExperimentName": "tb-native"},
    }
    path = os.path.join(work, "spec.json")
    with open(path, "w") as f:
        json.dump(spec, f)
    cli("run", path, "--quiet")
    jobs = json.loads(cli("list", "--json", "--experiment", "tb-native").stdout)
    assert len(jobs) == 1 and jobs[0]["status"] == "Completed", jobs
    return jobs[0]["name"]


def check_export_read_by_tensorboard(work, job):
    out = os.path.join(work, "exported")
    r = cli("export", "--tensorboard", out, job)
    assert "1 job(s), 1 run(s)" in r.stdout, r.stdout
    acc = event_accumulator.EventAccumulator(os.path.join(out, job),
                                             size_guidance={event_accumulator.TENSORS: 0})
    acc.Reload()
    for name in ("train:loss", "train:acc"):
        stored = metrics(job, name)
        assert len(stored) == 30, (name, len(stored))
        read = [(e.step, e.wall_time, float(tensor_util.make_ndarray(e.tensor_proto)))
                for e in acc.Tensors(name)]
        assert read == [(p["step"], p["time"], f32(p["value"])) for p in stored], name
    start = acc.PluginTagToContent("hparams")[hp_metadata.SESSION_START_INFO_TAG]
    info = hp_metadata.parse_session_start_info_plugin_data(start)
    got = {k: v.WhichOneof("kind") and getattr(v, v.WhichOneof("kind")) for k, v in
           info.hparams.items()}
    # The job's hyperparameters, with their types, beside what the studio records of the run
    # (cluster, instance_type, ...), as its parameters table has them.
    assert {k: got[k] for k in ("scale", "optimizer", "nesterov")} == \
        {"scale": 0.5, "optimizer": "adam", "nesterov": False}, got
    stored = json.loads(cli("show", job, "--json").stdout)["parameters"]
    assert sorted(got) == sorted(stored), (got, stored)
    assert info.group_name == job, info.group_name
    end = acc.PluginTagToContent("hparams")[hp_metadata.SESSION_END_INFO_TAG]
    assert hp_metadata.parse_session_end_info_plugin_data(end).status == 1  # STATUS_SUCCESS
    root = event_accumulator.EventAccumulator(out)
    root.Reload()
    experiment = hp_metadata.parse_experiment_plugin_data(
        root.PluginTagToContent("hparams")[hp_metadata.EXPERIMENT_TAG])
    assert sorted(h.name for h in experiment.hparam_infos) == sorted(got)
    assert sorted(m.name.tag for m in experiment.metric_infos) == ["train:acc", "train:loss"]
    # Exporting into the same folder again would duplicate every point: refused.
    r = cli("export", "--tensorboard", out, job, check=False)
    assert r.returncode != 0 and "already holds" in r.stderr, r.stderr
    print("export read by TensorBoard: ok")
    return out


def check_round_trip(exported, job):
    out = json.loads(cli("import", "--tensorboard", exported, "--experiment", "round-trip",
                         "--rename", "--json").stdout)
    assert out["jobs"] == [job + "-2"], out
    for name in ("train:loss", "train:acc"):
        a, b = metrics(job, name), metrics(job + "-2", name)
        assert [(p["step"], p["time"], f32(p["value"]), p["node"], p["rank"]) for p in a] == \
            [(p["step"], p["time"], p["value"], p["node"], p["rank"]) for p in b], name
    pa = json.loads(cli("show", job, "--json").stdout)["parameters"]
    pb = json.loads(cli("show", job + "-2", "--json").stdout)["parameters"]
    assert {k: pa[k] for k in ("optimizer", "nesterov")} == \
        {k: pb[k] for k in ("optimizer", "nesterov")} and float(pa["scale"]) == float(pb["scale"])
    print("export -> import round trip: ok")


def check_damaged_files(work):
    src = os.path.join(work, "tb-written", "baseline")
    for damage in ("truncated", "corrupt"):
        logdir = os.path.join(work, damage)
        shutil.copytree(src, os.path.join(logdir, "run"))
        name = os.listdir(os.path.join(logdir, "run"))[0]
        path = os.path.join(logdir, "run", name)
        data = bytearray(open(path, "rb").read())
        # Records: 8-byte length, 4-byte CRC, data, 4-byte CRC. Find the 40th record's offset.
        offset = 0
        for _ in range(40):
            offset += struct.unpack("<Q", data[offset:offset + 8])[0] + 16
        if damage == "truncated":
            data = data[:offset + 10]
        else:
            data[offset + 14] ^= 0x20
        open(path, "wb").write(bytes(data))
        out = json.loads(cli("import", "--tensorboard", logdir, "--experiment", damage,
                             "--rename", "--json").stdout)
        assert len(out["warnings"]) == 1, out
        warning = out["warnings"][0]
        assert path in warning and f"byte {offset}" in warning, warning
        # Records 0 (file version) and 1 (hparams) carry no points; 38 records of points before.
        assert out["points"] == 38, out
    print("damaged files: ok")


def main():
    work = tempfile.mkdtemp(prefix="studio-tb-")
    os.environ["MLSTUDIO_HOME"] = os.path.join(work, "home")
    try:
        check_import_of_tensorboard_files(work)
        job = run_native_job(work)
        exported = check_export_read_by_tensorboard(work, job)
        check_round_trip(exported, job)
        check_damaged_files(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

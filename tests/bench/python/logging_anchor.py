"""The anchors of bench_script_logging: the same points (STEPS steps of {"loss", "acc"}, one call
a step) logged into one run by mlflow.log_metrics (a local file store or a SQLite store, as
each call's default: synchronous) or wandb.log (offline mode). Prints one JSON object: the
seconds from the first point to all of them stored (mlflow: the last call returned; wandb: the
run's finish() returned, its offline file written), the run's start-up apart, the version and
the count of points read back where the tool can read them.

  build/pytools/bin/python logging_anchor.py mlflow-file|mlflow-sqlite|wandb STEPS FOLDER
"""
import json
import os
import sys
import time


def mlflow_side(store, steps, folder):
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"  # mlflow 3 keeps the file store behind this
    import mlflow

    uri = "file://" + os.path.join(folder, "mlruns") if store == "file" \
        else "sqlite:///" + os.path.join(folder, "mlflow.db")  # fmt: skip
    mlflow.set_tracking_uri(uri)
    started = time.perf_counter()
    with mlflow.start_run() as run:
        first = time.perf_counter()
        for i in range(steps):
            mlflow.log_metrics({"loss": 1.0 / (i + 1), "acc": i / steps}, step=i)
        stored = time.perf_counter()
    client = mlflow.MlflowClient()
    read_back = sum(len(client.get_metric_history(run.info.run_id, k)) for k in ("loss", "acc"))
    return {"tool": "mlflow", "version": mlflow.__version__, "store": store,
            "start_s": first - started, "seconds": stored - first, "read_back": read_back}


def wandb_side(steps, folder):
    os.environ["WANDB_MODE"] = "offline"
    os.environ["WANDB_SILENT"] = "true"
    import wandb

    started = time.perf_counter()
    run = wandb.init(project="bench-script-logging", dir=folder)
    first = time.perf_counter()
    for i in range(steps):
        run.log({"loss": 1.0 / (i + 1), "acc": i / steps}, step=i)
    run.finish()
    stored = time.perf_counter()
    files = [os.path.join(d, f) for d, _, fs in os.walk(folder) for f in fs if f.endswith(".wandb")]
    return {"tool": "wandb", "version": wandb.__version__, "store": "offline",
            "start_s": first - started, "seconds": stored - first,
            "run_file_bytes": sum(os.path.getsize(f) for f in files)}


def main():
    side, steps, folder = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if side == "wandb":
        result = wandb_side(steps, folder)
    else:
        result = mlflow_side(side.split("-", 1)[1], steps, folder)
    result["points"] = 2 * steps
    print(json.dumps(result))


if __name__ == "__main__":
    main()

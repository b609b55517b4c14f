"""Real notebook outputs for the output views' GUI test and benches, made the way a Jupyter
kernel makes them: IPython's coloured traceback of a failing call, a pandas DataFrame's HTML
table and text, and a matplotlib figure as PNG and SVG. Prints one JSON object:
{"error": {nbformat error output}, "html": str, "text": str, "png": base64, "svg": str}.

Usage: notebook_outputs.py   (Debian's python3: IPython, pandas and matplotlib)
"""
import base64
import io
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from IPython.core.interactiveshell import InteractiveShell  # noqa: E402


def error_output():
    shell = InteractiveShell.instance()

    def objective(lr):
        return 1 / (lr - lr)

    try:
        objective(0.1)
    except ZeroDivisionError:
        etype, value, tb = sys.exc_info()
        return {
            "output_type": "error",
            "ename": etype.__name__,
            "evalue": str(value),
            "traceback": shell.InteractiveTB.structured_traceback(etype, value, tb),
        }
    raise AssertionError("the objective did not fail")


def figure():
    fig, ax = plt.subplots(figsize=(6.4, 3.2), dpi=100)
    steps = list(range(0, 200, 5))
    ax.plot(steps, [2.3 * 0.97**s + 0.1 for s in steps], label="train:loss")
    ax.plot(steps, [2.4 * 0.975**s + 0.15 for s in steps], label="eval:loss")
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.legend()
    png, svg = io.BytesIO(), io.StringIO()
    fig.savefig(png, format="png")
    fig.savefig(svg, format="svg")
    plt.close(fig)
    return png.getvalue(), svg.getvalue()


def main():
    frame = pd.DataFrame(
        {
            "job": [f"fmnist-{i}" for i in range(1, 6)],
            "lr": [0.1, 0.03, 0.01, 0.003, 0.001],
            "eval:accuracy": [0.842, 0.881, 0.903, 0.897, 0.861],
            "status": ["Completed"] * 4 + ["Stopped"],
        }
    ).set_index("job")
    png, svg = figure()
    json.dump(
        {
            "error": error_output(),
            "html": frame._repr_html_(),
            "text": repr(frame),
            "png": base64.b64encode(png).decode("ascii"),
            "svg": svg,
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()

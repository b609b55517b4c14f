"""The curves Run.log_confusion_matrix, log_precision_recall and log_roc_curve record, computed
without scikit-learn: checked against scikit-learn's documented examples, and against
scikit-learn itself (the studio's tools environment, $STUDIO_TOOLS_PYTHON, which ctest sets) on
random data with ties, both label conventions and a named positive label."""

import json
import math
import os
import random
import subprocess

import pytest

from mlstudio import _data_curves as curves

# The examples of scikit-learn's precision_recall_curve, average_precision_score, roc_curve and
# confusion_matrix docstrings.
DOC_Y = [0, 0, 1, 1]
DOC_SCORES = [0.1, 0.4, 0.35, 0.8]


def test_precision_recall_matches_the_documented_example():
    precision, recall, thresholds = curves.precision_recall_curve(DOC_Y, DOC_SCORES)
    assert precision == pytest.approx([0.5, 2 / 3, 0.5, 1.0, 1.0])
    assert recall == pytest.approx([1.0, 1.0, 0.5, 0.5, 0.0])
    assert thresholds == pytest.approx([0.1, 0.35, 0.4, 0.8])
    assert curves.average_precision(precision, recall) == pytest.approx(0.8333333333)


def test_roc_matches_the_documented_example():
    fpr, tpr, thresholds = curves.roc_curve([1, 1, 2, 2], [0.1, 0.4, 0.35, 0.8], pos_label=2)
    assert fpr == pytest.approx([0.0, 0.0, 0.5, 0.5, 1.0])
    assert tpr == pytest.approx([0.0, 0.5, 0.5, 1.0, 1.0])
    assert thresholds[0] == math.inf and thresholds[1:] == pytest.approx([0.8, 0.4, 0.35, 0.1])
    assert curves.auc(fpr, tpr) == pytest.approx(0.75)


def test_confusion_matrix_matches_the_documented_example():
    matrix, labels = curves.confusion_matrix([2, 0, 2, 2, 0, 1], [0, 0, 2, 2, 0, 2])
    assert matrix == [[2, 0, 0], [0, 0, 1], [1, 0, 2]] and labels == [0, 1, 2]
    matrix, labels = curves.confusion_matrix(
        ["cat", "ant", "cat", "cat", "ant", "bird"], ["ant", "ant", "cat", "cat", "ant", "cat"]
    )
    assert labels == ["ant", "bird", "cat"] and matrix == [[2, 0, 0], [0, 0, 1], [1, 0, 2]]


def test_rates_without_negatives_are_undefined_not_zero():
    fpr, tpr, _ = curves.roc_curve([1, 1, 1], [0.2, 0.5, 0.9])
    assert all(math.isnan(v) for v in fpr)
    assert curves.finite_or_none(fpr) == [None] * len(fpr)


def test_auc_refuses_a_curve_that_turns_back():
    with pytest.raises(ValueError, match="neither increasing nor decreasing"):
        curves.auc([0, 1, 0.5], [0, 1, 1])


def _cases():
    rng = random.Random(7)
    cases = []
    for n in (1, 2, 3, 10, 57, 400):
        y = [rng.choice([0, 1]) for _ in range(n)]
        scores = [round(rng.random(), 1) for _ in range(n)]  # rounding makes ties
        cases.append({"y": y, "s": scores, "pos": None})
    cases.append({"y": [-1, 1, 1, -1, 1, -1], "s": [0.2, 0.2, 0.9, 0.5, 0.5, 0.1], "pos": None})
    cases.append({"y": ["no", "yes", "yes", "no"], "s": [0.3, 0.6, 0.6, 0.7], "pos": "yes"})
    return cases


ORACLE = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
from sklearn.metrics import (auc, average_precision_score, confusion_matrix,
                             precision_recall_curve, roc_curve)
out = []
for c in json.load(sys.stdin):
    kw = {} if c["pos"] is None else {"pos_label": c["pos"]}
    p, r, _ = precision_recall_curve(c["y"], c["s"], **kw)
    ap = average_precision_score(c["y"], c["s"], average="micro", **kw)
    fpr, tpr, _ = roc_curve(c["y"], c["s"], **kw)
    nan = lambda a: [None if v != v else v for v in a.tolist()]
    out.append({"p": p.tolist(), "r": r.tolist(), "ap": None if ap != ap else ap,
                "fpr": nan(fpr), "tpr": nan(tpr),
                "cm": confusion_matrix(c["y"], [c["y"][0]] + c["y"][:-1]).tolist()})
print(json.dumps(out))
"""


def test_curves_match_scikit_learn():
    python = os.environ.get("STUDIO_TOOLS_PYTHON")
    if not python:
        pytest.skip("STUDIO_TOOLS_PYTHON (the tools environment with scikit-learn) is not set")
    cases = _cases()
    done = subprocess.run(
        [python, "-c", ORACLE],
        input=json.dumps(cases),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        universal_newlines=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    for case, want in zip(cases, json.loads(done.stdout)):
        precision, recall, _ = curves.precision_recall_curve(case["y"], case["s"], case["pos"])
        assert precision == pytest.approx(want["p"], abs=1e-12), case
        assert recall == pytest.approx(want["r"], abs=1e-12), case
        if want["ap"] is not None:
            assert curves.average_precision(precision, recall) == pytest.approx(
                want["ap"], abs=1e-12
            )
        fpr, tpr, _ = curves.roc_curve(case["y"], case["s"], case["pos"])
        assert curves.finite_or_none(fpr) == pytest.approx(want["fpr"], abs=1e-12), case
        assert curves.finite_or_none(tpr) == pytest.approx(want["tpr"], abs=1e-12), case
        shifted = [case["y"][0]] + case["y"][:-1]
        assert curves.confusion_matrix(case["y"], shifted)[0] == want["cm"], case

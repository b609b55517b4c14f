"""Classification curves for Run.log_confusion_matrix, log_precision_recall and log_roc_curve.

SageMaker computes these with scikit-learn; the studio computes the same arrays in plain Python,
so logging them needs neither scikit-learn nor numpy. The algorithms are scikit-learn's (1.x):
``confusion_matrix`` over the sorted union of labels; ``precision_recall_curve`` and
``roc_curve`` from the counts of true and false positives at each distinct score, highest score
first; ``average_precision_score`` as the step-wise (uninterpolated) area; ``auc`` by the
trapezoidal rule. Inputs may be lists, tuples, numpy arrays or pandas Series.
"""

import math


def _as_list(values, field):
    if values is None:
        raise ValueError("{}: must be a list or array of values, got None".format(field))
    if hasattr(values, "tolist"):
        values = values.tolist()
    try:
        items = list(values)
    except TypeError:
        raise ValueError(
            "{}: must be a list or array of values, got {}".format(field, type(values).__name__)
        ) from None
    for i, v in enumerate(items):
        if isinstance(v, (list, tuple)):
            raise ValueError("{}: must be one-dimensional, item {} is {!r}".format(field, i, v))
    return items


def check_lengths(y_true, predicted, true_field, predicted_field):
    """Both as lists, of the same non-zero length (ValueError naming the fields otherwise)."""
    t = _as_list(y_true, true_field)
    p = _as_list(predicted, predicted_field)
    if len(t) != len(p):
        raise ValueError(
            "{} and {} must have the same length, got {} and {}".format(
                true_field, predicted_field, len(t), len(p)
            )
        )
    if not t:
        raise ValueError("{}: must not be empty".format(true_field))
    return t, p


def confusion_matrix(y_true, y_pred):
    """Rows are true labels, columns predicted ones, both in sorted order of all labels seen."""
    t, p = check_lengths(y_true, y_pred, "y_true", "y_pred")
    try:
        labels = sorted(set(t) | set(p))
    except TypeError:
        raise ValueError("y_true and y_pred: labels must be all numbers or all strings") from None
    index = {label: i for i, label in enumerate(labels)}
    matrix = [[0] * len(labels) for _ in labels]
    for a, b in zip(t, p):
        matrix[index[a]][index[b]] += 1
    return matrix, labels


def _positive_label(y_true, pos_label):
    classes = set(y_true)
    if pos_label is not None:
        return pos_label
    binary_sets = ({0, 1}, {-1, 1}, {0}, {1}, {-1})
    if not any(classes <= s for s in binary_sets) or len(classes) > 2:
        raise ValueError(
            "y_true takes values in {} and positive_label is not given: make y_true take values "
            "in {{0, 1}} or {{-1, 1}}, or pass positive_label".format(sorted(classes, key=str))
        )
    return 1


def _scores(values, field):
    out = []
    for i, v in enumerate(values):
        try:
            f = float(v)
        except (TypeError, ValueError):
            raise ValueError("{}: item {} is not a number: {!r}".format(field, i, v)) from None
        if math.isnan(f):
            raise ValueError("{}: item {} is NaN".format(field, i))
        out.append(f)
    return out


def _binary_clf_curve(y_true, y_score, pos_label):
    """False and true positive counts at each distinct score, highest first, and the scores."""
    positive = [1 if y == pos_label else 0 for y in y_true]
    # A stable sort on the negated score is numpy's reversed stable argsort up to the order
    # inside ties, which the counts below do not see (they are taken at each tie's end).
    order = sorted(range(len(y_score)), key=lambda i: -y_score[i])
    fps, tps, thresholds = [], [], []
    tp = 0
    for k, i in enumerate(order):
        tp += positive[i]
        last = k == len(order) - 1
        if last or y_score[order[k + 1]] != y_score[i]:
            tps.append(tp)
            fps.append(k + 1 - tp)
            thresholds.append(y_score[i])
    return fps, tps, thresholds


def precision_recall_curve(y_true, probabilities, pos_label=None):
    """Precision and recall, recall decreasing to a final (precision 1, recall 0) point."""
    t, p = check_lengths(y_true, probabilities, "y_true", "predicted_probabilities")
    label = _positive_label(t, pos_label)
    fps, tps, thresholds = _binary_clf_curve(t, _scores(p, "predicted_probabilities"), label)
    precision = [tp / (tp + fp) if tp + fp else 0.0 for tp, fp in zip(tps, fps)]
    if tps[-1] == 0:
        recall = [1.0] * len(tps)
    else:
        recall = [tp / tps[-1] for tp in tps]
    return precision[::-1] + [1.0], recall[::-1] + [0.0], thresholds[::-1]


def average_precision(precision, recall):
    """The step-wise area under a precision-recall curve: -sum(diff(recall) * precision[:-1])."""
    return -math.fsum((recall[i + 1] - recall[i]) * precision[i] for i in range(len(recall) - 1))


def roc_curve(y_true, y_score, pos_label=None):
    """False and true positive rates, from (0, 0), dropping points inside straight segments."""
    t, s = check_lengths(y_true, y_score, "y_true", "y_score")
    label = _positive_label(t, pos_label)
    fps, tps, thresholds = _binary_clf_curve(t, _scores(s, "y_score"), label)
    if len(fps) > 2:
        keep = [0]
        for i in range(1, len(fps) - 1):
            if (fps[i + 1] - 2 * fps[i] + fps[i - 1]) or (tps[i + 1] - 2 * tps[i] + tps[i - 1]):
                keep.append(i)
        keep.append(len(fps) - 1)
        fps = [fps[i] for i in keep]
        tps = [tps[i] for i in keep]
        thresholds = [thresholds[i] for i in keep]
    fps = [0] + fps
    tps = [0] + tps
    thresholds = [math.inf] + thresholds
    fpr = [f / fps[-1] for f in fps] if fps[-1] > 0 else [math.nan] * len(fps)
    tpr = [x / tps[-1] for x in tps] if tps[-1] > 0 else [math.nan] * len(tps)
    return fpr, tpr, thresholds


def auc(x, y):
    """Area under the curve (x, y) by the trapezoidal rule; x must be monotonic."""
    if len(x) < 2:
        raise ValueError(
            "at least 2 points are needed to compute the area under a curve, got {}".format(len(x))
        )
    dx = [x[i + 1] - x[i] for i in range(len(x) - 1)]
    direction = 1.0
    if any(d < 0 for d in dx):
        if all(d <= 0 for d in dx):
            direction = -1.0
        else:
            raise ValueError("x is neither increasing nor decreasing: {}".format(x))
    return direction * math.fsum(dx[i] * (y[i] + y[i + 1]) / 2.0 for i in range(len(dx)))


def finite_or_none(values):
    """JSON has no NaN: undefined rates (no positives or no negatives) become null."""
    return [None if isinstance(v, float) and math.isnan(v) else v for v in values]

"""mlstudio.analytics without the CLI: arguments checked when the object is made, SageMaker's
search expressions over trial components, sort_by names, TrainingJobAnalytics' buckets, and the
message when pandas is missing."""

import sys

import pytest

from mlstudio import _data_search as search
from mlstudio.analytics import (
    ExperimentAnalytics,
    HyperparameterTuningJobAnalytics,
    TrainingJobAnalytics,
    _resolve_sort_key,
    _sorted_rows,
)

RECORD = {
    "TrialComponentName": "fmnist-lr-01",
    "DisplayName": "fmnist-lr-01",
    "Parents.ExperimentName": "fmnist",
    "Parents.TrialName": "Default-Run-Group-fmnist",
    "Status.PrimaryStatus": "Completed",
    "CreationTime": 1795000000.0,  # 2026-11-17T08:26:40Z
    "Parameters.lr": 0.1,
    "Parameters.optimizer": "sgd",
    "Metrics.train:loss.Min": 0.25,
}


def flt(name, op, value=None):
    f = {"Name": name, "Operator": op}
    if value is not None:
        f["Value"] = value
    return {"Filters": [f]}


@pytest.mark.parametrize(
    "expression, expected",
    [
        (flt("Parameters.lr", "GreaterThan", "0.05"), True),
        (flt("Parameters.lr", "LessThanOrEqualTo", "0.05"), False),
        (flt("Parameters.optimizer", "Equals", "sgd"), True),
        (flt("Parameters.optimizer", "In", "adam,sgd"), True),
        (flt("Parameters.momentum", "Exists"), False),
        (flt("Parameters.momentum", "NotExists"), True),
        (flt("Parameters.momentum", "NotEquals", "0.9"), True),
        (flt("TrialComponentName", "Contains", "lr-0"), True),
        (flt("parents.experimentname", "Equals", "fmnist"), True),
        (flt("Metrics.train:loss.Min", "LessThan", "0.3"), True),
        (flt("CreationTime", "GreaterThan", "2026-11-17T08:00:00Z"), True),
        (flt("CreationTime", "LessThan", "2026-11-17T08:00:00"), False),
        (
            {
                "Filters": [
                    {"Name": "Parameters.lr", "Operator": "Equals", "Value": "1"},
                    {"Name": "Parameters.optimizer", "Operator": "Equals", "Value": "sgd"},
                ],
                "Operator": "Or",
            },
            True,
        ),
        (
            {
                "SubExpressions": [
                    flt("Parameters.lr", "Equals", "0.1"),
                    flt("Status.PrimaryStatus", "Equals", "Failed"),
                ]
            },
            False,
        ),
        (
            {
                "NestedFilters": [
                    {
                        "NestedPropertyName": "Parents",
                        "Filters": [
                            {
                                "Name": "Parents.TrialName",
                                "Operator": "Contains",
                                "Value": "Run-Group",
                            }
                        ],
                    }
                ]
            },
            True,
        ),
        ({}, True),
    ],
)
def test_search_expressions(expression, expected):
    search.validate(expression)
    assert search.matches(expression, RECORD) is expected


@pytest.mark.parametrize(
    "expression, message",
    [
        ([1], "search_expression: must be a dict"),
        ({"Filter": []}, "search_expression.Filter: unknown key"),
        ({"Operator": "Xor"}, "search_expression.Operator: must be And or Or"),
        (flt("a", "Like", "x"), "search_expression.Filters[0].Operator: must be one of"),
        (
            {"Filters": [{"Name": "a", "Operator": "Equals"}]},
            "search_expression.Filters[0].Value: required with the operator Equals",
        ),
        (
            {"SubExpressions": [{"Filters": [{"Operator": "Exists"}]}]},
            "search_expression.SubExpressions[0].Filters[0]: must be {Name, Operator, Value}",
        ),
        (
            {"NestedFilters": [{"Filters": []}]},
            "search_expression.NestedFilters[0]: must be {NestedPropertyName, Filters}",
        ),
    ],
)
def test_a_bad_search_expression_names_its_part(expression, message):
    with pytest.raises(ValueError) as error:
        ExperimentAnalytics(search_expression=expression)
    assert message in str(error.value)


def test_arguments_are_checked_when_made():
    with pytest.raises(ValueError, match="Either experiment_name or search_expression"):
        ExperimentAnalytics()
    with pytest.raises(ValueError, match="sort_order: must be Ascending or Descending"):
        ExperimentAnalytics("e", sort_order="Up")
    with pytest.raises(ValueError, match="period: must be a number of seconds > 0"):
        TrainingJobAnalytics("job", period=0)
    with pytest.raises(ValueError, match="start_time: must be a datetime or unix seconds"):
        TrainingJobAnalytics("job", start_time="yesterday")
    with pytest.raises(ValueError, match="hyperparameter_tuning_job_name: must be"):
        HyperparameterTuningJobAnalytics("")


def test_sort_by_takes_sagemakers_names_and_columns():
    columns = ["TrialComponentName", "lr", "loss - Min"]
    rows = [
        {"TrialComponentName": "b", "lr": 0.1, "loss - Min": None, "_created": 2},
        {"TrialComponentName": "a", "lr": None, "loss - Min": 0.5, "_created": 1},
        {"TrialComponentName": "c", "lr": 0.01, "loss - Min": 0.2, "_created": 3},
    ]

    def order(sort_by, descending):
        return [
            r["TrialComponentName"]
            for r in _sorted_rows(rows, _resolve_sort_key(sort_by, columns), descending)
        ]

    assert order("Name", False) == ["a", "b", "c"]
    assert order("CreationTime", True) == ["c", "b", "a"]
    assert order("Parameters.lr", False) == ["c", "b", "a"]  # no value: last either way
    assert order("Parameters.lr", True) == ["b", "c", "a"]
    assert order("Metrics.loss.min", False) == ["c", "a", "b"]
    assert order("loss - Min", True) == ["a", "c", "b"]
    with pytest.raises(ValueError, match="sort_by: no column or property 'Metrics.loss.Median'"):
        _resolve_sort_key("Metrics.loss.Median", columns)


def test_training_job_metrics_are_relative_to_their_first_point_and_bucketed_by_period():
    points = [
        {"time": 100.0 + t, "value": v}
        for t, v in [(0, 1.0), (20, 3.0), (61, 5.0), (119, "NaN"), (125, 2.0)]
    ]
    every = TrainingJobAnalytics("job")._metric_rows("loss", points[:3])
    assert [(r["timestamp"], r["value"]) for r in every] == [(0.0, 1.0), (20.0, 3.0), (61.0, 5.0)]
    bucketed = TrainingJobAnalytics("job", period=60)._metric_rows("loss", points[:3] + points[4:])
    assert [(r["timestamp"], r["value"]) for r in bucketed] == [(0, 2.0), (60, 5.0), (120, 2.0)]
    assert {r["metric_name"] for r in bucketed} == {"loss"}


def test_dataframe_without_pandas_says_so(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="dataframe\\(\\) needs pandas.*python3-pandas"):
        ExperimentAnalytics("e").dataframe()

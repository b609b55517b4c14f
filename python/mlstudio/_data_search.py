"""SageMaker's search expressions, evaluated over the studio's trial components.

ExperimentAnalytics(search_expression=...) takes the expression SageMaker's Search API takes::

    {"Filters": [{"Name": "Parameters.lr", "Operator": "GreaterThan", "Value": "0.01"}],
     "NestedFilters": [{"NestedPropertyName": "Parents", "Filters": [...]}],
     "SubExpressions": [{...}, ...],
     "Operator": "And"}

A record is a flat dict of property names (``TrialComponentName``, ``DisplayName``,
``Parents.ExperimentName``, ``Parents.TrialName``, ``Status.PrimaryStatus``, ``CreationTime``,
``StartTime``, ``EndTime``, ``Parameters.<name>``, ``Metrics.<name>.<Min|Max|Avg|StdDev|Last|
Count>``). Values compare as numbers when both sides read as numbers, as times when the property
is a time, else as text.
"""

import datetime

OPERATORS = (
    "Equals",
    "NotEquals",
    "GreaterThan",
    "GreaterThanOrEqualTo",
    "LessThan",
    "LessThanOrEqualTo",
    "Contains",
    "Exists",
    "NotExists",
    "In",
)
TIME_PROPERTIES = ("CreationTime", "StartTime", "EndTime", "LastModifiedTime")
_KEYS = ("Filters", "NestedFilters", "SubExpressions", "Operator")


def validate(expression, path="search_expression"):
    """Raises ValueError naming the first part of the expression that is not SageMaker's form."""
    if not isinstance(expression, dict):
        raise ValueError("{}: must be a dict, got {!r}".format(path, expression))
    for key in expression:
        if key not in _KEYS:
            raise ValueError(
                "{}.{}: unknown key; allowed keys: {}".format(path, key, ", ".join(_KEYS))
            )
    if expression.get("Operator", "And") not in ("And", "Or"):
        raise ValueError(
            "{}.Operator: must be And or Or, got {!r}".format(path, expression.get("Operator"))
        )
    for i, f in enumerate(_list(expression, "Filters", path)):
        _validate_filter(f, "{}.Filters[{}]".format(path, i))
    for i, nested in enumerate(_list(expression, "NestedFilters", path)):
        where = "{}.NestedFilters[{}]".format(path, i)
        if not isinstance(nested, dict) or not isinstance(nested.get("NestedPropertyName"), str):
            raise ValueError(
                "{}: must be {{NestedPropertyName, Filters}}, got {!r}".format(where, nested)
            )
        for j, f in enumerate(_list(nested, "Filters", where)):
            _validate_filter(f, "{}.Filters[{}]".format(where, j))
    for i, sub in enumerate(_list(expression, "SubExpressions", path)):
        validate(sub, "{}.SubExpressions[{}]".format(path, i))


def matches(expression, record):
    """Whether the record satisfies the expression (validated before)."""
    results = [_matches_filter(f, record) for f in expression.get("Filters", [])]
    for nested in expression.get("NestedFilters", []):
        results.append(all(_matches_filter(f, record) for f in nested.get("Filters", [])))
    results += [matches(sub, record) for sub in expression.get("SubExpressions", [])]
    if not results:
        return True
    return any(results) if expression.get("Operator", "And") == "Or" else all(results)


def _list(container, key, path):
    value = container.get(key, [])
    if not isinstance(value, list):
        raise ValueError("{}.{}: must be a list, got {!r}".format(path, key, value))
    return value


def _validate_filter(f, where):
    if not isinstance(f, dict) or not isinstance(f.get("Name"), str) or not f["Name"]:
        raise ValueError("{}: must be {{Name, Operator, Value}}, got {!r}".format(where, f))
    op = f.get("Operator", "Equals")
    if op not in OPERATORS:
        raise ValueError(
            "{}.Operator: must be one of {}, got {!r}".format(where, ", ".join(OPERATORS), op)
        )
    if op not in ("Exists", "NotExists") and "Value" not in f:
        raise ValueError("{}.Value: required with the operator {}".format(where, op))


def _lookup(record, name):
    if name in record:
        return record[name]
    lowered = name.lower()
    for key, value in record.items():
        if key.lower() == lowered:
            return value
    return None


def _as_number(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    try:
        return float(str(value))
    except ValueError:
        return None


def _as_time(value):
    if isinstance(value, datetime.datetime):
        return value.timestamp()
    number = _as_number(value)
    if number is not None:
        return number
    text = str(value).strip().replace("Z", "+00:00")
    try:
        moment = datetime.datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.timezone.utc)
    return moment.timestamp()


def _compare(name, have, want):
    """-1, 0, 1 comparing have with want, or None when they do not compare."""
    if name.split(".")[-1] in TIME_PROPERTIES:
        a, b = _as_time(have), _as_time(want)
    else:
        a, b = _as_number(have), _as_number(want)
    if a is None or b is None:
        a, b = str(have), str(want)
    return (a > b) - (a < b)


def _matches_filter(f, record):
    name = f["Name"]
    op = f.get("Operator", "Equals")
    have = _lookup(record, name)
    if op == "Exists":
        return have is not None
    if op == "NotExists":
        return have is None
    if have is None:
        return op == "NotEquals"
    want = f["Value"]
    if op == "Contains":
        return str(want) in str(have)
    if op == "In":
        options = want if isinstance(want, list) else str(want).split(",")
        return any(
            _compare(name, have, o.strip() if isinstance(o, str) else o) == 0 for o in options
        )
    order = _compare(name, have, want)
    return {
        "Equals": order == 0,
        "NotEquals": order != 0,
        "GreaterThan": order > 0,
        "GreaterThanOrEqualTo": order >= 0,
        "LessThan": order < 0,
        "LessThanOrEqualTo": order <= 0,
    }[op]

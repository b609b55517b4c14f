"""Hyperparameter ranges (``sagemaker.parameter``): ContinuousParameter, IntegerParameter and
CategoricalParameter, with SageMaker's request form (``as_tuning_range``) and the tuning spec's
(``to_spec``, resources/specs/TUNING.md "Ranges").
"""

from ._util import field_error, is_integer, is_number

SCALING_TYPES = ("Auto", "Linear", "Logarithmic", "ReverseLogarithmic")


class ParameterRange:
    """A range of a tuned hyperparameter."""

    __all_types__ = ("Continuous", "Categorical", "Integer")
    type_name = None

    def __init__(self, min_value, max_value, scaling_type="Auto"):
        where = "{}Parameter".format(self.type_name)
        check = is_integer if self.type_name == "Integer" else is_number
        what = "an integer" if self.type_name == "Integer" else "a number"
        if not check(min_value):
            raise field_error(where + "(min_value)", what, min_value)
        if not check(max_value):
            raise field_error(where + "(max_value)", what, max_value)
        if not min_value < max_value:
            raise ValueError(
                "{}(max_value): must be greater than min_value ({}), got {}".format(
                    where, min_value, max_value
                )
            )
        if scaling_type not in SCALING_TYPES:
            raise field_error(where + "(scaling_type)", "one of " + ", ".join(SCALING_TYPES),
                              scaling_type)
        self.min_value = min_value
        self.max_value = max_value
        self.scaling_type = scaling_type

    def as_tuning_range(self, name):
        """SageMaker's ParameterRanges entry: values as strings."""
        return {
            "Name": name,
            "MinValue": str(self.min_value),
            "MaxValue": str(self.max_value),
            "ScalingType": self.scaling_type,
        }

    def to_spec(self):
        return {
            "type": self.type_name,
            "min_value": self.min_value,
            "max_value": self.max_value,
            "scaling_type": self.scaling_type,
        }

    def __repr__(self):
        return "{}Parameter({!r}, {!r}, {!r})".format(
            self.type_name, self.min_value, self.max_value, self.scaling_type
        )


class ContinuousParameter(ParameterRange):
    """Real values between min_value and max_value."""

    type_name = "Continuous"


class IntegerParameter(ParameterRange):
    """Whole values between min_value and max_value."""

    type_name = "Integer"


class CategoricalParameter(ParameterRange):
    """One of a list of values (strings, numbers or booleans); no scaling."""

    type_name = "Categorical"

    def __init__(self, values):
        if isinstance(values, (str, int, float, bool)):
            values = [values]
        values = list(values) if isinstance(values, (list, tuple)) else values
        if not isinstance(values, list) or not 1 <= len(values) <= 30:
            raise field_error("CategoricalParameter(values)", "a list of 1 to 30 values", values)
        for v in values:
            if not isinstance(v, (str, int, float, bool)):
                raise field_error("CategoricalParameter(values)", "strings, numbers or booleans",
                                  v)
        self.values = values

    def as_tuning_range(self, name):
        return {"Name": name, "Values": [str(v) for v in self.values]}

    def as_json_range(self, name):
        """The framework estimators' form: every value JSON-encoded, as SageMaker sends it."""
        import json

        return {"Name": name, "Values": [json.dumps(v) for v in self.values]}

    def to_spec(self):
        return {"type": "Categorical", "values": list(self.values)}

    def __repr__(self):
        return "CategoricalParameter({!r})".format(self.values)

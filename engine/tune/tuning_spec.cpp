// Names of the tuning spec's enumerations, as the spec and SageMaker write them.
#include "engine/tune/tuning_spec.h"

namespace studio::tune {

const char* parameterTypeName(ParameterType t) {
    switch (t) {
    case ParameterType::Continuous:
        return "Continuous";
    case ParameterType::Integer:
        return "Integer";
    case ParameterType::Categorical:
        return "Categorical";
    }
    return "";
}

const char* scalingName(Scaling s) {
    switch (s) {
    case Scaling::Auto:
        return "Auto";
    case Scaling::Linear:
        return "Linear";
    case Scaling::Logarithmic:
        return "Logarithmic";
    case Scaling::ReverseLogarithmic:
        return "ReverseLogarithmic";
    }
    return "";
}

const char* strategyName(SearchStrategy s) {
    switch (s) {
    case SearchStrategy::Bayesian:
        return "Bayesian";
    case SearchStrategy::Random:
        return "Random";
    case SearchStrategy::Grid:
        return "Grid";
    case SearchStrategy::Hyperband:
        return "Hyperband";
    }
    return "";
}

const char* warmStartTypeName(WarmStartType t) {
    return t == WarmStartType::TransferLearning ? "TransferLearning" : "IdenticalDataAndAlgorithm";
}

} // namespace studio::tune

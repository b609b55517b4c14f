// The built-in trainer's models and the hyperparameters it accepts, with types, ranges and
// defaults. Data only, in a library of its own (studio_train_catalog): the spec parser validates
// against it without linking LibTorch, and studio-train reads its settings from it.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace studio::train {

enum class HyperType { Integer, Number, Boolean, Choice };

struct HyperparameterInfo {
    std::string name;
    HyperType type;
    std::string defaultValue;
    double min = 0;
    double max = 1e18;
    bool minExclusive = false;
    std::vector<std::string> choices; // Choice only
    std::vector<std::string> models;  // empty: every model
    std::string description;
};

struct BuiltinModelInfo {
    std::string name;
    std::string description;
    std::string defaultDataset;
    std::string defaultLr;
    std::string defaultOptimizer;
};

const std::vector<BuiltinModelInfo>& builtinModels();
const BuiltinModelInfo* findBuiltinModel(std::string_view name);
std::vector<std::string> builtinModelNames();

const std::vector<HyperparameterInfo>& builtinHyperparameters();
const HyperparameterInfo* findBuiltinHyperparameter(std::string_view name);
// Names valid for a model (common ones plus the model's own).
std::vector<std::string> builtinHyperparameterNames(std::string_view model);
// The default for a model, where a model overrides the common one (lr, optimizer, dataset).
std::string builtinDefault(const HyperparameterInfo& info, std::string_view model);

// How many blocks (pipeline cut points + 1) a built-in model has with these hyperparameters.
int builtinBlockCount(std::string_view model,
                      const std::map<std::string, std::string>& hyperparameters);

// Checks a value's text against the schema; returns the error message ("" when valid).
std::string checkBuiltinValue(const HyperparameterInfo& info, const std::string& text);

} // namespace studio::train

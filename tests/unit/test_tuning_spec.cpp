// Tuning specs: defaults as SageMaker's HyperparameterTuner, what the parser infers (Grid's
// max_jobs, Hyperband's resource), and every error, each at its JSON path.
#include "engine/tune/tuning_parser.h"

#include "tests/support/markdown_blocks.h"

#include "tests/support/plain_test.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace studio;
using nlohmann::json;
using studio::testing::nearly;

namespace {

json baseDoc() {
    return {{"tuning",
             {{"objective_metric_name", "eval:accuracy"},
              {"hyperparameter_ranges",
               {{"lr",
                 {{"type", "Continuous"},
                  {"min_value", 0.001},
                  {"max_value", 0.1},
                  {"scaling_type", "Logarithmic"}}}}}}},
            {"training",
             {{"name", "fmnist"},
              {"entry_point", "builtin:fmnist-cnn"},
              {"hyperparameters", {{"epochs", 5}, {"batch-size", 64}}}}}};
}

tune::TuningParseResult parse(const json& doc) {
    spec::ParseOptions o;
    o.checkFiles = false;
    return tune::parseTuningJson(doc, "/tmp", o);
}

// Applies "a.b.c" = value (a JSON text; "-" removes the key).
json mutated(const std::string& path, const std::string& value) {
    json doc = baseDoc();
    json* at = &doc;
    std::string rest = path;
    while (true) {
        const auto dot = rest.find('.');
        const std::string key = rest.substr(0, dot);
        if (dot == std::string::npos) {
            if (value == "-")
                at->erase(key);
            else
                (*at)[key] = json::parse(value);
            return doc;
        }
        at = &(*at)[key];
        rest = rest.substr(dot + 1);
    }
}

// "" when r has an error at `path` whose message contains `fragment`; else every error it has.
std::string missingError(const tune::TuningParseResult& r, const std::string& path,
                         const std::string& fragment) {
    if (r.ok())
        return "the spec was accepted";
    std::string all;
    for (const auto& e : r.errors) {
        if (e.path == path && e.message.find(fragment) != std::string::npos)
            return {};
        all += e.text() + "\n";
    }
    return all;
}

// The rows of the errors table: the spec with `value` (a JSON text; "-" removes the key) at
// `path`, and the error it must give at errorPath.
struct ErrorRow {
    std::string tag, path, value, errorPath, fragment;
};

std::vector<ErrorRow> errorRows() {
    std::vector<ErrorRow> rows;
    auto row = [&](const char* tag, const char* path, const char* value, const char* errorPath,
                   const char* fragment) {
        rows.push_back({tag, path, value, errorPath, fragment});
    };
    row("no tuning", "tuning", "-", "tuning", "required");
    row("no training", "training", "-", "training", "required");
    row("unknown top key", "tunning", "{}", "tunning", "unknown");
    row("unknown tuning key", "tuning.max_job", "3", "tuning.max_job", "max_jobs");
    row("no objective", "tuning.objective_metric_name", "-", "tuning.objective_metric_name",
        "required");
    row("unknown objective", "tuning.objective_metric_name", "\"eval:acuracy\"",
        "tuning.objective_metric_name", "eval:accuracy");
    row("objective type", "tuning.objective_type", "\"Maximise\"", "tuning.objective_type",
        "Maximize");
    row("no ranges", "tuning.hyperparameter_ranges", "-", "tuning.hyperparameter_ranges",
        "required");
    row("empty ranges", "tuning.hyperparameter_ranges", "{}", "tuning.hyperparameter_ranges",
        "at least one");
    row("range type", "tuning.hyperparameter_ranges.lr.type", "\"Float\"",
        "tuning.hyperparameter_ranges.lr.type", "Continuous");
    row("range without type", "tuning.hyperparameter_ranges.lr.type", "-",
        "tuning.hyperparameter_ranges.lr.type", "required");
    row("no min", "tuning.hyperparameter_ranges.lr.min_value", "-",
        "tuning.hyperparameter_ranges.lr.min_value", "required");
    row("min above max", "tuning.hyperparameter_ranges.lr.min_value", "0.5",
        "tuning.hyperparameter_ranges.lr.max_value", "greater than min_value");
    row("log of zero", "tuning.hyperparameter_ranges.lr.min_value", "0",
        "tuning.hyperparameter_ranges.lr.scaling_type", "min_value > 0");
    row("scaling name", "tuning.hyperparameter_ranges.lr.scaling_type", "\"Log\"",
        "tuning.hyperparameter_ranges.lr.scaling_type", "Logarithmic");
    row("reverse log range", "tuning.hyperparameter_ranges.lr",
        R"({"type": "Continuous", "min_value": 0.5, "max_value": 1.5, "scaling_type": "ReverseLogarithmic"})",
        "tuning.hyperparameter_ranges.lr.scaling_type", "max_value < 1");
    row("reverse log integer", "tuning.hyperparameter_ranges.epochs",
        R"({"type": "Integer", "min_value": 1, "max_value": 5, "scaling_type": "ReverseLogarithmic"})",
        "tuning.hyperparameter_ranges.epochs.scaling_type", "Continuous ranges only");
    row("integer not whole", "tuning.hyperparameter_ranges.epochs",
        R"({"type": "Integer", "min_value": 1.5, "max_value": 5})",
        "tuning.hyperparameter_ranges.epochs", "whole");
    row("no values", "tuning.hyperparameter_ranges.optimizer", R"({"type": "Categorical"})",
        "tuning.hyperparameter_ranges.optimizer.values", "required");
    row("duplicate value", "tuning.hyperparameter_ranges.optimizer",
        R"({"type": "Categorical", "values": ["sgd", "sgd"]})",
        "tuning.hyperparameter_ranges.optimizer.values[1]", "twice");
    row("categorical scaling", "tuning.hyperparameter_ranges.optimizer",
        R"({"type": "Categorical", "values": ["sgd"], "scaling_type": "Linear"})",
        "tuning.hyperparameter_ranges.optimizer.scaling_type", "no scaling");
    row("unknown builtin hyperparameter", "tuning.hyperparameter_ranges.learning-rate",
        R"({"type": "Continuous", "min_value": 0.1, "max_value": 0.2})",
        "tuning.hyperparameter_ranges.learning-rate", "has no hyperparameter");
    row("value the trainer refuses", "tuning.hyperparameter_ranges.optimizer",
        R"({"type": "Categorical", "values": ["sgd", "rmsprop"]})",
        "tuning.hyperparameter_ranges.optimizer.values[1]", "");
    row("too many values", "tuning.hyperparameter_ranges.optimizer",
        R"({"type": "Categorical", "values": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31]})",
        "tuning.hyperparameter_ranges.optimizer.values", "1 to 30");
    row("strategy", "tuning.strategy", "\"Bayes\"", "tuning.strategy", "Bayesian");
    row("max_jobs zero", "tuning.max_jobs", "0", "tuning.max_jobs", "");
    row("max_jobs above 500", "tuning.max_jobs", "501", "tuning.max_jobs", "");
    row("parallel above 100", "tuning.max_parallel_jobs", "101", "tuning.max_parallel_jobs", "");
    row("early stopping", "tuning.early_stopping_type", "\"On\"", "tuning.early_stopping_type",
        "Auto");
    row("seed negative", "tuning.random_seed", "-1", "tuning.random_seed", "");
    row("name", "tuning.name", "\"bad name!\"", "tuning.name", "32 letters");
    row("strategy_config for Bayesian", "tuning.strategy_config", R"({"hyperband": {}})",
        "tuning.strategy_config", "Hyperband strategy");
    row("runtime", "tuning.max_runtime_in_seconds", "0", "tuning.max_runtime_in_seconds", "");
    row("completion key", "tuning.completion_criteria", R"({"target": 1})",
        "tuning.completion_criteria.target", "unknown");
    row("not improving below 3", "tuning.completion_criteria",
        R"({"max_number_training_jobs_not_improving": 2})",
        "tuning.completion_criteria.max_number_training_jobs_not_improving", "");
    row("convergence", "tuning.completion_criteria", R"({"complete_on_convergence": "yes"})",
        "tuning.completion_criteria.complete_on_convergence", "Enabled");
    row("no parents", "tuning.warm_start_config", R"({"type": "TransferLearning"})",
        "tuning.warm_start_config.parents", "1 to 5");
    row("six parents", "tuning.warm_start_config",
        R"({"parents": ["a","b","c","d","e","f"], "type": "TransferLearning"})",
        "tuning.warm_start_config.parents", "1 to 5");
    row("parent twice", "tuning.warm_start_config",
        R"({"parents": ["a","a"], "type": "TransferLearning"})",
        "tuning.warm_start_config.parents[1]", "twice");
    row("warm start type", "tuning.warm_start_config", R"({"parents": ["a"], "type": "Same"})",
        "tuning.warm_start_config.type", "TransferLearning");
    row("static unknown", "tuning.hyperparameters_to_keep_static", R"(["momentum"])",
        "tuning.hyperparameters_to_keep_static[0]", "has no");
    row("static and tuned", "tuning.hyperparameters_to_keep_static", R"(["epochs"])",
        "tuning.hyperparameters_to_keep_static[0]", "cannot also be static");
    row("training error", "training.instance_count", "0", "training.instance_count", "");
    row("training entry", "training.entry_point", "\"builtin:nope\"", "training.entry_point", "");
    return rows;
}

// The rows of the strategyErrors table: a whole spec and the error it must give.
struct StrategyRow {
    std::string tag;
    json doc;
    std::string errorPath, fragment;
};

std::vector<StrategyRow> strategyRows() {
    std::vector<StrategyRow> rows;
    auto row = [&](const char* tag, json doc, const char* errorPath, const char* fragment) {
        rows.push_back({tag, std::move(doc), errorPath, fragment});
    };
    json grid = baseDoc();
    grid["tuning"]["strategy"] = "Grid";
    row("grid continuous", grid, "tuning.hyperparameter_ranges.lr", "not Continuous");
    json gridJobs = grid;
    gridJobs["tuning"]["hyperparameter_ranges"] = {
        {"optimizer", {{"type", "Categorical"}, {"values", {"sgd", "adam"}}}}};
    gridJobs["tuning"]["max_jobs"] = 4;
    row("grid max_jobs", gridJobs, "tuning.max_jobs", "leave max_jobs out");
    json gridBig = grid;
    gridBig["tuning"]["hyperparameter_ranges"] = {
        {"batch-size", {{"type", "Integer"}, {"min_value", 1}, {"max_value", 600}}}};
    row("grid too large", gridBig, "tuning.hyperparameter_ranges", "600 combinations");
    json gridAuto = gridJobs;
    gridAuto["tuning"].erase("max_jobs");
    gridAuto["tuning"]["early_stopping_type"] = "Auto";
    row("grid early stopping", gridAuto, "tuning.early_stopping_type", "must be Off");
    json hb = baseDoc();
    hb["tuning"]["strategy"] = "Hyperband";
    json hbAuto = hb;
    hbAuto["tuning"]["early_stopping_type"] = "Auto";
    row("hyperband auto", hbAuto, "tuning.early_stopping_type", "stops jobs early itself");
    json hbEpochs = hb;
    hbEpochs["tuning"]["hyperparameter_ranges"]["epochs"] = {
        {"type", "Integer"}, {"min_value", 1}, {"max_value", 9}};
    row("hyperband tunes epochs", hbEpochs, "tuning.hyperparameter_ranges.epochs",
        "sets epochs itself");
    json hbMin = hb;
    hbMin["tuning"]["strategy_config"] = {{"hyperband", {{"min_resource", 5}}}};
    row("hyperband min >= max", hbMin, "tuning.strategy_config.hyperband.min_resource",
        "less than max_resource");
    json hbMax = hb;
    hbMax["tuning"]["strategy_config"] = {{"hyperband", {{"max_resource", 20001}}}};
    row("hyperband max", hbMax, "tuning.strategy_config.hyperband.max_resource", "");
    json script = baseDoc();
    script["training"] = {{"name", "s"}, {"entry_point", {"/bin/true"}}};
    script["tuning"]["hyperparameter_ranges"] = {
        {"x", {{"type", "Continuous"}, {"min_value", 0}, {"max_value", 1}}}};
    row("script without metrics", script, "tuning.objective_metric_name",
        "add training.metric_definitions");
    json scriptHb = script;
    scriptHb["training"]["metric_definitions"] = {{{"Name", "eval:accuracy"}, {"Regex", "a=(.*)"}}};
    scriptHb["tuning"]["strategy"] = "Hyperband";
    row("hyperband without epochs", scriptHb, "tuning.strategy_config",
        "needs the training's epochs");
    json many = baseDoc();
    json values = json::array();
    for (int i = 0; i < 20; ++i)
        values.push_back(i + 1);
    many["tuning"]["hyperparameter_ranges"]["batch-size"] = {{"type", "Categorical"},
                                                             {"values", values}};
    row("more than 20 hyperparameters", many, "tuning.hyperparameter_ranges",
        "each categorical value counting as one; got 21");
    return rows;
}

} // namespace

TEST_CASE("defaultsAsSageMaker") {
    auto r = parse(baseDoc());
    REQUIRE_MESSAGE(r.ok(), (r.errors.empty() ? "" : r.errors.front().text().c_str()));
    const tune::TuningSpec& s = *r.spec;
    REQUIRE(s.strategy == tune::SearchStrategy::Bayesian);
    REQUIRE(s.maximize);
    REQUIRE(s.maxJobs == 1);
    REQUIRE(s.maxParallelJobs == 1);
    REQUIRE(!s.earlyStoppingAuto);
    REQUIRE(!s.randomSeedGiven);
    REQUIRE(s.name == std::string("fmnist-tuning"));
    REQUIRE(s.ranges.size() == std::size_t(1));
    REQUIRE(s.ranges[0].scaling == tune::Scaling::Logarithmic);
    REQUIRE(s.training.entryPoint.builtinModel == std::string("fmnist-cnn"));
}

TEST_CASE("gridComputesMaxJobs") {
    json doc = baseDoc();
    doc["tuning"]["strategy"] = "Grid";
    doc["tuning"]["hyperparameter_ranges"] = {
        {"optimizer", {{"type", "Categorical"}, {"values", {"sgd", "adam", "adamw"}}}},
        {"batch-size", {{"type", "Integer"}, {"min_value", 32}, {"max_value", 35}}}};
    auto r = parse(doc);
    REQUIRE(r.ok());
    REQUIRE(r.spec->maxJobs == 12);
}

TEST_CASE("hyperbandInfersItsResource") {
    json doc = baseDoc();
    doc["tuning"]["strategy"] = "Hyperband";
    auto r = parse(doc);
    REQUIRE(r.ok());
    REQUIRE(r.spec->hyperband.resource == std::string("epochs"));
    REQUIRE(r.spec->hyperband.minResource == std::int64_t(1));
    REQUIRE(r.spec->hyperband.maxResource == std::int64_t(5));
    doc["tuning"]["strategy_config"] = {{"hyperband", {{"min_resource", 2}, {"max_resource", 27}}}};
    r = parse(doc);
    REQUIRE(r.ok());
    REQUIRE(r.spec->hyperband.minResource == std::int64_t(2));
    REQUIRE(r.spec->hyperband.maxResource == std::int64_t(27));
}

TEST_CASE("acceptedForms") {
    json doc = baseDoc();
    doc["tuning"]["max_jobs"] = "20"; // SageMaker passes integers as strings too
    doc["tuning"]["hyperparameter_ranges"]["optimizer"] = {{"type", "Categorical"},
                                                           {"values", {"sgd", "adam"}}};
    doc["tuning"]["completion_criteria"] = {{"target_objective_metric_value", 0.9},
                                            {"complete_on_convergence", "Enabled"},
                                            {"max_number_training_jobs_not_improving", 5}};
    doc["tuning"]["hyperparameters_to_keep_static"] = {"batch-size"};
    doc["tuning"]["warm_start_config"] = {{"parents", {"p1", "p2"}}, {"type", "TransferLearning"}};
    doc["tuning"]["random_seed"] = 42;
    doc["tuning"]["objective_type"] = "Minimize";
    doc["tuning"]["objective_metric_name"] = "eval:loss";
    auto r = parse(doc);
    REQUIRE_MESSAGE(r.ok(), (r.errors.empty() ? "" : r.errors.front().text().c_str()));
    REQUIRE(r.spec->maxJobs == 20);
    REQUIRE(!r.spec->maximize);
    REQUIRE(*r.spec->completion.targetObjectiveMetricValue == nearly(0.9));
    REQUIRE(r.spec->completion.completeOnConvergence);
    REQUIRE(r.spec->completion.maxNumberOfTrainingJobsNotImproving == 5);
    REQUIRE(r.spec->warmStart->parents.size() == std::size_t(2));
    REQUIRE(r.spec->warmStart->type == tune::WarmStartType::TransferLearning);
    REQUIRE(r.spec->randomSeed == std::uint64_t(42));
    REQUIRE(r.spec->randomSeedGiven);
}

TEST_CASE("errors") {
    for (const ErrorRow& row : errorRows()) {
        INFO("row: ", row.tag);
        json doc = mutated(row.path, row.value);
        if (row.value == R"(["epochs"])") {
            // Static and tuned at once.
            doc["tuning"]["hyperparameter_ranges"]["epochs"] = {
                {"type", "Integer"}, {"min_value", 1}, {"max_value", 3}};
            doc["tuning"]["hyperparameters_to_keep_static"] = {"epochs"};
        }
        const std::string missing = missingError(parse(doc), row.errorPath, row.fragment);
        REQUIRE_MESSAGE(missing.empty(), missing);
    }
}

TEST_CASE("strategyErrors") {
    for (const StrategyRow& row : strategyRows()) {
        INFO("row: ", row.tag);
        const std::string missing = missingError(parse(row.doc), row.errorPath, row.fragment);
        REQUIRE_MESSAGE(missing.empty(), missing);
    }
}

// Every ```json block of TUNING.md is a complete tuning spec and must validate; the errors
// its first block shows are what validate says.
TEST_CASE("tuningDocumentExamplesValidate") {
    std::string doc;
    int count = 0;
    for (const std::string& text :
         jsonBlocks(STUDIO_SOURCE_DIR "/resources/specs/TUNING.md", &doc)) {
        auto r = tune::parseTuningSpecText(text, STUDIO_SOURCE_DIR "/resources/examples");
        REQUIRE_MESSAGE(r.ok(), ("TUNING.md example " + std::to_string(count + 1) + ":\n" + text +
                                 "\n" + (r.errors.empty() ? "" : r.errors.front().text()))
                                    .c_str());
        ++count;
    }
    REQUIRE(count >= 3);
    json bad = baseDoc();
    bad["tuning"]["hyperparameter_ranges"]["lr"]["min_value"] = 0;
    bad["tuning"]["max_jobs"] = 0;
    bad["training"]["entry_point"] = "builtin:fmnist-cn";
    const auto r = parse(bad);
    for (const auto& e : r.errors)
        REQUIRE_MESSAGE(doc.find(e.text()) != std::string::npos, e.text().c_str());
    REQUIRE(r.errors.size() == std::size_t(3));
}

TEST_CASE("textAndOverrides") {
    const std::string text = baseDoc().dump();
    auto r = tune::parseTuningSpecText(
        text, "/tmp", {"tuning.max_jobs=7", "tuning.strategy=Random"}, spec::ParseOptions{false});
    REQUIRE(r.ok());
    REQUIRE(r.spec->maxJobs == 7);
    REQUIRE(r.spec->strategy == tune::SearchStrategy::Random);
    REQUIRE(tune::isTuningDocument(text));
    REQUIRE(!tune::isTuningDocument(baseDoc()["training"].dump()));
    auto bad = tune::parseTuningSpecText("{\"tuning\": ", "/tmp");
    REQUIRE(!bad.ok());
    REQUIRE(bad.errors.front().message.find("invalid JSON") != std::string::npos);
    auto file =
        tune::parseTuningSpecFile(STUDIO_SOURCE_DIR "/resources/examples/fmnist-tuning.json");
    REQUIRE_MESSAGE(file.ok(), (file.errors.empty() ? "" : file.errors.front().text().c_str()));
    REQUIRE(file.spec->maxJobs == 6);
}

// Every tuning spec among the examples validates (test_spec validates the job specs).
TEST_CASE("examplesValidate") {
    int count = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(STUDIO_SOURCE_DIR "/resources/examples")) {
        if (entry.path().extension() != ".json")
            continue;
        std::ifstream in(entry.path());
        const std::string text((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
        if (!tune::isTuningDocument(text))
            continue;
        auto r = tune::parseTuningSpecFile(entry.path().string());
        REQUIRE_MESSAGE(r.ok(), (entry.path().string() + ": " +
                                 (r.errors.empty() ? "" : r.errors.front().text()))
                                    .c_str());
        ++count;
    }
    REQUIRE(count >= 1);
}

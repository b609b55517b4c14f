// What the built-in trainer's hook saves for a spec: SageMaker's default collections, the
// configured ones with their intervals, step windows and reductions, and the collections and
// reductions the listed rules add.
#include "engine/debugger/hook_config_json.h"
#include "engine/debugger/hook_plan.h"
#include "engine/spec/spec_parser.h"

#include "tests/support/plain_test.h"
#include "tests/support/temp_dir.h"

#include <nlohmann/json.hpp>

#include <fstream>

using namespace studio;
using namespace studio::debugger;
using studio::testing::nearly;

namespace {

spec::JobSpec parse(nlohmann::json doc) {
    doc["entry_point"] = "builtin:fmnist-cnn";
    spec::ParseResult r = spec::parseSpecText(doc.dump(), "/tmp");
    if (!r.ok())
        throw std::runtime_error(r.errors.front().path + ": " + r.errors.front().message);
    return *r.spec;
}

std::vector<std::int64_t> savedSteps(const CollectionPlan& c, std::int64_t upTo) {
    std::vector<std::int64_t> out;
    for (std::int64_t s = 0; s < upTo; ++s)
        if (c.savesStep(s))
            out.push_back(s);
    return out;
}

} // namespace

TEST_CASE("defaultsAreLossesAndMetricsEvery500Steps") {
    const HookPlan plan = planHook(parse(nlohmann::json::object()));
    REQUIRE(plan.enabled);
    REQUIRE(plan.collections.size() == std::size_t(2));
    const CollectionPlan* losses = plan.find("losses");
    const CollectionPlan* metrics = plan.find("metrics");
    REQUIRE((losses && metrics));
    REQUIRE(savedSteps(*losses, 1200) == (std::vector<std::int64_t>{0, 500, 1000}));
    REQUIRE(losses->defaultReductions);
    REQUIRE(losses->matches("loss"));
    REQUIRE(!losses->matches("gradient/fc1.fc.weight"));
    REQUIRE(metrics->matches("accuracy"));
    REQUIRE(!plan.allWorkers);
    REQUIRE(plan.savesAnything(500));
    REQUIRE(!plan.savesAnything(499));
}

TEST_CASE("hookOff") {
    const HookPlan plan = planHook(parse({{"debugger_hook_config", false}}));
    REQUIRE(!plan.enabled);
    REQUIRE(!plan.savesAnything(0));
}

// A custom rule's collections_to_save are saved like the spec's own collections; a collection
// the spec configures keeps the spec's settings.
TEST_CASE("customRulesCollectionsAreSaved") {
    const std::string source = STUDIO_SOURCE_DIR "/resources/examples/scripts/ddp_train.py";
    const HookPlan plan = planHook(
        parse({{"debugger_hook_config",
                {{"collection_configs",
                  {{{"name", "losses"}, {"parameters", {{"save_interval", "2"}}}}}}}},
               {"rules",
                {{{"name", "watch-relus"},
                  {"source", source},
                  {"rule_to_invoke", "WatchRelus"},
                  {"collections_to_save",
                   {{{"name", "relus"},
                     {"parameters", {{"include_regex", ".*relu_output"}, {"save_interval", "4"}}}},
                    {{"name", "losses"}, {"parameters", {{"save_interval", "100"}}}}}}}}}}));
    const CollectionPlan* relus = plan.find("relus");
    REQUIRE(relus);
    REQUIRE(relus->matches("conv1_relu_output"));
    REQUIRE(savedSteps(*relus, 9) == (std::vector<std::int64_t>{0, 4, 8}));
    REQUIRE(savedSteps(*plan.find("losses"), 5) == (std::vector<std::int64_t>{0, 2, 4}));
    REQUIRE(plan.find("metrics")); // the defaults still come after
    // smdebug rules read reduction_value(..., abs=True): the defaults gain their abs_ forms.
    REQUIRE(relus->defaultReductions);
    for (const char* r : {"abs_min", "abs_max", "abs_mean", "abs_l2_norm"})
        REQUIRE(relus->hasReduction(r));
}

TEST_CASE("configuredCollections") {
    const HookPlan plan = planHook(parse(
        {{"debugger_hook_config",
          {{"hook_parameters", {{"include_workers", "all"}}},
           {"collection_configs",
            {{{"name", "weights"}, {"parameters", {{"save_interval", "10"}}}},
             {{"name", "gradients"},
              {"parameters", {{"save_steps", "3,7"}, {"reductions", "abs_mean,l2_norm"}}}},
             {{"name", "biases"},
              {"parameters", {{"save_interval", "5"}, {"start_step", "10"}, {"end_step", "30"}}}},
             {{"name", "my_relus"},
              {"parameters",
               {{"include_regex", ".*relu_output"}, {"save_raw_tensor", "true"}}}}}}}}}));
    REQUIRE(plan.allWorkers);
    const CollectionPlan* w = plan.find("weights");
    REQUIRE(savedSteps(*w, 31) == (std::vector<std::int64_t>{0, 10, 20, 30}));
    REQUIRE(w->matches("fc1.fc.weight"));
    REQUIRE(!w->matches("gradient/fc1.fc.weight")); // gradients are not weights
    REQUIRE(!w->matches("fc1.fc.bias"));
    const CollectionPlan* g = plan.find("gradients");
    REQUIRE(savedSteps(*g, 100) == (std::vector<std::int64_t>{3, 7}));
    REQUIRE(!g->defaultReductions);
    REQUIRE(g->reductions == (std::vector<std::string>{"abs_mean", "l2_norm"}));
    // start_step is where the interval counts from; end_step is exclusive.
    REQUIRE(savedSteps(*plan.find("biases"), 100) == (std::vector<std::int64_t>{10, 15, 20, 25}));
    const CollectionPlan* relus = plan.find("my_relus");
    REQUIRE(relus->saveRawTensor);
    REQUIRE(relus->matches("conv1_relu_output"));
    REQUIRE(!relus->matches("conv1_relu_input"));
    // losses and metrics are still saved by default.
    REQUIRE((plan.find("losses") && plan.find("metrics")));
    // A tensor may be in several collections.
    REQUIRE(plan.collectionsOf("fc1.fc.weight").size() == std::size_t(1));
}

TEST_CASE("rulesAddTheirCollectionsAndReductions") {
    const HookPlan plan =
        planHook(parse({{"debugger_hook_config",
                         {{"collection_configs",
                           {{{"name", "gradients"}, {"parameters", {{"save_interval", "25"}}}}}}}},
                        {"rules",
                         {{{"name", "VanishingGradient"}},
                          {{"name", "WeightUpdateRatio"}},
                          {{"name", "DeadRelu"}, {"parameters", {{"threshold_inactivity", "2.5"}}}},
                          {{"name", "ClassImbalance"}},
                          {{"name", "ExplodingTensor"}}}}}));
    // The configured gradients keep their interval and gain the rule's reduction.
    const CollectionPlan* g = plan.find("gradients");
    REQUIRE(g->saveInterval == 25);
    REQUIRE(g->hasReduction("abs_mean"));
    REQUIRE(g->defaultReductions); // the spec listed none: the default set is added too
    // Collections a rule adds follow SageMaker's rule configs: every 500 steps.
    const CollectionPlan* w = plan.find("weights");
    REQUIRE(w);
    REQUIRE(w->saveInterval == 500);
    REQUIRE((w->hasReduction("l2_norm") && w->hasReduction(reduction::kUpdateL2Norm)));
    const CollectionPlan* relu = plan.find("relu_output");
    REQUIRE((relu && relu->hasReduction(reduction::kInactiveUnitsPercent)));
    REQUIRE(relu->matches("conv2_relu_output"));
    REQUIRE(plan.reluInactivityPercent == nearly(2.5));
    // Class counts accumulate over many samples: every step.
    REQUIRE(plan.find("labels")->saveInterval == 1);
    REQUIRE(plan.find("predictions")->saveInterval == 1);
    // ExplodingTensor reads every saved collection, including the ones other rules added.
    for (const auto& c : plan.collections)
        REQUIRE_MESSAGE(c.hasReduction(reduction::kNonFinite), c.name.c_str());
}

TEST_CASE("explodingTensorOnlyNanAndNamedCollections") {
    const HookPlan plan = planHook(
        parse({{"rules",
                {{{"name", "ExplodingTensor"},
                  {"parameters", {{"collection_names", "gradients"}, {"only_nan", "True"}}}}}}}));
    REQUIRE(plan.find("gradients")->hasReduction(reduction::kNan));
    REQUIRE(!plan.find("losses")->hasReduction(reduction::kNan));
    REQUIRE(!plan.find("gradients")->hasReduction(reduction::kNonFinite));
}

TEST_CASE("userLabelsCollectionKeepsItsInterval") {
    const HookPlan plan = planHook(
        parse({{"debugger_hook_config",
                {{"collection_configs",
                  {{{"name", "labels"},
                    {"parameters", {{"include_regex", "^labels$"}, {"save_interval", "4"}}}}}}}},
               {"rules", {{{"name", "ClassImbalance"}}}}}));
    REQUIRE(plan.find("labels")->saveInterval == 4);
    REQUIRE(plan.find("predictions")->saveInterval == 1);
}

// A script job's hook configuration: the same plan as the built-in trainer's, with the profiler
// window and the auto-attach switch; nothing for a script that asks for no hook.
TEST_CASE("scriptHookConfigJson") {
    studio::testing::TempDir dir;
    std::ofstream(dir.filePath("train.py")) << "print(1)\n";
    auto script = [&dir](nlohmann::json doc) {
        doc["entry_point"] = "train.py";
        spec::ParseResult r = spec::parseSpecText(doc.dump(), dir.path());
        if (!r.ok())
            throw std::runtime_error(r.errors.front().path + ": " + r.errors.front().message);
        return *r.spec;
    };
    REQUIRE(scriptHookConfigJson(script(nlohmann::json::object()), "/d").empty());
    REQUIRE(scriptHookConfigJson(parse({{"debugger_hook_config", nlohmann::json::object()}}), "/d")
                .empty()); // the built-in trainer reads its spec
    REQUIRE(scriptHookConfigJson(script({{"debugger_hook_config", false},
                                         {"rules", {{{"name", "ExplodingTensor"}}}}}),
                                 "/d")
                .empty());
    const auto config = nlohmann::json::parse(scriptHookConfigJson(
        script({{"rules", {{{"name", "VanishingGradient"}}}},
                {"profiler_config",
                 {{"framework_profile_params", {{"start_step", 5}, {"num_steps", 3}}}}}}),
        "/jobs/j/debug-output"));
    REQUIRE(config["local_path"] == "/jobs/j/debug-output");
    REQUIRE(config["auto_attach"] == true);
    REQUIRE(config["profiler"]["framework"] == true);
    REQUIRE(config["profiler"]["start_step"] == 5);
    REQUIRE(config["profiler"]["num_steps"] == 3);
    bool gradients = false;
    for (const auto& c : config["collections"])
        if (c["name"] == "gradients") {
            gradients = true;
            REQUIRE(!c["include_regex"].empty());
            REQUIRE(c["save_interval"].get<int>() > 0);
        }
    REQUIRE(gradients);
    const auto off = nlohmann::json::parse(scriptHookConfigJson(
        script({{"debugger_hook_config", {{"hook_parameters", {{"auto_attach", "false"}}}}}}),
        "/d"));
    REQUIRE(off["auto_attach"] == false);
}

// What the built-in trainer's hook saves for a spec: SageMaker's default collections, the
// configured ones with their intervals, step windows and reductions, and the collections and
// reductions the listed rules add.
#include "engine/debugger/hook_plan.h"
#include "engine/spec/spec_parser.h"

#include <QtTest>

#include <nlohmann/json.hpp>

using namespace studio;
using namespace studio::debugger;

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

class TestHookPlan : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void defaultsAreLossesAndMetricsEvery500Steps() {
        const HookPlan plan = planHook(parse(nlohmann::json::object()));
        QVERIFY(plan.enabled);
        QCOMPARE(plan.collections.size(), std::size_t(2));
        const CollectionPlan* losses = plan.find("losses");
        const CollectionPlan* metrics = plan.find("metrics");
        QVERIFY(losses && metrics);
        QCOMPARE(savedSteps(*losses, 1200), (std::vector<std::int64_t>{0, 500, 1000}));
        QVERIFY(losses->defaultReductions);
        QVERIFY(losses->matches("loss"));
        QVERIFY(!losses->matches("gradient/fc1.fc.weight"));
        QVERIFY(metrics->matches("accuracy"));
        QVERIFY(!plan.allWorkers);
        QVERIFY(plan.savesAnything(500));
        QVERIFY(!plan.savesAnything(499));
    }

    void hookOff() {
        const HookPlan plan = planHook(parse({{"debugger_hook_config", false}}));
        QVERIFY(!plan.enabled);
        QVERIFY(!plan.savesAnything(0));
    }

    void configuredCollections() {
        const HookPlan plan = planHook(parse(
            {{"debugger_hook_config",
              {{"hook_parameters", {{"include_workers", "all"}}},
               {"collection_configs",
                {{{"name", "weights"}, {"parameters", {{"save_interval", "10"}}}},
                 {{"name", "gradients"},
                  {"parameters", {{"save_steps", "3,7"}, {"reductions", "abs_mean,l2_norm"}}}},
                 {{"name", "biases"},
                  {"parameters",
                   {{"save_interval", "5"}, {"start_step", "10"}, {"end_step", "30"}}}},
                 {{"name", "my_relus"},
                  {"parameters",
                   {{"include_regex", ".*relu_output"}, {"save_raw_tensor", "true"}}}}}}}}}));
        QVERIFY(plan.allWorkers);
        const CollectionPlan* w = plan.find("weights");
        QCOMPARE(savedSteps(*w, 31), (std::vector<std::int64_t>{0, 10, 20, 30}));
        QVERIFY(w->matches("fc1.fc.weight"));
        QVERIFY(!w->matches("gradient/fc1.fc.weight")); // gradients are not weights
        QVERIFY(!w->matches("fc1.fc.bias"));
        const CollectionPlan* g = plan.find("gradients");
        QCOMPARE(savedSteps(*g, 100), (std::vector<std::int64_t>{3, 7}));
        QVERIFY(!g->defaultReductions);
        QCOMPARE(g->reductions, (std::vector<std::string>{"abs_mean", "l2_norm"}));
        // start_step is where the interval counts from; end_step is exclusive.
        QCOMPARE(savedSteps(*plan.find("biases"), 100),
                 (std::vector<std::int64_t>{10, 15, 20, 25}));
        const CollectionPlan* relus = plan.find("my_relus");
        QVERIFY(relus->saveRawTensor);
        QVERIFY(relus->matches("conv1_relu_output"));
        QVERIFY(!relus->matches("conv1_relu_input"));
        // losses and metrics are still saved by default.
        QVERIFY(plan.find("losses") && plan.find("metrics"));
        // A tensor may be in several collections.
        QCOMPARE(plan.collectionsOf("fc1.fc.weight").size(), std::size_t(1));
    }

    void rulesAddTheirCollectionsAndReductions() {
        const HookPlan plan = planHook(
            parse({{"debugger_hook_config",
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
        QCOMPARE(g->saveInterval, 25);
        QVERIFY(g->hasReduction("abs_mean"));
        QVERIFY(g->defaultReductions); // the spec listed none: the default set is added too
        // Collections a rule adds follow SageMaker's rule configs: every 500 steps.
        const CollectionPlan* w = plan.find("weights");
        QVERIFY(w);
        QCOMPARE(w->saveInterval, 500);
        QVERIFY(w->hasReduction("l2_norm") && w->hasReduction(reduction::kUpdateL2Norm));
        const CollectionPlan* relu = plan.find("relu_output");
        QVERIFY(relu && relu->hasReduction(reduction::kInactiveUnitsPercent));
        QVERIFY(relu->matches("conv2_relu_output"));
        QCOMPARE(plan.reluInactivityPercent, 2.5);
        // Class counts accumulate over many samples: every step.
        QCOMPARE(plan.find("labels")->saveInterval, 1);
        QCOMPARE(plan.find("predictions")->saveInterval, 1);
        // ExplodingTensor reads every saved collection, including the ones other rules added.
        for (const auto& c : plan.collections)
            QVERIFY2(c.hasReduction(reduction::kNonFinite), c.name.c_str());
    }

    void explodingTensorOnlyNanAndNamedCollections() {
        const HookPlan plan = planHook(parse(
            {{"rules",
              {{{"name", "ExplodingTensor"},
                {"parameters", {{"collection_names", "gradients"}, {"only_nan", "True"}}}}}}}));
        QVERIFY(plan.find("gradients")->hasReduction(reduction::kNan));
        QVERIFY(!plan.find("losses")->hasReduction(reduction::kNan));
        QVERIFY(!plan.find("gradients")->hasReduction(reduction::kNonFinite));
    }

    void userLabelsCollectionKeepsItsInterval() {
        const HookPlan plan = planHook(parse(
            {{"debugger_hook_config",
              {{"collection_configs",
                {{{"name", "labels"},
                  {"parameters", {{"include_regex", "^labels$"}, {"save_interval", "4"}}}}}}}},
             {"rules", {{{"name", "ClassImbalance"}}}}}));
        QCOMPARE(plan.find("labels")->saveInterval, 4);
        QCOMPARE(plan.find("predictions")->saveInterval, 1);
    }
};

QTEST_APPLESS_MAIN(TestHookPlan)
#include "test_hook_plan.moc"

// The 15 built-in Debugger model rules, driven the way the debugger session drives them: built
// through the registry, started with job facts, fed a crafted event stream with ticks, finished.
// For every rule: a stream that fires with SageMaker's defaults, a healthy one that stays quiet,
// and a parameter override that flips the outcome; plus no-data reasons and configuration errors.
// The streams and the driver are in model_rule_streams.*, the rule rows in model_rule_cases.*.
#include "tests/unit/model_rule_cases.h"
#include "tests/unit/model_rule_streams.h"

#include "tests/support/plain_test.h"

#include <string>
#include <vector>

using namespace studio;
using namespace studio::debugger;
using namespace studio::testing;

namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// One row of the rule table: its outcome, findings, criteria and reasons.
void checkRuleCase(const ModelRuleCase& c) {
    Outcome o = run(c.rule, parseParams(c.params), c.stream);
    const Rule& r = *o.rule;
    REQUIRE(std::string(ruleStatusName(r.status())) == c.status);
    REQUIRE(r.name() == c.rule);
    REQUIRE(r.details().is_object());
    if (!c.criteria.empty())
        REQUIRE_MESSAGE(contains(r.criteria(), c.criteria), r.criteria());

    if (c.status == "IssuesFound") {
        REQUIRE(!o.findings.empty());
        REQUIRE(r.fired() == static_cast<std::int64_t>(o.findings.size()));
        const Finding& f = o.findings.front();
        REQUIRE_MESSAGE(contains(f.message, c.text), f.message);
        REQUIRE(f.criteria == r.criteria());
        REQUIRE(f.recommendation.size() > 40);
        REQUIRE(f.time >= kT0);
        if (!c.device.empty())
            REQUIRE(f.device == c.device);
        if (c.rule != "StalledTrainingRule")
            REQUIRE(f.step >= 0);
    } else {
        REQUIRE_MESSAGE(o.findings.empty(), (o.findings.empty() ? "" : o.findings[0].message));
        REQUIRE(r.fired() == std::int64_t(0));
    }
    if (c.status == "NoIssuesFound")
        REQUIRE(r.datapoints() > 0);
    if (c.status == "NotApplicable") {
        REQUIRE(r.datapoints() == std::int64_t(0));
        REQUIRE_MESSAGE(contains(r.statusMessage(), c.text), r.statusMessage());
    }
}

} // namespace

TEST_CASE("rules") {
    for (const ModelRuleCase& c : modelRuleCases()) {
        INFO("row: ", c.tag);
        checkRuleCase(c);
    }
}

TEST_CASE("configErrors") {
    const struct {
        const char* row;
        std::string rule, params, message;
    } rows[] = {
        {"TensorVariance without thresholds", "TensorVariance", "",
         "needs max_threshold or min_threshold"},
        {"ExplodingTensor invalid regex", "ExplodingTensor", "tensor_regex=fc[1",
         "tensor_regex \"fc[1\" is not a valid regular expression"},
        {"DeadRelu invalid regex", "DeadRelu", "tensor_regex=*relu",
         "not a valid regular expression"},
        {"CheckInputImages without regex", "CheckInputImages", "regex=None",
         "regex needs a regular expression"},
        {"LossNotDecreasing mode", "LossNotDecreasing", "mode=SOMETIMES", "TRAIN, EVAL, GLOBAL"},
        {"LossNotDecreasing reads nothing", "LossNotDecreasing", "use_losses_collection=False",
         "reads no tensor"},
        {"UnchangedTensor num_steps", "UnchangedTensor", "num_steps=1",
         "num_steps must be at least 2"},
        {"Overfit patience", "Overfit", "patience=0", "patience must be at least 1"},
        {"ClassImbalance samples not a number", "ClassImbalance", "samples=many",
         "samples must be a number"},
        {"StalledTrainingRule threshold", "StalledTrainingRule", "threshold=0", "positive"},
        {"unknown parameter", "AllZero", "treshold=5", "unknown parameter \"treshold\""},
    };
    for (const auto& row : rows) {
        INFO("row: ", row.row);
        REQUIRE_THROWS_AS(makeBuiltinRule(row.rule, parseParams(row.params)), RuleConfigError);
        try {
            makeBuiltinRule(row.rule, parseParams(row.params));
        } catch (const RuleConfigError& e) {
            REQUIRE_MESSAGE(contains(e.what(), row.message), e.what());
        }
    }
}

TEST_CASE("registryBuildsEveryModelRule") {
    int built = 0;
    for (const auto& info : debugger::ruleCatalog()) {
        if (info.kind != debugger::RuleKind::Model)
            continue;
        std::map<std::string, std::string> params;
        if (info.name == "TensorVariance")
            params["max_threshold"] = "10";
        auto rule = makeBuiltinRule(info.name, params);
        REQUIRE(rule->name() == info.name);
        REQUIRE(rule->kind() == debugger::RuleKind::Model);
        REQUIRE(!rule->criteria().empty());
        ++built;
    }
    REQUIRE(built == 15);
    // A profiler rule is not the model rules' business.
    const debugger::RuleInfo* profiler = debugger::findRule("CPUBottleneck");
    REQUIRE(profiler);
    REQUIRE(makeModelRule(RuleParams(*profiler)) == nullptr);
}

TEST_CASE("oneFindingPerStepNamesEveryTensor") {
    StreamBuilder b;
    for (const char* name : {"a.weight", "b.weight", "c.weight", "d.weight", "e.weight"})
        b.tensor(7, "weights", name, {{"nonfinite", name[0] == 'c' ? 9.0 : 1.0}});
    b.tensor(8, "weights", "a.weight", {{"nonfinite", 1}});
    Outcome o = run("ExplodingTensor", {}, b.build());
    REQUIRE(o.findings.size() == std::size_t(2));
    const Finding& f = o.findings[0];
    REQUIRE(f.step == std::int64_t(7));
    REQUIRE(f.device == std::string("c.weight")); // the worst first
    REQUIRE_MESSAGE(contains(f.message, "5 tensors hold NaN or infinite values at step 7: c.weight "
                                        "(9), a.weight (1), b.weight (1), d.weight (1) and 1 more"),
                    f.message);
    REQUIRE(o.rule->datapoints() == std::int64_t(6));
}

TEST_CASE("findingsComeOutLiveOnTicks") {
    StreamBuilder b;
    b.tensor(3, "weights", "fc1.fc.weight", {{"nonfinite", 2}});
    b.ticks(kT0 + 10, kT0 + 13, 1);
    Outcome o = run("ExplodingTensor", {}, b.build());
    REQUIRE(o.findings.size() == std::size_t(1));
    // The first tick after the step sees it was still arriving; the next one evaluates it.
    REQUIRE(o.findingsAt.front() == nearly(kT0 + 11));

    // A later step completes the earlier one at once.
    StreamBuilder c;
    c.tensor(3, "weights", "fc1.fc.weight", {{"nonfinite", 2}});
    c.tensor(4, "weights", "fc1.fc.weight", {{"nonfinite", 0}});
    Outcome p = run("ExplodingTensor", {}, c.build());
    REQUIRE(p.findingsAt.front() == nearly(kT0 + 4));
}

TEST_CASE("duplicateCollectionsCountOnce") {
    // A tensor saved for two collections arrives twice per step with the same values; counted
    // twice, UnchangedTensor would see 4 equal samples of 2 steps and fire.
    StreamBuilder b;
    for (std::int64_t step : {0, 100}) {
        b.tensor(step, "weights", "fc1.fc.weight", {{"mean", 0.5}, {"l2_norm", 2}});
        b.tensor(step, "rule_tensors_UnchangedTensor", "fc1.fc.weight",
                 {{"mean", 0.5}, {"l2_norm", 2}});
    }
    Outcome o = run("UnchangedTensor", {}, b.build());
    REQUIRE(std::string(ruleStatusName(o.rule->status())) == "NoIssuesFound");
    REQUIRE(o.rule->datapoints() == std::int64_t(2));

    // Losses too: the second copy of step 20 is not one more value without improvement.
    Stream s = losses({1.0, 0.95, 0.95, 0.95});
    s.events.push_back(s.events.back());
    std::get<wire::TensorEvent>(s.events.back().payload).collection = "rule_tensors_copy";
    Outcome l = run("Overtraining", {{"patience_train", "4"}}, s);
    REQUIRE(l.rule->datapoints() == std::int64_t(4));
    REQUIRE(l.rule->fired() == std::int64_t(0));
}

TEST_CASE("ranksAreSeparateTensors") {
    // Two pipeline stages send a tensor of the same name: each rank's history is its own, so
    // rank 1's constant tensor is flagged while rank 0's changing one is not.
    StreamBuilder b;
    for (std::int64_t step : {0, 100, 200}) {
        b.tensor(step, "weights", "block.weight", {{"mean", 0.1 * static_cast<double>(step)}},
                 kTrain, 0);
        b.tensor(step, "weights", "block.weight", {{"mean", 7}}, kTrain, 1);
    }
    Outcome o = run("UnchangedTensor", {}, b.build());
    REQUIRE(o.findings.size() == std::size_t(1));
    REQUIRE_MESSAGE(contains(o.findings[0].message, "block.weight (rank 1)"),
                    o.findings[0].message);
    REQUIRE(o.rule->datapoints() == std::int64_t(6));
}

TEST_CASE("stalledFiresAgainOnlyAfterAnotherThreshold") {
    Stream s = activity(0, 400, 10); // one step at kT0, then ticks every 10 s for 400 s
    Outcome o = run("StalledTrainingRule", {{"threshold", "100"}}, s);
    // Fires at +110, then the clock restarts: +220, +330.
    REQUIRE(o.findings.size() == std::size_t(3));
    REQUIRE(o.findingsAt[0] == nearly(kT0 + 110));
    REQUIRE(o.findingsAt[1] == nearly(kT0 + 220));
    REQUIRE(o.findings[0].step == std::int64_t(0));
    REQUIRE(o.findings[0].time == nearly(kT0 + 110));
    REQUIRE(o.rule->datapoints() == std::int64_t(40));
}

TEST_CASE("stalledStopsTrainingByPrefix") {
    const struct {
        const char* row;
        std::string params;
        bool stops;
    } rows[] = {
        {"default", "", false},
        {"stop, no prefix", "stop_training_on_fire=True", true},
        {"stop, matching prefix", "stop_training_on_fire=True;training_job_name_prefix=mnist-",
         true},
        {"stop, other prefix", "stop_training_on_fire=True;training_job_name_prefix=resnet-",
         false},
        {"prefix without stop", "training_job_name_prefix=mnist-", false},
    };
    for (const auto& row : rows) {
        INFO("row: ", row.row);
        auto rule = makeBuiltinRule("StalledTrainingRule", parseParams(row.params));
        rule->start(facts("mnist-2024-01-01-00-00-00"));
        REQUIRE(rule->stopsTrainingOnFire() == row.stops);
    }
}

TEST_CASE("sessionReportsErrorsAndStops") {
    spec::JobSpec job;
    job.profiler.disabled = true;
    job.rules.push_back(spec::RuleConfig{"TensorVariance", {}, {}});
    job.rules.push_back(spec::RuleConfig{
        "StalledTrainingRule", {{"threshold", "60"}, {"stop_training_on_fire", "True"}}, {}});
    std::vector<std::string> stopped;
    SessionCallbacks callbacks;
    callbacks.stopTraining = [&](const std::string& rule, const std::string&) {
        stopped.push_back(rule);
    };
    DebuggerSession session(job, facts(), nullptr, 0, callbacks);
    const auto rules = session.rules();
    REQUIRE(rules.size() == std::size_t(2));
    REQUIRE(std::string(ruleStatusName(rules[0]->status())) == "Error");
    REQUIRE(contains(rules[0]->statusMessage(), "max_threshold"));

    session.onEvent(wire::Event{kT0 + 5, 0, 0, wire::StepEvent{1}});
    for (double t = kT0 + 10; t <= kT0 + 60; t += 10)
        session.tick(t);
    REQUIRE(stopped.empty()); // 55 s since the step
    session.tick(kT0 + 70);
    REQUIRE(stopped == (std::vector<std::string>{"StalledTrainingRule"}));
    session.finish(kT0 + 100);
    REQUIRE(std::string(ruleStatusName(rules[1]->status())) == "IssuesFound");
    REQUIRE(std::string(ruleStatusName(rules[0]->status())) == "Error");
}

TEST_CASE("sessionTranslatesScriptMetrics") {
    spec::JobSpec job;
    job.profiler.disabled = true;
    job.rules.push_back(spec::RuleConfig{"LossNotDecreasing", {{"num_steps", "1"}}, {}});
    JobFacts f = facts();
    f.builtinTrainer = false;
    DebuggerSession session(job, f, nullptr, 0);
    const double values[] = {0.9, 0.8, 0.85};
    for (std::int64_t i = 0; i < 3; ++i) {
        session.onEvent(wire::Event{kT0 + static_cast<double>(i), 0, 0,
                                    wire::MetricEvent{"train:loss", i, 2.0 - 0.1 * i}});
        session.onEvent(wire::Event{kT0 + static_cast<double>(i), 0, 0,
                                    wire::MetricEvent{"validation:loss", i, values[i]}});
    }
    session.finish(kT0 + 10);
    const Rule& r = *session.rules().front();
    REQUIRE(std::string(ruleStatusName(r.status())) == "IssuesFound");
    REQUIRE(r.fired() == std::int64_t(1));
    REQUIRE(r.details().at("mode").get<std::string>() == std::string("EVAL (None)"));
}

TEST_CASE("detailsCarryFigures") {
    Outcome v = run("VanishingGradient", {}, "grads_vanishing");
    const nlohmann::json d = v.rule->details();
    REQUIRE(d.at("steps_evaluated").get<int>() == 4);
    REQUIRE(d.at("tensors_evaluated").get<int>() == 8);
    REQUIRE(d.at("tensors_flagged").get<int>() == 2);
    REQUIRE(d.at("lowest").get<double>() == nearly(1e-9));

    Outcome c = run("ClassImbalance", {}, "labels_imbalanced");
    const nlohmann::json cd = c.rule->details();
    REQUIRE(cd.at("samples").get<double>() == nearly(640.0));
    REQUIRE(cd.at("class_counts").at("1").get<double>() == nearly(40.0));
    REQUIRE(cd.at("imbalance").get<double>() == nearly(15.0));

    Outcome s = run("StalledTrainingRule", {}, "stall_long");
    REQUIRE(s.rule->details().at("longest_gap_s").get<double>() == nearly(1820.0));
}

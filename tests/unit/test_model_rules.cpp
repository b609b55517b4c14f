// The 15 built-in Debugger model rules, driven the way the debugger session drives them: built
// through the registry, started with job facts, fed a crafted event stream with ticks, finished.
// For every rule: a stream that fires with SageMaker's defaults, a healthy one that stays quiet,
// and a parameter override that flips the outcome; plus no-data reasons and configuration errors.
#include "engine/debugger/debugger_session.h"
#include "engine/debugger/rule_registry.h"

#include <QtTest>

#include <cmath>
#include <functional>
#include <limits>
#include <map>

using namespace studio;
using namespace studio::debugger;

namespace {

constexpr double kT0 = 1'700'000'000.0;
constexpr auto kTrain = wire::Phase::Train;
constexpr auto kEval = wire::Phase::Eval;
const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

using Reductions = std::vector<std::pair<std::string, double>>;

struct Stream {
    std::vector<wire::Event> events;
    std::vector<double> ticks; // onTick times, merged with the events by time
};

// Events at kT0 + step seconds unless a time is given.
class StreamBuilder {
public:
    StreamBuilder& tensor(std::int64_t step, const std::string& collection, const std::string& name,
                          Reductions reductions, wire::Phase phase = kTrain, int rank = 0) {
        wire::TensorEvent t{collection, name, step, std::move(reductions), phase};
        m_s.events.push_back(wire::Event{time(step), 0, rank, std::move(t)});
        return *this;
    }
    StreamBuilder& loss(std::int64_t step, double value, wire::Phase phase = kTrain,
                        const std::string& name = "loss") {
        return tensor(step, "losses", name, {{"value", value}}, phase);
    }
    StreamBuilder& stepAt(double t, std::int64_t step) {
        m_s.events.push_back(wire::Event{t, 0, 0, wire::StepEvent{step}});
        return *this;
    }
    StreamBuilder& ticks(double from, double to, double every) {
        for (double t = from; t <= to; t += every)
            m_s.ticks.push_back(t);
        return *this;
    }
    StreamBuilder& at(double t) {
        m_fixedTime = t;
        return *this;
    }
    Stream build() const { return m_s; }

private:
    double time(std::int64_t step) const {
        return m_fixedTime ? *m_fixedTime : kT0 + static_cast<double>(step);
    }
    Stream m_s;
    std::optional<double> m_fixedTime;
};

// ---- streams -------------------------------------------------------------------------------

Stream gradients(double fc1Late) {
    StreamBuilder b;
    for (std::int64_t step : {0, 10, 20, 30}) {
        b.tensor(step, "gradients", "gradient/fc1.fc.weight",
                 {{"abs_mean", step >= 20 ? fc1Late : 1e-3}});
        b.tensor(step, "gradients", "gradient/fc2.fc.bias", {{"abs_mean", 2e-3}});
    }
    return b.build();
}

Stream losses(const std::vector<double>& train, const std::vector<double>& eval = {},
              std::int64_t every = 10, const std::string& trainName = "loss",
              const std::string& evalName = "loss") {
    StreamBuilder b;
    for (std::size_t i = 0; i < train.size(); ++i)
        b.loss(static_cast<std::int64_t>(i) * every, train[i], kTrain, trainName);
    for (std::size_t i = 0; i < eval.size(); ++i)
        b.loss(static_cast<std::int64_t>(i) * every, eval[i], kEval, evalName);
    // Order by step as a trainer sends them.
    Stream s = b.build();
    std::stable_sort(s.events.begin(), s.events.end(),
                     [](const wire::Event& a, const wire::Event& c) { return a.t < c.t; });
    return s;
}

std::vector<double> series(double first, double stepBy, int n) {
    std::vector<double> v;
    for (int i = 0; i < n; ++i)
        v.push_back(first + stepBy * i);
    return v;
}

Stream weights(double fc1Nonfinite, double fc1Max, double fc1Nan = 0) {
    StreamBuilder b;
    for (std::int64_t step = 0; step < 4; ++step) {
        const bool bad = step == 2;
        b.tensor(step, "weights", "fc1.fc.weight",
                 {{"nonfinite", bad ? fc1Nonfinite : 0},
                  {"nan", bad ? fc1Nan : 0},
                  {"max", bad ? fc1Max : 0.5}});
        b.tensor(step, "weights", "fc2.fc.weight", {{"nonfinite", 0}, {"nan", 0}, {"max", 0.4}});
    }
    return b.build();
}

Stream poorInit(double lowVariance, double gradientSpread, double lossDrop,
                std::int64_t badFrom = 0) {
    StreamBuilder b;
    for (std::int64_t step = 0; step < 15; ++step) {
        b.tensor(step, "relu_input", "conv1_relu_input", {{"variance", 1.0}});
        b.tensor(step, "relu_input", "fc1_relu_input",
                 {{"variance", step >= badFrom ? lowVariance : 0.5}});
        b.tensor(step, "gradients", "gradient/fc1.fc.weight",
                 {{"p5", -gradientSpread / 2}, {"p95", gradientSpread / 2}});
        b.loss(step, 2.3 - lossDrop * static_cast<double>(step));
    }
    return b.build();
}

Stream activations(const std::string& a, double aPercent, const std::string& c, double cPercent) {
    StreamBuilder b;
    for (std::int64_t step : {0, 5, 10}) {
        b.tensor(step, "relu_output", a, {{"inactive_units_percent", step == 5 ? aPercent : 1}});
        b.tensor(step, "relu_output", c, {{"inactive_units_percent", cPercent}});
    }
    return b.build();
}

Stream updates(double atStep3) {
    StreamBuilder b;
    for (std::int64_t step = 0; step < 6; ++step) {
        b.tensor(step, "weights", "fc1.fc.weight",
                 {{"l2_norm", 1.0}, {"update_l2_norm", step == 3 ? atStep3 : 0.01}});
        b.tensor(step, "weights", "fc2.fc.weight", {{"l2_norm", 2.0}, {"update_l2_norm", 0.02}});
    }
    return b.build();
}

Stream zeros(double biasZeroPercent) {
    StreamBuilder b;
    for (std::int64_t step = 0; step < 3; ++step) {
        b.tensor(step, "biases", "fc1.fc.bias", {{"zero_percent", biasZeroPercent}});
        b.tensor(step, "weights", "fc1.fc.weight", {{"zero_percent", 0}});
    }
    return b.build();
}

// fc1 moves by `relativeChange` of its value per step over 4 saved steps; fc2 moves a lot.
Stream unchanged(double relativeChange) {
    StreamBuilder b;
    for (std::int64_t step = 0; step < 4; ++step) {
        const double m = 0.25 * std::pow(1 + relativeChange, static_cast<double>(step));
        b.tensor(step * 100, "weights", "fc1.fc.weight",
                 {{"min", -1}, {"max", 1}, {"mean", m}, {"l2_norm", 3}});
        b.tensor(step * 100, "weights", "fc2.fc.weight",
                 {{"min", -1},
                  {"max", 1},
                  {"mean", 0.1 * static_cast<double>(step)},
                  {"l2_norm", 3 + static_cast<double>(step)}});
    }
    return b.build();
}

Stream variances(double atStep2) {
    StreamBuilder b;
    for (std::int64_t step = 0; step < 4; ++step)
        b.tensor(step, "weights", "fc1.fc.weight", {{"variance", step == 2 ? atStep2 : 1.0}});
    return b.build();
}

// 10 training batches of 64 labels over two classes; misses of class 1 on the predictions.
Stream labels(double class0, double missed1) {
    StreamBuilder b;
    for (std::int64_t step = 0; step < 10; ++step) {
        b.tensor(step, "predictions", "predictions",
                 {{"class_0", class0},
                  {"class_1", 64 - class0},
                  {"mispredicted_0", 1},
                  {"mispredicted_1", missed1}});
        b.tensor(step, "labels", "labels",
                 {{"samples", 64}, {"class_0", class0}, {"class_1", 64 - class0}});
        b.tensor(step, "labels", "labels", {{"samples", 64}, {"class_0", 0}}, kEval);
    }
    return b.build();
}

Stream inputs(const std::string& name, double channelMean) {
    StreamBuilder b;
    for (std::int64_t step = 0; step < 10; ++step)
        b.tensor(step, "input_image", name,
                 {{"samples", 64}, {"channel_mean_0", channelMean}, {"channel_mean_1", 0.01}});
    return b.build();
}

// Data every 10 s up to lastData, then ticks every `tickEvery` s up to end.
Stream activity(double lastData, double end, double tickEvery, double gapFrom = -1,
                double gapTo = -1) {
    StreamBuilder b;
    std::int64_t step = 0;
    for (double t = kT0; t <= kT0 + lastData; t += 10) {
        if (t > kT0 + gapFrom && t < kT0 + gapTo)
            continue;
        b.stepAt(t, step++);
    }
    b.ticks(kT0 + tickEvery, kT0 + end, tickEvery);
    return b.build();
}

const std::map<QString, std::function<Stream()>>& streams() {
    static const std::map<QString, std::function<Stream()>> all = {
        {"no_tensors",
         [] {
             return activity(60, 0, 10);
         }},
        {"losses_only",
         [] {
             return losses(series(2.0, -0.1, 10));
         }},
        {"grads_vanishing",
         [] {
             return gradients(1e-9);
         }},
        {"grads_healthy",
         [] {
             return gradients(1e-3);
         }},
        {"nan_in_weights",
         [] {
             return weights(5, kNaN, 5);
         }},
        {"inf_in_weights",
         [] {
             return weights(3, kInf, 0);
         }},
        {"healthy_weights",
         [] {
             return weights(0, 0.5);
         }},
        {"nan_loss",
         [] {
             return losses({1.0, 0.9, kNaN, 0.8});
         }},
        {"poor_init",
         [] {
             return poorInit(0.01, 0.1, 0.05);
         }},
        {"poor_init_late",
         [] {
             return poorInit(0.01, 0.1, 0.05, 12);
         }},
        {"good_init",
         [] {
             return poorInit(0.5, 0.1, 0.05);
         }},
        {"good_init_flat_loss",
         [] {
             return poorInit(0.5, 0.1, 0.0);
         }},
        {"good_init_narrow_grads",
         [] {
             return poorInit(0.5, 2e-4, 0.05);
         }},
        {"tanh_saturated",
         [] {
             return activations("block1_tanh_input", 80, "block2_sigmoid_input", 10);
         }},
        {"tanh_healthy",
         [] {
             return activations("block1_tanh_input", 20, "block2_sigmoid_input", 10);
         }},
        {"relu_dead",
         [] {
             return activations("conv1_relu_output", 75, "fc1_relu_output", 20);
         }},
        {"relu_healthy",
         [] {
             return activations("conv1_relu_output", 5, "fc1_relu_output", 10);
         }},
        {"updates_large",
         [] {
             return updates(50);
         }},
        {"updates_small",
         [] {
             return updates(1e-12);
         }},
        {"updates_healthy",
         [] {
             return updates(0.01);
         }},
        {"zeros_all",
         [] {
             return zeros(100);
         }},
        {"zeros_some",
         [] {
             return zeros(40);
         }},
        {"unchanged_weights",
         [] {
             return unchanged(0);
         }},
        {"slow_change",
         [] {
             return unchanged(1e-3);
         }},
        {"changing_weights",
         [] {
             return unchanged(0.2);
         }},
        {"variance_high",
         [] {
             return variances(50);
         }},
        {"variance_normal",
         [] {
             return variances(1.5);
         }},
        {"labels_imbalanced",
         [] {
             return labels(60, 1);
         }},
        {"labels_balanced",
         [] {
             return labels(32, 2);
         }},
        {"labels_mispredicted",
         [] {
             return labels(32, 30);
         }},
        {"loss_rising",
         [] {
             return losses({1.0, 0.9, 0.8, 0.85, 0.9, 0.95});
         }},
        {"loss_falling",
         [] {
             return losses(series(3.0, -0.2, 10));
         }},
        {"loss_falling_slowly",
         [] {
             return losses(series(1.0, -0.01, 10));
         }},
        {"loss_plateau",
         [] {
             return losses(std::vector<double>(8, 0.5));
         }},
        {"eval_rising_train_falling",
         [] {
             return losses(series(2.0, -0.1, 6), series(1.0, 0.05, 6));
         }},
        {"script_metrics",
         [] {
             return losses(series(2.0, -0.1, 6), series(1.0, 0.05, 6), 10, "train:loss",
                           "validation:loss");
         }},
        {"overfit",
         [] {
             return losses(std::vector<double>(6, 0.5), {0.52, 0.8, 0.8, 0.8});
         }},
        {"fit_ok",
         [] {
             return losses(std::vector<double>(6, 0.5), {0.52, 0.52, 0.53, 0.5});
         }},
        {"val_plateau",
         [] {
             return losses(series(5.0, -0.2, 14), std::vector<double>(14, 0.7));
         }},
        {"stall_long",
         [] {
             return activity(100, 2100, 60);
         }},
        {"steady",
         [] {
             return activity(600, 600, 60);
         }},
        {"steady_gap100",
         [] {
             return activity(400, 400, 10, 150, 250);
         }},
        {"hybrid_unnormalized",
         [] {
             return inputs("hybridsequential0_input_0", 0.45);
         }},
        {"hybrid_normalized",
         [] {
             return inputs("hybridsequential0_input_0", -0.05);
         }},
        {"builtin_unnormalized",
         [] {
             return inputs("mnistnet_input_0", 0.45);
         }},
        {"builtin_normalized",
         [] {
             return inputs("mnistnet_input_0", 0.01);
         }},
    };
    return all;
}

// ---- driving a rule ------------------------------------------------------------------------

std::map<std::string, std::string> parseParams(const QString& text) {
    std::map<std::string, std::string> out;
    for (const QString& kv : text.split(u';', Qt::SkipEmptyParts)) {
        const auto eq = kv.indexOf(u'=');
        out[kv.left(eq).toStdString()] = kv.mid(eq + 1).toStdString();
    }
    return out;
}

JobFacts facts(const std::string& jobName = "job-1") {
    JobFacts f;
    f.jobName = jobName;
    f.submitTime = kT0;
    f.builtinTrainer = true;
    return f;
}

struct Outcome {
    std::unique_ptr<Rule> rule;
    std::vector<Finding> findings;
    std::vector<double> findingsAt; // when each finding came out: the event or tick time
};

Outcome run(const std::string& name, const std::map<std::string, std::string>& params,
            const Stream& s) {
    Outcome out;
    out.rule = makeBuiltinRule(name, params);
    out.rule->start(facts());
    auto collect = [&](double now) {
        for (Finding& f : out.rule->takeNewFindings()) {
            out.findings.push_back(std::move(f));
            out.findingsAt.push_back(now);
        }
    };
    std::size_t tick = 0;
    double end = kT0;
    for (const auto& e : s.events) {
        for (; tick < s.ticks.size() && s.ticks[tick] < e.t; ++tick) {
            out.rule->onTick(s.ticks[tick]);
            collect(s.ticks[tick]);
        }
        out.rule->onEvent(e);
        collect(e.t);
        end = std::max(end, e.t);
    }
    for (; tick < s.ticks.size(); ++tick) {
        out.rule->onTick(s.ticks[tick]);
        collect(s.ticks[tick]);
        end = std::max(end, s.ticks[tick]);
    }
    out.rule->finish(end + 1);
    collect(end + 1);
    return out;
}

Outcome run(const std::string& name, const std::map<std::string, std::string>& params,
            const QString& stream) {
    return run(name, params, streams().at(stream)());
}

} // namespace

class TestModelRules : public QObject {
    Q_OBJECT

private slots:
    void rules_data();
    void rules();
    void configErrors_data();
    void configErrors();
    void registryBuildsEveryModelRule();
    void oneFindingPerStepNamesEveryTensor();
    void findingsComeOutLiveOnTicks();
    void duplicateCollectionsCountOnce();
    void ranksAreSeparateTensors();
    void stalledFiresAgainOnlyAfterAnotherThreshold();
    void stalledStopsTrainingByPrefix_data();
    void stalledStopsTrainingByPrefix();
    void sessionReportsErrorsAndStops();
    void sessionTranslatesScriptMetrics();
    void detailsCarryFigures();
};

void TestModelRules::rules_data() {
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QString>("params");
    QTest::addColumn<QString>("stream");
    QTest::addColumn<QString>("status");
    QTest::addColumn<QString>("text");     // in the first finding, or the NotApplicable reason
    QTest::addColumn<QString>("criteria"); // in criteria()
    QTest::addColumn<QString>("device");   // the first finding's device; "" not checked

    auto row = [](const char* tag, const char* rule, const char* params, const char* stream,
                  const char* status, const char* text, const char* criteria = "",
                  const char* device = "") {
        QTest::newRow(tag) << QString::fromUtf8(rule) << QString::fromUtf8(params)
                           << QString::fromUtf8(stream) << QString::fromUtf8(status)
                           << QString::fromUtf8(text) << QString::fromUtf8(criteria)
                           << QString::fromUtf8(device);
    };
    const char* fires = "IssuesFound";
    const char* quiet = "NoIssuesFound";
    const char* na = "NotApplicable";

    row("VanishingGradient fires", "VanishingGradient", "", "grads_vanishing", fires,
        "1 of 2 gradients have a mean |gradient| below 1e-07 at step 20", "threshold=1e-07",
        "gradient/fc1.fc.weight");
    row("VanishingGradient quiet", "VanishingGradient", "", "grads_healthy", quiet, "");
    row("VanishingGradient threshold", "VanishingGradient", "threshold=0.01", "grads_healthy",
        fires, "2 of 2 gradients", "threshold=0.01", "gradient/fc1.fc.weight");
    row("VanishingGradient no data", "VanishingGradient", "", "losses_only", na,
        "add the gradients collection");

    row("ExplodingTensor fires", "ExplodingTensor", "", "nan_in_weights", fires,
        "1 tensor holds NaN or infinite values at step 2: fc1.fc.weight (5)", "every saved",
        "fc1.fc.weight");
    row("ExplodingTensor inf", "ExplodingTensor", "", "inf_in_weights", fires, "fc1.fc.weight");
    row("ExplodingTensor nan loss", "ExplodingTensor", "", "nan_loss", fires, "loss", "", "loss");
    row("ExplodingTensor quiet", "ExplodingTensor", "", "healthy_weights", quiet, "");
    row("ExplodingTensor only_nan", "ExplodingTensor", "only_nan=True", "inf_in_weights", quiet, "",
        "only_nan=True");
    row("ExplodingTensor tensor_regex", "ExplodingTensor", "tensor_regex=fc2", "nan_in_weights",
        quiet, "", "matching 'fc2'");
    row("ExplodingTensor collection_names", "ExplodingTensor", "collection_names=gradients",
        "nan_in_weights", na, "collection gradients");
    row("ExplodingTensor no data", "ExplodingTensor", "", "no_tensors", na, "no tensor was saved");

    row("PoorWeightInitialization fires", "PoorWeightInitialization", "", "poor_init", fires,
        "differs 100-fold across 2 layers", "threshold=10", "fc1_relu_input");
    row("PoorWeightInitialization quiet", "PoorWeightInitialization", "", "good_init", quiet, "");
    row("PoorWeightInitialization threshold", "PoorWeightInitialization", "threshold=200",
        "poor_init", quiet, "", "threshold=200");
    row("PoorWeightInitialization flat loss", "PoorWeightInitialization", "", "good_init_flat_loss",
        fires, "has not decreased over the last 5 saved values");
    row("PoorWeightInitialization patience", "PoorWeightInitialization", "patience=20",
        "good_init_flat_loss", quiet, "", "patience=20");
    row("PoorWeightInitialization narrow gradients", "PoorWeightInitialization", "",
        "good_init_narrow_grads", fires, "p95 - p5 below 0.001");
    row("PoorWeightInitialization distribution_range", "PoorWeightInitialization",
        "distribution_range=0.0001", "good_init_narrow_grads", quiet, "");
    row("PoorWeightInitialization late", "PoorWeightInitialization", "", "poor_init_late", quiet,
        "", "steps=10");
    row("PoorWeightInitialization steps", "PoorWeightInitialization", "steps=15", "poor_init_late",
        fires, "at step 12");
    row("PoorWeightInitialization no data", "PoorWeightInitialization", "", "no_tensors", na,
        "none of the first 10 saved steps");

    row("SaturatedActivation fires", "SaturatedActivation", "", "tanh_saturated", fires,
        "block1_tanh_input (80)", "threshold_layer=50", "block1_tanh_input");
    row("SaturatedActivation quiet", "SaturatedActivation", "", "tanh_healthy", quiet, "");
    row("SaturatedActivation threshold_layer", "SaturatedActivation", "threshold_layer=15",
        "tanh_healthy", fires, "block1_tanh_input (20)", "threshold_layer=15");
    row("SaturatedActivation no data", "SaturatedActivation", "", "relu_dead", na, "ReLU only");

    row("DeadRelu fires", "DeadRelu", "", "relu_dead", fires,
        "1 of 2 ReLU outputs have more than 50% of their units dead at step 5", "relu_output",
        "conv1_relu_output");
    row("DeadRelu quiet", "DeadRelu", "", "relu_healthy", quiet, "");
    row("DeadRelu threshold_layer", "DeadRelu", "threshold_layer=90", "relu_dead", quiet, "",
        "threshold_layer=90");
    row("DeadRelu tensor_regex", "DeadRelu", "tensor_regex=fc1_relu", "relu_dead", quiet, "");
    row("DeadRelu no data", "DeadRelu", "", "losses_only", na, "no ReLU output");

    row("WeightUpdateRatio large", "WeightUpdateRatio", "", "updates_large", fires,
        "1 weight above 10: fc1.fc.weight (50)", "large_threshold=10", "fc1.fc.weight");
    row("WeightUpdateRatio small", "WeightUpdateRatio", "", "updates_small", fires, "below 1e-08",
        "small_threshold=1e-08");
    row("WeightUpdateRatio quiet", "WeightUpdateRatio", "", "updates_healthy", quiet, "");
    row("WeightUpdateRatio large_threshold", "WeightUpdateRatio", "large_threshold=0.005",
        "updates_healthy", fires, "2 weights above 0.005");
    row("WeightUpdateRatio num_steps", "WeightUpdateRatio", "num_steps=2", "updates_large", quiet,
        "", "every num_steps=2 steps");
    row("WeightUpdateRatio no data", "WeightUpdateRatio", "", "losses_only", na,
        "no weights were saved");

    row("AllZero fires", "AllZero", "", "zeros_all", fires,
        "1 of 2 tensors have at least 100% zeros at step 0", "threshold=100", "fc1.fc.bias");
    row("AllZero quiet", "AllZero", "", "zeros_some", quiet, "");
    row("AllZero threshold", "AllZero", "threshold=30", "zeros_some", fires, "fc1.fc.bias (40)");
    row("AllZero collection_names", "AllZero", "collection_names=weights", "zeros_all", quiet, "",
        "collection weights");
    row("AllZero no data", "AllZero", "", "no_tensors", na, "no tensor was saved");

    row("UnchangedTensor fires", "UnchangedTensor", "", "unchanged_weights", fires,
        "1 tensor did not change over the last 3 saved steps (up to step 200): fc1.fc.weight",
        "num_steps=3", "fc1.fc.weight");
    row("UnchangedTensor quiet", "UnchangedTensor", "", "changing_weights", quiet, "");
    row("UnchangedTensor num_steps", "UnchangedTensor", "num_steps=5", "unchanged_weights", quiet,
        "", "num_steps=5");
    row("UnchangedTensor slow change", "UnchangedTensor", "", "slow_change", quiet, "");
    row("UnchangedTensor rtol", "UnchangedTensor", "rtol=0.01", "slow_change", fires,
        "fc1.fc.weight", "rtol=0.01");
    row("UnchangedTensor no data", "UnchangedTensor", "", "no_tensors", na, "no tensor");

    row("TensorVariance max", "TensorVariance", "max_threshold=10", "variance_high", fires,
        "have a variance above max_threshold=10 at step 2: fc1.fc.weight (50)",
        "above max_threshold=10", "fc1.fc.weight");
    row("TensorVariance quiet", "TensorVariance", "max_threshold=10;min_threshold=0.01",
        "variance_normal", quiet, "", "outside [min_threshold=0.01, max_threshold=10]");
    row("TensorVariance min", "TensorVariance", "min_threshold=1.2", "variance_normal", fires,
        "below min_threshold=1.2");
    row("TensorVariance no data", "TensorVariance", "max_threshold=1", "no_tensors", na,
        "no tensor");

    row("ClassImbalance fires", "ClassImbalance", "", "labels_imbalanced", fires,
        "class 0 has 480 samples and class 1 32 (imbalance 15 > 10)", "threshold_imbalance=10",
        "labels");
    row("ClassImbalance quiet", "ClassImbalance", "", "labels_balanced", quiet, "");
    row("ClassImbalance threshold_imbalance", "ClassImbalance", "threshold_imbalance=20",
        "labels_imbalanced", quiet, "", "threshold_imbalance=20");
    row("ClassImbalance mispredicted", "ClassImbalance", "", "labels_mispredicted", fires,
        "mostly mispredicted (share > 0.7): class 1 93.75%");
    row("ClassImbalance threshold_misprediction", "ClassImbalance", "threshold_misprediction=0.95",
        "labels_mispredicted", quiet, "");
    row("ClassImbalance samples", "ClassImbalance", "samples=100000", "labels_balanced", na,
        "only 640 of the samples=100000");
    row("ClassImbalance no data", "ClassImbalance", "", "losses_only", na,
        "no labels matching labels_regex='.*labels'");

    row("LossNotDecreasing fires", "LossNotDecreasing", "", "loss_rising", fires,
        "train loss loss went from 0.8 at step 20 to 0.85 at step 30", "num_steps=10", "loss");
    row("LossNotDecreasing quiet", "LossNotDecreasing", "", "loss_falling", quiet, "");
    row("LossNotDecreasing slow quiet", "LossNotDecreasing", "", "loss_falling_slowly", quiet, "");
    row("LossNotDecreasing diff_percent", "LossNotDecreasing", "diff_percent=5",
        "loss_falling_slowly", fires, "less than diff_percent 5%", "diff_percent=5");
    row("LossNotDecreasing num_steps", "LossNotDecreasing", "num_steps=50", "loss_falling_slowly",
        quiet, "");
    row("LossNotDecreasing NaN", "LossNotDecreasing", "", "nan_loss", fires, "to nan");
    row("LossNotDecreasing eval by default", "LossNotDecreasing", "", "eval_rising_train_falling",
        fires, "eval loss loss", "mode=None");
    row("LossNotDecreasing mode TRAIN", "LossNotDecreasing", "mode=TRAIN",
        "eval_rising_train_falling", quiet, "", "mode=TRAIN");
    row("LossNotDecreasing script metrics", "LossNotDecreasing", "", "script_metrics", fires,
        "eval loss validation:loss", "", "validation:loss");
    row("LossNotDecreasing no data", "LossNotDecreasing", "", "no_tensors", na, "no loss");

    row("Overfit fires", "Overfit", "", "overfit", fires,
        "validation loss 0.8 vs training loss 0.5 at step 10", "ratio_threshold=0.1", "loss");
    row("Overfit quiet", "Overfit", "", "fit_ok", quiet, "");
    row("Overfit ratio_threshold", "Overfit", "ratio_threshold=1", "overfit", quiet, "",
        "ratio_threshold=1");
    row("Overfit patience", "Overfit", "patience=4", "overfit", quiet, "", "patience=4");
    row("Overfit patience met", "Overfit", "patience=3", "overfit", fires, "at step 30");
    row("Overfit start_step", "Overfit", "start_step=1000", "overfit", na, "start_step=1000");
    row("Overfit no data", "Overfit", "", "loss_falling", na, "no validation loss");

    row("Overtraining fires", "Overtraining", "", "loss_plateau", fires,
        "training loss loss has not improved on its best 0.5 (step 0) by 0.1 for 5 saved values",
        "patience_train=5", "loss");
    row("Overtraining quiet", "Overtraining", "", "loss_falling", quiet, "");
    row("Overtraining patience_train", "Overtraining", "patience_train=20", "loss_plateau", quiet,
        "");
    row("Overtraining slow", "Overtraining", "", "loss_falling_slowly", fires, "training loss");
    row("Overtraining delta", "Overtraining", "delta=0.001", "loss_falling_slowly", quiet, "",
        "delta=0.001");
    row("Overtraining validation", "Overtraining", "", "val_plateau", fires,
        "validation loss loss has not improved", "patience_validation=10");
    row("Overtraining patience_validation", "Overtraining", "patience_validation=20", "val_plateau",
        quiet, "");
    row("Overtraining no data", "Overtraining", "", "no_tensors", na, "no loss");

    row("StalledTrainingRule fires", "StalledTrainingRule", "", "stall_long", fires,
        "for 1820 s (threshold 1800 s); the last data was for step 10", "threshold=1800");
    row("StalledTrainingRule quiet", "StalledTrainingRule", "", "steady", quiet, "");
    row("StalledTrainingRule gap under default", "StalledTrainingRule", "", "steady_gap100", quiet,
        "");
    row("StalledTrainingRule threshold", "StalledTrainingRule", "threshold=60", "steady_gap100",
        fires, "threshold 60 s", "threshold=60");
    row("StalledTrainingRule no ticks", "StalledTrainingRule", "", "losses_only", na,
        "no clock tick");

    row("CheckInputImages fires", "CheckInputImages", "", "hybrid_unnormalized", fires,
        "input images are not normalized: channel means over the last 512 samples: channel 0 "
        "0.45",
        "threshold_mean=0.2", "hybridsequential0_input_0");
    row("CheckInputImages quiet", "CheckInputImages", "", "hybrid_normalized", quiet, "");
    row("CheckInputImages default regex", "CheckInputImages", "", "builtin_unnormalized", na,
        "(this job saved 'mnistnet_input_0'), so set parameters.regex to '.*_input_0'");
    row("CheckInputImages regex", "CheckInputImages", "regex=.*_input_0", "builtin_unnormalized",
        fires, "not normalized", "regex='.*_input_0'", "mnistnet_input_0");
    row("CheckInputImages regex quiet", "CheckInputImages", "regex=.*_input_0",
        "builtin_normalized", quiet, "");
    row("CheckInputImages threshold_mean", "CheckInputImages", "regex=.*_input_0;threshold_mean=1",
        "builtin_unnormalized", quiet, "", "threshold_mean=1");
    row("CheckInputImages threshold_samples", "CheckInputImages",
        "regex=.*_input_0;threshold_samples=1000", "builtin_unnormalized", na,
        "only 640 input samples");
}

void TestModelRules::rules() {
    QFETCH(QString, rule);
    QFETCH(QString, params);
    QFETCH(QString, stream);
    QFETCH(QString, status);
    QFETCH(QString, text);
    QFETCH(QString, criteria);
    QFETCH(QString, device);

    Outcome o = run(rule.toStdString(), parseParams(params), stream);
    const Rule& r = *o.rule;
    QCOMPARE(QString::fromUtf8(ruleStatusName(r.status())), status);
    QCOMPARE(r.name(), rule.toStdString());
    QVERIFY(r.details().is_object());
    if (!criteria.isEmpty())
        QVERIFY2(QString::fromStdString(r.criteria()).contains(criteria), r.criteria().c_str());

    if (status == u"IssuesFound") {
        QVERIFY(!o.findings.empty());
        QCOMPARE(r.fired(), static_cast<std::int64_t>(o.findings.size()));
        const Finding& f = o.findings.front();
        QVERIFY2(QString::fromStdString(f.message).contains(text), f.message.c_str());
        QCOMPARE(f.criteria, r.criteria());
        QVERIFY(f.recommendation.size() > 40);
        QVERIFY(f.time >= kT0);
        if (!device.isEmpty())
            QCOMPARE(QString::fromStdString(f.device), device);
        if (rule != u"StalledTrainingRule")
            QVERIFY(f.step >= 0);
    } else {
        QVERIFY2(o.findings.empty(), o.findings.empty() ? "" : o.findings[0].message.c_str());
        QCOMPARE(r.fired(), std::int64_t(0));
    }
    if (status == u"NoIssuesFound")
        QVERIFY(r.datapoints() > 0);
    if (status == u"NotApplicable") {
        QCOMPARE(r.datapoints(), std::int64_t(0));
        QVERIFY2(QString::fromStdString(r.statusMessage()).contains(text),
                 r.statusMessage().c_str());
    }
}

void TestModelRules::configErrors_data() {
    QTest::addColumn<QString>("rule");
    QTest::addColumn<QString>("params");
    QTest::addColumn<QString>("message");
    QTest::newRow("TensorVariance without thresholds")
        << QStringLiteral("TensorVariance") << QString()
        << QStringLiteral("needs max_threshold or min_threshold");
    QTest::newRow("ExplodingTensor invalid regex")
        << QStringLiteral("ExplodingTensor") << QStringLiteral("tensor_regex=fc[1")
        << QStringLiteral("tensor_regex \"fc[1\" is not a valid regular expression");
    QTest::newRow("DeadRelu invalid regex")
        << QStringLiteral("DeadRelu") << QStringLiteral("tensor_regex=*relu")
        << QStringLiteral("not a valid regular expression");
    QTest::newRow("CheckInputImages without regex")
        << QStringLiteral("CheckInputImages") << QStringLiteral("regex=None")
        << QStringLiteral("regex needs a regular expression");
    QTest::newRow("LossNotDecreasing mode")
        << QStringLiteral("LossNotDecreasing") << QStringLiteral("mode=SOMETIMES")
        << QStringLiteral("TRAIN, EVAL, GLOBAL");
    QTest::newRow("LossNotDecreasing reads nothing")
        << QStringLiteral("LossNotDecreasing") << QStringLiteral("use_losses_collection=False")
        << QStringLiteral("reads no tensor");
    QTest::newRow("UnchangedTensor num_steps")
        << QStringLiteral("UnchangedTensor") << QStringLiteral("num_steps=1")
        << QStringLiteral("num_steps must be at least 2");
    QTest::newRow("Overfit patience") << QStringLiteral("Overfit") << QStringLiteral("patience=0")
                                      << QStringLiteral("patience must be at least 1");
    QTest::newRow("ClassImbalance samples not a number")
        << QStringLiteral("ClassImbalance") << QStringLiteral("samples=many")
        << QStringLiteral("samples must be a number");
    QTest::newRow("StalledTrainingRule threshold")
        << QStringLiteral("StalledTrainingRule") << QStringLiteral("threshold=0")
        << QStringLiteral("positive");
    QTest::newRow("unknown parameter") << QStringLiteral("AllZero") << QStringLiteral("treshold=5")
                                       << QStringLiteral("unknown parameter \"treshold\"");
}

void TestModelRules::configErrors() {
    QFETCH(QString, rule);
    QFETCH(QString, params);
    QFETCH(QString, message);
    QVERIFY_THROWS_EXCEPTION(RuleConfigError,
                             makeBuiltinRule(rule.toStdString(), parseParams(params)));
    try {
        makeBuiltinRule(rule.toStdString(), parseParams(params));
    } catch (const RuleConfigError& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
    }
}

void TestModelRules::registryBuildsEveryModelRule() {
    int built = 0;
    for (const auto& info : debugger::ruleCatalog()) {
        if (info.kind != debugger::RuleKind::Model)
            continue;
        std::map<std::string, std::string> params;
        if (info.name == "TensorVariance")
            params["max_threshold"] = "10";
        auto rule = makeBuiltinRule(info.name, params);
        QCOMPARE(rule->name(), info.name);
        QVERIFY(rule->kind() == debugger::RuleKind::Model);
        QVERIFY(!rule->criteria().empty());
        ++built;
    }
    QCOMPARE(built, 15);
    // A profiler rule is not the model rules' business.
    const debugger::RuleInfo* profiler = debugger::findRule("CPUBottleneck");
    QVERIFY(profiler);
    QVERIFY(makeModelRule(RuleParams(*profiler)) == nullptr);
}

void TestModelRules::oneFindingPerStepNamesEveryTensor() {
    StreamBuilder b;
    for (const char* name : {"a.weight", "b.weight", "c.weight", "d.weight", "e.weight"})
        b.tensor(7, "weights", name, {{"nonfinite", name[0] == 'c' ? 9.0 : 1.0}});
    b.tensor(8, "weights", "a.weight", {{"nonfinite", 1}});
    Outcome o = run("ExplodingTensor", {}, b.build());
    QCOMPARE(o.findings.size(), std::size_t(2));
    const Finding& f = o.findings[0];
    QCOMPARE(f.step, std::int64_t(7));
    QCOMPARE(f.device, std::string("c.weight")); // the worst first
    QVERIFY2(QString::fromStdString(f.message).contains(
                 u"5 tensors hold NaN or infinite values at step 7: c.weight (9), "
                 "a.weight (1), b.weight (1), d.weight (1) and 1 more"),
             f.message.c_str());
    QCOMPARE(o.rule->datapoints(), std::int64_t(6));
}

void TestModelRules::findingsComeOutLiveOnTicks() {
    StreamBuilder b;
    b.tensor(3, "weights", "fc1.fc.weight", {{"nonfinite", 2}});
    b.ticks(kT0 + 10, kT0 + 13, 1);
    Outcome o = run("ExplodingTensor", {}, b.build());
    QCOMPARE(o.findings.size(), std::size_t(1));
    // The first tick after the step sees it was still arriving; the next one evaluates it.
    QCOMPARE(o.findingsAt.front(), kT0 + 11);

    // A later step completes the earlier one at once.
    StreamBuilder c;
    c.tensor(3, "weights", "fc1.fc.weight", {{"nonfinite", 2}});
    c.tensor(4, "weights", "fc1.fc.weight", {{"nonfinite", 0}});
    Outcome p = run("ExplodingTensor", {}, c.build());
    QCOMPARE(p.findingsAt.front(), kT0 + 4);
}

void TestModelRules::duplicateCollectionsCountOnce() {
    // A tensor saved for two collections arrives twice per step with the same values; counted
    // twice, UnchangedTensor would see 4 equal samples of 2 steps and fire.
    StreamBuilder b;
    for (std::int64_t step : {0, 100}) {
        b.tensor(step, "weights", "fc1.fc.weight", {{"mean", 0.5}, {"l2_norm", 2}});
        b.tensor(step, "rule_tensors_UnchangedTensor", "fc1.fc.weight",
                 {{"mean", 0.5}, {"l2_norm", 2}});
    }
    Outcome o = run("UnchangedTensor", {}, b.build());
    QCOMPARE(ruleStatusName(o.rule->status()), "NoIssuesFound");
    QCOMPARE(o.rule->datapoints(), std::int64_t(2));

    // Losses too: the second copy of step 20 is not one more value without improvement.
    Stream s = losses({1.0, 0.95, 0.95, 0.95});
    s.events.push_back(s.events.back());
    std::get<wire::TensorEvent>(s.events.back().payload).collection = "rule_tensors_copy";
    Outcome l = run("Overtraining", {{"patience_train", "4"}}, s);
    QCOMPARE(l.rule->datapoints(), std::int64_t(4));
    QCOMPARE(l.rule->fired(), std::int64_t(0));
}

void TestModelRules::ranksAreSeparateTensors() {
    // Two pipeline stages send a tensor of the same name: each rank's history is its own, so
    // rank 1's constant tensor is flagged while rank 0's changing one is not.
    StreamBuilder b;
    for (std::int64_t step : {0, 100, 200}) {
        b.tensor(step, "weights", "block.weight", {{"mean", 0.1 * static_cast<double>(step)}},
                 kTrain, 0);
        b.tensor(step, "weights", "block.weight", {{"mean", 7}}, kTrain, 1);
    }
    Outcome o = run("UnchangedTensor", {}, b.build());
    QCOMPARE(o.findings.size(), std::size_t(1));
    QVERIFY2(QString::fromStdString(o.findings[0].message).contains(u"block.weight (rank 1)"),
             o.findings[0].message.c_str());
    QCOMPARE(o.rule->datapoints(), std::int64_t(6));
}

void TestModelRules::stalledFiresAgainOnlyAfterAnotherThreshold() {
    Stream s = activity(0, 400, 10); // one step at kT0, then ticks every 10 s for 400 s
    Outcome o = run("StalledTrainingRule", {{"threshold", "100"}}, s);
    // Fires at +110, then the clock restarts: +220, +330.
    QCOMPARE(o.findings.size(), std::size_t(3));
    QCOMPARE(o.findingsAt[0], kT0 + 110);
    QCOMPARE(o.findingsAt[1], kT0 + 220);
    QCOMPARE(o.findings[0].step, std::int64_t(0));
    QCOMPARE(o.findings[0].time, kT0 + 110);
    QCOMPARE(o.rule->datapoints(), std::int64_t(40));
}

void TestModelRules::stalledStopsTrainingByPrefix_data() {
    QTest::addColumn<QString>("params");
    QTest::addColumn<bool>("stops");
    QTest::newRow("default") << QString() << false;
    QTest::newRow("stop, no prefix") << QStringLiteral("stop_training_on_fire=True") << true;
    QTest::newRow("stop, matching prefix")
        << QStringLiteral("stop_training_on_fire=True;training_job_name_prefix=mnist-") << true;
    QTest::newRow("stop, other prefix")
        << QStringLiteral("stop_training_on_fire=True;training_job_name_prefix=resnet-") << false;
    QTest::newRow("prefix without stop")
        << QStringLiteral("training_job_name_prefix=mnist-") << false;
}

void TestModelRules::stalledStopsTrainingByPrefix() {
    QFETCH(QString, params);
    QFETCH(bool, stops);
    auto rule = makeBuiltinRule("StalledTrainingRule", parseParams(params));
    rule->start(facts("mnist-2024-01-01-00-00-00"));
    QCOMPARE(rule->stopsTrainingOnFire(), stops);
}

void TestModelRules::sessionReportsErrorsAndStops() {
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
    QCOMPARE(rules.size(), std::size_t(2));
    QCOMPARE(ruleStatusName(rules[0]->status()), "Error");
    QVERIFY(QString::fromStdString(rules[0]->statusMessage()).contains(u"max_threshold"));

    session.onEvent(wire::Event{kT0 + 5, 0, 0, wire::StepEvent{1}});
    for (double t = kT0 + 10; t <= kT0 + 60; t += 10)
        session.tick(t);
    QVERIFY(stopped.empty()); // 55 s since the step
    session.tick(kT0 + 70);
    QCOMPARE(stopped, std::vector<std::string>{"StalledTrainingRule"});
    session.finish(kT0 + 100);
    QCOMPARE(ruleStatusName(rules[1]->status()), "IssuesFound");
    QCOMPARE(ruleStatusName(rules[0]->status()), "Error");
}

void TestModelRules::sessionTranslatesScriptMetrics() {
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
    QCOMPARE(ruleStatusName(r.status()), "IssuesFound");
    QCOMPARE(r.fired(), std::int64_t(1));
    QCOMPARE(r.details().at("mode").get<std::string>(), std::string("EVAL (None)"));
}

void TestModelRules::detailsCarryFigures() {
    Outcome v = run("VanishingGradient", {}, QStringLiteral("grads_vanishing"));
    const nlohmann::json d = v.rule->details();
    QCOMPARE(d.at("steps_evaluated").get<int>(), 4);
    QCOMPARE(d.at("tensors_evaluated").get<int>(), 8);
    QCOMPARE(d.at("tensors_flagged").get<int>(), 2);
    QCOMPARE(d.at("lowest").get<double>(), 1e-9);

    Outcome c = run("ClassImbalance", {}, QStringLiteral("labels_imbalanced"));
    const nlohmann::json cd = c.rule->details();
    QCOMPARE(cd.at("samples").get<double>(), 640.0);
    QCOMPARE(cd.at("class_counts").at("1").get<double>(), 40.0);
    QCOMPARE(cd.at("imbalance").get<double>(), 15.0);

    Outcome s = run("StalledTrainingRule", {}, QStringLiteral("stall_long"));
    QCOMPARE(s.rule->details().at("longest_gap_s").get<double>(), 1820.0);
}

QTEST_GUILESS_MAIN(TestModelRules)
#include "test_model_rules.moc"

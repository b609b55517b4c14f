// The model rules' streams and driver (model_rule_streams.h).
#include "tests/unit/model_rule_streams.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace studio::testing {

using namespace debugger;

namespace {

Stream gradients(double fc1Late) {
    StreamBuilder b;
    for (std::int64_t step : {0, 10, 20, 30}) {
        b.tensor(step, "gradients", "gradient/fc1.fc.weight",
                 {{"abs_mean", step >= 20 ? fc1Late : 1e-3}});
        b.tensor(step, "gradients", "gradient/fc2.fc.bias", {{"abs_mean", 2e-3}});
    }
    return b.build();
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

const std::map<std::string, std::function<Stream()>>& streams() {
    static const std::map<std::string, std::function<Stream()>> all = {
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

} // namespace

Stream losses(const std::vector<double>& train, const std::vector<double>& eval, std::int64_t every,
              const std::string& trainName, const std::string& evalName) {
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

Stream activity(double lastData, double end, double tickEvery, double gapFrom, double gapTo) {
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

std::map<std::string, std::string> parseParams(const std::string& text) {
    std::map<std::string, std::string> out;
    std::size_t from = 0;
    while (from <= text.size()) {
        const std::size_t end = std::min(text.find(';', from), text.size());
        const std::string kv = text.substr(from, end - from);
        from = end + 1;
        if (kv.empty())
            continue;
        const auto eq = kv.find('=');
        out[kv.substr(0, eq)] = eq == std::string::npos ? kv : kv.substr(eq + 1);
    }
    return out;
}

debugger::JobFacts facts(const std::string& jobName) {
    JobFacts f;
    f.jobName = jobName;
    f.submitTime = kT0;
    f.builtinTrainer = true;
    return f;
}

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
            const std::string& stream) {
    return run(name, params, namedStream(stream));
}

Stream namedStream(const std::string& name) {
    return streams().at(name)();
}

} // namespace studio::testing

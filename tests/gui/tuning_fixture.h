// A synthetic tuning job written straight into a store (no training runs): lr (Continuous,
// logarithmic), batch-size (Integer) and optimizer (Categorical) tuned for eval:accuracy, with
// one objective value per epoch. Every 7th job (ordinal % 7 == 3) is stopped early at epoch 4,
// every 13th (ordinal % 13 == 5) fails after 2 epochs; with running > 0 the last ones are still
// in progress (3 epochs so far) and the tuning job is InProgress. Deterministic.
#pragma once

#include "engine/store/store_writer.h"

#include <cmath>
#include <string>

namespace tuning_fixture {

struct Expected {
    int completed = 0;
    int stoppedEarly = 0;
    int failed = 0;
    int inProgress = 0;
    std::string bestJob;
    double best = -1;
};

inline const char* kSpec = R"({"tuning": {"objective_metric_name": "eval:accuracy",
 "objective_type": "Maximize", "strategy": "Bayesian", "max_jobs": 40, "max_parallel_jobs": 4,
 "early_stopping_type": "Auto", "hyperparameter_ranges": {
  "lr": {"type": "Continuous", "min_value": 0.0001, "max_value": 0.1, "scaling_type": "Logarithmic"},
  "batch-size": {"type": "Integer", "min_value": 16, "max_value": 256},
  "optimizer": {"type": "Categorical", "values": ["sgd", "adam", "rmsprop"]}}},
 "training": {"entry_point": "builtin:fmnist-cnn", "hyperparameters": {"epochs": 10}}})";

inline double finalAccuracy(int ordinal, double lr, int batch, int optimizer) {
    const double l = std::log10(lr) + 2.5;
    const double bonus[] = {-0.03, 0.02, 0.0};
    return 0.88 - 0.05 * l * l + bonus[optimizer] - 0.0002 * std::abs(batch - 64) +
           0.01 * std::sin(ordinal * 12.9898);
}

// Writes the tuning job `name` with `jobs` training jobs of `epochs` points each.
inline Expected writeTuningJob(studio::store::StoreWriter& w, const std::string& name, int jobs,
                               int epochs = 10, int running = 0, double t0 = 1795300000) {
    using namespace studio::store;
    Expected e;
    NewTuningJob t;
    t.name = name;
    t.strategy = "Bayesian";
    t.objectiveName = "eval:accuracy";
    t.objectiveType = "Maximize";
    t.maxJobs = jobs + running;
    t.maxParallelJobs = 4;
    t.earlyStopping = "Auto";
    t.specJson = kSpec;
    t.created = t0;
    const TuningId id = w.createTuningJob(t);
    const char* optimizers[] = {"sgd", "adam", "rmsprop"};
    for (int i = 0; i < jobs + running; ++i) {
        const double lr = std::pow(10.0, -4 + 3 * std::fmod(i * 0.618034, 1.0));
        const int batch = 16 + (i * 37) % 241;
        const int opt = (i * 5 + i / 3) % 3;
        NewComponent c;
        c.name = name + "-" + std::to_string(i + 1);
        c.experiment = name;
        c.created = t0 + i * 60;
        c.entryPoint = "builtin:fmnist-cnn";
        c.specJson = R"({"entry_point":"builtin:fmnist-cnn"})";
        const ComponentId comp = w.createComponent(c);
        TuningTrainingJobRow row;
        row.ordinal = i;
        row.component = comp;
        row.job = c.name;
        row.hyperparameters = {{"lr", std::to_string(lr)},
                               {"batch-size", std::to_string(batch)},
                               {"optimizer", optimizers[opt]}};
        row.point = {lr, double(batch), double(opt)};
        w.putTuningTrainingJob(id, row);
        const bool isRunning = i >= jobs;
        const bool early = !isRunning && i % 7 == 3;
        const bool failed = !isRunning && !early && i % 13 == 5;
        const int points = isRunning ? 3 : early ? 4 : failed ? 2 : epochs;
        const double acc = finalAccuracy(i, lr, batch, opt);
        const double norm = 1 - std::exp(-epochs / 3.0);
        double last = 0;
        for (int ep = 1; ep <= points; ++ep) {
            last = acc * (1 - std::exp(-ep / 3.0)) / norm;
            w.addMetric(comp, "eval:accuracy", {ep * 100, c.created + ep * 5, last, 0, 0});
        }
        const double end = c.created + points * 5 + 1;
        if (isRunning) {
            w.setStatus(comp, "InProgress", "Training", "", c.created + 1);
            ++e.inProgress;
            continue;
        }
        w.setEnded(comp, end);
        if (failed) {
            w.setStatus(comp, "Failed", "Failed", "rank 0 exited with code 1", end);
            w.setTuningTrainingOutcome(id, i, "Failed", std::nullopt, false, "");
            ++e.failed;
            continue;
        }
        w.setStatus(comp, early ? "Stopped" : "Completed", early ? "Stopped" : "Completed", "",
                    end);
        w.setTuningTrainingOutcome(id, i, early ? "Stopped" : "Completed", last, early,
                                   early ? "median rule at epoch 4" : "");
        ++(early ? e.stoppedEarly : e.completed);
        if (last > e.best) {
            e.best = last;
            e.bestJob = c.name;
        }
    }
    if (running == 0)
        w.setTuningStatus(id, "Completed", "max_jobs reached", t0 + (jobs + 1) * 60);
    w.flush();
    return e;
}

} // namespace tuning_fixture

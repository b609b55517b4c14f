// One tuning job while this process runs it: its spec, search and training jobs, and the loop
// that launches, stops early and records them. Internal to engine/control (tuner.cpp).
#pragma once

#include "engine/control/controller.h"
#include "engine/control/tuner.h"
#include "engine/store/store_reader.h"
#include "engine/tune/early_stopping.h"
#include "engine/tune/search.h"
#include "engine/tune/tuning_spec.h"

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace studio::control {

// A training job of the tuning job as the loop tracks it.
struct TuningTrial {
    store::TuningTrainingJobRow row;
    tune::Curve curve;           // the objective after each epoch, as reported
    std::size_t decidedUpTo = 0; // curve points early stopping has looked at
    bool stopAsked = false;      // this loop asked the controller to stop it
};

// An observation inherited from a warm start's parent tuning jobs.
struct InheritedTrial {
    tune::Point point;
    double value = 0;
};

struct TuningRun {
    tune::TuningSpec spec;
    std::string name;
    store::TuningId id = 0;
    double started = 0; // this process's start of the run (max_runtime counts from created)
    double created = 0;
    std::vector<TuningTrial> trials;
    std::vector<InheritedTrial> inherited;
    std::unique_ptr<tune::Searcher> searcher;
    std::optional<tune::HyperbandPlan> hyperband;
    // Hyperband: every configuration's checkpoints live in <checkpointRoot>/config-NNN, shared by
    // the jobs that continue it.
    std::string checkpointRoot;

    std::thread thread;
    std::mutex mutex;
    std::condition_variable wake;
    bool woken = false;
    std::atomic<bool> stopRequested{false};
    std::atomic<bool> leave{false}; // the tuner goes away: stop following, touch nothing
    bool done = false;              // guarded by mutex
    std::string finalStatus;
    TuningProgress progress; // guarded by mutex
    // Objective values the training jobs reported (step, value), by job, as they arrive: the
    // loop decides on them at once, before they reach the store. Guarded by mutex.
    std::map<std::string, std::vector<std::pair<std::int64_t, double>>> observed;

    void notify();
};

struct TuningLoopContext {
    Controller& controller;
    store::StoreWriter& writer;
    std::function<void(const TuningProgress&)> report;
    std::function<void(const std::string& job)> launched; // a training job of the run started
};

// Runs the tuning job to its end (or until run.leave) on the calling thread.
void runTuningLoop(TuningRun& run, TuningLoopContext& ctx);

// The warm start's parents' observations, after checking SageMaker's limits against the store;
// throws std::runtime_error naming the parent and the limit.
std::vector<InheritedTrial> warmStartTrials(const tune::TuningSpec& spec,
                                            store::StoreReader& reader);

// Hyperband (tuning_hyperband.cpp). A configuration's curve across the jobs that continued it
// from its checkpoint; the first job of that chain; its bracket's other configurations' curves;
// a stopped configuration that now ranks high enough at its rung to go on (its last job's
// ordinal), the one at the highest rung first; only configurations with a checkpoint to go on
// from are promoted.
tune::Curve chainCurve(const TuningRun& run, const TuningTrial& t);
std::string checkpointFolder(const TuningRun& run, int rootOrdinal);
int rootOrdinal(const TuningRun& run, const TuningTrial& t);
std::vector<tune::Curve> bracketCurves(const TuningRun& run, const TuningTrial& t);
std::optional<int> promotableTrial(const TuningRun& run);

// Completion criteria and the best value, over the trials' objectives in the order they ended.
struct CompletionCheck {
    bool complete = false;
    std::string reason;
};
CompletionCheck checkCompletion(const tune::TuningSpec& spec,
                                const std::vector<double>& objectivesInEndOrder);

} // namespace studio::control

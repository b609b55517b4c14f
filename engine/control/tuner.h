// Hyperparameter tuning jobs: each runs on a thread of its own, proposes configurations with its
// search, launches them as training jobs through the Controller (max_parallel_jobs at a time),
// stops the unpromising ones early (median rule or Hyperband) and records everything in the
// store, so that a studio started after a crash resumes it (resume()).
// Thread-safe: every method may be called from any thread.
#pragma once

#include "engine/control/controller.h"
#include "engine/store/tuning_records.h"
#include "engine/tune/tuning_spec.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace studio::control {

struct TuningProgress {
    std::string name;
    store::TuningId id = 0;
    std::string status;  // InProgress, Completed, Failed, Stopping, Stopped
    std::string message; // why it ended, once it has
    int maxJobs = 0;
    store::TuningCounters counters;
    std::optional<double> best; // the best objective so far
    std::string bestJob;
    double time = 0;
};

// Called on the tuning job's thread; implementations return quickly and never block or throw.
class TuningObserver {
public:
    virtual ~TuningObserver() = default;
    virtual void tuningProgress(const TuningProgress&) {}
};

struct SubmittedTuningJob {
    std::string name;
    store::TuningId id = 0;
};

class Tuner {
public:
    // Runs tuning jobs with the controller's training jobs; the controller outlives the tuner.
    explicit Tuner(Controller& controller);
    // Stops following the tuning jobs running here and waits for their threads; their training
    // jobs are left to the controller (a later studio resumes the tuning job).
    ~Tuner();
    Tuner(const Tuner&) = delete;
    Tuner& operator=(const Tuner&) = delete;

    // Checks the spec against the store (warm start's parents), records the tuning job and
    // starts it; throws std::runtime_error naming what is wrong. jobName, when given, is the
    // tuning job's exact name (SageMaker's fit(job_name=...)): a name already taken throws;
    // empty: the spec's name and a timestamp.
    SubmittedTuningJob submit(const tune::TuningSpec& spec, const std::string& jobName = {});
    // Stops the tuning job: no new training jobs, its running ones stopped; it ends Stopped.
    // Tuning jobs of another studio process are asked to stop through the store (their loop
    // sees the request). False when no such tuning job is running.
    bool stop(const std::string& name);
    // Blocks until the tuning job has ended; its final status ("" for an unknown one).
    std::string wait(const std::string& name);
    // Resumes the tuning jobs left InProgress by a studio process that no longer runs (or the
    // one named); returns their names.
    std::vector<std::string> resume(const std::string& name = {});
    TuningProgress progress(const std::string& name) const;
    std::vector<std::string> runningTuningJobs() const;

    void addObserver(TuningObserver* o);
    void removeObserver(TuningObserver* o);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace studio::control

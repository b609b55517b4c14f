// Tuner: starts, stops, waits for and resumes tuning jobs; each runs runTuningLoop on a thread.
#include "engine/control/tuner.h"

#include "engine/control/studio_home.h"
#include "engine/control/tuning_run.h"
#include "engine/tune/tuning_parser.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <map>
#include <mutex>
#include <random>

namespace studio::control {

namespace {

double now() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

// The stored document: the spec after overrides, with the folder its relative paths came from
// and the seed the search uses (drawn when the spec gave none).
std::string storedSpec(const tune::TuningSpec& spec) {
    nlohmann::json doc = nlohmann::json::parse(spec.effectiveJson);
    doc["tuning"]["random_seed"] = spec.randomSeed;
    nlohmann::json out = doc;
    out["base_dir"] = spec.baseDir;
    return out.dump(2);
}

tune::TuningSpec specFromStore(const store::TuningJobRow& row) {
    nlohmann::json doc = nlohmann::json::parse(row.specJson);
    std::string baseDir = doc.value("base_dir", std::string("."));
    doc.erase("base_dir");
    // Files were checked when the tuning job was submitted; a script deleted since fails its
    // training jobs, which the loop records.
    tune::TuningParseResult r = tune::parseTuningJson(doc, baseDir, spec::ParseOptions{false});
    if (!r.ok())
        throw spec::SpecException(r.errors);
    r.spec->randomSeed = row.randomSeed;
    r.spec->randomSeedGiven = true;
    return *r.spec;
}

void prepareSearch(TuningRun& run) {
    tune::SearchSettings settings;
    settings.ranges = run.spec.ranges;
    settings.strategy = run.spec.strategy;
    settings.maximize = run.spec.maximize;
    settings.seed = run.spec.randomSeed;
    run.searcher = tune::makeSearcher(settings);
    if (run.spec.strategy == tune::SearchStrategy::Hyperband)
        run.hyperband =
            tune::planHyperband(run.spec.hyperband.minResource, run.spec.hyperband.maxResource,
                                run.spec.hyperband.reductionFactor);
}

// An exact name must be free among tuning jobs and training jobs: `show` and `stop` take either.
void checkNameFree(store::StoreReader& reader, const std::string& name) {
    bool taken = reader.component(name).has_value();
    try {
        const auto t = reader.tuningJob(name);
        taken = taken || (t && t->name == name);
    } catch (const std::runtime_error&) {
        // A prefix of several tuning jobs, none of them named so exactly.
    }
    if (taken)
        throw std::runtime_error("tuning job name \"" + name +
                                 "\" is taken: a job of that name exists (names are unique)");
}

} // namespace

struct Tuner::Impl : JobObserver {
    Controller& controller;
    std::string owner = processOwnerId();
    mutable std::mutex mutex;
    std::map<std::string, std::shared_ptr<TuningRun>> runs;
    std::map<std::string, std::string> jobToRun; // training job -> tuning job
    std::mutex observersMutex;
    std::vector<TuningObserver*> observers;

    explicit Impl(Controller& c)
        : controller(c) {}

    void report(const TuningProgress& p) {
        std::vector<TuningObserver*> copy;
        {
            std::lock_guard lock(observersMutex);
            copy = observers;
        }
        for (auto* o : copy)
            o->tuningProgress(p);
    }

    // Wakes the tuning job of a training job that ended or reported its objective; an objective
    // value is kept for the loop, which decides on it before the store has it.
    void wakeFor(const std::string& job, const wire::MetricEvent* metric, int rank) {
        std::shared_ptr<TuningRun> run;
        {
            std::lock_guard lock(mutex);
            auto j = jobToRun.find(job);
            if (j == jobToRun.end())
                return;
            auto r = runs.find(j->second);
            if (r == runs.end())
                return;
            run = r->second;
        }
        if (!metric) {
            run->notify();
            return;
        }
        if (metric->name != run->spec.objectiveMetricName || rank != 0)
            return;
        {
            std::lock_guard lock(run->mutex);
            run->observed[job].emplace_back(metric->step, metric->value);
        }
        run->notify();
    }

    void jobStatus(const JobStatusUpdate& u) override {
        if (!store::isLiveStatus(u.status))
            wakeFor(u.job, nullptr, 0);
    }
    void jobEvent(const std::string& job, store::ComponentId, const wire::Event& e) override {
        if (const auto* m = e.as<wire::MetricEvent>())
            wakeFor(job, m, e.rank);
    }

    void start(const std::shared_ptr<TuningRun>& run) {
        run->checkpointRoot = controller.home() + "/tuning/" + run->name;
        {
            std::lock_guard lock(mutex);
            runs[run->name] = run;
            for (const auto& t : run->trials)
                jobToRun[t.row.job] = run->name;
        }
        run->thread = std::thread([this, run] {
            TuningLoopContext ctx{controller, controller.writer(),
                                  [this](const TuningProgress& p) { report(p); },
                                  [this, name = run->name](const std::string& job) {
                                      std::lock_guard lock(mutex);
                                      jobToRun[job] = name;
                                  }};
            runTuningLoop(*run, ctx);
        });
    }
};

Tuner::Tuner(Controller& controller)
    : d(std::make_unique<Impl>(controller)) {
    controller.addObserver(d.get());
}

Tuner::~Tuner() {
    std::vector<std::shared_ptr<TuningRun>> all;
    {
        std::lock_guard lock(d->mutex);
        for (auto& [name, run] : d->runs)
            all.push_back(run);
    }
    for (auto& run : all) {
        run->leave = true;
        run->notify();
    }
    for (auto& run : all)
        if (run->thread.joinable())
            run->thread.join();
    d->controller.removeObserver(d.get());
}

SubmittedTuningJob Tuner::submit(const tune::TuningSpec& spec, const std::string& jobName) {
    auto run = std::make_shared<TuningRun>();
    run->spec = spec;
    if (!run->spec.randomSeedGiven) {
        run->spec.randomSeed = std::random_device{}() & 0x7fffffffULL;
        run->spec.randomSeedGiven = true;
    }
    {
        store::StoreReader reader(d->controller.writer().path());
        run->inherited = warmStartTrials(run->spec, reader);
    }
    prepareSearch(*run);
    store::NewTuningJob t;
    t.strategy = tune::strategyName(spec.strategy);
    t.objectiveName = spec.objectiveMetricName;
    t.objectiveType = spec.maximize ? "Maximize" : "Minimize";
    t.maxJobs = spec.maxJobs;
    t.maxParallelJobs = spec.maxParallelJobs;
    t.earlyStopping = spec.earlyStoppingAuto ? "Auto" : "Off";
    t.randomSeed = run->spec.randomSeed;
    t.specJson = storedSpec(run->spec);
    t.owner = d->owner;
    t.created = now();
    if (!jobName.empty()) {
        store::StoreReader reader(d->controller.writer().path());
        checkNameFree(reader, jobName);
        t.name = jobName;
        run->id = d->controller.writer().createTuningJob(t);
    }
    for (int attempt = 0; attempt < 50 && run->id == 0; ++attempt) {
        t.name = timestampedJobName(spec.name, t.created + attempt * 0.001);
        try {
            run->id = d->controller.writer().createTuningJob(t);
        } catch (const std::runtime_error&) {
            if (attempt == 49)
                throw;
        }
    }
    run->name = t.name;
    run->created = t.created;
    run->started = t.created;
    d->start(run);
    return {run->name, run->id};
}

bool Tuner::stop(const std::string& name) {
    std::shared_ptr<TuningRun> local;
    {
        std::lock_guard lock(d->mutex);
        if (auto it = d->runs.find(name); it != d->runs.end())
            local = it->second;
    }
    if (local) {
        {
            std::lock_guard runLock(local->mutex);
            if (local->done)
                return false;
        }
        local->stopRequested = true;
        local->notify();
        return true;
    }
    // Another studio process runs it: its loop reads the request from the store.
    store::StoreReader reader(d->controller.writer().path());
    auto row = reader.tuningJob(name);
    if (!row || !store::isLiveStatus(row->status))
        return false;
    if (!ownerAlive(row->owner)) {
        // Nobody runs it: stop its training jobs here and end it.
        for (const auto& t : reader.tuningTrainingJobs(row->id))
            if (store::isLiveStatus(t.status))
                d->controller.stop(t.job, "Stopped: its tuning job " + row->name + " was stopped",
                                   "Stopped");
        d->controller.writer().setTuningStatus(row->id, "Stopped", "Stopped by the user", now());
        d->controller.writer().flush();
        return true;
    }
    d->controller.writer().setTuningStatus(row->id, "Stopping", "Stopped by the user", now());
    d->controller.writer().flush();
    return true;
}

std::string Tuner::wait(const std::string& name) {
    std::shared_ptr<TuningRun> run;
    {
        std::lock_guard lock(d->mutex);
        auto it = d->runs.find(name);
        if (it != d->runs.end())
            run = it->second;
    }
    if (!run) {
        store::StoreReader reader(d->controller.writer().path());
        auto row = reader.tuningJob(name);
        return row ? row->status : std::string();
    }
    std::unique_lock lock(run->mutex);
    run->wake.wait(lock, [&] { return run->done; });
    return run->finalStatus;
}

TuningProgress Tuner::progress(const std::string& name) const {
    std::lock_guard lock(d->mutex);
    auto it = d->runs.find(name);
    if (it == d->runs.end())
        return {};
    std::lock_guard runLock(it->second->mutex);
    return it->second->progress;
}

std::vector<std::string> Tuner::runningTuningJobs() const {
    std::lock_guard lock(d->mutex);
    std::vector<std::string> out;
    for (const auto& [name, run] : d->runs) {
        std::lock_guard runLock(run->mutex);
        if (!run->done)
            out.push_back(name);
    }
    return out;
}

void Tuner::addObserver(TuningObserver* o) {
    std::lock_guard lock(d->observersMutex);
    d->observers.push_back(o);
}

void Tuner::removeObserver(TuningObserver* o) {
    std::lock_guard lock(d->observersMutex);
    std::erase(d->observers, o);
}

std::vector<std::string> Tuner::resume(const std::string& name) {
    store::StoreReader reader(d->controller.writer().path());
    std::vector<std::string> out;
    for (const store::TuningJobRow& row : reader.tuningJobs()) {
        if ((!name.empty() && row.name != name) || !store::isLiveStatus(row.status))
            continue;
        {
            std::lock_guard lock(d->mutex);
            auto it = d->runs.find(row.name);
            if (it != d->runs.end() && !it->second->done)
                continue;
        }
        if (row.owner != d->owner && ownerAlive(row.owner))
            continue;
        if (!d->controller.writer().claimTuningOwner(row.id, row.owner, d->owner))
            continue;
        auto run = std::make_shared<TuningRun>();
        try {
            run->spec = specFromStore(row);
        } catch (const std::exception& e) {
            d->controller.writer().setTuningStatus(
                row.id, "Failed", std::string("cannot resume: ") + e.what(), now());
            continue;
        }
        run->name = row.name;
        run->id = row.id;
        run->created = row.created;
        run->started = now();
        try {
            run->inherited = warmStartTrials(run->spec, reader);
        } catch (const std::exception&) {
            // The parents were checked at submission; one removed since leaves its jobs out.
        }
        prepareSearch(*run);
        for (const store::TuningTrainingJobRow& r : reader.tuningTrainingJobs(row.id)) {
            TuningTrial t;
            t.row = r;
            // An early stop decided before the crash stands: it is asked again, not re-decided.
            t.stopAsked = t.row.stoppedEarly;
            if (t.row.state == "Pending" && t.row.status.empty())
                t.row.state = "Failed"; // its training job was deleted
            if (t.row.state == "Pending" && store::isLiveStatus(t.row.status)) {
                d->controller.takeOver(t.row.job); // left to its owner when that one still runs
                if (t.stopAsked)
                    d->controller.stop(t.row.job, t.row.stopReason, "Stopped");
            }
            run->trials.push_back(std::move(t));
        }
        if (row.status == "Stopping")
            run->stopRequested = true;
        d->start(run);
        out.push_back(row.name);
    }
    return out;
}

} // namespace studio::control

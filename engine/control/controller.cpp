#include "engine/control/controller.h"

#include "engine/control/studio_home.h"

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace studio::control {

struct Controller::Impl {
    ControllerOptions options;
    std::unique_ptr<store::StoreWriter> writer;
    std::string owner;

    mutable std::mutex mutex;
    std::condition_variable changed;
    std::vector<JobObserver*> observers;
    struct Job {
        std::unique_ptr<JobRunner> runner;
        std::thread thread;
        bool done = false;
    };
    std::map<std::string, Job> jobs;

    std::vector<JobObserver*> observersCopy() {
        std::lock_guard lock(mutex);
        return observers;
    }
};

Controller::Controller(ControllerOptions options)
    : d(std::make_unique<Impl>()) {
    d->options = std::move(options);
    if (d->options.home.empty())
        d->options.home = studioHome();
    d->writer = std::make_unique<store::StoreWriter>(databasePath(d->options.home));
    d->owner = processOwnerId();
    d->writer->failAbandoned(&ownerAlive);
}

Controller::~Controller() {
    std::vector<std::string> names;
    {
        std::lock_guard lock(d->mutex);
        for (auto& [name, job] : d->jobs)
            names.push_back(name);
    }
    for (const auto& n : names)
        stop(n, "Stopped: the studio is shutting down");
    for (const auto& n : names)
        wait(n);
    std::lock_guard lock(d->mutex);
    for (auto& [name, job] : d->jobs)
        if (job.thread.joinable())
            job.thread.join();
}

const std::string& Controller::home() const {
    return d->options.home;
}
store::StoreWriter& Controller::writer() {
    return *d->writer;
}

SubmittedJob Controller::submit(const spec::JobSpec& spec, std::vector<CustomRule> customRules) {
    LaunchPaths lp;
    lp.launcher =
        d->options.launcherPath.empty() ? findProgram("studio-launcher") : d->options.launcherPath;
    if (lp.launcher.empty())
        throw std::runtime_error("studio-launcher not found beside this program or on PATH");
    if (spec.isBuiltin()) {
        lp.trainer =
            d->options.trainerPath.empty() ? findProgram("studio-train") : d->options.trainerPath;
        if (lp.trainer.empty())
            throw std::runtime_error("studio-train (the built-in trainer) not found beside this "
                                     "program or on PATH");
    }

    store::NewComponent c;
    c.created = wire::nowSeconds();
    c.displayName = spec.experiment.displayName;
    c.experiment = spec.experiment.experimentName;
    c.trial = spec.experiment.trialName;
    c.instanceType = spec.instanceType;
    c.instanceCount = spec.instanceCount;
    c.processesPerHost = spec.distribution.processesPerHost;
    c.entryPoint = spec.isBuiltin() ? "builtin:" + spec.entryPoint.builtinModel
                   : spec.entryPoint.kind == spec::EntryKind::Script ? spec.entryPoint.script
                                                                     : spec.entryPoint.argv.front();
    c.specJson = spec.effectiveJson;
    c.owner = d->owner;
    c.tags = spec.tags;
    for (const auto& [k, v] : spec.hyperparameters)
        c.parameters.push_back(store::ParameterRow{k, v.text, v.number});
    c.parameters.push_back({"instance_type", spec.instanceType, std::nullopt});
    c.parameters.push_back({"instance_count", std::to_string(spec.instanceCount),
                            static_cast<double>(spec.instanceCount)});
    c.parameters.push_back({"processes_per_host",
                            std::to_string(spec.distribution.processesPerHost),
                            static_cast<double>(spec.distribution.processesPerHost)});
    c.parameters.push_back(
        {"distribution", spec::strategyName(spec.distribution.strategy), std::nullopt});

    // Names carry milliseconds; two submissions in the same millisecond take the next one.
    store::ComponentId id = 0;
    std::string name;
    for (int attempt = 0; attempt < 50 && id == 0; ++attempt) {
        name = timestampedJobName(spec.name, c.created + attempt * 0.001);
        c.name = name;
        JobPaths paths = JobPaths::of(d->options.home, name);
        c.jobDir = paths.root;
        try {
            id = d->writer->createComponent(c);
        } catch (const std::runtime_error&) {
            if (attempt == 49)
                throw;
        }
    }

    RunnerContext ctx;
    ctx.home = d->options.home;
    ctx.jobName = name;
    ctx.id = id;
    ctx.spec = spec;
    ctx.paths = JobPaths::of(d->options.home, name);
    lp.specFile = ctx.paths.spec;
    lp.modelDir = ctx.paths.model;
    lp.outputDir = ctx.paths.output;
    lp.debugOutputDir = ctx.paths.debugOutput;
    lp.checkpointDir =
        spec.checkpointLocalPath.empty() ? ctx.paths.checkpoints : spec.checkpointLocalPath;
    ctx.launch = lp;
    if (spec.useSpotInstances) {
        ctx.imdsEndpoint = d->options.imdsEndpoint;
        if (ctx.imdsEndpoint.empty())
            if (const char* env = std::getenv("MLSTUDIO_IMDS_ENDPOINT"))
                ctx.imdsEndpoint = env;
        if (ctx.imdsEndpoint.empty())
            ctx.imdsEndpoint = "http://169.254.169.254";
        if (ctx.imdsEndpoint == "off")
            ctx.imdsEndpoint.clear();
    }
    ctx.writer = d->writer.get();
    ctx.graceSeconds = d->options.graceSeconds;
    ctx.customRules = std::move(customRules);
    Impl* impl = d.get();
    ctx.onStatus = [impl](const JobStatusUpdate& u) {
        for (auto* o : impl->observersCopy())
            o->jobStatus(u);
    };
    ctx.onEvent = [impl, name, id](const wire::Event& e) {
        for (auto* o : impl->observersCopy())
            o->jobEvent(name, id, e);
    };
    ctx.onNotification = [impl](const JobNotification& n) {
        for (auto* o : impl->observersCopy())
            o->jobNotification(n);
    };

    auto runner = std::make_unique<JobRunner>(std::move(ctx));
    JobRunner* raw = runner.get();
    std::lock_guard lock(d->mutex);
    auto& job = d->jobs[name];
    job.runner = std::move(runner);
    job.thread = std::thread([impl, raw, name] {
        raw->run();
        std::lock_guard lock(impl->mutex);
        impl->jobs[name].done = true;
        impl->changed.notify_all();
    });
    return SubmittedJob{name, id, JobPaths::of(d->options.home, name).root};
}

bool Controller::stop(const std::string& job, const std::string& reason,
                      const std::string& secondary) {
    std::lock_guard lock(d->mutex);
    auto it = d->jobs.find(job);
    if (it == d->jobs.end() || it->second.done)
        return false;
    return it->second.runner->requestStop(reason, secondary);
}

std::string Controller::wait(const std::string& job) {
    std::unique_lock lock(d->mutex);
    auto it = d->jobs.find(job);
    if (it == d->jobs.end())
        return {};
    d->changed.wait(lock, [&] { return it->second.done; });
    if (it->second.thread.joinable())
        it->second.thread.join();
    return it->second.runner->finalStatus();
}

bool Controller::interrupt(const std::string& job, const std::string& reason) {
    std::lock_guard lock(d->mutex);
    auto it = d->jobs.find(job);
    if (it == d->jobs.end() || it->second.done)
        return false;
    return it->second.runner->requestInterrupt(reason);
}

JobProgress Controller::progress(const std::string& job) const {
    std::lock_guard lock(d->mutex);
    auto it = d->jobs.find(job);
    return it == d->jobs.end() ? JobProgress{} : it->second.runner->progress();
}

std::vector<std::string> Controller::runningJobs() const {
    std::lock_guard lock(d->mutex);
    std::vector<std::string> out;
    for (const auto& [name, job] : d->jobs)
        if (!job.done)
            out.push_back(name);
    return out;
}

void Controller::addObserver(JobObserver* o) {
    std::lock_guard lock(d->mutex);
    d->observers.push_back(o);
}

void Controller::removeObserver(JobObserver* o) {
    std::lock_guard lock(d->mutex);
    d->observers.erase(std::remove(d->observers.begin(), d->observers.end(), o),
                       d->observers.end());
}

} // namespace studio::control

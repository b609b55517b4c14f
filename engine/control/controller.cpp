#include "engine/control/controller.h"

#include "engine/control/control_channel.h"
#include "engine/control/orphans.h"
#include "engine/control/studio_home.h"
#include "engine/remote/cluster.h"
#include "engine/remote/slurm_client.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"

#include <algorithm>
#include <chrono>
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
    std::string controlDir; // ssh ControlMaster sockets

    mutable std::mutex mutex;
    std::condition_variable changed;
    std::vector<JobObserver*> observers;
    struct Job {
        std::unique_ptr<JobRunner> runner;
        std::thread thread;
        bool done = false;
    };
    std::map<std::string, Job> jobs;
    // The runners running now by job id, for the store's error reports (writer thread).
    std::mutex liveMutex;
    std::map<store::ComponentId, JobRunner*> live;

    // Takes over orphaned jobs now and then (options.takeOverIntervalSeconds).
    std::thread watcher;
    bool stopping = false; // guarded by mutex

    std::vector<JobObserver*> observersCopy() {
        std::lock_guard lock(mutex);
        return observers;
    }

    LaunchPaths launchPaths(bool builtin) const;
    remote::ClusterConfig cluster(const std::string& name, int nodes) const;
    void addCallbacks(RunnerContext& ctx);
    void start(RunnerContext ctx);
};

LaunchPaths Controller::Impl::launchPaths(bool builtin) const {
    LaunchPaths lp;
    lp.launcher =
        options.launcherPath.empty() ? findProgram("studio-launcher") : options.launcherPath;
    if (lp.launcher.empty())
        throw std::runtime_error(
            "studio-launcher not found beside this program, in its ../lib/mlstudio or on PATH");
    if (builtin) {
        lp.trainer =
            options.trainerPath.empty() ? findProgram("studio-train") : options.trainerPath;
        if (lp.trainer.empty())
            throw std::runtime_error("studio-train (the built-in trainer) not found beside this "
                                     "program, in its ../lib/mlstudio or on PATH");
    }
    return lp;
}

remote::ClusterConfig Controller::Impl::cluster(const std::string& name, int nodes) const {
    if (name.empty() || name == remote::kLocalCluster)
        return remote::localCluster();
    store::StoreReader reader(writer->path());
    auto row = reader.cluster(name);
    if (!row)
        throw std::runtime_error("cluster: there is no cluster \"" + name +
                                 "\" (mlstudio cluster list shows them; mlstudio cluster add " +
                                 name + " --ssh HOST... adds it)");
    remote::ClusterConfig c = remote::clusterFromJson(row->name, row->config);
    if (!c.isSlurm() && static_cast<int>(c.hosts.size()) < nodes)
        throw std::runtime_error("instance_count: the job needs " + std::to_string(nodes) +
                                 " hosts, and cluster " + name + " has " +
                                 std::to_string(c.hosts.size()));
    return c;
}

void Controller::Impl::addCallbacks(RunnerContext& ctx) {
    ctx.onStatus = [this](const JobStatusUpdate& u) {
        for (auto* o : observersCopy())
            o->jobStatus(u);
    };
    ctx.onEvent = [this, name = ctx.jobName, id = ctx.id](const wire::Event& e) {
        for (auto* o : observersCopy())
            o->jobEvent(name, id, e);
    };
    ctx.onNotification = [this](const JobNotification& n) {
        for (auto* o : observersCopy())
            o->jobNotification(n);
    };
    ctx.writer = writer.get();
    ctx.graceSeconds = options.graceSeconds;
    ctx.home = options.home;
    ctx.linkTimeoutSeconds = options.linkTimeoutSeconds;
    const int nodes = ctx.spec.instanceCount;
    ctx.hosts.clear();
    for (int i = 0; i < nodes; ++i)
        ctx.hosts.push_back(
            remote::makeExecutor(ctx.cluster, static_cast<std::size_t>(i), controlDir));
}

void Controller::Impl::start(RunnerContext ctx) {
    const std::string name = ctx.jobName;
    auto runner = std::make_unique<JobRunner>(std::move(ctx));
    JobRunner* raw = runner.get();
    std::thread previous; // a run of this job that ended here before (it was detached)
    std::lock_guard lock(mutex);
    auto& job = jobs[name];
    if (job.runner && !job.done)
        throw std::logic_error("job " + name + " is followed here already");
    previous = std::move(job.thread);
    if (previous.joinable())
        previous.join(); // it ended: setting done was its last step
    job.runner = std::move(runner);
    job.done = false;
    {
        std::lock_guard liveLock(liveMutex);
        live[raw->id()] = raw;
    }
    job.thread = std::thread([this, raw, name] {
        raw->run();
        {
            std::lock_guard liveLock(liveMutex);
            live.erase(raw->id());
        }
        std::lock_guard lock(mutex);
        jobs[name].done = true;
        changed.notify_all();
    });
}

Controller::Controller(ControllerOptions options)
    : d(std::make_unique<Impl>()) {
    d->options = std::move(options);
    if (d->options.home.empty())
        d->options.home = studioHome();
    makePrivateHome(d->options.home);
    d->writer = std::make_unique<store::StoreWriter>(databasePath(d->options.home));
    d->owner = processOwnerId();
    d->controlDir = remote::controlDirectory(d->options.home);
    d->writer->setErrorHandler([impl = d.get()](const store::WriteError& e) {
        std::lock_guard lock(impl->liveMutex);
        for (auto& [id, runner] : impl->live)
            if ((e.component == 0 && e.batchLost) || id == e.component)
                runner->reportStoreError(e.message, e.batchLost);
    });
    d->writer->failAbandoned(&ownerAlive);
    if (d->options.takeOver)
        takeOver();
    if (d->options.takeOver && d->options.takeOverIntervalSeconds > 0)
        d->watcher = std::thread([this] {
            const auto interval = std::chrono::milliseconds(
                static_cast<long>(d->options.takeOverIntervalSeconds * 1000));
            std::unique_lock lock(d->mutex);
            while (!d->changed.wait_for(lock, interval, [this] { return d->stopping; })) {
                lock.unlock();
                try {
                    takeOver();
                } catch (const std::exception&) {
                    // The next round tries again (a locked or briefly missing database).
                }
                lock.lock();
            }
        });
}

Controller::~Controller() {
    {
        std::lock_guard lock(d->mutex);
        d->stopping = true;
        d->changed.notify_all();
    }
    if (d->watcher.joinable())
        d->watcher.join();
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

namespace {

store::NewComponent newComponent(const spec::JobSpec& spec, const std::string& owner) {
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
    c.owner = owner;
    c.cluster = spec.cluster;
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
    c.parameters.push_back({"cluster", spec.cluster, std::nullopt});
    return c;
}

// Secret variables come from this process's environment; a missing one fails the submission
// (`strict`), or, for a job taken over, only a later launch that needs it.
std::map<std::string, std::string> resolveSecrets(const spec::JobSpec& spec, bool strict) {
    std::map<std::string, std::string> out;
    for (const auto& [name, from] : spec.secretEnvironment) {
        if (const char* v = std::getenv(from.c_str()))
            out[name] = v;
        else if (strict)
            throw std::runtime_error("environment." + name + ": the secret comes from $" + from +
                                     ", which is not set in this studio's environment");
    }
    return out;
}

std::string imdsEndpoint(const ControllerOptions& o, const spec::JobSpec& spec) {
    if (!spec.useSpotInstances)
        return {};
    std::string endpoint = o.imdsEndpoint;
    if (endpoint.empty())
        if (const char* env = std::getenv("MLSTUDIO_IMDS_ENDPOINT"))
            endpoint = env;
    if (endpoint.empty())
        endpoint = "http://169.254.169.254";
    return endpoint == "off" ? std::string() : endpoint;
}

// Before a Slurm job is recorded: the API answers, the token is good, the partition exists and
// nothing in the spec needs what Slurm cannot give. Throws naming the cluster and the fix.
void checkSlurmSubmission(const remote::ClusterConfig& cluster, const spec::JobSpec& spec) {
    if (!spec.secretEnvironment.empty())
        throw std::runtime_error("environment." + spec.secretEnvironment.begin()->first +
                                 ": secret variables cannot go to Slurm cluster " + cluster.name +
                                 " (Slurm keeps a batch job's environment in its state files)");
    remote::SlurmClient client(cluster, 10);
    client.negotiate();
    const std::string wanted = spec.slurm && !spec.slurm->partition.empty()
                                   ? spec.slurm->partition
                                   : cluster.slurm.partition;
    const auto partitions = client.partitions();
    if (wanted.empty())
        return;
    std::string names;
    for (const auto& p : partitions) {
        if (p.name == wanted)
            return;
        names += (names.empty() ? "" : ", ") + p.name;
    }
    throw std::runtime_error("slurm.partition: cluster " + cluster.name + " has no partition \"" +
                             wanted + "\" (it has " + (names.empty() ? "none" : names) + ")");
}

} // namespace

SubmittedJob Controller::submit(const spec::JobSpec& spec, std::vector<CustomRule> customRules,
                                const std::string& jobName) {
    RunnerContext ctx;
    ctx.secrets = resolveSecrets(spec, true);
    ctx.cluster = d->cluster(spec.cluster, spec.instanceCount);
    if (spec.slurm && !ctx.cluster.isSlurm())
        throw std::runtime_error("slurm: cluster " + ctx.cluster.name +
                                 " is not a Slurm cluster; the section applies to Slurm clusters "
                                 "only");
    if (ctx.cluster.isSlurm())
        checkSlurmSubmission(ctx.cluster, spec);
    LaunchPaths lp = d->launchPaths(spec.isBuiltin());
    store::NewComponent c = newComponent(spec, d->owner);

    // Names carry milliseconds; two submissions in the same millisecond take the next one.
    store::ComponentId id = 0;
    std::string name;
    if (!jobName.empty()) {
        if (store::StoreReader(d->writer->path()).component(jobName))
            throw std::runtime_error("job name \"" + jobName +
                                     "\" is taken: a job of that name exists (names are unique)");
        name = jobName;
        c.name = name;
        c.jobDir = JobPaths::of(d->options.home, name).root;
        id = d->writer->createComponent(c);
    }
    for (int attempt = 0; attempt < 50 && id == 0; ++attempt) {
        name = timestampedJobName(spec.name, c.created + attempt * 0.001);
        c.name = name;
        c.jobDir = JobPaths::of(d->options.home, name).root;
        try {
            id = d->writer->createComponent(c);
        } catch (const std::runtime_error&) {
            if (attempt == 49)
                throw;
        }
    }

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
    ctx.imdsEndpoint = imdsEndpoint(d->options, spec);
    ctx.customRules = std::move(customRules);
    d->addCallbacks(ctx);
    const std::string root = ctx.paths.root;
    d->start(std::move(ctx));
    return SubmittedJob{name, id, root};
}

std::vector<std::string> Controller::settleLost(const std::string& only) {
    std::vector<std::string> lost;
    {
        store::StoreReader reader(d->writer->path());
        for (const auto& row : orphanedJobs(reader, only))
            if (launchersEndedHere(reader.journals(row.id)))
                lost.push_back(row.name);
    }
    std::vector<std::string> settled;
    for (const auto& name : lost) {
        const auto taken = takeOver(name);
        if (std::find(taken.begin(), taken.end(), name) == taken.end())
            continue;
        wait(name);
        settled.push_back(name);
    }
    return settled;
}

std::vector<std::string> Controller::takeOver(const std::string& only) {
    store::StoreReader reader(d->writer->path());
    std::vector<std::string> taken;
    for (const auto& row : orphanedJobs(reader, only)) {
        {
            std::lock_guard lock(d->mutex);
            if (d->jobs.count(row.name) && !d->jobs[row.name].done)
                continue; // followed here already
        }
        std::vector<store::JournalRow> journals = reader.journals(row.id);
        if (journals.empty() || !d->writer->claimOwner(row.id, row.owner, d->owner))
            continue;
        RunnerContext ctx;
        ctx.jobName = row.name;
        ctx.id = row.id;
        ctx.paths = JobPaths::of(d->options.home, row.name);
        ResumeState resume;
        resume.state = runStateFromJson(reader.runState(row.id));
        resume.stopping = row.status == "Stopping";
        resume.journals = std::move(journals);
        resume.ranks = reader.ranks(row.id);
        resume.nodes = reader.nodes(row.id);
        resume.logs = reader.logFiles(row.id);
        resume.slurmJobs = reader.slurmJobs(row.id);
        for (const auto& [metric, summary] : reader.metricSummaries(row.id))
            if (summary.count > 0)
                resume.metricLastSteps[metric] = summary.lastStep;
        auto detail = reader.detail(row.name);
        spec::ParseOptions noFiles;
        noFiles.checkFiles = false;
        auto parsed =
            spec::parseSpecText(detail ? detail->specJson : "", resume.state.baseDir, {}, noFiles);
        try {
            if (!parsed.ok())
                throw std::runtime_error("its stored spec no longer parses: " +
                                         parsed.errors.front().text());
            ctx.spec = *parsed.spec;
            ctx.secrets = resolveSecrets(ctx.spec, false);
            ctx.cluster = d->cluster(row.cluster, ctx.spec.instanceCount);
            ctx.launch = d->launchPaths(ctx.spec.isBuiltin());
        } catch (const std::exception& e) {
            const double now = wire::nowSeconds();
            const std::string reason =
                std::string("ClientError: cannot take the job over: ") + e.what();
            d->writer->setFailureReason(row.id, reason);
            d->writer->setEnded(row.id, now);
            d->writer->setStatus(row.id, "Failed", "Failed", reason, now);
            continue;
        }
        ctx.launch.specFile = ctx.paths.spec;
        ctx.launch.modelDir = ctx.paths.model;
        ctx.launch.outputDir = ctx.paths.output;
        ctx.launch.debugOutputDir = ctx.paths.debugOutput;
        ctx.launch.checkpointDir = ctx.spec.checkpointLocalPath.empty()
                                       ? ctx.paths.checkpoints
                                       : ctx.spec.checkpointLocalPath;
        ctx.imdsEndpoint = imdsEndpoint(d->options, ctx.spec);
        ctx.resume = std::move(resume);
        d->addCallbacks(ctx);
        d->start(std::move(ctx));
        taken.push_back(row.name);
    }
    return taken;
}

bool Controller::stop(const std::string& job, const std::string& reason,
                      const std::string& secondary) {
    {
        std::lock_guard lock(d->mutex);
        auto it = d->jobs.find(job);
        if (it != d->jobs.end() && !it->second.done)
            return it->second.runner->requestStop(reason, secondary);
    }
    // Another studio process may run it: ask through its control socket.
    auto reply = sendControl(d->options.home, job, "stop", reason);
    return reply && reply->ok;
}

bool Controller::detach(const std::string& job) {
    std::lock_guard lock(d->mutex);
    auto it = d->jobs.find(job);
    if (it == d->jobs.end() || it->second.done)
        return false;
    return it->second.runner->requestDetach();
}

void Controller::detachAll() {
    std::vector<std::string> names = runningJobs();
    for (const auto& n : names)
        detach(n);
    for (const auto& n : names)
        wait(n);
}

std::string Controller::wait(const std::string& job) {
    std::unique_lock lock(d->mutex);
    auto it = d->jobs.find(job);
    if (it == d->jobs.end())
        return {};
    d->changed.wait(lock, [&] { return it->second.done; });
    // Joined without the lock: the thread's last step takes it.
    std::thread finished = std::move(it->second.thread);
    const std::string status = it->second.runner->finalStatus();
    lock.unlock();
    if (finished.joinable())
        finished.join();
    return status;
}

bool Controller::interrupt(const std::string& job, const std::string& reason) {
    {
        std::lock_guard lock(d->mutex);
        auto it = d->jobs.find(job);
        if (it != d->jobs.end() && !it->second.done)
            return it->second.runner->requestInterrupt(reason);
    }
    auto reply = sendControl(d->options.home, job, "interrupt", reason);
    return reply && reply->ok;
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

// The embedded engine's front door: submits jobs (one thread each), stops them, and tells
// observers what they do. Owns the studio database's writer.
// Thread-safe: every method may be called from any thread.
#pragma once

#include "engine/control/job_observer.h"
#include "engine/control/job_runner.h"
#include "engine/spec/job_spec.h"
#include "engine/store/store_writer.h"

#include <memory>
#include <string>
#include <vector>

namespace studio::control {

struct ControllerOptions {
    std::string home;         // empty: studioHome()
    std::string launcherPath; // empty: studio-launcher beside this program, else on PATH
    std::string trainerPath;  // empty: studio-train likewise
    double graceSeconds = 10; // SIGTERM -> SIGKILL for ranks being stopped
    // Spot jobs' launchers poll this EC2 instance metadata endpoint (IMDSv2) for interruption
    // notices. Empty: $MLSTUDIO_IMDS_ENDPOINT, else the real http://169.254.169.254; "off" turns
    // the poll off. An endpoint that does not answer disables the poll for that attempt.
    std::string imdsEndpoint;
    // Take over, at construction and then every takeOverIntervalSeconds, the jobs whose studio
    // process is gone but whose launchers may still run (the studio window does; a one-shot
    // `mlstudio run` does not). 0: only at construction.
    bool takeOver = false;
    double takeOverIntervalSeconds = 0;
    double linkTimeoutSeconds = 4; // a node's journal follower silent this long: link down
};

struct SubmittedJob {
    std::string name;
    store::ComponentId id = 0;
    std::string jobDir;
};

class Controller {
public:
    // Opens the store and marks jobs of studio processes that died before their launchers ran
    // as Failed; with options.takeOver, follows the others again (takeOver()).
    explicit Controller(ControllerOptions options = {});
    // Stops the jobs still followed here (gracefully) and waits for them; detached jobs go on.
    ~Controller();
    Controller(const Controller&) = delete;
    Controller& operator=(const Controller&) = delete;

    const std::string& home() const;
    store::StoreWriter& writer();

    // Records the job and starts it; throws std::runtime_error when it cannot be recorded, the
    // launcher cannot be found, or the spec's cluster does not exist or has too few hosts (the
    // message names the cluster). customRules run beside the spec's rules. jobName, when given,
    // is the job's exact name (SageMaker's fit(job_name=...)): a name already taken throws;
    // empty: the spec's name and a timestamp.
    SubmittedJob submit(const spec::JobSpec& spec, std::vector<CustomRule> customRules = {},
                        const std::string& jobName = {});
    // Jobs of other studio processes are asked through their control socket. False when no
    // process runs the job (or it has ended) or the owner refused.
    bool stop(const std::string& job, const std::string& reason = "Stopped by user",
              const std::string& secondary = "Stopped");
    // Blocks until the job has ended; returns its final status ("" for an unknown job).
    std::string wait(const std::string& job);
    // A manual spot interruption (the studio's Interrupt action, `mlstudio interrupt`): the
    // ranks checkpoint and exit, the job waits for capacity and resumes. False when this
    // process runs the job or it is not a spot job.
    bool interrupt(const std::string& job, const std::string& reason = "Interrupted by user");
    // Stops following a job and leaves it running (the studio window's "Keep running"); a
    // studio process takes it over later. False when this controller follows no such job.
    bool detach(const std::string& job);
    void detachAll();
    // Follows again the running jobs whose studio process is gone (all, or the one named),
    // from the offsets stored with their journals; returns the names taken over. A job whose
    // owner still runs is left to it.
    std::vector<std::string> takeOver(const std::string& job = {});
    // Ends at once the running jobs whose studio process is gone and whose launchers, all on
    // this machine, have ended too: their journals are followed to the end here, so the job
    // ends with what its launchers last said (Failed naming the node when one died without its
    // exit event). Jobs with a live launcher, or on another host, are left as they are. Returns
    // the jobs settled.
    std::vector<std::string> settleLost(const std::string& job = {});
    JobProgress progress(const std::string& job) const;
    std::vector<std::string> runningJobs() const;

    void addObserver(JobObserver* o);
    void removeObserver(JobObserver* o);

private:
    struct Impl;
    std::unique_ptr<Impl> d;
};

} // namespace studio::control

// The end of a job: the final status from what its launchers and hosts said, outputs brought
// back from the hosts, artifacts and log index; and requests from other processes through the
// control socket.
#include "engine/control/control_channel.h"
#include "engine/control/job_runner_state.h"
#include "engine/report/profiler_report.h"
#include "engine/wire/codec.h"

#include <algorithm>
#include <filesystem>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace studio::control {

namespace fs = std::filesystem;

ControlReply JobRunner::answerControl(const ControlRequest& req) {
    const std::string& job = d->ctx.jobName;
    if (req.action == "stop") {
        const std::string reason = req.reason.empty() ? "Stopped by user" : req.reason;
        return {requestStop(reason), "stopping " + job};
    }
    if (req.action == "interrupt") {
        const bool ok = requestInterrupt(req.reason.empty() ? "interrupted by user" : req.reason);
        return {ok, ok ? "interrupting " + job + " (spot notice sent)"
                       : job + " is not a spot job (use_spot_instances is false)"};
    }
    return {false, "unknown action \"" + req.action + "\" (stop or interrupt)"};
}

void JobRunner::decideOutcome(std::string& status, std::string& secondary, std::string& reason) {
    State& s = *d;
    bool stopRequested;
    {
        std::lock_guard lock(s.mutex);
        stopRequested = s.stopRequested;
        reason = s.stopReason;
        secondary = s.stopSecondary;
    }
    // A lost host comes first when it came first: the ranks that failed after it lost their
    // peers on that host.
    if (!s.hostFailure.empty() && (!s.failure || s.failure->time >= s.hostFailureAt)) {
        status = "Failed";
        secondary = "Failed";
        reason = "InternalServerError: " + s.hostFailure;
        return;
    }
    if (s.failure) {
        status = "Failed";
        secondary = "Failed";
        reason = s.failureText();
        return;
    }
    if (stopRequested) {
        status = "Stopped";
        return;
    }
    for (const auto& n : s.nodes) {
        if (n.launcherExit.value_or(-1) != 0) {
            status = "Failed";
            secondary = "Failed";
            reason = "InternalServerError: the launcher of node " + std::to_string(n.plan.node) +
                     (n.host->isRemote() ? " on host " + n.journal.host : std::string()) + " " +
                     (n.launcherExit ? process::ExitStatus{*n.launcherExit, 0}.describe()
                                     : std::string("ended without reporting its exit"));
            for (const auto& line : n.stderrTail)
                reason += "\n  " + line;
            return;
        }
    }
    status = "Completed";
    secondary = "Completed";
    reason.clear();
}

void JobRunner::finish(const std::string& status, const std::string& secondary,
                       const std::string& reason) {
    State& s = *d;
    store::StoreWriter& w = *s.ctx.writer;
    if (std::any_of(s.nodes.begin(), s.nodes.end(),
                    [](const NodeLink& n) { return n.host->isRemote(); })) {
        // The hosts' model/, output/ and debug-output/ come back into the job's folder, so
        // artifacts, Debugger tensors and model.pt work as for local jobs; checkpoints stay.
        s.setStatus("InProgress", "Uploading", "bringing back model/ and output/ from the hosts");
        fetchOutputs();
    }
    if (s.slurm) {
        s.setStatus("InProgress", "Uploading",
                    "bringing back model/ and output/ from " + s.slurm->jobDir);
        fetchSlurmOutputs();
    }
    if (status == "Completed") {
        s.setStatus("InProgress", "Uploading");
        std::error_code ec;
        for (auto it = fs::recursive_directory_iterator(s.ctx.paths.model, ec);
             !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
            if (!it->is_regular_file())
                continue;
            const std::string rel = fs::relative(it->path(), s.ctx.paths.model).string();
            w.setArtifact(s.ctx.id,
                          store::ArtifactRow{"model/" + rel, "output", it->path().string(),
                                             "application/octet-stream"});
        }
    }
    if (s.debugger)
        s.debugger->finish(wire::nowSeconds());
    s.ruleProcesses.clear(); // the session has their last findings
    if (s.sourceRecord.valid())
        s.sourceRecord.wait();
    if (s.tensorboard) {
        s.tensorboard->finish(status, wire::nowSeconds());
        s.tensorboard.reset();
    }
    s.logs.flush();
    for (const auto& f : s.logs.files())
        w.upsertLogFile(s.ctx.id, f);
    if (s.protocolErrors)
        w.addProtocolErrors(s.ctx.id, s.protocolErrors);
    if (!reason.empty())
        w.setFailureReason(s.ctx.id, reason);
    w.setEnded(s.ctx.id, wire::nowSeconds());
    s.control.reset();
    s.setStatus(status, secondary, reason.substr(0, reason.find('\n')));
    w.flush();
    // SageMaker writes the profiler report when the job ends, whatever its outcome.
    if (!s.ctx.spec.profiler.disabled) {
        try {
            const std::string path =
                report::writeProfilerReport(w.path(), s.ctx.jobName, s.ctx.paths.profilerOutput);
            w.setArtifact(s.ctx.id,
                          store::ArtifactRow{"profiler-report", "output", path, "text/html"});
            w.flush();
        } catch (const std::exception& e) {
            s.logs.write(wire::nowSeconds(), 0, -1, wire::Stream::Stderr,
                         std::string("profiler report not written: ") + e.what());
            s.logs.flush();
        }
    }
    m_ended = true;
}

} // namespace studio::control

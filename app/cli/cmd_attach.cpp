// mlstudio attach / stop / interrupt: reach a running job wherever it is followed. A job whose
// studio process is gone (its launchers run detached) is taken over here first.
#include "app/cli/cli.h"
#include "app/cli/job_follower.h"
#include "app/present/progress_bar.h"

#include "engine/control/control_channel.h"
#include "engine/control/controller.h"
#include "engine/control/orphans.h"
#include "engine/control/studio_home.h"
#include "engine/store/store_reader.h"

#include <algorithm>
#include <cstdio>
#include <thread>

namespace studio::cli {

namespace {

int exitCodeOf(const std::string& status) {
    return status == "Completed" ? kExitOk : status == "Stopped" ? kExitStopped : kExitFailed;
}

// Another studio process follows the job: show its transitions from the store until it ends.
int watchFromStore(const std::string& home, const std::string& job) {
    store::StoreReader reader(control::databasePath(home));
    std::fprintf(stderr, "%s is followed by another studio process; showing its progress.\n",
                 job.c_str());
    std::size_t shown = 0;
    while (true) {
        auto row = reader.component(job);
        if (!row)
            return kExitFailed;
        const auto transitions = reader.transitions(row->id);
        for (; shown < transitions.size(); ++shown) {
            const auto& t = transitions[shown];
            std::fprintf(stderr, "%s %s%s\n", present::formatTime(t.startTime).c_str(),
                         t.secondaryStatus.c_str(),
                         t.message.empty() ? "" : (": " + t.message).c_str());
        }
        if (!store::isLiveStatus(row->status)) {
            printJobSummary(home, job);
            return exitCodeOf(row->status);
        }
        if (!row->owner.empty() && !control::ownerAlive(row->owner))
            return -1; // its follower went away: take it over
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
    }
}

// Takes the job over in this process; false when it has no journals or another process won.
bool takeOverHere(control::Controller& c, const std::string& job) {
    const auto taken = c.takeOver(job);
    return std::find(taken.begin(), taken.end(), job) != taken.end();
}

} // namespace

void settleLostJobs(const std::string& home) {
    bool any = false;
    {
        store::StoreReader reader(control::databasePath(home));
        // Those the store can settle: no launcher was ever recorded, or all ended here. The
        // rest (launchers on cluster hosts) wait for a studio or `attach` to follow them.
        for (const auto& row : control::orphanedJobs(reader)) {
            const auto journals = reader.journals(row.id);
            any = any || control::launchersEndedHere(journals) ||
                  std::none_of(journals.begin(), journals.end(),
                               [](const store::JournalRow& j) { return j.launcherPid > 0; });
        }
    }
    if (!any)
        return;
    control::ControllerOptions o;
    o.home = home;
    control::Controller controller(o);
    for (const auto& job : controller.settleLost())
        std::fprintf(stderr,
                     "mlstudio: %s had no studio process following it and its launchers have "
                     "ended; its journal was read to the end\n",
                     job.c_str());
}

int cmdAttach(const std::string& job, bool streamLogs) {
    const std::string home = control::studioHome();
    store::ComponentRow row;
    {
        store::StoreReader reader(control::databasePath(home));
        row = reader.resolveJob(job);
    }
    if (!store::isLiveStatus(row.status)) {
        std::fprintf(stderr, "%s has ended (%s)\n", row.name.c_str(), row.status.c_str());
        return exitCodeOf(row.status);
    }
    if (!row.owner.empty() && control::ownerAlive(row.owner)) {
        const int rc = watchFromStore(home, row.name);
        if (rc >= 0)
            return rc;
    }
    control::Controller controller;
    FollowOptions o;
    o.streamLogs = streamLogs;
    o.interruptDetaches = true;
    JobFollower follower(controller, o);
    if (!takeOverHere(controller, row.name)) {
        std::fprintf(stderr,
                     "mlstudio: cannot attach to %s: no launcher journal to follow, or "
                     "another studio process took it over first\n",
                     row.name.c_str());
        return kExitFailed;
    }
    std::fprintf(stderr, "Attached to %s (Ctrl-C leaves it running).\n", row.name.c_str());
    return follower.follow(row.name);
}

int sendToRunningJob(const std::string& job, const std::string& action) {
    const std::string home = control::studioHome();
    store::ComponentRow row;
    {
        store::StoreReader reader(control::databasePath(home));
        row = reader.resolveJob(job);
    }
    if (!store::isLiveStatus(row.status)) {
        std::fprintf(stderr, "mlstudio: %s has already ended (%s)\n", row.name.c_str(),
                     row.status.c_str());
        return kExitFailed;
    }
    if (auto reply = control::sendControl(home, row.name, action)) {
        std::printf("%s\n", reply->message.c_str());
        return reply->ok ? kExitOk : kExitFailed;
    }
    // No studio process follows it: its launchers may still run detached. Take it over here,
    // act, and follow it to its end (a stop ends it; a spot interruption needs a follower).
    control::Controller controller;
    FollowOptions o;
    o.quiet = action == "stop";
    JobFollower follower(controller, o);
    if (!takeOverHere(controller, row.name)) {
        std::fprintf(stderr, "mlstudio: no studio process is running %s\n", row.name.c_str());
        return kExitFailed;
    }
    const bool ok = action == "stop" ? controller.stop(row.name, "Stopped by user")
                                     : controller.interrupt(row.name, "interrupted by user");
    if (!ok) {
        std::fprintf(stderr, "mlstudio: %s refused the %s request\n", row.name.c_str(),
                     action.c_str());
        controller.detachAll();
        return kExitFailed;
    }
    std::printf("%s %s (taken over by this process)\n",
                action == "stop" ? "stopping" : "interrupting", row.name.c_str());
    std::fflush(stdout);
    const int rc = follower.follow(row.name);
    return action == "stop" && rc == kExitStopped ? kExitOk : rc;
}

} // namespace studio::cli

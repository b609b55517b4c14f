#include "engine/control/orphans.h"

#include "engine/control/studio_home.h"
#include "engine/process/process_identity.h"
#include "engine/remote/cluster.h"
#include "engine/store/store_reader.h"

#include <algorithm>

namespace studio::control {

bool isOrphaned(const store::ComponentRow& row) {
    return store::isLiveStatus(row.status) && (row.owner.empty() || !ownerAlive(row.owner));
}

std::vector<store::ComponentRow> orphanedJobs(store::StoreReader& reader, const std::string& only) {
    std::vector<store::ComponentRow> out;
    for (const char* status : {"InProgress", "Stopping"}) {
        store::ComponentFilter f;
        f.status = status;
        for (auto& row : reader.components(f))
            if ((only.empty() || row.name == only) && isOrphaned(row))
                out.push_back(std::move(row));
    }
    return out;
}

bool launchersEndedHere(const std::vector<store::JournalRow>& journals) {
    int attempt = 0;
    for (const auto& j : journals)
        attempt = std::max(attempt, j.attempt);
    return !journals.empty() &&
           std::all_of(journals.begin(), journals.end(), [&](const store::JournalRow& j) {
               return j.host == remote::kLocalCluster &&
                      (j.attempt < attempt ||
                       !process::processRunning(j.launcherPid, j.launcherStart));
           });
}

} // namespace studio::control

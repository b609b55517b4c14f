// Jobs the store shows live (InProgress or Stopping) that no studio process follows: the process
// that ran them died, or let them go. A studio takes them over; readers settle the ones whose
// launchers have ended and say of the rest that nobody follows them.
#pragma once

#include "engine/store/records.h"

#include <string>
#include <vector>

namespace studio::store {
class StoreReader;
}

namespace studio::control {

// Live (store::isLiveStatus), and its owner ("host:pid:start") is not a running process of
// this machine.
bool isOrphaned(const store::ComponentRow& row);
// The orphaned jobs, all of them or the one named `only`.
std::vector<store::ComponentRow> orphanedJobs(store::StoreReader& reader,
                                              const std::string& only = {});
// Whether a job's launchers have all ended: every journal is of this machine and its launcher of
// the latest attempt is gone (pid and start time). Then the journals hold the whole story.
bool launchersEndedHere(const std::vector<store::JournalRow>& journals);

} // namespace studio::control

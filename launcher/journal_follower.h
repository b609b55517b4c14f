// `studio-launcher follow`: streams a launcher's journal from a byte offset to stdout, then
// keeps following it, so the studio reads a node's events the same way whether the node is
// this machine or a host at the other end of an SSH connection.
//
// The stream: a first line "@@studio-follow 1 <offset>", then the journal's complete lines as
// they are, interleaved with control lines that start with '#' (journal lines start with '{'):
//   #hb <unix time>   the follower is alive and has sent everything (every heartbeatMs)
//   #end              the launcher's own exit event was sent: the journal is complete
//   #gone             the launcher is no longer running and its journal has no exit event
//   #error <text>     the journal cannot be followed (missing, offset beyond its end)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace studio::launcher {

inline constexpr const char* kFollowMarker = "@@studio-follow 1";

struct FollowOptions {
    std::string journal;
    std::int64_t offset = 0;
    long pid = 0;         // the launcher; 0: do not watch a process
    std::string pidStart; // its start time in clock ticks
    int heartbeatMs = 1000;
    double waitForJournalSeconds = 5; // the journal may appear just after the launcher starts
                                      // (or, on Slurm, once the job leaves the queue)
};

// Returns 0 after #end or #gone, 1 after #error, 2 when stdout's reader went away.
int followJournal(const FollowOptions& o, int outFd = 1);
int runFollow(const std::vector<std::string>& args);

} // namespace studio::launcher

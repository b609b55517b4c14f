// Scripts' own TensorBoard event files, read while they grow. The launcher of each node watches
// the folders its ranks are told to write to (SM_TENSORBOARD_DIR and
// $SM_OUTPUT_DATA_DIR/tensorboard) and turns every scalar a rank writes into a metric of that
// rank, so a script that uses a SummaryWriter needs no metric_definitions. Not thread-safe.
#pragma once

#include "engine/tboard/event_file.h"

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace studio::launcher {

// One scalar of a watched file and the rank it belongs to. firstOfTag: the rank's first point
// under this tag (the launcher says so before the point, so the controller knows the series
// came from the job's own files).
struct WatchedScalar {
    int rank = 0;
    bool firstOfTag = false;
    tboard::ScalarPoint point;
};

class TensorboardWatch {
public:
    // folders: watched with their subfolders; one that does not exist yet is looked for again
    // on every poll. The event files already there belong to earlier runs and are never read.
    TensorboardWatch(std::vector<std::filesystem::path> folders, int firstRank);
    TensorboardWatch(const TensorboardWatch&) = delete;
    TensorboardWatch& operator=(const TensorboardWatch&) = delete;

    // The pid of each rank the launcher started, and its global rank.
    void setRankPids(std::map<long, int> pidToRank) { m_rankPids = std::move(pidToRank); }

    struct Update {
        std::vector<WatchedScalar> scalars;
        std::vector<std::string> warnings; // for the launcher's log: corrupt or foreign files
    };
    // Finds new files and reads what every file gained. A poll reads at most a few MiB of each
    // file so that the launcher's loop stays responsive; toTheEnd reads everything (the last
    // poll, after the ranks ended).
    Update poll(bool toTheEnd = false);

    std::size_t filesRead() const { return m_readers.size(); }

private:
    struct Watched {
        std::unique_ptr<tboard::EventFileReader> reader; // null: not read (see the header)
        int rank = 0;
        bool warned = false;
    };

    std::vector<std::filesystem::path> m_folders;
    int m_firstRank = 0;
    std::map<long, int> m_rankPids;
    std::set<std::filesystem::path> m_before;           // files there before the ranks started
    std::map<std::filesystem::path, Watched> m_readers; // every file seen since, read or not
    std::set<std::pair<int, std::string>> m_tags;       // (rank, tag) already announced

    // The rank a new file belongs to; nullopt when a live process that is none of the job's
    // writes it (the note says so).
    std::optional<int> rankOf(const std::filesystem::path& file, const std::filesystem::path& root,
                              std::string& note) const;
    void read(const std::filesystem::path& file, Watched& w, bool toTheEnd, Update& out);
};

// Every file whose name contains "tfevents" under folder (recursively), except the studio's own
// "*.mlstudio" files.
std::vector<std::filesystem::path> scriptEventFiles(const std::filesystem::path& folder);

// The global rank in a folder named "rank<R>" or "node<N>-rank<R>" on file's path below root.
std::optional<int> rankFromFolders(const std::filesystem::path& file,
                                   const std::filesystem::path& root);

// A process's parent, from /proc/<pid>/stat; 0 when the process is gone.
long parentPid(long pid);

} // namespace studio::launcher

// mlstudio logs: the ranks' log files, merged by time and tagged, optionally followed.
#include "app/cli/cli.h"
#include "app/present/tagged_line.h"

#include "engine/control/controller.h"
#include "engine/control/log_sink.h"
#include "engine/control/orphans.h"
#include "engine/control/studio_home.h"
#include "engine/store/store_reader.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <thread>

namespace studio::cli {

namespace fs = std::filesystem;

namespace {

struct Source {
    int node = 0;
    int rank = 0;
    std::string path;
    std::streamoff offset = 0;
};

// Files in logs/: rank-<R>.log and launcher-<N>.log; nodes come from the store's rank rows.
std::vector<Source> findSources(const std::string& logDir, const std::vector<store::RankRow>& ranks,
                                int onlyRank) {
    std::map<int, int> nodeOf;
    for (const auto& r : ranks)
        nodeOf[r.rank] = r.node;
    std::vector<Source> out;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(logDir, ec)) {
        const std::string name = entry.path().filename().string();
        int rank = -1, node = 0;
        if (std::sscanf(name.c_str(), "rank-%d.log", &rank) == 1) {
            node = nodeOf.count(rank) ? nodeOf[rank] : 0;
        } else if (std::sscanf(name.c_str(), "launcher-%d.log", &node) == 1) {
            rank = -1;
        } else {
            continue;
        }
        if (onlyRank >= 0 && rank != onlyRank)
            continue;
        out.push_back({node, rank, entry.path().string(), 0});
    }
    return out;
}

struct Tagged {
    double time;
    std::size_t order;
    std::string text;
};

// Reads whole lines added since the last call.
void readNew(Source& s, std::vector<Tagged>& out, std::size_t& order) {
    std::ifstream in(s.path, std::ios::binary);
    in.seekg(s.offset);
    std::string line;
    while (true) {
        std::streamoff before = in.tellg();
        if (!std::getline(in, line))
            break;
        if (in.eof()) { // no newline yet: a partial line, read it next time
            s.offset = before;
            return;
        }
        s.offset = in.tellg();
        control::LogLine l;
        if (control::parseLogLine(line, l))
            out.push_back({l.time, order++, present::taggedLine(s.node, s.rank, l.stream, l.text)});
    }
}

} // namespace

int cmdLogs(const std::string& job, int rank, bool follow) {
    const std::string home = control::studioHome();
    settleLostJobs(home);
    store::StoreReader reader(control::databasePath(home));
    store::ComponentRow row = reader.resolveJob(job);
    // Nobody writes the log files of a job no studio process follows: follow it here.
    std::unique_ptr<control::Controller> follower;
    if (follow && control::isOrphaned(row)) {
        follower = std::make_unique<control::Controller>();
        if (!follower->takeOver(row.name).empty())
            std::fprintf(stderr,
                         "mlstudio: no studio process followed %s; following it here "
                         "(Ctrl-C leaves it running)\n",
                         row.name.c_str());
    }
    const std::string logDir = (fs::path(row.jobDir) / "logs").string();
    std::vector<Source> sources;
    std::size_t order = 0;
    while (true) {
        // New ranks' files appear while a job starts.
        for (auto& s : findSources(logDir, reader.ranks(row.id), rank))
            if (std::none_of(sources.begin(), sources.end(),
                             [&](const Source& o) { return o.path == s.path; }))
                sources.push_back(s);
        std::vector<Tagged> lines;
        for (auto& s : sources)
            readNew(s, lines, order);
        std::stable_sort(lines.begin(), lines.end(),
                         [](const Tagged& a, const Tagged& b) { return a.time < b.time; });
        for (const auto& l : lines)
            std::printf("%s\n", l.text.c_str());
        if (std::fflush(stdout) != 0 || std::ferror(stdout))
            break; // the reader went away (`| head`): the job is not ours to end
        if (!follow)
            break;
        auto current = reader.component(row.name);
        if (current && current->status != "InProgress" && current->status != "Stopping" &&
            lines.empty())
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    if (sources.empty() && rank >= 0) {
        std::fprintf(stderr, "mlstudio: %s has no log for rank %d\n", row.name.c_str(), rank);
        return kExitFailed;
    }
    return kExitOk;
}

} // namespace studio::cli

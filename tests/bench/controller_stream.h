// What the controller's memory benches share (bench_controller_memory, bench_controller_soak):
// a controller in a private temporary home, a job of bash ranks that stream metric and step
// events on STUDIO_EVENTS_FD and log lines on stdout, an observer that counts the events the
// controller ingested, and the store's counts to check that none was lost.
#pragma once

#include "engine/control/controller.h"
#include "engine/control/studio_home.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"
#include "tests/bench/bench_controller.h"
#include "tests/bench/bench_support.h"
#include "tests/support/temp_dir.h"

#include <atomic>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <stdlib.h>

namespace studio::bench {

// How each rank streams. Every `batch` metric events ("train:loss", steps 0, 1, 2, ...) it
// writes one step event and one stdout line "step N loss=V" (which the job's metric definition
// "stdout:loss" reads on rank 0). A rank writes `steps` metric events, or (steps 0) streams
// until `seconds` have passed; `pauseSeconds` > 0 sleeps that long after every batch. Its last
// stdout line is "sent N": how many metric events it wrote (sentCounts reads it back).
struct RankStream {
    int steps = 0;
    int seconds = 0;
    int batch = 10;
    double pauseSeconds = 0;

    std::string script() const {
        const std::string metric = R"(printf '{"v":1,"kind":"metric","name":"train:loss",)"
                                   R"("step":%d,"value":0.%05d}\n' $i $RANDOM >&3)";
        const std::string step = R"(printf '{"v":1,"kind":"step","step":%d,"phase":"train",)"
                                 R"("data":1,"forward":2,"backward":3,"optimizer":1}\n' $i >&3)";
        const std::string more = steps > 0 ? "[ $i -lt " + std::to_string(steps) + " ]"
                                           : "[ $SECONDS -lt " + std::to_string(seconds) + " ]";
        const std::string pause =
            pauseSeconds > 0 ? "; sleep " + std::to_string(pauseSeconds) : std::string();
        return "i=0; while " + more + "; do " + metric + "; i=$((i+1)); if [ $((i % " +
               std::to_string(batch) + ")) -eq 0 ]; then " + step + "; echo \"step $i loss=0.$i\"" +
               pause + "; fi; done; echo \"sent $i\"";
    }
};

// A job of `nodes` × `ranksPerNode` bash ranks streaming as `stream` says, with the studio's
// defaults otherwise (system sampling every 500 ms, the profiler report's rules).
inline spec::JobSpec streamingJob(const std::string& name, int nodes, int ranksPerNode,
                                  const RankStream& stream, const std::string& home) {
    const Json doc = {
        {"name", name},
        {"entry_point", {"/bin/bash", "-c", stream.script()}},
        {"instance_count", nodes},
        {"distribution",
         {{"torch_distributed", {{"enabled", true}}},
          {"mpi", {{"enabled", true}, {"processes_per_host", ranksPerNode}}}}},
        {"metric_definitions", {{{"Name", "stdout:loss"}, {"Regex", "loss=([0-9.]+)"}}}},
    };
    auto parsed = spec::parseSpecText(doc.dump(), home);
    if (!parsed.ok())
        throw std::runtime_error("bench spec: " + parsed.errors.front().text());
    return *parsed.spec;
}

// Counts the events the controller hands its observers (every event it ingested, of any kind),
// and when the first and the last arrived. Thread-safe (called on the job's thread).
struct EventCounter : control::JobObserver {
    std::atomic<long long> events{0};
    std::atomic<double> first{0};
    std::atomic<double> last{0};

    void jobEvent(const std::string&, store::ComponentId, const wire::Event&) override {
        const double now = wallSeconds();
        if (events.fetch_add(1) == 0)
            first = now;
        last = now;
    }
    // Events per second between the first and the last.
    double rate() const {
        const double span = last - first;
        return span > 0 ? static_cast<double>(events) / span : NAN;
    }
};

// What the ranks say they sent: each one's last stdout line "sent N" (N metric events, so
// N / batch step events and, on rank 0, N / batch stdout lines that carry a metric).
struct SentCounts {
    bool complete = true; // every rank said
    long long metricEvents = 0;
    long long stepEvents = 0;
    long long rank0Lines = 0;
};

inline SentCounts sentCounts(const std::string& jobDir, int ranks, int batch) {
    SentCounts c;
    for (int r = 0; r < ranks; ++r) {
        std::ifstream log(jobDir + "/logs/rank-" + std::to_string(r) + ".log");
        long long sent = -1;
        // A log line is "<time> <stream> <text>".
        const std::string said = " stdout sent ";
        for (std::string line; std::getline(log, line);)
            if (const auto at = line.find(said); at != std::string::npos)
                sent = std::stoll(line.substr(at + said.size()));
        if (sent < 0) {
            c.complete = false;
            continue;
        }
        c.metricEvents += sent;
        c.stepEvents += sent / batch;
        if (r == 0)
            c.rank0Lines = sent / batch;
    }
    return c;
}

// What the store holds of a streaming job, to check that nothing was lost.
struct StoredCounts {
    std::string status;
    std::size_t metricPoints = 0; // "train:loss", all ranks
    std::size_t stepTimings = 0;
    std::size_t stdoutPoints = 0; // "stdout:loss", read from rank 0's output
};

inline StoredCounts storedCounts(const std::string& home, const std::string& job) {
    store::StoreReader reader(control::databasePath(home));
    const auto row = reader.resolveJob(job);
    StoredCounts c;
    c.status = row.status;
    c.metricPoints = reader.metricPoints(row.id, "train:loss").size();
    c.stepTimings = reader.stepTimings(row.id).size();
    c.stdoutPoints = reader.metricPoints(row.id, "stdout:loss").size();
    return c;
}

// Checks that the store holds every event the ranks sent.
inline void checkNothingLost(Report& r, const StoredCounts& stored, const SentCounts& sent) {
    r.check(sent.complete && sent.metricEvents > 0,
            "every rank finished and said how many events it sent");
    r.check(static_cast<long long>(stored.metricPoints) == sent.metricEvents,
            "the store holds every metric event the ranks sent (" +
                std::to_string(stored.metricPoints) + " of " + std::to_string(sent.metricEvents) +
                ")");
    r.check(static_cast<long long>(stored.stepTimings) == sent.stepEvents,
            "the store holds every step event (" + std::to_string(stored.stepTimings) + " of " +
                std::to_string(sent.stepEvents) + ")");
    r.check(static_cast<long long>(stored.stdoutPoints) == sent.rank0Lines,
            "rank 0's stdout lines gave their metric (" + std::to_string(stored.stdoutPoints) +
                " of " + std::to_string(sent.rank0Lines) + ")");
}

// Bytes of the studio database and its write-ahead log.
inline double databaseMiB(const std::string& home) {
    double bytes = 0;
    for (const std::string suffix : {"", "-wal"}) {
        std::error_code ec;
        const auto n = std::filesystem::file_size(control::databasePath(home) + suffix, ec);
        if (!ec)
            bytes += static_cast<double>(n);
    }
    return bytes / (1024.0 * 1024.0);
}

} // namespace studio::bench

// Keeps the studio database from growing without bound. The profiler's system samples are most of
// a long job's rows (a 2-hour job on 8 nodes of 8 GPUs and 96 cores each: about 13.7 million
// samples at the default 500 ms, 677 MiB); once a job has ended, one mean per series and time
// window is enough for its charts and report. Compaction replaces a series' samples by those
// means, and VACUUM then gives the freed pages back to the file system.
#pragma once

#include <cstdint>
#include <string>

namespace studio::store {

struct CompactOptions {
    double endedBefore = 0;    // compact jobs that ended before this time (seconds since 1970)
    double windowSeconds = 60; // keep one sample per series and window of this length
    bool vacuum = true;        // then rewrite the file (skipped while a job runs)
};

struct CompactResult {
    int jobs = 0;                   // jobs that had samples to merge
    std::int64_t samplesBefore = 0; // the system samples of the jobs that ended before the time
    std::int64_t samplesAfter = 0;
    std::int64_t bytesBefore = 0; // the database file (its pages), before and after
    std::int64_t bytesAfter = 0;
    std::int64_t reusableBytes = 0; // free pages left inside the file (new rows reuse them)
    bool vacuumed = false;
    std::string vacuumSkipped; // why VACUUM was asked for and not run; "" otherwise
};

// Replaces the system samples of every job that ended before `endedBefore` by one sample per
// series and window (mean time, mean value), a minute of a job's samples per transaction so
// that a job running meanwhile never waits long for the database. A series already at that
// resolution is left as it is, so compacting twice changes nothing. VACUUM holds the database for
// as long as it takes to rewrite it, so it is skipped while any job is InProgress or Stopping; it
// needs free disk space about twice the size of what the database keeps. Throws std::runtime_error
// naming the file on a database error, or when the window is not a positive number of seconds.
CompactResult compactSystemSamples(const std::string& path, const CompactOptions& options);

// The database's size in bytes (page_count * page_size), once its write-ahead log is
// checkpointed into it.
std::int64_t databaseBytes(const std::string& path);

} // namespace studio::store

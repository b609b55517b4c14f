// mlstudio store compact: the database's retention of old jobs' system samples.
#include "app/cli/cli.h"
#include "engine/control/studio_home.h"
#include "engine/store/retention.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>

namespace studio::cli {
namespace {

double nowSeconds() {
    return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

double mebibytes(std::int64_t bytes) {
    return static_cast<double>(bytes) / (1024.0 * 1024.0);
}

} // namespace

int cmdStoreCompact(const StoreCompactOptions& o) {
    const std::string home = control::studioHome();
    settleLostJobs(home); // a job whose studio process died is not running: it may be vacuumed
    store::CompactOptions options;
    options.endedBefore = nowSeconds() - o.olderThanDays * 86400.0;
    options.windowSeconds = o.windowSeconds;
    options.vacuum = !o.noVacuum;
    const store::CompactResult r =
        store::compactSystemSamples(control::databasePath(home), options);
    if (o.json) {
        nlohmann::ordered_json j = {{"jobs", r.jobs},
                                    {"samples_before", r.samplesBefore},
                                    {"samples_after", r.samplesAfter},
                                    {"bytes_before", r.bytesBefore},
                                    {"bytes_after", r.bytesAfter},
                                    {"reusable_bytes", r.reusableBytes},
                                    {"vacuumed", r.vacuumed}};
        if (!r.vacuumSkipped.empty())
            j["vacuum_skipped"] = r.vacuumSkipped;
        std::printf("%s\n", j.dump(2).c_str());
        return kExitOk;
    }
    std::printf("Compacted the system samples of %d job(s) to one per %g s: %lld -> %lld "
                "samples\n",
                r.jobs, o.windowSeconds, static_cast<long long>(r.samplesBefore),
                static_cast<long long>(r.samplesAfter));
    std::printf("Database: %.1f MiB -> %.1f MiB", mebibytes(r.bytesBefore),
                mebibytes(r.bytesAfter));
    if (r.reusableBytes > 0)
        std::printf(" (%.1f MiB of it free for new rows)", mebibytes(r.reusableBytes));
    std::printf("\n");
    if (!r.vacuumSkipped.empty())
        std::printf("Not vacuumed: %s\n", r.vacuumSkipped.c_str());
    return kExitOk;
}

} // namespace studio::cli

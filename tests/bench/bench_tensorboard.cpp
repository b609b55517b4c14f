// TensorBoard export and import throughput against TensorBoard's own Python code:
//  - export: `mlstudio export --tensorboard`'s engine (tboard::exportTensorboard) writes a job of
//    N metric points (2 ranks x 4 tags) from the studio database into event files; the anchor is
//    TensorBoard's EventFileWriter writing the same N points (same tags, steps, values, tensor
//    form). Ours also reads the points from SQLite, which the anchor does not. Goal >= 1,000,000
//    points/s.
//  - import: tboard::importTensorboard reads that folder into a new studio database (decoding
//    and SQLite commits); the anchor is TensorBoard's EventFileLoader decoding the same files to
//    (tag, step, wall time, value), with no database. Goal >= 500,000 points/s.
// Both sides single-threaded (TensorBoard's writer adds its own writer thread), interleaved
// rounds, the anchor's time taken inside Python (no interpreter start).
// Sizes: full 1,000,000 points, 3 rounds; --quick 20,000 points, 1 round (checks only).
// Usage: bench_tensorboard [--quick] [--json FILE] [points] [rounds]
#include "engine/process/process.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "engine/tboard/event_file.h"
#include "engine/tboard/export.h"
#include "engine/tboard/import.h"
#include "tests/bench/bench_support.h"
#include "tests/support/read_to_end.h"
#include "tests/support/temp_dir.h"

#include <filesystem>
#include <string>
#include <vector>

using namespace studio;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kTags = {"train:loss", "train:accuracy", "eval:loss",
                                        "eval:accuracy"};
const char* kJob = "bench-tensorboard";

// The same values as the anchor's value_of (tests/bench/python/tensorboard_anchor.py).
double pointValue(int rank, std::size_t tag, std::int64_t step) {
    return 1.0 / (1 + static_cast<double>(step)) + 0.25 * static_cast<double>(tag) + 0.125 * rank;
}

// A studio database holding one job with n points: 2 ranks x 4 tags x n/8 steps.
std::int64_t makeStore(const std::string& db, int n) {
    store::StoreWriter w(db);
    store::NewComponent c;
    c.name = kJob;
    c.status = "Completed";
    c.secondaryStatus = "Completed";
    c.created = 1.7e9;
    c.parameters = {{"lr", "0.01", 0.01}, {"optimizer", "adam", std::nullopt}};
    const auto id = w.createComponent(c);
    const std::int64_t steps = n / 8;
    w.beginGroup();
    for (int rank = 0; rank < 2; ++rank)
        for (std::size_t t = 0; t < kTags.size(); ++t)
            for (std::int64_t s = 0; s < steps; ++s)
                w.addMetric(id, kTags[t],
                            {s, 1.7e9 + static_cast<double>(s), pointValue(rank, t, s), 0, rank});
    w.endGroup();
    w.setEnded(id, 1.7e9 + static_cast<double>(steps));
    w.flush();
    return steps * 8;
}

struct AnchorRun {
    double seconds = NAN;
    std::int64_t points = 0;
    std::string failure;
};

AnchorRun runAnchor(const std::vector<std::string>& args) {
    AnchorRun r;
    process::SpawnOptions o;
    o.argv = {STUDIO_TOOLS_PYTHON,
              std::string(STUDIO_SOURCE_DIR) + "/tests/bench/python/tensorboard_anchor.py"};
    o.argv.insert(o.argv.end(), args.begin(), args.end());
    o.env = process::currentEnvironment();
    o.captureStderr = false;
    try {
        auto proc = process::Process::spawn(o);
        const auto out = bench::Json::parse(readToEnd(proc.stdoutFd()), nullptr, false);
        if (const auto status = proc.wait(); !status.success() || !out.is_object())
            r.failure = "tensorboard_anchor.py " + status.describe();
        else {
            r.seconds = out["seconds"].get<double>();
            r.points = out["points"].get<std::int64_t>();
        }
    } catch (const std::exception& e) {
        r.failure = e.what();
    }
    return r;
}

// Every point of the imported job equals the original as a 32-bit float.
bool importedExactly(const std::string& db, const std::string& job, std::int64_t steps) {
    store::StoreReader r(db);
    const auto row = r.component(job);
    if (!row)
        return false;
    for (std::size_t t = 0; t < kTags.size(); ++t) {
        const auto points = r.metricPoints(row->id, kTags[t]);
        if (static_cast<std::int64_t>(points.size()) != 2 * steps)
            return false;
        for (const auto& p : points)
            if (p.value != static_cast<float>(pointValue(p.rank, t, p.step)) ||
                p.time != 1.7e9 + static_cast<double>(p.step))
                return false;
    }
    return true;
}

} // namespace

int main(int argc, char** argv) {
    const auto options = bench::Options::parse(argc, argv);
    bench::Report report("bench_tensorboard", options);
    const int n = options.pick(0, 20000, 1000000);
    const int rounds = options.pick(1, 1, 3);
    testing::TempDir dir;
    const std::string source = dir.path() + "/source.db";
    const std::int64_t points = makeStore(source, n);
    bench::Samples exportOurs = bench::higherIsBetter(), exportAnchor = bench::higherIsBetter(),
                   importOurs = bench::higherIsBetter(), importAnchor = bench::higherIsBetter();
    bool exported = true, imported = true, anchorsRan = true;
    std::string anchorFailure;
    bench::interleave(
        rounds, {[&](int round) {
                     const fs::path out = dir.path() + "/ours-" + std::to_string(round);
                     tboard::ExportOptions o{source, out, {}, {kJob}, {}};
                     tboard::ExportSummary s;
                     const double t = bench::timeSeconds([&] { s = tboard::exportTensorboard(o); });
                     exported = exported && s.points == points && s.runs == 2;
                     exportOurs.add(static_cast<double>(points) / t);
                     const std::string db = dir.path() + "/import-" + std::to_string(round) + ".db";
                     tboard::ImportSummary is;
                     const double ti = bench::timeSeconds([&] {
                         is = tboard::importTensorboard({db, out, "bench", false, {}});
                     });
                     imported =
                         imported && is.points == points && importedExactly(db, kJob, points / 8);
                     importOurs.add(static_cast<double>(points) / ti);
                 },
                 [&](int round) {
                     const std::string out = dir.path() + "/anchor-" + std::to_string(round);
                     const AnchorRun w = runAnchor({"write", out, std::to_string(n)});
                     const AnchorRun r = runAnchor({"read", out});
                     anchorsRan = anchorsRan && w.failure.empty() && r.failure.empty() &&
                                  w.points == points && r.points == points;
                     anchorFailure += w.failure + r.failure;
                     exportAnchor.add(static_cast<double>(w.points) / w.seconds);
                     importAnchor.add(static_cast<double>(r.points) / r.seconds);
                 }});
    report.check(exported, "every export wrote every point into 2 runs");
    report.check(imported, "every import stored every point, equal as 32-bit floats");
    report.check(anchorsRan, "TensorBoard's writer and loader handled every point" +
                                 (anchorFailure.empty() ? "" : ": " + anchorFailure));
    const std::string work = std::to_string(points) + " scalar points, 2 runs x 4 tags, " +
                             std::to_string(rounds) + " interleaved round(s)";
    report.anchor({"TensorBoard writer",
                   "tensorboard's EventFileWriter (Python), tensor-form scalars",
                   "tensorboard 2.21.0", 1, "none", "", work});
    report.anchor({"TensorBoard loader",
                   "tensorboard's EventFileLoader (Python) decoding every scalar",
                   "tensorboard 2.21.0", 1, "none", "", work});
    report.figure({"export to TensorBoard event files", "points/s", exportOurs.best(),
                   exportAnchor.best(), "TensorBoard writer", bench::Goal::valueAtLeast(1e6),
                   "best round; ours also reads the points from SQLite"});
    report.figure({"import of TensorBoard event files", "points/s", importOurs.best(),
                   importAnchor.best(), "TensorBoard loader", bench::Goal::valueAtLeast(5e5),
                   "best round; ours also commits every point to SQLite, the anchor only decodes"});
    report.details()["export_points_per_s"] = exportOurs.json();
    report.details()["export_anchor_points_per_s"] = exportAnchor.json();
    report.details()["import_points_per_s"] = importOurs.json();
    report.details()["import_anchor_points_per_s"] = importAnchor.json();
    return report.finish();
}

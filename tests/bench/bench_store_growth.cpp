// Store growth: what the studio database costs on disk, written through the controller's own
// StoreWriter (addMetric, addSystemSample), measured as the file's pages once the write-ahead log
// is checkpointed into it (page_count * page_size, as store::databaseBytes reads it):
//  - bytes per metric point and per system sample (the profiler's per-device samples);
//  - the database of a 2-hour job on 64 GPUs (8 nodes of 8, like 8 ml.p4d.24xlarge): the metric
//    points of 8 reporting ranks (a loss and 2 metrics per step, one step per second) and every
//    sample the launcher's SystemSampler takes on each node every 500 ms (the spec's default
//    interval): cpu util and iowait, one util per core, net rx/tx, disk read/write, mem used,
//    util and mem per GPU;
//  - the same database after `mlstudio store compact` (engine/store/retention.h, 60 s windows).
// Anchors: the same rows as CSV text (what a naive logger appends), and as TensorBoard event-file
// records (one scalar per record, sized from the record format). The issue sets no goal on bytes.
// Usage: bench_store_growth [--quick] [--json FILE] [points] [samples] [fraction] [cores]
//   fraction: the share of the 2-hour job inserted (full: 1, the whole job); below 1 the sizes
//   are extrapolated and the report says so.
#include "engine/store/retention.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"
#include "tests/bench/bench_support.h"
#include "tests/support/temp_dir.h"

#include <sqlite3.h>

#include <charconv>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace studio::store;
namespace bench = studio::bench;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kStart = 1.7e9 + 0.123; // the job's first second (epoch seconds)
constexpr double kIntervalSeconds = 0.5; // job spec default: system_monitor_interval_millis 500
constexpr double kJobSeconds = 2 * 3600.0;
constexpr int kNodes = 8;
constexpr int kGpusPerNode = 8;
constexpr int kReportingRanks = 8;
const std::vector<std::string> kMetrics = {"train:loss", "train:throughput", "train:grad_norm"};

// ---- The anchors' bytes ----------------------------------------------------------------------

// A number as CSV text in its shortest exact form (as Python's repr writes a float).
std::size_t numberChars(double v) {
    char buf[64];
    return static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf);
}
std::size_t numberChars(std::int64_t v) {
    char buf[32];
    return static_cast<std::size_t>(std::to_chars(buf, buf + sizeof buf, v).ptr - buf);
}

std::size_t varintBytes(std::uint64_t v) {
    std::size_t n = 1;
    for (; v >= 0x80; v >>= 7)
        ++n;
    return n;
}

// A length-delimited protobuf field (tag < 16): its tag byte, length and payload.
std::size_t lengthField(std::size_t payload) {
    return 1 + varintBytes(payload) + payload;
}

// One tfevents record holding an Event{wall_time, step, summary{value}}: the framing (length,
// its masked CRC, the data's masked CRC) and the Event. A step of 0 is not written (proto3).
std::size_t eventRecordBytes(std::size_t valueBytes, std::int64_t step) {
    const std::size_t summary = lengthField(valueBytes); // Summary.value = 1
    const std::size_t event = 9                          // wall_time = 1, a double
                              + (step ? 1 + varintBytes(static_cast<std::uint64_t>(step)) : 0) +
                              lengthField(summary); // summary = 5
    return 8 + 4 + event + 4;
}

// The legacy scalar, Summary.Value{tag, simple_value}: what torch.utils.tensorboard's add_scalar
// writes, and the smallest form TensorBoard reads.
std::size_t tfeventsScalarBytes(const std::string& tag, std::int64_t step) {
    return eventRecordBytes(lengthField(tag.size()) + 5, step);
}

// The TF2 scalar, Value{tag, tensor{DT_FLOAT, shape {}, 4 bytes}, metadata{"scalars"}}: only to
// check the arithmetic against the record TensorBoard's own test spells out byte by byte.
std::size_t tfeventsTf2ScalarBytes(const std::string& tag, std::int64_t step, bool metadata) {
    const std::size_t tensor = lengthField(2 + 2 + lengthField(4));
    const std::size_t meta = lengthField(lengthField(lengthField(7))); // plugin_name "scalars"
    return eventRecordBytes(lengthField(tag.size()) + tensor + (metadata ? meta : 0), step);
}

// ---- The workload ----------------------------------------------------------------------------

// One series the launcher's SystemSampler reports each tick, and how its values look: NVML
// gives whole percents for GPU utilization; the rest are ratios or rates of counters.
struct SeriesKind {
    std::string device, metric;
    enum Value { Percent, WholePercent, BytesPerSecond } value;
};

// A node's series in the order the sampler emits them (launcher/system_sampler.cpp).
std::vector<SeriesKind> nodeSeries(int cores, int gpus) {
    std::vector<SeriesKind> out = {{"cpu", "util", SeriesKind::Percent},
                                   {"cpu", "iowait", SeriesKind::Percent}};
    for (int c = 0; c < cores; ++c)
        out.push_back({"cpu" + std::to_string(c), "util", SeriesKind::Percent});
    for (const char* m : {"rx", "tx"})
        out.push_back({"net", m, SeriesKind::BytesPerSecond});
    for (const char* m : {"read", "write"})
        out.push_back({"disk", m, SeriesKind::BytesPerSecond});
    out.push_back({"mem", "used", SeriesKind::Percent});
    for (int g = 0; g < gpus; ++g) {
        out.push_back({"gpu" + std::to_string(g), "util", SeriesKind::WholePercent});
        out.push_back({"gpu" + std::to_string(g), "mem", SeriesKind::Percent});
    }
    return out;
}

// Byte counts of what was written: rows, and the anchors' bytes for the same rows.
struct Tally {
    std::int64_t rows = 0;
    double csvBytes = 0;
    double tfeventsBytes = 0;
};

// Writes one job's rows through the StoreWriter and tallies the anchors' bytes for each.
class JobRecorder {
public:
    JobRecorder(StoreWriter& w, const std::string& name)
        : m_w(w)
        , m_rng(20) {
        NewComponent c;
        c.name = name;
        c.created = kStart;
        m_id = w.createComponent(c);
    }
    ComponentId id() const { return m_id; }
    const Tally& metrics() const { return m_metrics; }
    const Tally& samples() const { return m_samples; }

    // The 3 metrics of one step of one rank; the step's time is the job's second `step`.
    void step(int node, int rank, std::int64_t step) {
        const double t = kStart + static_cast<double>(step) + rank * 0.013 + jitter();
        const double values[] = {2.3 * std::exp(-static_cast<double>(step) / 3000) + noise(0.05),
                                 850 + noise(40), 1.5 + noise(0.5)};
        for (std::size_t m = 0; m < kMetrics.size(); ++m) {
            m_w.addMetric(m_id, kMetrics[m], MetricPoint{step, t, values[m], node, rank});
            ++m_metrics.rows;
            // time,node,rank,name,step,value
            m_metrics.csvBytes += static_cast<double>(
                numberChars(t) + numberChars(std::int64_t{node}) + numberChars(std::int64_t{rank}) +
                kMetrics[m].size() + numberChars(step) + numberChars(values[m]) + 6);
            m_metrics.tfeventsBytes += static_cast<double>(tfeventsScalarBytes(kMetrics[m], step));
        }
    }

    // One node's samples of one tick (all at the node's sampling time); returns that time.
    double tick(int node, const std::vector<SeriesKind>& series, std::int64_t k) {
        const double t =
            kStart + static_cast<double>(k) * kIntervalSeconds + node * 0.0371 + jitter();
        for (const SeriesKind& s : series) {
            const double v = value(s.value);
            m_w.addSystemSample(m_id, node, s.device, s.metric, t, v);
            ++m_samples.rows;
            // time,node,device,metric,value
            m_samples.csvBytes +=
                static_cast<double>(numberChars(t) + numberChars(std::int64_t{node}) +
                                    s.device.size() + s.metric.size() + numberChars(v) + 5);
            const std::string tag = "node" + std::to_string(node) + "/" + s.device + "/" + s.metric;
            m_samples.tfeventsBytes += static_cast<double>(tfeventsScalarBytes(tag, k));
        }
        return t;
    }

private:
    double jitter() { return std::uniform_real_distribution<double>(0, 0.002)(m_rng); }
    double noise(double scale) {
        return std::uniform_real_distribution<double>(-scale, scale)(m_rng);
    }
    double value(SeriesKind::Value kind) {
        switch (kind) {
        case SeriesKind::WholePercent:
            return static_cast<double>(std::uniform_int_distribution<int>(0, 100)(m_rng));
        case SeriesKind::BytesPerSecond:
            return std::uniform_real_distribution<double>(0, 2e9)(m_rng);
        case SeriesKind::Percent:
        default:
            return std::uniform_real_distribution<double>(0, 100)(m_rng);
        }
    }

    StoreWriter& m_w;
    ComponentId m_id = 0;
    std::mt19937_64 m_rng;
    Tally m_metrics, m_samples;
};

// ---- Reading the file back through the bench's own connection --------------------------------

class Inspect {
public:
    explicit Inspect(const std::string& path) {
        if (sqlite3_open(path.c_str(), &m_db) != SQLITE_OK)
            throw std::runtime_error("cannot open " + path);
        sqlite3_busy_timeout(m_db, 5000);
    }
    ~Inspect() { sqlite3_close(m_db); }
    Inspect(const Inspect&) = delete;
    Inspect& operator=(const Inspect&) = delete;

    // One integer a query returns; -1 when it fails.
    std::int64_t number(const std::string& sql) {
        sqlite3_stmt* st = nullptr;
        std::int64_t n = -1;
        if (sqlite3_prepare_v2(m_db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
            n = sqlite3_column_int64(st, 0);
        sqlite3_finalize(st);
        return n;
    }
    // Bytes per table and index (the dbstat table, when this SQLite has it).
    bench::Json tableBytes() {
        bench::Json out = bench::Json::object();
        sqlite3_stmt* st = nullptr;
        if (sqlite3_prepare_v2(m_db,
                               "SELECT name, sum(pgsize) FROM dbstat GROUP BY name "
                               "ORDER BY 2 DESC LIMIT 6",
                               -1, &st, nullptr) == SQLITE_OK)
            while (sqlite3_step(st) == SQLITE_ROW)
                out[reinterpret_cast<const char*>(sqlite3_column_text(st, 0))] =
                    sqlite3_column_int64(st, 1);
        sqlite3_finalize(st);
        return out;
    }

private:
    sqlite3* m_db = nullptr;
};

} // namespace

namespace {

// ---- The measurements --------------------------------------------------------------------------

// Bytes each row adds to the file, what the rows were, and what the table holds afterwards.
struct PerRow {
    double bytesPerRow = 0;
    Tally tally;
    std::int64_t stored = -1;
    std::string error;
};

// `points` metric points of one job: a loss and 2 metrics of rank 0 per step.
PerRow metricPointBytes(const std::string& path, long points) {
    StoreWriter w(path);
    JobRecorder job(w, "points");
    w.flush();
    Inspect db(path);
    const std::int64_t before = databaseBytes(path);
    for (long s = 0; s < points / static_cast<long>(kMetrics.size()); ++s)
        job.step(0, 0, s);
    w.flush();
    PerRow r;
    r.tally = job.metrics();
    r.bytesPerRow = static_cast<double>(databaseBytes(path) - before) /
                    static_cast<double>(std::max<std::int64_t>(1, r.tally.rows));
    r.stored = db.number("SELECT count(*) FROM metric_points");
    r.error = w.lastError();
    return r;
}

// About `samples` system samples of one node: whole ticks of every series the sampler reports.
PerRow systemSampleBytes(const std::string& path, long samples, int cores) {
    const auto series = nodeSeries(cores, kGpusPerNode);
    StoreWriter w(path);
    JobRecorder job(w, "samples");
    w.flush();
    Inspect db(path);
    const std::int64_t before = databaseBytes(path);
    const long ticks = std::max<long>(1, samples / static_cast<long>(series.size()));
    for (long k = 0; k < ticks; ++k)
        job.tick(0, series, k);
    w.flush();
    PerRow r;
    r.tally = job.samples();
    r.bytesPerRow =
        static_cast<double>(databaseBytes(path) - before) / static_cast<double>(r.tally.rows);
    r.stored = db.number("SELECT count(*) FROM system_samples");
    r.error = w.lastError();
    return r;
}

// The 2-hour, 64-GPU job (or `fraction` of it), then the same file after compaction.
struct JobRun {
    std::int64_t ticks = 0;
    std::int64_t baseBytes = 0; // the file with the job's row and nothing else
    std::int64_t bytes = 0;
    Tally metrics, samples;
    std::int64_t storedPoints = -1, storedSamples = -1, summarised = -1, series = -1;
    std::int64_t expectedCompacted = 0; // (series, 60 s window) pairs the samples fall in
    double ingestSeconds = 0;
    bench::Json tables;
    std::string error;
    CompactResult compact;
    double compactSeconds = 0;
    std::int64_t compactedBytes = 0;
};

// Inserts the job in time order, as the controller does: each tick every node's samples, each
// second the metrics of the reporting ranks (rank 0 of each node).
void insertJob(StoreWriter& w, JobRecorder& job, JobRun& r, int cores) {
    const auto series = nodeSeries(cores, kGpusPerNode);
    std::vector<std::set<std::int64_t>> windows(kNodes);
    double last = kStart;
    r.ingestSeconds = bench::timeSeconds([&] {
        for (std::int64_t k = 0; k < r.ticks; ++k) {
            for (int node = 0; node < kNodes; ++node) {
                last = job.tick(node, series, k);
                windows[node].insert(static_cast<std::int64_t>(last / 60));
            }
            if (k % 2 == 0)
                for (int node = 0; node < kReportingRanks; ++node)
                    job.step(node, node * kGpusPerNode, k / 2);
        }
        w.flush();
    });
    for (const auto& node : windows)
        r.expectedCompacted += static_cast<std::int64_t>(node.size() * series.size());
    w.setEnded(job.id(), last + 1);
    w.setStatus(job.id(), "Completed", "Completed", "", last + 1);
    w.flush();
    r.metrics = job.metrics();
    r.samples = job.samples();
    r.error = w.lastError();
}

JobRun twoHourJob(const std::string& path, double fraction, int cores) {
    JobRun r;
    r.ticks = std::llround(kJobSeconds / kIntervalSeconds * fraction);
    {
        StoreWriter w(path);
        JobRecorder job(w, "two-hours-64-gpus");
        w.flush();
        r.baseBytes = databaseBytes(path);
        insertJob(w, job, r, cores);
    }
    {
        Inspect db(path);
        r.bytes = databaseBytes(path);
        r.storedPoints = db.number("SELECT count(*) FROM metric_points");
        r.storedSamples = db.number("SELECT count(*) FROM system_samples");
        r.summarised = db.number("SELECT sum(count) FROM metric_summaries");
        r.series = db.number("SELECT count(*) FROM system_series");
        r.tables = db.tableBytes();
    }
    CompactOptions o;
    o.endedBefore = kStart + kJobSeconds + 3600; // the job has ended by then
    o.windowSeconds = 60;
    r.compactSeconds = bench::timeSeconds([&] { r.compact = compactSystemSamples(path, o); });
    r.compactedBytes = databaseBytes(path);
    return r;
}

// A size of the whole job from `fraction` of it: the file's fixed part plus the rest scaled.
double wholeJob(std::int64_t bytes, std::int64_t baseBytes, double fraction) {
    return (static_cast<double>(baseBytes) + static_cast<double>(bytes - baseBytes) / fraction);
}

void checkPerRow(bench::Report& report, const PerRow& r, const std::string& what) {
    report.check(r.error.empty(),
                 what + ": no write error" + (r.error.empty() ? "" : ": " + r.error));
    report.check(r.stored == r.tally.rows, what + ": the table holds every row written (" +
                                               std::to_string(r.stored) + " of " +
                                               std::to_string(r.tally.rows) + ")");
}

void checkJob(bench::Report& report, const JobRun& r, int cores) {
    const auto perNode = static_cast<std::int64_t>(nodeSeries(cores, kGpusPerNode).size());
    report.check(r.error.empty(),
                 "2-hour job: no write error" + (r.error.empty() ? "" : ": " + r.error));
    report.check(r.samples.rows == r.ticks * kNodes * perNode && r.storedSamples == r.samples.rows,
                 "2-hour job: every system sample stored (" + std::to_string(r.storedSamples) +
                     " of " + std::to_string(r.samples.rows) + ")");
    report.check(r.storedPoints == r.metrics.rows && r.summarised == r.metrics.rows,
                 "2-hour job: every metric point stored and summarised (" +
                     std::to_string(r.storedPoints) + ", " + std::to_string(r.summarised) + " of " +
                     std::to_string(r.metrics.rows) + ")");
    report.check(r.series == kNodes * perNode, "2-hour job: one system series per node, device "
                                               "and metric");
    report.check(r.compact.jobs == 1 && r.compact.samplesBefore == r.storedSamples,
                 "compaction: took the ended job's every sample");
    report.check(r.compact.samplesAfter == r.expectedCompacted,
                 "compaction: one sample per series and 60 s window (" +
                     std::to_string(r.compact.samplesAfter) + ", expected " +
                     std::to_string(r.expectedCompacted) + ")");
    report.check(r.compact.vacuumed, "compaction: VACUUM ran (no job was running)");
    report.check(r.compactedBytes == r.compact.bytesAfter && r.compactedBytes < r.bytes,
                 "compaction: the file shrank, as compactSystemSamples reported");
}

} // namespace

namespace {

// One size against both anchors: CSV text, and TensorBoard's records.
void bytesFigures(bench::Report& report, const std::string& name, const std::string& unit,
                  double ours, const Tally& anchors, double per, const std::string& note) {
    report.figure({name + ", against CSV text", unit, ours, anchors.csvBytes / per, "csv_text",
                   std::nullopt, note});
    report.figure({name + ", against TensorBoard events", unit, ours, anchors.tfeventsBytes / per,
                   "tfevents", std::nullopt, note});
}

void addAnchors(bench::Report& report) {
    report.anchor({"csv_text", "CSV text of the same rows, appended to one file", "", 0, "", "",
                   "a line per row: metric points as time,node,rank,name,step,value and system "
                   "samples as time,node,device,metric,value, numbers in their shortest exact "
                   "form (as Python's repr writes them); no index, no compression"});
    report.anchor({"tfevents", "TensorBoard event-file records, one scalar per record", "", 0, "",
                   "",
                   "Summary.Value{tag, simple_value} (what torch.utils.tensorboard's add_scalar "
                   "writes): 16 bytes of framing and CRCs plus the Event (wall_time, step, "
                   "summary); tag = the metric's name, or node/device/metric for a system "
                   "sample, step = the tick; sized from the record format (checked against "
                   "TensorBoard's worked record), one file_version record per file left out; "
                   "simple_value is a 4-byte float where the store keeps 8-byte doubles"});
}

bench::Json jobDetails(const JobRun& job, const PerRow& sample, const PerRow& point) {
    const auto compact = job.compact;
    // The rough count: one sample per GPU every 500 ms for 2 hours, and the same points.
    const double gpuOnlySamples = kJobSeconds / kIntervalSeconds * kNodes * kGpusPerNode;
    return {{"ticks_inserted", job.ticks},
            {"system_samples", job.samples.rows},
            {"metric_points", job.metrics.rows},
            {"database_bytes_inserted", job.bytes},
            {"ingest_seconds", job.ingestSeconds},
            {"ingest_rows_per_s",
             static_cast<double>(job.samples.rows + job.metrics.rows) / job.ingestSeconds},
            {"bytes_per_table_and_index", job.tables},
            {"compaction",
             {{"seconds", job.compactSeconds},
              {"samples_before", compact.samplesBefore},
              {"samples_after", compact.samplesAfter},
              {"bytes_before", compact.bytesBefore},
              {"bytes_after", compact.bytesAfter},
              {"vacuumed", compact.vacuumed}}},
            {"one_gpu_sample_per_500ms_estimate",
             {{"system_samples", gpuOnlySamples},
              {"mib", (gpuOnlySamples * sample.bytesPerRow +
                       static_cast<double>(job.metrics.rows) * point.bytesPerRow) /
                          kMiB},
              {"how", "computed from the measured bytes per sample and per point, not "
                      "inserted"}}}};
}

} // namespace

int main(int argc, char** argv) {
    const auto options = bench::Options::parse(argc, argv);
    bench::Report report("store_growth", options);
    const long points = options.pick(0, 3000, 1000000);
    const long samples = options.pick(1, 5000, 1000000);
    const double fraction = options.number(2, options.quick ? 0.002 : 1.0);
    const int cores = options.pick(3, 96, 96);
    if (!report.check(fraction > 0 && fraction <= 1, "the job's fraction is in (0, 1]") ||
        !report.check(cores > 0 && points >= 3 && samples > 0, "sizes are positive"))
        return report.finish();
    report.check(tfeventsTf2ScalarBytes("accuracy", 77, true) == 66,
                 "tfevents arithmetic: TensorBoard's worked record (accuracy 0.99 at step 77, "
                 "TF2 form) is 66 bytes");
    addAnchors(report);
    studio::testing::TempDir dir;

    const PerRow point = metricPointBytes(dir.filePath("points.db"), points);
    checkPerRow(report, point, "metric points");
    bytesFigures(report, "metric point", "bytes/point", point.bytesPerRow, point.tally,
                 static_cast<double>(point.tally.rows),
                 "a loss and 2 metrics per step of one rank; the table's row and its index "
                 "entry");
    const PerRow sample = systemSampleBytes(dir.filePath("samples.db"), samples, cores);
    checkPerRow(report, sample, "system samples");
    bytesFigures(report, "system sample", "bytes/sample", sample.bytesPerRow, sample.tally,
                 static_cast<double>(sample.tally.rows),
                 "one node's every series each tick (" + std::to_string(cores) +
                     " cores, 8 GPUs); the table's row and its index entry");

    const JobRun job = twoHourJob(dir.filePath("job.db"), fraction, cores);
    checkJob(report, job, cores);
    // The issue asks for at least 10% of the job when extrapolating; quick mode inserts less
    // (its sizes only show that nothing was lost).
    std::string scope = "the whole job inserted";
    if (fraction < 1)
        scope = "extrapolated linearly from " + std::to_string(job.ticks) + " of " +
                std::to_string(std::llround(kJobSeconds / kIntervalSeconds)) + " ticks inserted" +
                (fraction < 0.1 ? " (under 10% of the job: not a figure to quote)" : "");
    Tally jobAnchors;
    jobAnchors.csvBytes = job.metrics.csvBytes + job.samples.csvBytes;
    jobAnchors.tfeventsBytes = job.metrics.tfeventsBytes + job.samples.tfeventsBytes;
    bytesFigures(report, "2-hour 64-GPU job, database size", "MiB",
                 wholeJob(job.bytes, job.baseBytes, fraction) / kMiB, jobAnchors, fraction * kMiB,
                 scope);
    report.figure({"2-hour 64-GPU job, database size after store compact (60 s windows)", "MiB",
                   wholeJob(job.compactedBytes, job.baseBytes, fraction) / kMiB, std::nullopt, "",
                   std::nullopt,
                   scope + "; no anchor: neither CSV nor TensorBoard merges old samples"});

    report.details() = {
        {"assumptions",
         {{"job", "2 hours on 8 nodes of 8 GPUs and " + std::to_string(cores) +
                      " cores (ml.p4d.24xlarge: 96 vCPUs)"},
          {"system_sampling", "every 500 ms (the spec's default) per node: cpu util and iowait, "
                              "util per core, net rx/tx, disk read/write, mem used, util and "
                              "mem per GPU"},
          {"system_series_per_node", nodeSeries(cores, kGpusPerNode).size()},
          {"metrics", "8 reporting ranks (rank 0 of each node), each a loss and 2 metrics per "
                      "step, one step per second"},
          {"fraction_inserted", fraction}}},
        {"metric_point", {{"rows", point.tally.rows}, {"bytes_per_row", point.bytesPerRow}}},
        {"system_sample", {{"rows", sample.tally.rows}, {"bytes_per_row", sample.bytesPerRow}}},
        {"two_hour_job", jobDetails(job, sample, point)}};
    return report.finish();
}

// The profiler report end to end: a real SQLite database written through StoreWriter (a GPU job
// on 2 nodes x 2 ranks with outlier steps, an idle GPU, rules with findings; and a CPU-only
// job), rendered through StoreReader, written to disk with its JSON figures, and drawn by
// headless Chromium to check that the page renders.
#include "engine/report/profiler_report.h"
#include "engine/store/store_reader.h"
#include "engine/store/store_writer.h"

#include <QtTest>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

using namespace studio;

namespace {

constexpr double kT0 = 1800000000; // job creation, unix seconds
constexpr const char* kGpuJob = "resnet-ddp-2027-01-15-08-00-00-000";
constexpr const char* kCpuJob = "mlp-cpu-2027-01-15-09-00-00-000";
constexpr const char* kHostile = "<script>alert(1)</script> & \"co\"";

const QStringList kHeadings = {"Training job summary",
                               "System usage statistics",
                               "Framework metrics summary",
                               "Rules summary",
                               "Step duration statistics",
                               "GPU utilization",
                               "Batch size",
                               "CPU bottlenecks",
                               "I/O bottlenecks",
                               "Load balancing",
                               "GPU memory",
                               "Data loading analysis"};

// NumPy's default percentile, written out here so the test does not trust the code it checks.
double numpyPercentile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    const double pos = q / 100 * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(pos);
    const auto hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

QString fixed2(double v) {
    return QString::asprintf("%.2f", v);
}

store::StepTiming step(int node, int rank, std::int64_t n, double time, std::mt19937& rng) {
    std::uniform_real_distribution<double> noise(-20, 20);
    store::StepTiming t;
    t.node = node;
    t.rank = rank;
    t.step = n;
    t.time = time;
    t.dataMs = 60 + noise(rng);
    t.forwardMs = 220 + noise(rng);
    t.backwardMs = 410 + noise(rng);
    t.commMs = 90 + noise(rng) / 2;
    t.optimizerMs = 40 + noise(rng) / 4;
    return t;
}

// Two nodes' CPU, memory, network, disk and GPU samples (gpu1 idle: a placement bug).
void writeGpuSystemSamples(store::StoreWriter& w, store::ComponentId id) {
    for (int node = 0; node < 2; ++node)
        for (int s = 0; s <= 270; ++s) {
            const double t = kT0 + 5 + s;
            const double phase = std::sin(s * 0.1);
            w.addSystemSample(id, node, "cpu", "util", t, 55 + 15 * phase + node * 5);
            w.addSystemSample(id, node, "cpu", "iowait", t, 3 + 2 * std::cos(s * 0.3));
            for (int core = 0; core < 4; ++core)
                w.addSystemSample(id, node, "cpu" + std::to_string(core), "util", t,
                                  std::clamp(40 + 12 * core + 10 * phase, 0.0, 100.0));
            w.addSystemSample(id, node, "mem", "used", t, 40 + s * 0.02);
            w.addSystemSample(id, node, "net", "rx", t, 4.5e6 + 1e6 * phase);
            w.addSystemSample(id, node, "net", "tx", t, 3.5e6 + 1e6 * phase);
            w.addSystemSample(id, node, "disk", "read", t, s < 30 ? 8e7 : 2e6);
            w.addSystemSample(id, node, "disk", "write", t, s % 60 == 0 ? 5e7 : 1e5);
            const bool training = s > 27 && s < 250;
            w.addSystemSample(id, node, "gpu0", "util", t,
                              training ? 82 + 10 * phase - (s % 25 == 0 ? 60 : 0) : 0);
            w.addSystemSample(id, node, "gpu0", "mem", t, training ? 30 + s * 0.04 : 1);
            w.addSystemSample(id, node, "gpu1", "util", t, 0); // idle: placement bug
            w.addSystemSample(id, node, "gpu1", "mem", t, 1.5);
        }
}

// Framework events of three steps, one per kind.
void writeFrameworkEvents(store::StoreWriter& w, store::ComponentId id) {
    const std::vector<std::pair<const char*, const char*>> kinds = {
        {"conv1.forward", "forward"},
        {"layer4.backward", "backward"},
        {"DataLoader.__next__", "dataloader"},
        {"allreduce<bucket 0>", "comm"},
        {"SGD.step", "optimizer"}};
    for (int n = 5; n < 8; ++n)
        for (std::size_t k = 0; k < kinds.size(); ++k) {
            store::FrameworkEventRow e;
            e.step = n;
            e.name = kinds[k].first;
            e.category = kinds[k].second;
            e.start = kT0 + 37 + n;
            e.durationMs = 30.0 * static_cast<double>(k + 1) + n;
            e.pid = 2000;
            w.addFrameworkEvent(id, e);
        }
}

// The rules' statuses as the debugger leaves them (one message hostile to HTML).
void writeGpuRuleStatuses(store::StoreWriter& w, store::ComponentId id) {
    auto rule = [&](const char* name, const char* kind, const char* status,
                    const std::string& message, std::int64_t fired, const char* params,
                    const char* details) {
        store::RuleStatusRow r;
        r.rule = name;
        r.kind = kind;
        r.status = status;
        r.message = message;
        r.updated = kT0 + 280;
        r.fired = fired;
        r.datapoints = 800;
        r.parameters = params;
        r.details = details;
        w.setRuleStatus(id, r);
    };
    rule("StepOutlier", "profiler", "IssuesFound", kHostile, 2,
         "stddev=3, mode=None, n_outliers=10, scan_interval_us=60000000",
         R"({"threshold_ms": 910.5, "outliers": [{"rank": 0, "step": 100, "ms": 3720.1}],
             "per_rank": {"0": {"mean": 820.4, "stddev": 196.2}}})");
    rule("LowGPUUtilization", "profiler", "IssuesFound", "gpu1 is idle on 2 nodes", 2,
         "threshold_p95=70, threshold_p5=10, window=500, patience=1000",
         R"({"node": {"0": {"gpu0": {"p95": 91.2, "p5": 22.0}, "gpu1": {"p95": 0}}}})");
    rule("LoadBalancing", "profiler", "IssuesFound", "gpu0 and gpu1 differ", 1,
         "threshold=0.5, patience=1000", R"({"distance": 0.98})");
    rule("CPUBottleneck", "profiler", "NoIssuesFound", "", 0,
         "threshold=50, gpu_threshold=10, cpu_threshold=90, patience=1000", "{}");
    rule("IOBottleneck", "profiler", "NoIssuesFound", "", 0,
         "threshold=50, gpu_threshold=10, io_threshold=50, patience=1000", "{}");
    rule("Dataloader", "profiler", "NotApplicable", "no dataloader worker events were recorded", 0,
         "min_threshold=70, max_threshold=200", "{}");
    rule("LossNotDecreasing", "model", "NotApplicable", "no loss tensor was saved", 0, "", "{}");
    rule("MaxInitializationTime", "profiler", "NoIssuesFound", "", 0, "threshold=20",
         R"({"initialization_s": 27.0})");
}

void writeGpuFindings(store::StoreWriter& w, store::ComponentId id) {
    auto finding = [&](const char* rule, double time, std::int64_t stepNo, int node,
                       const char* device, const std::string& message) {
        store::FindingRow f;
        f.rule = rule;
        f.time = time;
        f.step = stepNo;
        f.node = node;
        f.device = device;
        f.message = message;
        f.recommendation = std::string("Look for stragglers & slow I/O <ranks>");
        f.criteria = "step duration > mean + 3 * stddev";
        w.addFinding(id, f);
    };
    finding("StepOutlier", kT0 + 132, 100, 0, "rank 0", "step 100 took 3720.1 ms");
    finding("StepOutlier", kT0 + 182, 150, 1, "rank 2", "step 150 took 3190.4 ms");
    finding("LowGPUUtilization", kT0 + 250, -1, 0, "gpu1", "gpu1 p95 0.0% < 70%");
}

} // namespace

class TestProfilerReport : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_db;
    std::vector<double> m_rank0TrainMs; // step durations of rank 0, as written

    void writeGpuJob(store::StoreWriter& w) {
        store::NewComponent c;
        c.name = kGpuJob;
        c.experiment = "vision";
        c.trial = "resnet-ddp";
        c.instanceType = "local-gpu";
        c.instanceCount = 2;
        c.processesPerHost = 2;
        c.created = kT0;
        c.parameters = {{"batch-size", "256", 256.0}, {"lr", "0.1", 0.1}};
        const auto id = w.createComponent(c);
        w.setStatus(id, "InProgress", "Training", "Training image download completed", kT0 + 20);
        w.setStarted(id, kT0 + 5);
        for (int node = 0; node < 2; ++node)
            w.upsertNode(id, {node, node == 0 ? "algo-1" : "algo-2", 1000 + node, 4, 2, kT0 + 2,
                              kT0 + 280, 0});
        for (int rank = 0; rank < 4; ++rank)
            w.upsertRank(id, {rank, rank / 2, rank % 2, 2000 + rank, kT0 + 5, kT0 + 280, 0, 0,
                              "cuda:" + std::to_string(rank % 2)});
        writeGpuSteps(w, id);
        writeGpuSystemSamples(w, id);
        writeFrameworkEvents(w, id);
        writeGpuRuleStatuses(w, id);
        writeGpuFindings(w, id);
        w.setStatus(id, "Completed", "Completed", "Training job completed", kT0 + 285);
        w.setEnded(id, kT0 + 285);
    }

    // 200 training and 10 evaluation steps per rank, with an outlier on rank 0 and a stalled
    // batch on rank 2; rank 0's step durations are kept to check the report's figures.
    void writeGpuSteps(store::StoreWriter& w, store::ComponentId id) {
        std::mt19937 rng(42);
        for (int rank = 0; rank < 4; ++rank) {
            for (int n = 0; n < 200; ++n) {
                auto t = step(rank / 2, rank, n, kT0 + 32 + n * 1.0, rng);
                if (rank == 0 && n == 100)
                    t.forwardMs = 3000; // outlier
                if (rank == 2 && n == 150)
                    t.dataMs = 2500; // a stalled batch
                if (rank == 0)
                    m_rank0TrainMs.push_back(t.dataMs + t.forwardMs + t.backwardMs + t.commMs +
                                             t.optimizerMs);
                w.addStepTiming(id, t);
            }
            for (int n = 0; n < 10; ++n) {
                auto t = step(rank / 2, rank, 200 + n, kT0 + 240 + n * 0.5, rng);
                t.phase = "eval";
                t.backwardMs = t.commMs = t.optimizerMs = 0;
                w.addStepTiming(id, t);
            }
        }
    }

    void writeCpuJob(store::StoreWriter& w) {
        store::NewComponent c;
        c.name = kCpuJob;
        c.instanceCount = 1;
        c.created = kT0 + 3600;
        const auto id = w.createComponent(c);
        w.setStarted(id, kT0 + 3602);
        w.upsertNode(id, {0, "localhost", 3000, 2, 0, kT0 + 3601, kT0 + 3700, 0});
        std::mt19937 rng(7);
        for (int n = 0; n < 50; ++n)
            w.addStepTiming(id, step(0, 0, n, kT0 + 3610 + n, rng));
        for (int s = 0; s < 90; ++s) {
            w.addSystemSample(id, 0, "cpu", "util", kT0 + 3602 + s, 95);
            w.addSystemSample(id, 0, "cpu", "iowait", kT0 + 3602 + s, 1);
            w.addSystemSample(id, 0, "cpu0", "util", kT0 + 3602 + s, 97);
            w.addSystemSample(id, 0, "cpu1", "util", kT0 + 3602 + s, 93);
            w.addSystemSample(id, 0, "mem", "used", kT0 + 3602 + s, 20);
        }
        w.setStatus(id, "Completed", "Completed", "", kT0 + 3700);
        w.setEnded(id, kT0 + 3700);
    }

    QString render(const char* job) {
        store::StoreReader reader(m_db.toStdString());
        return QString::fromStdString(report::renderProfilerReport(reader, job));
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(QStringLiteral("studio.db"));
        store::StoreWriter w(m_db.toStdString());
        writeGpuJob(w);
        writeCpuJob(w);
        w.flush();
        QCOMPARE(QString::fromStdString(w.lastError()), QString());
    }

    void everySectionInOrder() {
        const QString html = render(kGpuJob);
        qsizetype last = -1;
        for (const auto& h : kHeadings) {
            const qsizetype at =
                html.indexOf(QStringLiteral("</span>") + h + QStringLiteral("</h2>"));
            QVERIFY2(at > last, qPrintable(h));
            last = at;
        }
        QVERIFY(html.startsWith(QLatin1String("<!DOCTYPE html>")));
        QVERIFY(html.contains(QStringLiteral("<h1>") + QLatin1String(kGpuJob)));
        QVERIFY(html.contains(QLatin1String("algo-2")));
    }

    void figuresMatchTheData() {
        const QString html = render(kGpuJob);
        QCOMPARE(m_rank0TrainMs.size(), std::size_t(200));
        const double p95 = numpyPercentile(m_rank0TrainMs, 95);
        const double max = *std::max_element(m_rank0TrainMs.begin(), m_rank0TrainMs.end());
        // The rank 0 row of the step table: ... Max, p99, p95 ...
        const QString row =
            QStringLiteral("<td class=\"num\">%1</td><td class=\"num\">%2</td>"
                           "<td class=\"num\">%3</td>")
                .arg(fixed2(max), fixed2(numpyPercentile(m_rank0TrainMs, 99)), fixed2(p95));
        QVERIFY2(html.contains(row), qPrintable(row));
        // Job duration: started at +5 s, ended at +285 s.
        QVERIFY(html.contains(QLatin1String("4 min 40 s")));
        // Framework events, by cumulative time: SGD.step is the largest.
        const qsizetype sgd = html.indexOf(QLatin1String("SGD.step"));
        const qsizetype conv = html.indexOf(QLatin1String("conv1.forward"));
        QVERIFY(sgd > 0 && conv > sgd);
        // Rule figures are flattened into key/value rows.
        QVERIFY(html.contains(QLatin1String("<code>outliers[0].step</code>")));
        QVERIFY(html.contains(QLatin1String("<code>node.0.gpu0.p95</code>")));
        QVERIFY(!html.contains(QLatin1String("Not applicable: no GPU")));
        QVERIFY(html.contains(QLatin1String("Batch size: <b>256</b>")));
    }

    void rulesWithIssuesComeFirst() {
        const QString html = render(kGpuJob);
        const qsizetype start = html.indexOf(QLatin1String("id=\"rules\""));
        const qsizetype end = html.indexOf(QLatin1String("</section>"), start);
        const QString rules = html.mid(start, end - start);
        const qsizetype issues = rules.indexOf(QLatin1String("LowGPUUtilization"));
        const qsizetype fine = rules.indexOf(QLatin1String("CPUBottleneck"));
        const qsizetype na = rules.indexOf(QLatin1String("LossNotDecreasing"));
        QVERIFY(issues > 0 && fine > issues && na > fine);
        QVERIFY(rules.contains(QLatin1String("Step durations far above the mean.")));
        QVERIFY(rules.contains(QLatin1String("step duration &gt; mean + 3 * stddev")));
    }

    void selfContainedAndEscaped() {
        const QString html = render(kGpuJob);
        QVERIFY(!html.contains(QLatin1String("http://")));
        QVERIFY(!html.contains(QLatin1String("https://")));
        QVERIFY(!html.contains(QLatin1String("<script"), Qt::CaseInsensitive));
        QVERIFY(!html.contains(QLatin1String("<link"), Qt::CaseInsensitive));
        QVERIFY(!html.contains(QLatin1String("url("), Qt::CaseInsensitive));
        QVERIFY(html.contains(
            QLatin1String("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;co&quot;")));
        QVERIFY(html.contains(QLatin1String("allreduce&lt;bucket 0&gt;")));
        QVERIFY(html.contains(QLatin1String("Look for stragglers &amp; slow I/O &lt;ranks&gt;")));
        // Missing figures print as "n/a", never as a raw NaN or infinity.
        QVERIFY(!html.contains(QRegularExpression(QStringLiteral("\\b(nan|inf)\\b"),
                                                  QRegularExpression::CaseInsensitiveOption)));
    }

    void cpuOnlyJob() {
        const QString html = render(kCpuJob);
        for (const auto& h : kHeadings)
            QVERIFY2(html.contains(QStringLiteral("</span>") + h + QStringLiteral("</h2>")),
                     qPrintable(h));
        const QString na =
            QStringLiteral("Not applicable: no GPU was recorded on this job's nodes");
        const auto section = [&](const char* id) {
            const qsizetype s = html.indexOf(QStringLiteral("id=\"%1\"").arg(QLatin1String(id)));
            return html.mid(s, html.indexOf(QLatin1String("</section>"), s) - s);
        };
        for (const char* id : {"gpu", "balance", "gpumem"})
            QVERIFY2(section(id).contains(na), id);
        QVERIFY(section("batch").contains(QLatin1String("not applicable")));
        QVERIFY(html.contains(QLatin1String("framework_profile_params")));
        QVERIFY(html.contains(QLatin1String("No rules ran on this job.")));
        QVERIFY(!html.contains(QLatin1String("gpu0")));
    }

    void unknownJobNamesIt() {
        store::StoreReader reader(m_db.toStdString());
        try {
            report::renderProfilerReport(reader, "no-such-job");
            QFAIL("expected an error");
        } catch (const std::runtime_error& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String("no-such-job")), e.what());
        }
    }

    void writesHtmlAndJson() {
        const QString out = m_dir.filePath(QStringLiteral("profiler-output"));
        const std::string path =
            report::writeProfilerReport(m_db.toStdString(), kGpuJob, out.toStdString());
        QCOMPARE(QString::fromStdString(path), out + QStringLiteral("/profiler-report.html"));
        QFile html(QString::fromStdString(path));
        QVERIFY(html.open(QIODevice::ReadOnly));
        // The same page as rendered, but for the footer's generation time.
        const QRegularExpression generated(
            QStringLiteral("on \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d"));
        QCOMPARE(QString::fromUtf8(html.readAll()).remove(generated),
                 render(kGpuJob).remove(generated));
        QFile json(out + QStringLiteral("/profiler-reports/report.json"));
        QVERIFY(json.open(QIODevice::ReadOnly));
        QJsonParseError error{};
        const QJsonDocument doc = QJsonDocument::fromJson(json.readAll(), &error);
        QCOMPARE(error.error, QJsonParseError::NoError);
        const QJsonObject root = doc.object();
        QCOMPARE(root[QLatin1String("job")][QLatin1String("name")].toString(),
                 QLatin1String(kGpuJob));
        QCOMPARE(
            root[QLatin1String("summary")][QLatin1String("job_duration_in_seconds")].toDouble(),
            280.0);
        const QJsonArray steps = root[QLatin1String("step_durations")].toArray();
        QCOMPARE(steps.size(), 4);
        QCOMPARE(steps[0][QLatin1String("rank")].toInt(), 0);
        QVERIFY(std::abs(steps[0][QLatin1String("p95")].toDouble() -
                         numpyPercentile(m_rank0TrainMs, 95)) < 1e-9);
        QCOMPARE(root[QLatin1String("rules")].toArray().size(), 8);
        QCOMPARE(root[QLatin1String("gpus")].toArray().size(), 4);

        QVERIFY_THROWS_EXCEPTION(
            std::runtime_error,
            report::writeProfilerReport(m_db.toStdString(), kGpuJob, "/proc/no-such-dir/out"));
    }

    void chromiumRendersIt() {
        const QString chromium = QStringLiteral("/usr/bin/chromium");
        if (!QFile::exists(chromium))
            QSKIP("/usr/bin/chromium is not installed: the rendering check is skipped");
        const QString out = m_dir.filePath(QStringLiteral("render"));
        const std::string html =
            report::writeProfilerReport(m_db.toStdString(), kGpuJob, out.toStdString());
        const QString png = m_dir.filePath(QStringLiteral("report.png"));
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(chromium,
                {QStringLiteral("--headless"), QStringLiteral("--no-sandbox"),
                 QStringLiteral("--disable-gpu"), QStringLiteral("--hide-scrollbars"),
                 QStringLiteral("--user-data-dir=") + m_dir.filePath(QStringLiteral("chromium")),
                 QStringLiteral("--window-size=1280,4000"), QStringLiteral("--screenshot=") + png,
                 QStringLiteral("file://") + QString::fromStdString(html)});
        QVERIFY2(p.waitForStarted(10000), qPrintable(p.errorString()));
        if (!p.waitForFinished(120000)) {
            p.kill();
            p.waitForFinished(10000);
            QFAIL("chromium did not finish within 120 s");
        }
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
                 p.readAll().right(2000).constData());
        QFile file(png);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray bytes = file.readAll();
        QVERIFY(bytes.startsWith(QByteArray("\x89PNG\r\n\x1a\n", 8)));
        // IHDR: width and height, big-endian, at bytes 16..23.
        auto be32 = [&](int at) {
            return (quint32(quint8(bytes[at])) << 24) | (quint32(quint8(bytes[at + 1])) << 16) |
                   (quint32(quint8(bytes[at + 2])) << 8) | quint32(quint8(bytes[at + 3]));
        };
        QVERIFY(bytes.size() > 24);
        QCOMPARE(bytes.mid(12, 4), QByteArray("IHDR"));
        QCOMPARE(be32(16), 1280u);
        QCOMPARE(be32(20), 4000u);
        // A blank page compresses to a few KB; text, tables and charts do not.
        QVERIFY2(bytes.size() > 150 * 1024, qPrintable(QString::number(bytes.size())));
        // Copies to look at by eye.
        QFile::remove(QStringLiteral("/tmp/profiler-report.png"));
        QFile::remove(QStringLiteral("/tmp/profiler-report.html"));
        QVERIFY(file.copy(QStringLiteral("/tmp/profiler-report.png")));
        QVERIFY(
            QFile::copy(QString::fromStdString(html), QStringLiteral("/tmp/profiler-report.html")));
    }
};

QTEST_GUILESS_MAIN(TestProfilerReport)
#include "test_profiler_report.moc"

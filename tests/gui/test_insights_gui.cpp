// The Debugger Insights dashboard (widgets/insights) on real stores written through the
// StoreWriter: a finished 2-node job with 8 cores and 4 GPUs per node over 20 minutes at
// 500 ms (realistic GPU series, step timings, a rule finding, spot billing segments with an
// interruption), a CPU-only job, and a running job whose samples arrive while the view is open.
// Checks the heatmap rows and tooltip, the shared time axis, the window selection, the models
// (under QAbstractItemModelTester), the CPU-only wording and the live refresh; saves
// screenshots of both tabs for finished and running jobs (build/screenshots/insights-*.png).
#include "engine/store/store_writer.h"
#include "models/data/data_service.h"
#include "tests/support/screenshot.h"
#include "widgets/charts/curve_chart.h"
#include "widgets/common/theme.h"
#include "widgets/insights/insights_charts.h"
#include "widgets/insights/insights_view.h"
#include "widgets/insights/nodes_tab.h"
#include "widgets/insights/overview_tab.h"
#include "widgets/insights/utilization_heatmap.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QStandardItemModel>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTreeView>
#include <QtTest>

#include <cmath>

using namespace studio::models;
using namespace studio::widgets;
using namespace Qt::StringLiterals;
namespace store = studio::store;

namespace {

constexpr double kStart = 1763700000; // a round local-ish time
constexpr double kInterval = 0.5;
constexpr double kRunSeconds = 20 * 60;
constexpr double kInitSeconds = 90;
constexpr double kFinalSeconds = 45;
constexpr double kOutageFrom = 8 * 60; // spot interruption: no capacity for two minutes
constexpr double kOutageTo = 10 * 60;

struct Noise {
    quint32 seed = 1;
    double operator()(double amplitude) {
        seed = seed * 1664525u + 1013904223u;
        return ((seed >> 8) / double(1 << 24) - 0.5) * 2 * amplitude;
    }
};

double clamp100(double v) {
    return std::clamp(v, 0.0, 100.0);
}

bool inOutage(double rel) {
    return rel >= kOutageFrom && rel < kOutageTo;
}

// System samples of one node from `from` to `to` seconds after `start`.
void writeNode(store::StoreWriter& w, store::ComponentId id, int node, int cores, int gpus,
               double start, double from, double to, double runSeconds, bool spot, Noise& noise) {
    for (double rel = from; rel < to; rel += kInterval) {
        if (spot && inOutage(rel))
            continue;
        const double t = start + rel;
        const bool init = rel < kInitSeconds || (spot && rel >= kOutageTo && rel < kOutageTo + 40);
        const bool final = rel > runSeconds - kFinalSeconds;
        const bool training = !init && !final;
        // Data loading bursts every ~6 s: CPUs busy, GPUs briefly starved.
        const bool loading = std::fmod(rel, 6.0) < 1.0;
        double total = 0;
        for (int c = 0; c < cores; ++c) {
            const double base = training ? (loading ? 85 : 45 + 4 * c) : (init ? 25 : 10);
            const double v = clamp100(base + noise(8));
            total += v;
            w.addSystemSample(id, node, "cpu" + std::to_string(c), "util", t, v);
        }
        w.addSystemSample(id, node, "cpu", "util", t, total / cores);
        w.addSystemSample(id, node, "cpu", "iowait", t, clamp100((init ? 12 : 2) + noise(1.5)));
        w.addSystemSample(id, node, "mem", "used", t,
                          clamp100(30 + 25 * std::min(1.0, rel / 300) + noise(1)));
        const double net = training ? 180e6 + noise(40e6) : 5e6 + noise(2e6);
        w.addSystemSample(id, node, "net", "rx", t, std::max(0.0, net));
        w.addSystemSample(id, node, "net", "tx", t, std::max(0.0, net * 0.95));
        for (int g = 0; g < gpus; ++g) {
            // node 1's last GPU is starved (a LowGPUUtilization finding).
            const bool starved = node == 1 && g == gpus - 1;
            double util = training ? (loading ? 35 : 94) : (init ? 3 : 1);
            if (starved && training)
                util = 28;
            const double mem = training ? 62 + 8 * std::min(1.0, (rel - kInitSeconds) / 600) : 4;
            const std::string dev = "gpu" + std::to_string(g);
            w.addSystemSample(id, node, dev, "util", t, clamp100(util + noise(4)));
            w.addSystemSample(id, node, dev, "mem", t, clamp100(mem + noise(1)));
        }
    }
}

void writeSteps(store::StoreWriter& w, store::ComponentId id, int nodes, int ranksPerNode,
                double start, double from, double to, bool spot, std::int64_t& step, Noise& noise) {
    // One step every ~0.6 s on every rank.
    for (double rel = from; rel < to; rel += 0.6) {
        if (spot && (inOutage(rel) || (rel >= kOutageTo && rel < kOutageTo + 40)))
            continue;
        ++step;
        for (int n = 0; n < nodes; ++n)
            for (int r = 0; r < ranksPerNode; ++r) {
                store::StepTiming s;
                s.node = n;
                s.rank = n * ranksPerNode + r;
                s.step = step;
                s.time = start + rel + 0.6;
                s.dataMs = (step % 10 == 0 ? 180 : 40) + noise(10);
                s.forwardMs = 150 + noise(12);
                s.backwardMs = 260 + noise(20);
                s.commMs = 70 + n * 25 + noise(10);
                s.optimizerMs = 40 + noise(4);
                w.addStepTiming(id, s);
            }
    }
}

store::ComponentId createJob(store::StoreWriter& w, const std::string& name, int nodes,
                             double created) {
    store::NewComponent c;
    c.name = name;
    c.experiment = "insights";
    c.instanceType = "ml.p3.8xlarge";
    c.instanceCount = nodes;
    c.processesPerHost = 2;
    c.created = created;
    return w.createComponent(c);
}

} // namespace

class TestInsightsGui : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString m_db;
    std::unique_ptr<store::StoreWriter> m_writer;
    store::ComponentId m_liveId = 0;
    double m_liveEnd = 0;
    Noise m_liveNoise{99};

    void open(InsightsView& view, int height = 900) {
        QSignalSpy loaded(&view, &InsightsView::loaded);
        view.resize(1400, height);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(loaded.count() > 0 || loaded.wait(20000));
        QVERIFY(view.isLoaded());
    }

    // One row per core and per GPU of every node; tooltips; no samples during the outage.
    void checkHeatmapRows(UtilizationHeatmap* heat) {
        QCOMPARE(heat->rowCount(), 2 * (8 + 4));
        QCOMPARE(heat->rowLabel(0), u"node 0 \u00b7 cpu0"_s);
        QCOMPARE(heat->rowLabel(8), u"node 0 \u00b7 gpu0"_s);
        QCOMPARE(heat->rowLabel(23), u"node 1 \u00b7 gpu3"_s);
        QVERIFY(heat->note().isEmpty());
        QVERIFY(heat->showsWholeRun());
        QCOMPARE(heat->dataTimeRange().first, kStart);

        // Tooltip: node, device, time, value; the starved GPU reads low mid-run.
        const QRect plot = heat->plotRect();
        auto rowCenter = [&](int row) {
            return plot.top() + int((row + 0.5) * plot.height() / heat->rowCount());
        };
        const QPoint onStarved(plot.left() + plot.width() * 3 / 4, rowCenter(23));
        const auto hover = heat->hoverAt(onStarved);
        QVERIFY(hover);
        QCOMPARE(hover->node, 1);
        QCOMPARE(hover->device, u"gpu3"_s);
        QVERIFY(hover->samples > 0);
        QVERIFY2(hover->mean < 40, qPrintable(QString::number(hover->mean)));
        const QString tip = heat->toolTipAt(onStarved);
        QVERIFY(tip.contains(u"node 1 \u00b7 gpu3"_s));
        QVERIFY(tip.contains(u"utilization"_s));
        QVERIFY(heat->toolTipAt(QPoint(2, 2)).isEmpty());
        // During the spot interruption there are no samples.
        const double outageX =
            plot.left() + plot.width() * (kOutageFrom + 60) / (kRunSeconds - kInterval);
        const auto gap = heat->hoverAt(QPoint(int(outageX), rowCenter(0)));
        QVERIFY(gap);
        QCOMPARE(gap->samples, 0);
    }

    // Charts: mean of cores by default, any core; GPU mean, every GPU, one GPU.
    void checkNodeCharts(NodesTab* nodes) {
        QVERIFY(nodes->gpuChartsVisible());
        QCOMPARE(nodes->chart(NodesTab::Chart::Cpu)->seriesNames(),
                 QStringList{u"mean of cores"_s});
        nodes->coreSelector()->setCurrentIndex(nodes->coreSelector()->findData(u"cpu3"_s));
        QCOMPARE(nodes->chart(NodesTab::Chart::Cpu)->seriesNames(), QStringList{u"cpu3"_s});
        QCOMPARE(nodes->chart(NodesTab::Chart::Gpu)->seriesNames(), QStringList{u"mean of GPUs"_s});
        nodes->gpuSelector()->setCurrentIndex(nodes->gpuSelector()->findData(u"all"_s));
        QCOMPARE(nodes->chart(NodesTab::Chart::Gpu)->seriesCount(), 4);
        QCOMPARE(nodes->chart(NodesTab::Chart::GpuMemory)->seriesCount(), 4);
        nodes->nodeSelector()->setCurrentIndex(1);
        QCOMPARE(nodes->chart(NodesTab::Chart::Gpu)->seriesCount(), 4);
        QCOMPARE(nodes->chart(NodesTab::Chart::Network)->seriesCount(), 2);
        QCOMPARE(nodes->chart(NodesTab::Chart::IoWait)->seriesCount(), 1);
        QCOMPARE(nodes->chart(NodesTab::Chart::Memory)->seriesCount(), 1);
        nodes->gpuSelector()->setCurrentIndex(0);
    }

    // One time axis: zooming one chart zooms every chart and the heatmap.
    void checkSharedTimeAxis(NodesTab* nodes, UtilizationHeatmap* heat) {
        const double from = kStart + 300, to = kStart + 420;
        nodes->chart(NodesTab::Chart::Network)->zoomToX(from, to);
        QVERIFY(nodes->timeWindow());
        for (auto which : {NodesTab::Chart::Cpu, NodesTab::Chart::Gpu, NodesTab::Chart::Memory}) {
            QVERIFY(nodes->chart(which)->isZoomed());
            QCOMPARE(nodes->chart(which)->visibleXRange().x(), from);
        }
        QCOMPARE(heat->timeWindow(), std::make_pair(from, to));
        QVERIFY(!heat->showsWholeRun());
        nodes->panRight();
        QCOMPARE(heat->timeWindow(), std::make_pair(from + 60, to + 60));
        QCOMPARE(nodes->chart(NodesTab::Chart::Cpu)->visibleXRange().x(), from + 60);
        nodes->zoomIn();
        QCOMPARE(heat->timeWindow(), std::make_pair(from + 90, to + 30));
        nodes->fixTimeframe();
        QVERIFY(!nodes->timeWindow());
        QVERIFY(heat->showsWholeRun());
        QVERIFY(!nodes->chart(NodesTab::Chart::Cpu)->isZoomed());
    }

    // Selecting a window on the heatmap shows the steps that ran in it; screenshots.
    void checkWindowSelection(InsightsView& view) {
        NodesTab* nodes = view.nodes();
        UtilizationHeatmap* heat = view.heatmap();
        const QRect plot = heat->plotRect();
        QSignalSpy selected(heat, &UtilizationHeatmap::timeWindowSelected);
        const int y = plot.top() + plot.height() / 2;
        const int x0 = plot.left() + plot.width() * 30 / 100,
                  x1 = plot.left() + plot.width() * 32 / 100;
        QTest::mousePress(heat, Qt::LeftButton, {}, QPoint(x0, y));
        QMouseEvent move(QEvent::MouseMove, QPointF(x1, y), heat->mapToGlobal(QPointF(x1, y)),
                         Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(heat, &move);
        QTest::mouseRelease(heat, Qt::LeftButton, {}, QPoint(x1, y));
        QCOMPARE(selected.count(), 1);
        const double selFrom = selected.at(0).at(0).toDouble();
        const double selTo = selected.at(0).at(1).toDouble();
        QVERIFY(selFrom < selTo);
        QVERIFY(std::abs((selTo - selFrom) - kRunSeconds * 0.02) < 5);
        QVERIFY(nodes->windowSteps()->isTimeline());
        QVERIFY(!nodes->windowSteps()->steps().empty());
        for (const auto& s : nodes->windowSteps()->steps())
            QVERIFY(s.time >= selFrom);
        QStringList tips;
        for (int y = 40; y < 140; y += 5)
            for (int x = 60; x < 400; x += 7)
                tips << nodes->windowSteps()->toolTipAt(QPoint(x, y));
        QVERIFY(tips.join(QString()).contains(u"rank 0"_s));
        shoot(&view, u"insights-nodes-finished.png"_s);
        nodes->zoomToSelection();
        QCOMPARE(heat->timeWindow(), std::make_pair(selFrom, selTo));
        QCOMPARE(nodes->chart(NodesTab::Chart::Gpu)->visibleXRange().x(), selFrom);
        shoot(&view, u"insights-nodes-zoomed.png"_s);
        nodes->fixTimeframe();
        shoot(heat, u"insights-heatmap.png"_s);
    }

private Q_SLOTS:
    void initTestCase() {
        QVERIFY(m_dir.isValid());
        m_db = m_dir.filePath(u"studio.db"_s);
        m_writer = std::make_unique<store::StoreWriter>(m_db.toStdString());
        auto& w = *m_writer;
        Noise noise{7};

        // A finished spot job: 2 nodes x (8 cores + 4 GPUs), 20 min at 500 ms.
        const auto gpuJob = createJob(w, "resnet-spot", 2, kStart - 30);
        w.setStarted(gpuJob, kStart);
        w.setStatus(gpuJob, "InProgress", "Training", "", kStart);
        for (int n = 0; n < 2; ++n)
            writeNode(w, gpuJob, n, 8, 4, kStart, 0, kRunSeconds, kRunSeconds, true, noise);
        std::int64_t step = 0;
        writeSteps(w, gpuJob, 2, 2, kStart, kInitSeconds, kRunSeconds - kFinalSeconds, true, step,
                   noise);
        w.addBillingSegment(gpuJob, {1, kStart, kStart + kOutageFrom, "running"});
        w.addBillingSegment(gpuJob, {1, kStart + kOutageFrom, kStart + kOutageTo, "waiting"});
        w.addBillingSegment(gpuJob, {2, kStart + kOutageTo, kStart + kRunSeconds, "running"});
        store::RuleStatusRow low;
        low.rule = "LowGPUUtilization";
        low.kind = "profiler";
        low.status = "IssuesFound";
        low.message = "gpu3 on node 1 is under-used";
        low.fired = 412;
        low.datapoints = 4100;
        low.parameters = "threshold_p95=70, threshold_p5=10, window=500, patience=1000";
        low.criteria = "p95 of GPU utilization < 70 % over a window of 500 samples";
        low.updated = kStart + kRunSeconds;
        w.setRuleStatus(gpuJob, low);
        store::FindingRow finding;
        finding.rule = "LowGPUUtilization";
        finding.time = kStart + 700;
        finding.node = 1;
        finding.device = "gpu3";
        finding.message = "p95 of gpu3 utilization is 31 %, below 70 %: the GPU is under-used";
        finding.recommendation = "Check the input pipeline of the ranks on node 1, or use a "
                                 "smaller instance type, or increase the batch size.";
        finding.criteria = "p95 < 70 % (threshold_p95=70) over 500 samples";
        w.addFinding(gpuJob, finding);
        for (const char* rule : {"CPUBottleneck", "IOBottleneck", "GPUMemoryIncrease"}) {
            store::RuleStatusRow ok;
            ok.rule = rule;
            ok.kind = "profiler";
            ok.status = "NoIssuesFound";
            ok.datapoints = 4800;
            ok.updated = kStart + kRunSeconds;
            w.setRuleStatus(gpuJob, ok);
        }
        w.setStatus(gpuJob, "Completed", "Completed", "", kStart + kRunSeconds);
        w.setEnded(gpuJob, kStart + kRunSeconds);

        // A finished CPU-only job: 1 node x 4 cores, 5 minutes.
        const auto cpuJob = createJob(w, "mnist-cpu", 1, kStart - 5);
        w.setStarted(cpuJob, kStart);
        writeNode(w, cpuJob, 0, 4, 0, kStart, 0, 300, 300, false, noise);
        step = 0;
        writeSteps(w, cpuJob, 1, 1, kStart, kInitSeconds, 300 - kFinalSeconds, false, step, noise);
        w.setStatus(cpuJob, "Completed", "Completed", "", kStart + 300);
        w.setEnded(cpuJob, kStart + 300);

        // A running job: 1 node x 4 cores + 2 GPUs, 3 minutes so far.
        m_liveId = createJob(w, "llm-live", 1, kStart - 5);
        w.setStarted(m_liveId, kStart);
        w.setStatus(m_liveId, "InProgress", "Training", "", kStart);
        m_liveEnd = 180;
        writeNode(w, m_liveId, 0, 4, 2, kStart, 0, m_liveEnd, 3600, false, m_liveNoise);
        step = 0;
        writeSteps(w, m_liveId, 1, 2, kStart, kInitSeconds, m_liveEnd, false, step, noise);
        w.flush();
        QCOMPARE(QString::fromStdString(w.lastError()), QString());
    }

    void finishedOverview() {
        DataService service(m_db);
        InsightsView view(&service, u"resnet-spot"_s);
        open(view);
        QCOMPARE(view.errorText(), QString());
        QVERIFY(!view.isLive());
        OverviewTab* o = view.overview();

        QAbstractItemModelTester resources(o->resourceModel(),
                                           QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester rules(o->rulesModel(),
                                       QAbstractItemModelTester::FailureReportingMode::QtTest);
        // CPU, GPU, CPU memory, GPU memory, I/O wait, network for each of 2 nodes.
        QCOMPARE(o->resourceModel()->rowCount(), 12);
        QCOMPARE(o->resourceModel()->columnCount(), 8);
        QCOMPARE(o->resourceModel()->headerData(6, Qt::Horizontal).toString(), u"p90"_s);
        QCOMPARE(o->resourceModel()->index(1, 1).data().toString(), u"GPU"_s);
        QVERIFY(o->resourceModel()->index(1, 4).data().toString().toDouble() > 90);

        // The finding's rule comes first, expanded, with its four parts.
        const QModelIndex first = o->rulesModel()->index(0, 0);
        QCOMPARE(first.data().toString(), u"LowGPUUtilization"_s);
        QVERIFY(first.siblingAtColumn(1).data().toString().startsWith(u"IssuesFound"_s));
        QVERIFY(o->rulesView()->isExpanded(first));
        QStringList parts;
        for (int r = 0; r < o->rulesModel()->rowCount(first); ++r)
            parts << o->rulesModel()->index(r, 0, first).data().toString();
        for (const QString& part : {u"Finding"_s, u"Recommendation"_s, u"Description"_s,
                                    u"Trigger criteria"_s, u"Triggered"_s})
            QVERIFY2(parts.contains(part), qPrintable(parts.join(u", ")));
        QVERIFY(o->rulesModel()->index(0, 1, first).data().toString().contains(u"gpu3"_s));
        QVERIFY(!o->rulesView()->isExpanded(o->rulesModel()->index(1, 0)));

        QVERIFY(o->resourceNote().isEmpty());
        QCOMPARE(o->phasePie()->entries().size(), 3);
        QVERIFY(o->summaryText().contains(u"Training loop"_s));
        QCOMPARE(o->timeline()->billing().size(), std::size_t(3));
        QCOMPARE(o->timeline()->interruptions(), QList<double>{kStart + kOutageFrom});
        QStringList timelineTips;
        for (int y = 0; y < o->timeline()->height(); y += 4)
            for (int x = 0; x < o->timeline()->width(); x += 10)
                timelineTips << o->timeline()->toolTipAt(QPoint(x, y));
        QVERIFY2(timelineTips.join(u'|').contains(u"waiting for spot capacity"_s),
                 qPrintable(timelineTips.join(u'|')));
        QCOMPARE(o->recentSteps()->steps().size(), std::size_t(30));
        QCOMPARE(o->recentSteps()->steps().front().rank, 0);
        const QString barTip =
            o->recentSteps()->toolTipAt(QPoint(70, o->recentSteps()->height() / 2 + 20));
        QVERIFY2(barTip.contains(u"backward"_s) && barTip.contains(u"total"_s), qPrintable(barTip));
        shoot(&view, u"insights-overview-finished.png"_s);
    }

    void finishedNodes() {
        DataService service(m_db);
        InsightsView view(&service, u"resnet-spot"_s);
        open(view, 1750);
        view.tabs()->setCurrentIndex(1);
        checkHeatmapRows(view.heatmap());
        checkNodeCharts(view.nodes());
        checkSharedTimeAxis(view.nodes(), view.heatmap());
        checkWindowSelection(view);
    }

    // A job on a cluster: each host's samples carry its name on the heatmap rows, the node
    // selector and the resource table.
    void clusterHostsNameTheRows() {
        store::NewComponent c;
        c.name = "remote-ddp";
        c.experiment = "insights";
        c.instanceCount = 2;
        c.cluster = "lab";
        c.created = kStart;
        const auto id = m_writer->createComponent(c);
        Noise noise{3};
        for (int n = 0; n < 2; ++n) {
            writeNode(*m_writer, id, n, 2, 0, kStart, 0, 60, 60, false, noise);
            store::NodeRow row;
            row.node = n;
            row.host = "ana@10.0.0." + std::to_string(11 + n);
            row.started = kStart;
            m_writer->upsertNode(id, row);
        }
        m_writer->flush();
        DataService service(m_db);
        InsightsView view(&service, u"remote-ddp"_s);
        open(view, 700);
        view.tabs()->setCurrentIndex(1);
        UtilizationHeatmap* heat = view.heatmap();
        QCOMPARE(heat->rowCount(), 4);
        QCOMPARE(heat->rowLabel(0), u"node 0 \u00b7 ana@10.0.0.11 \u00b7 cpu0"_s);
        QCOMPARE(heat->rowLabel(3), u"node 1 \u00b7 ana@10.0.0.12 \u00b7 cpu1"_s);
        const QPoint onRow(heat->plotRect().center().x(),
                           heat->plotRect().top() + heat->plotRect().height() * 7 / 8);
        QVERIFY(heat->toolTipAt(onRow).contains(u"ana@10.0.0.12"_s));
        bool named = false;
        for (auto* selector : view.nodes()->findChildren<QComboBox*>())
            named = named || selector->findText(u"node 1 \u00b7 ana@10.0.0.12"_s) >= 0;
        QVERIFY(named);
        shoot(&view, u"insights-nodes-cluster.png"_s);
    }

    void cpuOnly() {
        DataService service(m_db);
        InsightsView view(&service, u"mnist-cpu"_s);
        open(view, 1500);
        view.tabs()->setCurrentIndex(1);
        NodesTab* nodes = view.nodes();
        QCOMPARE(view.heatmap()->rowCount(), 4);
        QVERIFY(view.heatmap()->note().contains(u"CPU-only"_s));
        QVERIFY(!nodes->gpuChartsVisible());
        QVERIFY(nodes->gpuNote().contains(u"No GPU"_s));
        QStringList resources;
        for (int r = 0; r < view.overview()->resourceModel()->rowCount(); ++r)
            resources << view.overview()->resourceModel()->index(r, 1).data().toString();
        QCOMPARE(resources, (QStringList{u"CPU"_s, u"CPU memory"_s, u"I/O wait"_s, u"Network"_s}));
        QCOMPARE(view.overview()->timeline()->billing().size(), std::size_t(0));
        shoot(&view, u"insights-nodes-cpu-only.png"_s);
        QVERIFY(view.overview()->resourceNote().contains(u"CPU-only"_s));
        view.resize(1400, 900);
        view.tabs()->setCurrentIndex(0);
        shoot(&view, u"insights-overview-cpu-only.png"_s);
    }

    void running() {
        DataService service(m_db);
        InsightsView view(&service, u"llm-live"_s);
        service.setRefreshInterval(200);
        open(view, 1500);
        QVERIFY(view.isLive());
        UtilizationHeatmap* heat = view.heatmap();
        QCOMPARE(heat->rowCount(), 4 + 2);
        const double before = heat->dataTimeRange().second;
        const int binnings = heat->fullBinnings();
        const int reads = view.readCount();
        view.nodes()->chart(NodesTab::Chart::Cpu)->redrawNow();
        const auto cpuPoints = view.nodes()
                                   ->chart(NodesTab::Chart::Cpu)
                                   ->drawnPoints(u"mean of cores"_s, false)
                                   .size();
        QVERIFY(cpuPoints > 0);

        // Twenty more seconds of samples arrive while the view is open.
        writeNode(*m_writer, m_liveId, 0, 4, 2, kStart, m_liveEnd, m_liveEnd + 20, 3600, false,
                  m_liveNoise);
        m_writer->flush();
        QTRY_VERIFY_WITH_TIMEOUT(heat->dataTimeRange().second >= kStart + m_liveEnd + 19.5, 10000);
        QVERIFY(view.readCount() > reads);
        QVERIFY(heat->dataTimeRange().second > before);
        QCOMPARE(heat->rowCount(), 6);
        QCOMPARE(heat->fullBinnings(), binnings); // live samples never re-bin history
        QCOMPARE(view.data()->series->front().samples.back().time, kStart + m_liveEnd + 19.5);
        // No sample was read twice.
        for (const auto& s : *view.data()->series)
            for (std::size_t i = 1; i < s.samples.size(); ++i)
                QVERIFY(s.samples[i].time > s.samples[i - 1].time);
        view.nodes()->chart(NodesTab::Chart::Cpu)->redrawNow();
        m_liveEnd += 20;

        view.resize(1400, 900);
        view.tabs()->setCurrentIndex(0);
        QVERIFY(view.overview()->summaryText().contains(u"running"_s));
        QCOMPARE(view.overview()->phasePie()->entries().size(), 2); // no finalization yet
        shoot(&view, u"insights-overview-running.png"_s);
        view.resize(1400, 1500);
        view.tabs()->setCurrentIndex(1);
        shoot(&view, u"insights-nodes-running.png"_s);

        // The job ends: one more read, then the view stops polling.
        m_writer->setStatus(m_liveId, "Completed", "Completed", "", kStart + m_liveEnd);
        m_writer->setEnded(m_liveId, kStart + m_liveEnd);
        m_writer->flush();
        QTRY_VERIFY_WITH_TIMEOUT(!view.isLive(), 10000);
        QCOMPARE(QString::fromStdString(view.data()->job.status), u"Completed"_s);
    }

    // Opened at launch, before the first sample: rows, selectors and charts appear live.
    void runningFromEmpty() {
        const auto id = createJob(*m_writer, "fresh-launch", 1, kStart);
        m_writer->setStatus(id, "InProgress", "Starting", "", kStart);
        m_writer->flush();
        DataService service(m_db);
        InsightsView view(&service, u"fresh-launch"_s);
        service.setRefreshInterval(200);
        open(view, 1500);
        QVERIFY(view.isLive());
        view.tabs()->setCurrentIndex(1);
        QCOMPARE(view.heatmap()->rowCount(), 0);
        QCOMPARE(view.overview()->resourceModel()->rowCount(), 1); // "no system samples yet"
        Noise noise{5};
        writeNode(*m_writer, id, 0, 2, 1, kStart, 0, 10, 3600, false, noise);
        m_writer->flush();
        QTRY_COMPARE_WITH_TIMEOUT(view.heatmap()->rowCount(), 3, 10000);
        QTRY_COMPARE_WITH_TIMEOUT(view.nodes()->chart(NodesTab::Chart::Cpu)->seriesCount(), 1,
                                  5000);
        QVERIFY(view.nodes()->gpuChartsVisible());
        QCOMPARE(view.nodes()->coreSelector()->count(), 3); // mean, cpu0, cpu1
        QCOMPARE(view.nodes()->nodeSelector()->count(), 1);
        QCOMPARE(view.overview()->resourceModel()->rowCount(), 6);
        m_writer->setStatus(id, "Stopped", "Stopped", "", kStart + 10);
        m_writer->flush();
        QTRY_VERIFY_WITH_TIMEOUT(!view.isLive(), 10000);
    }

    void darkTheme() {
        auto& app = *static_cast<QApplication*>(QCoreApplication::instance());
        applyTheme(app, ThemeChoice::Dark);
        {
            DataService service(m_db);
            InsightsView view(&service, u"resnet-spot"_s);
            open(view, 1750);
            view.tabs()->setCurrentIndex(1);
            // Empty heatmap cells follow the palette's base colour.
            const QImage shot = view.heatmap()->grab().toImage();
            const QRect plot = view.heatmap()->plotRect();
            const double outageX = plot.left() + plot.width() * (kOutageFrom + 60) / kRunSeconds;
            QCOMPARE(QColor(shot.pixel(int(outageX), plot.top() + 4)).rgb(),
                     view.heatmap()->palette().color(QPalette::Base).rgb());
            shoot(&view, u"insights-nodes-finished-dark.png"_s);
            view.resize(1400, 900);
            view.tabs()->setCurrentIndex(0);
            shoot(&view, u"insights-overview-finished-dark.png"_s);
        }
        applyTheme(app, ThemeChoice::Light);
    }

    void unknownJob() {
        DataService service(m_db);
        InsightsView view(&service, u"no-such-job"_s);
        QSignalSpy failed(&view, &InsightsView::loadFailed);
        QVERIFY(failed.wait(10000));
        QVERIFY(failed.at(0).at(0).toString().contains(u"no-such-job"_s));
        QVERIFY(!view.isLoaded());
    }

    void cleanupTestCase() { m_writer.reset(); }
};

QTEST_MAIN(TestInsightsGui)
#include "test_insights_gui.moc"

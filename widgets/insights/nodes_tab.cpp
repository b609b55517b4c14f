#include "widgets/insights/nodes_tab.h"

#include "widgets/charts/curve_chart.h"
#include "widgets/common/theme.h"
#include "widgets/insights/insights_charts.h"
#include "widgets/insights/utilization_heatmap.h"

#include <QComboBox>
#include <QDateTime>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace studio::widgets {

namespace {

using Chart = NodesTab::Chart;

std::optional<int> deviceIndex(const std::string& device, std::string_view prefix) {
    if (device.size() <= prefix.size() || device.compare(0, prefix.size(), prefix) != 0)
        return std::nullopt;
    int v = 0;
    for (std::size_t i = prefix.size(); i < device.size(); ++i) {
        if (device[i] < '0' || device[i] > '9')
            return std::nullopt;
        v = v * 10 + (device[i] - '0');
    }
    return v;
}

QList<models::CurvePoint> points(const store::SystemSeries& s, double divisor = 1) {
    QList<models::CurvePoint> out;
    out.reserve(static_cast<qsizetype>(s.samples.size()));
    for (const auto& p : s.samples)
        out.append({0, p.time, p.value / divisor});
    return out;
}

// The series a chart shows for a node and selection ("" = mean, "all" = every device, or a
// device name). Applied to every sample for a full draw, or to a read's new samples to append.
QList<models::CurveSeries> chartSeries(const std::vector<store::SystemSeries>& all, int node,
                                       Chart chart, const QString& selection) {
    QList<models::CurveSeries> out;
    auto find = [&](const std::string& device, const std::string& metric) {
        for (const auto& s : all)
            if (s.node == node && s.device == device && s.metric == metric)
                return &s;
        return static_cast<const store::SystemSeries*>(nullptr);
    };
    auto add = [&](const QString& name, const store::SystemSeries* s, double divisor = 1) {
        if (s && !s->samples.empty())
            out.append(
                {name, models::seriesColor(static_cast<int>(out.size())), points(*s, divisor)});
    };
    switch (chart) {
    case Chart::Cpu:
        if (selection.isEmpty())
            add(QStringLiteral("mean of cores"), find("cpu", "util"));
        else
            add(selection, find(selection.toStdString(), "util"));
        break;
    case Chart::Network:
        add(QStringLiteral("received MB/s"), find("net", "rx"), 1e6);
        add(QStringLiteral("sent MB/s"), find("net", "tx"), 1e6);
        break;
    case Chart::IoWait:
        add(QStringLiteral("I/O wait %"), find("cpu", "iowait"));
        break;
    case Chart::Memory:
        add(QStringLiteral("memory used %"), find("mem", "used"));
        break;
    case Chart::Gpu:
    case Chart::GpuMemory: {
        const std::string metric = chart == Chart::Gpu ? "util" : "mem";
        std::vector<const store::SystemSeries*> gpus;
        for (const auto& s : all)
            if (s.node == node && s.metric == metric && deviceIndex(s.device, "gpu"))
                gpus.push_back(&s);
        std::sort(gpus.begin(), gpus.end(), [](auto* a, auto* b) {
            return *deviceIndex(a->device, "gpu") < *deviceIndex(b->device, "gpu");
        });
        if (selection.isEmpty()) {
            std::map<double, std::pair<double, int>> byTime;
            for (const auto* s : gpus)
                for (const auto& p : s->samples) {
                    auto& [sum, n] = byTime[p.time];
                    sum += p.value;
                    ++n;
                }
            models::CurveSeries mean{QStringLiteral("mean of GPUs"), models::seriesColor(0), {}};
            for (const auto& [t, v] : byTime)
                mean.points.append({0, t, v.first / v.second});
            if (!mean.points.isEmpty())
                out.append(mean);
        } else {
            for (const auto* s : gpus)
                if (selection == QStringLiteral("all") ||
                    selection == QString::fromStdString(s->device))
                    add(QString::fromStdString(s->device), s);
        }
        break;
    }
    }
    return out;
}

std::vector<HeatmapRow> heatmapRows(const std::vector<store::SystemSeries>& all) {
    std::vector<std::pair<std::tuple<int, int, int>, const store::SystemSeries*>> order;
    for (const auto& s : all) {
        if (s.metric != "util")
            continue;
        if (const auto core = deviceIndex(s.device, "cpu"))
            order.push_back({{s.node, 0, *core}, &s});
        else if (const auto gpu = deviceIndex(s.device, "gpu"))
            order.push_back({{s.node, 1, *gpu}, &s});
    }
    std::sort(order.begin(), order.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<HeatmapRow> rows;
    for (const auto& [key, s] : order) {
        HeatmapRow row{s->node, QString::fromStdString(s->device), {}};
        row.samples.reserve(s->samples.size());
        for (const auto& p : s->samples)
            row.samples.push_back({p.time, p.value});
        rows.push_back(std::move(row));
    }
    return rows;
}

bool hasGpu(const std::vector<store::SystemSeries>& all, std::optional<int> node = {}) {
    return std::any_of(all.begin(), all.end(), [&](const store::SystemSeries& s) {
        return (!node || s.node == *node) && deviceIndex(s.device, "gpu").has_value();
    });
}

QString clock(double t) {
    return QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(t * 1000))
        .toString(QStringLiteral("HH:mm:ss"));
}

// A chart under its label and, where it has one, the combo box choosing what it shows.
QWidget* withSelector(CurveChart* chart, const QString& label, QComboBox* combo) {
    auto* w = new QWidget;
    auto* v = new QVBoxLayout(w);
    v->setContentsMargins(0, 0, 0, 0);
    auto* h = new QHBoxLayout;
    h->addWidget(new QLabel(label));
    if (combo)
        h->addWidget(combo);
    h->addStretch(1);
    v->addLayout(h);
    v->addWidget(chart, 1);
    return w;
}

} // namespace

NodesTab::NodesTab(QWidget* parent)
    : QWidget(parent) {
    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    layout->addLayout(buildToolbar());
    createCharts();
    layout->addLayout(buildChartGrid());

    m_heatmap = new UtilizationHeatmap;
    m_heatmap->setMinimumHeight(300);
    layout->addWidget(m_heatmap, 1);
    m_windowSteps = new StepPhaseChart;
    m_windowSteps->setTitle(tr("Step phases in the selected window"));
    m_windowSteps->setPlaceholder(
        tr("Drag across the heatmap to select a time window: the training steps that ran in it "
           "appear here, cut into data, forward, backward, comm and optimizer."));
    layout->addWidget(m_windowSteps);

    connect(m_heatmap, &UtilizationHeatmap::timeWindowSelected, this, &NodesTab::showWindowSteps);
    connect(m_node, &QComboBox::currentIndexChanged, this, [this] {
        rebuildSelectors();
        rebuildCharts();
    });
    connect(m_core, &QComboBox::currentIndexChanged, this, [this] { rebuildCharts(); });
    connect(m_gpu, &QComboBox::currentIndexChanged, this, [this] { rebuildCharts(); });

    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setWidget(content);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);
    applyWindow(std::nullopt);
}

// The node, zoom and pan for every chart, and the window shown.
QLayout* NodesTab::buildToolbar() {
    auto* bar = new QHBoxLayout;
    m_node = new QComboBox;
    bar->addWidget(new QLabel(tr("Node")));
    bar->addWidget(m_node);
    bar->addSpacing(16);
    auto button = [&](const QString& text, const QString& tip, void (NodesTab::*slot)()) {
        auto* b = new QPushButton(text);
        b->setToolTip(tip);
        connect(b, &QPushButton::clicked, this, slot);
        bar->addWidget(b);
        return b;
    };
    button(tr("Zoom in"), tr("Halve the time window of every chart"), &NodesTab::zoomIn);
    button(tr("Zoom out"), tr("Double the time window of every chart"), &NodesTab::zoomOut);
    button(tr("\u25c0 Pan"), tr("Move every chart half a window back"), &NodesTab::panLeft);
    button(tr("Pan \u25b6"), tr("Move every chart half a window on"), &NodesTab::panRight);
    button(tr("Fix timeframe"), tr("Show the whole run in every chart"), &NodesTab::fixTimeframe);
    m_zoomToSelection = button(tr("Zoom to selection"),
                               tr("Show the window selected on the heatmap in every chart"),
                               &NodesTab::zoomToSelection);
    m_zoomToSelection->setEnabled(false);
    m_windowLabel = new QLabel;
    bar->addSpacing(12);
    bar->addWidget(m_windowLabel, 1);
    return bar;
}

void NodesTab::createCharts() {
    const QStringList titles{tr("CPU utilization (%)"), tr("Network (MB/s)"),
                             tr("GPU utilization (%)"), tr("GPU memory (%)"),
                             tr("I/O wait (%)"),        tr("Memory used (%)")};
    for (int i = 0; i < titles.size(); ++i) {
        auto* chart = new CurveChart;
        chart->setXAxisMode(models::XAxisMode::WallTime);
        chart->setSmoothing(0);
        chart->setTitle(titles[i]);
        chart->setMinimumHeight(210);
        // CurveChart signals zoomChanged before it redraws, and only when it becomes zoomed or
        // not: the new range is read after the redraw, which also follows a second zoom.
        connect(chart, &CurveChart::zoomChanged, this, [this](bool zoomed) {
            if (!zoomed && !m_syncing)
                applyWindow(std::nullopt);
        });
        connect(chart, &CurveChart::redrawn, this, [this, chart] { onChartRedrawn(chart); });
        m_charts.append(chart);
    }
}

// Cores and network, the GPU row (or why there is none), I/O wait and memory.
QLayout* NodesTab::buildChartGrid() {
    auto* grid = new QGridLayout;
    m_core = new QComboBox;
    m_gpu = new QComboBox;
    grid->addWidget(withSelector(m_charts[0], tr("Cores"), m_core), 0, 0);
    grid->addWidget(withSelector(m_charts[1], tr("Received and sent, every interface"), nullptr), 0,
                    1);
    m_gpuRow = new QWidget;
    auto* gpuLayout = new QHBoxLayout(m_gpuRow);
    gpuLayout->setContentsMargins(0, 0, 0, 0);
    gpuLayout->addWidget(withSelector(m_charts[2], tr("GPUs"), m_gpu), 1);
    gpuLayout->addWidget(m_charts[3], 1);
    m_gpuNote = new QLabel;
    m_gpuNote->setWordWrap(true);
    m_gpuNote->hide();
    grid->addWidget(m_gpuRow, 1, 0, 1, 2);
    grid->addWidget(m_gpuNote, 2, 0, 1, 2);
    grid->addWidget(m_charts[4], 3, 0);
    grid->addWidget(m_charts[5], 3, 1);
    return grid;
}

NodesTab::~NodesTab() = default;

CurveChart* NodesTab::chart(Chart which) const {
    return m_charts.at(static_cast<int>(which));
}

QString NodesTab::gpuNote() const {
    return m_gpuNote->isVisible() || !m_gpuNote->isHidden() ? m_gpuNote->text() : QString();
}

bool NodesTab::gpuChartsVisible() const {
    return !m_gpuRow->isHidden();
}

int NodesTab::currentNode() const {
    return m_node->currentData().isValid() ? m_node->currentData().toInt() : 0;
}

void NodesTab::setData(const models::InsightsData& data) {
    const bool full = !data.incremental || !m_series;
    const std::set<int> nodesBefore = [&] {
        std::set<int> n;
        if (m_series)
            for (const auto& s : *m_series)
                n.insert(s.node);
        return n;
    }();
    m_series = data.series;
    m_steps = data.steps;
    const auto nodes = data.nodes();
    const bool nodesChanged = nodesBefore != std::set<int>(nodes.begin(), nodes.end());
    if (full || nodesChanged) {
        const QSignalBlocker block(m_node);
        const int keep = currentNode();
        m_node->clear();
        for (int n : nodes)
            m_node->addItem(data.nodeName(n), n);
        const int index = m_node->findData(keep);
        m_node->setCurrentIndex(index >= 0 ? index : 0);
    }
    std::map<int, QString> names;
    for (int n : nodes)
        names[n] = data.nodeName(n);
    m_heatmap->setNodeNames(std::move(names));
    if (full) {
        m_heatmap->setRows(heatmapRows(*m_series));
        rebuildSelectors();
        rebuildCharts();
    } else {
        for (const auto& s : data.added) {
            if (s.metric == "util" &&
                (deviceIndex(s.device, "cpu") || deviceIndex(s.device, "gpu"))) {
                std::vector<models::HeatmapSample> samples;
                samples.reserve(s.samples.size());
                for (const auto& p : s.samples)
                    samples.push_back({p.time, p.value});
                m_heatmap->appendSamples(s.node, QString::fromStdString(s.device), samples);
            }
        }
        // New devices (a GPU that appeared) need new selector entries.
        if (m_core->count() <= 1 || (hasGpu(*m_series, currentNode()) && m_gpu->count() <= 2))
            rebuildSelectors();
        const int node = currentNode();
        const QString core = m_core->currentData().toString();
        const QString gpu = m_gpu->currentData().toString();
        for (int i = 0; i < m_charts.size(); ++i) {
            const auto which = static_cast<Chart>(i);
            const QString sel = which == Chart::Cpu                                  ? core
                                : (which == Chart::Gpu || which == Chart::GpuMemory) ? gpu
                                                                                     : QString();
            for (const auto& series : chartSeries(data.added, node, which, sel))
                m_charts[i]->appendPoints(series.name, series.points);
        }
        if (m_window)
            applyWindow(m_window);
        else
            updateWindowLabel();
    }
    const bool anyGpu = hasGpu(*m_series);
    m_heatmap->setNote(anyGpu ? QString()
                              : tr("CPU-only run: no GPU was recorded on any node, so the heatmap "
                                   "has CPU core rows only."));
}

void NodesTab::rebuildSelectors() {
    if (!m_series)
        return;
    const int node = currentNode();
    std::set<int> cores, gpus;
    for (const auto& s : *m_series) {
        if (s.node != node)
            continue;
        if (const auto c = deviceIndex(s.device, "cpu"))
            cores.insert(*c);
        if (const auto g = deviceIndex(s.device, "gpu"))
            gpus.insert(*g);
    }
    {
        const QSignalBlocker block(m_core);
        const QString keep = m_core->currentData().toString();
        m_core->clear();
        m_core->addItem(tr("Mean of %1 cores").arg(cores.size()), QString());
        for (int c : cores)
            m_core->addItem(QStringLiteral("cpu%1").arg(c), QStringLiteral("cpu%1").arg(c));
        m_core->setCurrentIndex(std::max(0, m_core->findData(keep)));
    }
    {
        const QSignalBlocker block(m_gpu);
        const QString keep = m_gpu->currentData().toString();
        m_gpu->clear();
        m_gpu->addItem(tr("Mean of %1 GPUs").arg(gpus.size()), QString());
        m_gpu->addItem(tr("Every GPU"), QStringLiteral("all"));
        for (int g : gpus)
            m_gpu->addItem(QStringLiteral("gpu%1").arg(g), QStringLiteral("gpu%1").arg(g));
        m_gpu->setCurrentIndex(std::max(0, m_gpu->findData(keep)));
    }
    const bool nodeHasGpu = !gpus.empty();
    m_gpuRow->setVisible(nodeHasGpu);
    m_gpuNote->setVisible(!nodeHasGpu);
    m_gpuNote->setText(
        tr("<b>No GPU on node %1.</b> This run recorded CPU samples only, so there are no GPU "
           "utilization or GPU memory charts.")
            .arg(node));
}

void NodesTab::rebuildCharts() {
    if (!m_series)
        return;
    const int node = currentNode();
    const QString core = m_core->currentData().toString();
    const QString gpu = m_gpu->currentData().toString();
    m_syncing = true;
    for (int i = 0; i < m_charts.size(); ++i) {
        const auto which = static_cast<Chart>(i);
        const QString sel = which == Chart::Cpu                                  ? core
                            : (which == Chart::Gpu || which == Chart::GpuMemory) ? gpu
                                                                                 : QString();
        m_charts[i]->setSeries(chartSeries(*m_series, node, which, sel));
        m_charts[i]->setLegendVisible(m_charts[i]->seriesCount() > 1);
    }
    m_syncing = false;
    applyWindow(m_window);
}

std::pair<double, double> NodesTab::dataRange() const {
    double lo = 0, hi = 0;
    bool any = false;
    if (m_series)
        for (const auto& s : *m_series)
            if (!s.samples.empty()) {
                lo = any ? std::min(lo, s.samples.front().time) : s.samples.front().time;
                hi = any ? std::max(hi, s.samples.back().time) : s.samples.back().time;
                any = true;
            }
    return {lo, hi};
}

std::pair<double, double> NodesTab::currentRange() const {
    return m_window ? *m_window : dataRange();
}

void NodesTab::applyWindow(std::optional<std::pair<double, double>> window) {
    m_window = window;
    m_syncing = true;
    for (CurveChart* c : m_charts) {
        if (window)
            c->zoomToX(window->first, window->second);
        else if (c->isZoomed())
            c->resetZoom();
    }
    if (window)
        m_heatmap->setTimeWindow(window->first, window->second);
    else if (!m_heatmap->showsWholeRun())
        m_heatmap->showWholeRun();
    m_syncing = false;
    updateWindowLabel();
    Q_EMIT timeWindowChanged();
}

void NodesTab::updateWindowLabel() {
    const auto [lo, hi] = currentRange();
    m_windowLabel->setText(hi > lo ? tr("%1 \u2013 %2 (%3)%4")
                                         .arg(clock(lo), clock(hi), models::formatDuration(hi - lo),
                                              m_window ? QString() : tr(", whole run"))
                                   : QString());
}

void NodesTab::onChartRedrawn(CurveChart* source) {
    if (m_syncing || !source->isZoomed())
        return;
    const QPointF range = source->visibleXRange();
    if (!(range.y() > range.x()))
        return;
    if (m_window && std::abs(m_window->first - range.x()) < 1e-6 &&
        std::abs(m_window->second - range.y()) < 1e-6)
        return;
    applyWindow(std::make_pair(range.x(), range.y()));
}

void NodesTab::setTimeWindow(double from, double to) {
    if (to > from)
        applyWindow(std::make_pair(from, to));
}

void NodesTab::fixTimeframe() {
    applyWindow(std::nullopt);
}

void NodesTab::zoomIn() {
    const auto [lo, hi] = currentRange();
    const double mid = (lo + hi) / 2, half = (hi - lo) / 4;
    if (half > 0.5)
        setTimeWindow(mid - half, mid + half);
}

void NodesTab::zoomOut() {
    const auto [lo, hi] = currentRange();
    const auto [dlo, dhi] = dataRange();
    const double mid = (lo + hi) / 2, half = hi - lo;
    if (mid - half <= dlo && mid + half >= dhi)
        fixTimeframe();
    else
        setTimeWindow(std::max(dlo, mid - half), std::min(dhi, mid + half));
}

void NodesTab::panLeft() {
    if (!m_window)
        return;
    const auto [lo, hi] = *m_window;
    const double shift = std::min((hi - lo) / 2, lo - dataRange().first);
    if (shift > 0)
        setTimeWindow(lo - shift, hi - shift);
}

void NodesTab::panRight() {
    if (!m_window)
        return;
    const auto [lo, hi] = *m_window;
    const double shift = std::min((hi - lo) / 2, dataRange().second - hi);
    if (shift > 0)
        setTimeWindow(lo + shift, hi + shift);
}

void NodesTab::zoomToSelection() {
    if (m_selection)
        setTimeWindow(m_selection->first, m_selection->second);
}

void NodesTab::showWindowSteps(double from, double to) {
    m_selection = std::make_pair(from, to);
    m_zoomToSelection->setEnabled(true);
    m_windowSteps->setTimeline(m_steps, from, to);
    m_windowSteps->setTitle(tr("Step phases from %1 to %2 (%3 steps over every rank)")
                                .arg(clock(from), clock(to))
                                .arg(m_windowSteps->steps().size()));
    if (m_windowSteps->steps().empty())
        m_windowSteps->setPlaceholder(
            tr("No training step ran between %1 and %2.").arg(clock(from), clock(to)));
}

} // namespace studio::widgets

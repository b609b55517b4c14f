#include "widgets/jobs/metrics_grid.h"

#include "widgets/charts/curve_chart.h"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollArea>
#include <QSlider>
#include <QVBoxLayout>

#include <algorithm>

namespace studio::widgets {

namespace {

double g_defaultSmoothing = 0.6;

} // namespace

void MetricsGrid::setDefaultSmoothing(double weight) {
    g_defaultSmoothing = std::clamp(weight, 0.0, 0.99);
}

double MetricsGrid::defaultSmoothing() {
    return g_defaultSmoothing;
}

MetricsGrid::MetricsGrid(QWidget* parent)
    : QWidget(parent) {
    m_xAxis = new QComboBox(this);
    m_xAxis->setObjectName(QStringLiteral("metricsXAxis"));
    m_xAxis->addItem(tr("Step"), static_cast<int>(models::XAxisMode::Step));
    m_xAxis->addItem(tr("Relative time"), static_cast<int>(models::XAxisMode::RelativeTime));
    m_xAxis->addItem(tr("Wall time"), static_cast<int>(models::XAxisMode::WallTime));
    m_smoothing = new QSlider(Qt::Horizontal, this);
    m_smoothing->setObjectName(QStringLiteral("metricsSmoothing"));
    m_smoothing->setRange(0, 99);
    m_smoothing->setValue(static_cast<int>(defaultSmoothing() * 100 + 0.5));
    m_smoothing->setFixedWidth(160);
    m_smoothingValue = new QLabel(QString::number(m_smoothing->value() / 100.0, 'f', 2), this);
    auto* bar = new QHBoxLayout;
    bar->addWidget(new QLabel(tr("X axis"), this));
    bar->addWidget(m_xAxis);
    bar->addSpacing(16);
    bar->addWidget(new QLabel(tr("Smoothing"), this));
    bar->addWidget(m_smoothing);
    bar->addWidget(m_smoothingValue);
    bar->addStretch(1);

    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* page = new QWidget(scroll);
    m_grid = new QGridLayout(page);
    m_grid->setSpacing(10);
    m_empty = new QLabel(tr("No metrics yet. The built-in trainer reports train:loss, eval:loss "
                            "and eval:accuracy; scripts report what metric_definitions extract."),
                         page);
    m_empty->setWordWrap(true);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setForegroundRole(QPalette::PlaceholderText);
    m_grid->addWidget(m_empty, 0, 0, 1, 2);
    scroll->setWidget(page);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 6, 0, 0);
    layout->addLayout(bar);
    layout->addWidget(scroll, 1);

    connect(m_xAxis, &QComboBox::currentIndexChanged, this, [this] {
        const auto mode = static_cast<models::XAxisMode>(m_xAxis->currentData().toInt());
        for (CurveChart* c : std::as_const(m_charts))
            c->setXAxisMode(mode);
    });
    connect(m_smoothing, &QSlider::valueChanged, this, [this](int v) {
        m_smoothingValue->setText(QString::number(v / 100.0, 'f', 2));
        for (CurveChart* c : std::as_const(m_charts))
            c->setSmoothing(v / 100.0);
    });
}

QString MetricsGrid::familyOf(const QString& metric) {
    const qsizetype cut =
        std::max(metric.lastIndexOf(QLatin1Char(':')), metric.lastIndexOf(QLatin1Char('/')));
    return cut < 0 ? metric : metric.mid(cut + 1);
}

QStringList MetricsGrid::families() const {
    QStringList out = m_charts.keys();
    out.sort();
    return out;
}

CurveChart* MetricsGrid::chartFor(const QString& family) {
    if (CurveChart* c = m_charts.value(family))
        return c;
    auto* c = new CurveChart(this);
    c->setObjectName(QStringLiteral("metricChart-") + family);
    c->setTitle(family);
    c->setMinimumHeight(260);
    c->setXAxisMode(static_cast<models::XAxisMode>(m_xAxis->currentData().toInt()));
    c->setSmoothing(m_smoothing->value() / 100.0);
    m_charts.insert(family, c);
    relayout();
    return c;
}

void MetricsGrid::relayout() {
    m_empty->setVisible(m_charts.isEmpty());
    const QStringList names = families();
    for (int i = 0; i < names.size(); ++i)
        m_grid->addWidget(m_charts.value(names[i]), 1 + i / 2, i % 2);
}

void MetricsGrid::setMetrics(
    const std::map<std::string, std::vector<store::MetricPoint>>& metrics) {
    QHash<QString, QList<models::CurveSeries>> byFamily;
    for (const auto& [name, points] : metrics) {
        models::CurveSeries s;
        s.name = QString::fromStdString(name);
        s.points.reserve(static_cast<qsizetype>(points.size()));
        for (const auto& p : points)
            if (p.rank == 0)
                s.points.append(models::CurvePoint{p.step, p.time, p.value});
        byFamily[familyOf(s.name)].append(std::move(s));
    }
    for (auto it = byFamily.begin(); it != byFamily.end(); ++it)
        chartFor(it.key())->setSeries(it.value());
}

void MetricsGrid::appendPoints(const QList<models::LiveMetricPoint>& points) {
    QHash<QString, QList<models::CurvePoint>> byMetric;
    for (const auto& p : points)
        if (p.rank <= 0)
            byMetric[p.name].append(models::CurvePoint{p.step, p.time, p.value});
    for (auto it = byMetric.begin(); it != byMetric.end(); ++it)
        chartFor(familyOf(it.key()))->appendPoints(it.key(), it.value());
}

} // namespace studio::widgets

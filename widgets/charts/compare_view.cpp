#include "widgets/charts/compare_view.h"

#include "models/charts/parameter_diff_model.h"
#include "models/data/data_service.h"
#include "widgets/charts/curve_chart.h"
#include "widgets/charts/parallel_coordinates_plot.h"
#include "widgets/common/diff_highlighter.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalBlocker>
#include <QSlider>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QThread>
#include <QVBoxLayout>

#include <cmath>

namespace studio::widgets {

namespace {

constexpr int kLegendMaxJobs = 10;

// A muted label before a control ("Metric", "X axis").
QLabel* caption(const QString& text, QWidget* parent) {
    auto* label = new QLabel(text, parent);
    label->setForegroundRole(QPalette::PlaceholderText);
    return label;
}

} // namespace

CompareView::CompareView(models::DataService* service, QWidget* parent)
    : QWidget(parent)
    , m_service(service) {
    buildUi();
}

CompareView::~CompareView() = default;

void CompareView::buildUi() {
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(8, 8, 8, 8);
    outer->setSpacing(6);
    outer->addLayout(buildControls());

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("compareError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral(
        "QLabel { background: rgba(215, 58, 73, 0.12); border: 1px solid rgba(215, 58, 73, 0.55);"
        " border-radius: 4px; padding: 6px 8px; }"));
    m_error->hide();
    outer->addWidget(m_error);

    auto* splitter = new QSplitter(Qt::Vertical, this);
    splitter->setChildrenCollapsible(false);
    m_chart = new CurveChart(splitter);
    m_chart->setObjectName(QStringLiteral("curveChart"));
    m_chart->setSmoothing(0.6);
    m_chart->setMinimumHeight(260);
    splitter->addWidget(m_chart);

    m_tabs = new QTabWidget(splitter);
    m_tabs->setObjectName(QStringLiteral("compareTabs"));
    m_tabs->setDocumentMode(true);

    m_tabs->addTab(buildParametersPage(), tr("Parameters"));
    m_tabs->addTab(buildParallelPage(), tr("Parallel coordinates"));
    // What ran: the `mlstudio diff` of the first job against each other one.
    m_whatRan = new QPlainTextEdit(this);
    m_whatRan->setObjectName(QStringLiteral("compareWhatRan"));
    m_whatRan->setReadOnly(true);
    m_whatRan->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_whatRan->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    new DiffHighlighter(m_whatRan->document());
    m_tabs->addTab(m_whatRan, tr("What ran"));

    splitter->addWidget(m_tabs);
    splitter->setStretchFactor(0, 3);
    splitter->setStretchFactor(1, 2);
    splitter->setSizes({600, 400}); // scaled to the space there is: curves get 60%
    outer->addWidget(splitter, 1);

    connectUi();
    updateStatus();
}

// Curve controls, one row: metric, x axis, smoothing, log scale, and the status on the right.
QLayout* CompareView::buildControls() {
    auto* controls = new QHBoxLayout;
    controls->setSpacing(8);
    controls->addWidget(caption(tr("Metric"), this));
    m_metricBox = new QComboBox(this);
    m_metricBox->setObjectName(QStringLiteral("metricChooser"));
    m_metricBox->setMinimumContentsLength(18);
    m_metricBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    controls->addWidget(m_metricBox);
    controls->addSpacing(10);
    controls->addWidget(caption(tr("X axis"), this));
    m_xAxisBox = new QComboBox(this);
    m_xAxisBox->setObjectName(QStringLiteral("xAxisChooser"));
    m_xAxisBox->addItem(tr("Step"), static_cast<int>(models::XAxisMode::Step));
    m_xAxisBox->addItem(tr("Relative time"), static_cast<int>(models::XAxisMode::RelativeTime));
    m_xAxisBox->addItem(tr("Wall time"), static_cast<int>(models::XAxisMode::WallTime));
    controls->addWidget(m_xAxisBox);
    controls->addSpacing(10);
    controls->addWidget(caption(tr("Smoothing"), this));
    m_smoothingSlider = new QSlider(Qt::Horizontal, this);
    m_smoothingSlider->setObjectName(QStringLiteral("smoothingSlider"));
    m_smoothingSlider->setRange(0, 99);
    m_smoothingSlider->setValue(60);
    m_smoothingSlider->setFixedWidth(140);
    m_smoothingSlider->setToolTip(
        tr("Exponential moving average weight, as TensorBoard's (0: no smoothing)"));
    controls->addWidget(m_smoothingSlider);
    m_smoothingLabel = new QLabel(QStringLiteral("0.60"), this);
    m_smoothingLabel->setObjectName(QStringLiteral("smoothingValue"));
    m_smoothingLabel->setMinimumWidth(
        m_smoothingLabel->fontMetrics().horizontalAdvance(QStringLiteral("0.00")) + 4);
    controls->addWidget(m_smoothingLabel);
    controls->addSpacing(10);
    m_logY = new QCheckBox(tr("Log scale"), this);
    m_logY->setObjectName(QStringLiteral("logScale"));
    controls->addWidget(m_logY);
    controls->addStretch(1);
    m_status = caption(QString(), this);
    m_status->setObjectName(QStringLiteral("compareStatus"));
    controls->addWidget(m_status);
    return controls;
}

// The parameter diff table, with "Show only differing".
QWidget* CompareView::buildParametersPage() {
    auto* paramPage = new QWidget(m_tabs);
    auto* paramLayout = new QVBoxLayout(paramPage);
    paramLayout->setContentsMargins(0, 6, 0, 0);
    auto* paramBar = new QHBoxLayout;
    m_onlyDiffering = new QCheckBox(tr("Show only differing"), paramPage);
    m_onlyDiffering->setObjectName(QStringLiteral("onlyDiffering"));
    paramBar->addWidget(m_onlyDiffering);
    paramBar->addSpacing(12);
    m_diffSummary = caption(QString(), paramPage);
    paramBar->addWidget(m_diffSummary);
    paramBar->addStretch(1);
    paramLayout->addLayout(paramBar);
    m_diffModel = new models::ParameterDiffModel(this);
    m_diffFilter = new models::DifferingRowsFilter(this);
    m_diffFilter->setSourceModel(m_diffModel);
    m_table = new QTableView(paramPage);
    m_table->setObjectName(QStringLiteral("parameterTable"));
    m_table->setModel(m_diffFilter);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(0, Qt::AscendingOrder);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 8);
    m_table->horizontalHeader()->setHighlightSections(false);
    m_table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    m_table->horizontalHeader()->setStretchLastSection(false);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setShowGrid(false);
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideMiddle);
    paramLayout->addWidget(m_table);
    return paramPage;
}

// The parallel-coordinates plot and the metric summary that colours it.
QWidget* CompareView::buildParallelPage() {
    auto* parallelPage = new QWidget(m_tabs);
    auto* parallelLayout = new QVBoxLayout(parallelPage);
    parallelLayout->setContentsMargins(0, 6, 0, 0);
    auto* parallelBar = new QHBoxLayout;
    parallelBar->addWidget(caption(tr("Colour by"), parallelPage));
    m_summaryMetricBox = new QComboBox(parallelPage);
    m_summaryMetricBox->setObjectName(QStringLiteral("parallelMetric"));
    m_summaryMetricBox->setMinimumContentsLength(18);
    m_summaryMetricBox->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    parallelBar->addWidget(m_summaryMetricBox);
    m_summaryStatisticBox = new QComboBox(parallelPage);
    m_summaryStatisticBox->setObjectName(QStringLiteral("parallelStatistic"));
    for (models::SummaryStatistic s :
         {models::SummaryStatistic::Min, models::SummaryStatistic::Max,
          models::SummaryStatistic::Last, models::SummaryStatistic::Average})
        m_summaryStatisticBox->addItem(models::statisticName(s), static_cast<int>(s));
    parallelBar->addWidget(m_summaryStatisticBox);
    parallelBar->addStretch(1);
    parallelBar->addWidget(caption(tr("Hover a line to see its job"), parallelPage));
    parallelLayout->addLayout(parallelBar);
    m_parallel = new ParallelCoordinatesPlot(parallelPage);
    m_parallel->setObjectName(QStringLiteral("parallelPlot"));
    parallelLayout->addWidget(m_parallel, 1);
    return parallelPage;
}

void CompareView::connectUi() {
    connect(m_metricBox, &QComboBox::currentTextChanged, this, [this](const QString& metric) {
        if (!metric.isEmpty())
            setMetric(metric);
    });
    connect(m_xAxisBox, &QComboBox::currentIndexChanged, this, [this] {
        m_chart->setXAxisMode(static_cast<models::XAxisMode>(m_xAxisBox->currentData().toInt()));
    });
    connect(m_smoothingSlider, &QSlider::valueChanged, this, [this](int value) {
        const double weight = value / 100.0;
        m_smoothingLabel->setText(QString::number(weight, 'f', 2));
        m_chart->setSmoothing(weight);
    });
    connect(m_logY, &QCheckBox::toggled, m_chart, &CurveChart::setLogY);
    connect(m_onlyDiffering, &QCheckBox::toggled, m_diffFilter,
            &models::DifferingRowsFilter::setOnlyDiffering);
    connect(m_summaryMetricBox, &QComboBox::currentIndexChanged, this,
            &CompareView::updateParallel);
    connect(m_summaryStatisticBox, &QComboBox::currentIndexChanged, this,
            &CompareView::updateParallel);
}

void CompareView::setJobs(const QList<qint64>& componentIds) {
    Q_ASSERT(QThread::currentThread() == thread());
    m_ids = componentIds;
    m_curves.clear();
    reload();
}

void CompareView::reload() {
    m_curveTask.cancel();
    m_loadingCurves = false;
    m_loading = true;
    m_curves.clear();
    m_error->hide();
    updateStatus();
    m_service->compare(
        m_loadTask, m_ids, [this](models::CompareData data) { applyData(std::move(data)); },
        [this](const QString& message) {
            m_loading = false;
            showError(message);
        });
}

void CompareView::applyData(models::CompareData data) {
    m_loading = false;
    m_data = std::move(data);
    m_diffModel->setJobs(m_data.jobs);
    m_whatRan->setPlainText(m_data.whatRanDiff);
    m_table->resizeColumnsToContents();
    for (int c = 0; c < m_diffModel->columnCount(); ++c)
        m_table->setColumnWidth(c, std::min(m_table->columnWidth(c) + 16, 260));
    updateDiffSummary();
    m_chart->setLegendVisible(m_data.jobs.size() <= kLegendMaxJobs);

    {
        const QSignalBlocker blockMetric(m_metricBox);
        const QSignalBlocker blockSummary(m_summaryMetricBox);
        const QSignalBlocker blockStatistic(m_summaryStatisticBox);
        const QString summaryMetric = m_summaryMetricBox->currentText();
        m_metricBox->clear();
        m_metricBox->addItems(m_data.metricNames);
        m_summaryMetricBox->clear();
        m_summaryMetricBox->addItems(m_data.metricNames);
        if (m_data.metricNames.contains(summaryMetric)) {
            m_summaryMetricBox->setCurrentText(summaryMetric);
        } else {
            const models::SummaryChoice choice =
                models::defaultSummary(models::sharedMetrics(m_data));
            m_summaryMetricBox->setCurrentText(choice.metric);
            m_summaryStatisticBox->setCurrentIndex(
                m_summaryStatisticBox->findData(static_cast<int>(choice.statistic)));
        }
    }
    updateParallel();
    const QString metric = m_data.metricNames.contains(m_metric)
                               ? m_metric
                               : models::defaultMetric(models::metricsByCoverage(m_data));
    m_metric.clear();
    updateStatus();
    Q_EMIT loaded();
    if (metric.isEmpty()) {
        m_chart->setSeries({});
        m_chart->setTitle(tr("No metrics recorded"));
        return;
    }
    setMetric(metric);
}

void CompareView::setMetric(const QString& metric) {
    if (metric == m_metric && !m_loadingCurves && m_curves.contains(metric))
        return;
    m_metric = metric;
    {
        const QSignalBlocker block(m_metricBox);
        m_metricBox->setCurrentText(metric);
    }
    if (const auto it = m_curves.constFind(metric); it != m_curves.cend()) {
        m_curveTask.cancel();
        m_loadingCurves = false;
        showCurves(metric, *it);
        return;
    }
    m_loadingCurves = true;
    updateStatus();
    m_service->metricCurves(
        m_curveTask, m_data.jobs, metric,
        [this, metric](QList<models::CurveSeries> series) {
            m_loadingCurves = false;
            m_curves.insert(metric, series);
            showCurves(metric, series);
        },
        [this](const QString& message) {
            m_loadingCurves = false;
            showError(message);
        });
}

void CompareView::showCurves(const QString& metric, const QList<models::CurveSeries>& series) {
    m_chart->setTitle(metric);
    m_chart->setSeries(series);
    updateStatus();
    Q_EMIT curvesLoaded(metric);
}

void CompareView::setXAxisMode(models::XAxisMode mode) {
    m_xAxisBox->setCurrentIndex(m_xAxisBox->findData(static_cast<int>(mode)));
}

void CompareView::setSmoothing(double weight) {
    m_smoothingSlider->setValue(static_cast<int>(std::lround(weight * 100)));
}

void CompareView::setSummary(const QString& metric, models::SummaryStatistic statistic) {
    const QSignalBlocker block(m_summaryMetricBox);
    m_summaryMetricBox->setCurrentText(metric);
    m_summaryStatisticBox->setCurrentIndex(
        m_summaryStatisticBox->findData(static_cast<int>(statistic)));
    updateParallel();
}

void CompareView::updateParallel() {
    const auto statistic =
        static_cast<models::SummaryStatistic>(m_summaryStatisticBox->currentData().toInt());
    m_parallel->setData(
        models::parallelData(m_data.jobs, m_summaryMetricBox->currentText(), statistic));
}

void CompareView::updateDiffSummary() {
    const int total = m_diffModel->rowCount();
    const int differing = m_diffModel->differingCount();
    if (total == 0)
        m_diffSummary->setText(tr("No parameters recorded"));
    else if (differing == 0)
        m_diffSummary->setText(tr("All %1 parameters are the same").arg(total));
    else
        m_diffSummary->setText(
            (differing == 1 ? tr("1 of %2 parameters differs") : tr("%1 of %2 parameters differ"))
                .arg(differing)
                .arg(total));
}

void CompareView::showError(const QString& message) {
    m_error->setText(message);
    m_error->show();
    updateStatus();
    Q_EMIT loadFailed(message);
}

void CompareView::updateStatus() {
    if (m_loading)
        m_status->setText(tr("Loading jobs…"));
    else if (m_loadingCurves)
        m_status->setText(tr("Loading %1…").arg(m_metric));
    else if (m_data.jobs.isEmpty())
        m_status->setText(tr("No jobs"));
    else
        m_status->setText(tr("%1 jobs").arg(m_data.jobs.size()));
}

} // namespace studio::widgets

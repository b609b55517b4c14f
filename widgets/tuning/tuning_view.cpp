#include "widgets/tuning/tuning_view.h"

#include "models/data/data_service.h"
#include "models/tuning/tuning_trials_model.h"
#include "widgets/charts/parallel_coordinates_plot.h"
#include "widgets/common/theme.h"
#include "widgets/tuning/importance_chart.h"
#include "widgets/tuning/tuning_charts.h"
#include "widgets/tuning/tuning_header.h"
#include "widgets/tuning/tuning_plot.h"

#include <QComboBox>
#include <QFrame>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

namespace studio::widgets {

namespace {

// A chart in a thin frame, as the overview's grid shows it.
QWidget* framed(QWidget* chart, QWidget* above = nullptr) {
    auto* frame = new QFrame;
    frame->setFrameShape(QFrame::StyledPanel);
    auto* v = new QVBoxLayout(frame);
    v->setContentsMargins(1, 1, 1, 1);
    v->setSpacing(0);
    if (above)
        v->addWidget(above);
    v->addWidget(chart, 1);
    return frame;
}

} // namespace

TuningView::TuningView(models::DataService* service, QString name, QWidget* parent)
    : QWidget(parent)
    , m_service(service)
    , m_name(std::move(name)) {
    setObjectName(QStringLiteral("tuningView"));
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(0);
    m_header = new TuningHeader(m_name, this);
    v->addWidget(m_header);
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("tuningTabs"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(buildOverview(), tr("Overview"));
    m_tabs->addTab(buildJobs(), tr("Training jobs"));
    m_parallel = new ParallelCoordinatesPlot;
    m_parallel->setObjectName(QStringLiteral("tuningParallel"));
    m_tabs->addTab(m_parallel, tr("Parallel coordinates"));
    m_tabs->addTab(buildSlices(), tr("Slices"));
    v->addWidget(m_tabs, 1);
    connect(m_header, &TuningHeader::stopRequested, this, [this] { Q_EMIT stopRequested(m_name); });
    connect(m_header, &TuningHeader::openJobRequested, this, &TuningView::openJobRequested);

    m_soon.setSingleShot(true);
    m_soon.setInterval(300);
    connect(&m_soon, &QTimer::timeout, this, &TuningView::reload);
    connect(m_service, &models::DataService::tuningChanged, this, [this](const QString& name) {
        if (name == m_name && !m_task.busy()) // a read under way: the next tick catches up
            progressReported();
    });
    reload();
}

QWidget* TuningView::buildOverview() {
    auto* page = new QWidget;
    auto* grid = new QGridLayout(page);
    grid->setContentsMargins(8, 8, 8, 8);
    grid->setSpacing(8);
    m_history = new TuningPlot;
    m_history->setObjectName(QStringLiteral("historyPlot"));
    m_historyAxis = new QComboBox;
    m_historyAxis->setObjectName(QStringLiteral("historyAxis"));
    m_historyAxis->addItem(tr("x: launch order"));
    m_historyAxis->addItem(tr("x: end time"));
    m_historyAxis->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    auto* bar = new QWidget;
    auto* barLayout = new QHBoxLayout(bar);
    barLayout->setContentsMargins(8, 4, 6, 0);
    auto* title = new QLabel(tr("Objective per training job"));
    QFont bold = title->font();
    bold.setWeight(QFont::DemiBold);
    title->setFont(bold);
    barLayout->addWidget(title);
    barLayout->addStretch(1);
    barLayout->addWidget(m_historyAxis);
    bar->setAutoFillBackground(true);
    bar->setBackgroundRole(QPalette::Base);
    connect(m_historyAxis, &QComboBox::currentIndexChanged, this, &TuningView::drawHistory);
    m_intermediate = new TuningPlot;
    m_intermediate->setObjectName(QStringLiteral("intermediatePlot"));
    m_importance = new ImportanceChart;
    m_topSlice = new TuningPlot;
    m_topSlice->setObjectName(QStringLiteral("topSlicePlot"));
    grid->addWidget(framed(m_history, bar), 0, 0);
    grid->addWidget(framed(m_intermediate), 0, 1);
    grid->addWidget(framed(m_importance), 1, 0);
    grid->addWidget(framed(m_topSlice), 1, 1);
    grid->setColumnStretch(0, 1);
    grid->setColumnStretch(1, 1);
    grid->setRowStretch(0, 1);
    grid->setRowStretch(1, 1);
    for (TuningPlot* plot : {m_history, m_intermediate, m_topSlice})
        connect(plot, &TuningPlot::pointActivated, this, &TuningView::openOrdinal);
    return page;
}

QWidget* TuningView::buildJobs() {
    m_model = new models::TuningTrialsModel(this);
    m_sorted = new QSortFilterProxyModel(this);
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(models::TuningTrialsModel::SortRole);
    m_table = new QTableView;
    m_table->setObjectName(QStringLiteral("tuningJobsTable"));
    m_table->setModel(m_sorted);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(0, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setFrameShape(QFrame::NoFrame);
    connect(m_table, &QTableView::activated, this, [this](const QModelIndex& index) {
        Q_EMIT openJobRequested(index.data(models::TuningTrialsModel::JobNameRole).toString());
    });
    return m_table;
}

QWidget* TuningView::buildSlices() {
    auto* scroll = new QScrollArea;
    scroll->setObjectName(QStringLiteral("slicesPage"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* inner = new QWidget;
    m_sliceGrid = new QGridLayout(inner);
    m_sliceGrid->setContentsMargins(8, 8, 8, 8);
    m_sliceGrid->setSpacing(8);
    scroll->setWidget(inner);
    return scroll;
}

QString TuningView::status() const {
    return QString::fromStdString(m_data.job.status);
}

void TuningView::setStoppable(bool stoppable) {
    m_header->setStoppable(stoppable);
}

void TuningView::reload() {
    m_soon.stop();
    m_service->tuningJob(
        m_task, m_name, [this](models::TuningJobData data) { present(std::move(data)); },
        [this](const QString& error) { Q_EMIT loadFailed(error); });
}

void TuningView::progressReported() {
    if (!m_soon.isActive())
        m_soon.start();
}

void TuningView::present(models::TuningJobData data) {
    m_data = std::move(data);
    m_loaded = true;
    const bool dark = darkThemeActive();
    m_header->present(m_data);
    drawHistory();
    m_intermediate->setData(intermediatePlot(m_data, dark));
    const QList<HyperparameterImportance> ranked = importances(m_data);
    m_importance->setImportances(ranked);
    drawTopSlice(ranked);
    m_parallel->setData(tuningParallelData(m_data));
    m_model->setJobData(m_data);
    if (m_table->horizontalHeader()->sectionSize(1) < 100)
        m_table->resizeColumnsToContents();
    drawSlices();
    if (m_data.job.status == "InProgress")
        m_service->watchTuningJob(m_name, this);
    else
        m_service->unwatchTuningJob(m_name, this);
    Q_EMIT dataLoaded();
}

void TuningView::drawHistory() {
    if (!m_loaded)
        return;
    const auto axis =
        m_historyAxis->currentIndex() == 1 ? HistoryAxis::EndTime : HistoryAxis::LaunchOrder;
    m_history->setData(historyPlot(m_data, axis, darkThemeActive()));
}

void TuningView::drawSlices() {
    const auto n = qsizetype(m_data.ranges.size());
    while (m_slices.size() > n)
        delete m_slices.takeLast()->parentWidget(); // its frame
    const bool dark = darkThemeActive();
    while (m_slices.size() < n) {
        auto* plot = new TuningPlot;
        plot->setObjectName(QStringLiteral("slicePlot%1").arg(m_slices.size()));
        plot->setMinimumHeight(240);
        connect(plot, &TuningPlot::pointActivated, this, &TuningView::openOrdinal);
        const auto at = m_slices.size();
        m_sliceGrid->addWidget(framed(plot), int(at / 3), int(at % 3));
        m_slices.append(plot);
    }
    for (qsizetype i = 0; i < n; ++i)
        m_slices[i]->setData(slicePlot(m_data, std::size_t(i), dark));
}

void TuningView::drawTopSlice(const QList<HyperparameterImportance>& ranked) {
    for (std::size_t r = 0; r < m_data.ranges.size(); ++r)
        if (!ranked.isEmpty() && m_data.ranges[r].name == ranked.front().name) {
            PlotData plot = slicePlot(m_data, r, darkThemeActive());
            plot.title = tr("Slice of the most important: %1").arg(plot.title);
            m_topSlice->setData(std::move(plot));
            return;
        }
    m_topSlice->setData({});
}

void TuningView::openOrdinal(int ordinal) {
    for (const models::TuningTrial& t : m_data.trials)
        if (t.ordinal == ordinal) {
            Q_EMIT openJobRequested(t.job);
            return;
        }
}

} // namespace studio::widgets

#include "widgets/experiments/leaderboard_widget.h"

#include "engine/store/store_writer.h"
#include "models/data/data_service.h"
#include "models/experiments/leaderboard_model.h"
#include "widgets/experiments/column_chooser.h"
#include "widgets/experiments/job_details_panel.h"
#include "widgets/experiments/leaderboard_columns.h"

#include <QApplication>
#include <QClipboard>
#include <QEvent>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelection>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QPainter>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollBar>
#include <QSplitter>
#include <QStyle>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace studio::widgets {

namespace {

constexpr int kMaxCompare = 50;
const QString kErrorColor = QStringLiteral("#d73a49");

// A magnifier for the filter bar, drawn so it reads on any platform theme.
QIcon searchIcon(const QColor& color) {
    QPixmap pm(32, 32);
    pm.fill(Qt::transparent);
    QPainter p(&pm);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(QPen(color, 3, Qt::SolidLine, Qt::RoundCap));
    p.drawEllipse(QRectF(6, 6, 15, 15));
    p.drawLine(QPointF(19, 19), QPointF(26, 26));
    p.end();
    return QIcon(pm);
}

} // namespace

LeaderboardWidget::LeaderboardWidget(models::DataService* service, store::StoreWriter* writer,
                                     QWidget* parent)
    : QWidget(parent)
    , m_service(service)
    , m_writer(writer)
    , m_model(new models::LeaderboardModel(this))
    , m_task(this) {
    buildUi();
    refresh();
}

LeaderboardWidget::~LeaderboardWidget() = default;

void LeaderboardWidget::buildUi() {
    auto* root = new QVBoxLayout(this);
    root->setContentsMargins(0, 0, 0, 0);
    root->setSpacing(0);
    buildTable();
    root->addWidget(buildFilterBar());

    auto* line = new QFrame(this);
    line->setFrameShape(QFrame::HLine);
    line->setFrameShadow(QFrame::Plain);
    line->setForegroundRole(QPalette::Mid);
    root->addWidget(line);

    auto* split = new QSplitter(Qt::Horizontal, this);
    split->setChildrenCollapsible(false);
    split->addWidget(m_view);
    m_details = new JobDetailsPanel(split);
    m_details->setEditable(m_writer != nullptr);
    m_details->setMinimumWidth(220);
    split->addWidget(m_details);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 0);
    split->setSizes({900, 260});
    root->addWidget(split, 1);

    connectUi();
    updateScopeLabel();
    updateCounts();
}

void LeaderboardWidget::buildTable() {
    m_view = new QTableView(this);
    m_view->setObjectName(QStringLiteral("leaderboardView"));
    m_view->setModel(m_model);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_view->setAlternatingRowColors(true);
    m_view->setShowGrid(false);
    m_view->setWordWrap(false);
    m_view->setCornerButtonEnabled(false);
    m_view->setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel);
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->setFrameShape(QFrame::NoFrame);
    m_view->setIconSize(QSize(14, 14));
    QHeaderView* vh = m_view->verticalHeader();
    vh->hide();
    vh->setSectionResizeMode(QHeaderView::Fixed);
    vh->setDefaultSectionSize(m_view->fontMetrics().height() + 8);
    QHeaderView* hh = m_view->horizontalHeader();
    hh->setSectionsMovable(true);
    hh->setHighlightSections(false);
    hh->setStretchLastSection(false);
    hh->setMinimumSectionSize(40);
    hh->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
    hh->setSortIndicator(-1, Qt::DescendingOrder);
    hh->setSortIndicatorShown(true);
    hh->setContextMenuPolicy(Qt::CustomContextMenu);
    m_view->setSortingEnabled(true);
    m_view->viewport()->installEventFilter(this);
    m_layout = new LeaderboardColumns(hh, m_model, this);

    m_empty = new QLabel(m_view->viewport());
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setForegroundRole(QPalette::PlaceholderText);
    m_empty->hide();
}

// Filter bar: query, columns, compare, export, reload, details; the filter's error; the scope
// and the counts.
QWidget* LeaderboardWidget::buildFilterBar() {
    auto* bar = new QWidget(this);
    bar->setObjectName(QStringLiteral("leaderboardBar"));
    auto* barLayout = new QVBoxLayout(bar);
    barLayout->setContentsMargins(8, 8, 8, 4);
    barLayout->setSpacing(4);
    barLayout->addLayout(buildQueryRow(bar));
    m_filterError = new QLabel(bar);
    m_filterError->setObjectName(QStringLiteral("filterError"));
    m_filterError->setStyleSheet(QStringLiteral("color: %1;").arg(kErrorColor));
    m_filterError->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_filterError->hide();
    barLayout->addWidget(m_filterError);

    barLayout->addLayout(buildScopeRow(bar));
    return bar;
}

QLayout* LeaderboardWidget::buildQueryRow(QWidget* bar) {
    auto* row1 = new QHBoxLayout;
    row1->setSpacing(6);
    m_filter = new QLineEdit(bar);
    m_filter->setObjectName(QStringLiteral("filterEdit"));
    m_filter->setClearButtonEnabled(true);
    m_filter->setPlaceholderText(
        QStringLiteral("Filter: status = Completed and lr > 1e-3 and \"eval:accuracy - Max\" >= "
                       "0.9"));
    m_filter->setToolTip(QStringLiteral(
        "Compare columns, parameters and tags: = != < <= > >= ~ (contains) !~\n"
        "Join with and, or, not and parentheses; quote names with spaces.\n"
        "Fields: any column title, name, status, experiment, trial, notes, tag.<key>"));
    m_filter->addAction(searchIcon(palette().color(QPalette::PlaceholderText)),
                        QLineEdit::LeadingPosition);
    row1->addWidget(m_filter, 1);
    m_columns = new ColumnChooser(m_view->horizontalHeader(), bar);
    row1->addWidget(m_columns);
    m_compare = new QPushButton(QStringLiteral("Compare"), bar);
    m_compare->setObjectName(QStringLiteral("compareButton"));
    m_compare->setToolTip(QStringLiteral("Select 2 to %1 jobs to compare them").arg(kMaxCompare));
    m_compare->setEnabled(false);
    // The one call to action: accented once enough jobs are selected.
    m_compare->setStyleSheet(QStringLiteral(
        "QPushButton:enabled { background: palette(highlight); color: palette(highlighted-text); "
        "border: 1px solid palette(highlight); border-radius: 3px; padding: 3px 10px; }"));
    row1->addWidget(m_compare);
    m_export = new QToolButton(bar);
    m_export->setObjectName(QStringLiteral("exportButton"));
    m_export->setText(QStringLiteral("Export CSV"));
    m_export->setToolTip(QStringLiteral("Save the rows and columns shown as a CSV file"));
    row1->addWidget(m_export);
    m_refresh = new QToolButton(bar);
    m_refresh->setIcon(style()->standardIcon(QStyle::SP_BrowserReload));
    m_refresh->setToolTip(QStringLiteral("Reload from the store"));
    row1->addWidget(m_refresh);
    m_detailsToggle = new QToolButton(bar);
    m_detailsToggle->setText(QStringLiteral("Details"));
    m_detailsToggle->setCheckable(true);
    m_detailsToggle->setChecked(true);
    m_detailsToggle->setToolTip(QStringLiteral("Show the selected job's tags and notes"));
    row1->addWidget(m_detailsToggle);
    return row1;
}

QLayout* LeaderboardWidget::buildScopeRow(QWidget* bar) {
    auto* row2 = new QHBoxLayout;
    row2->setSpacing(4);
    m_scope = new QLabel(bar);
    m_scope->setObjectName(QStringLiteral("scopeLabel"));
    m_scope->setTextFormat(Qt::RichText);
    row2->addWidget(m_scope);
    m_clearScope = new QToolButton(bar);
    m_clearScope->setText(QStringLiteral("✕"));
    m_clearScope->setAutoRaise(true);
    m_clearScope->setToolTip(QStringLiteral("Show all jobs"));
    row2->addWidget(m_clearScope);
    row2->addStretch();
    m_counts = new QLabel(bar);
    m_counts->setObjectName(QStringLiteral("countsLabel"));
    m_counts->setForegroundRole(QPalette::PlaceholderText);
    m_counts->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_counts->setMinimumWidth(
        m_counts->fontMetrics().horizontalAdvance(QStringLiteral("88888 of 88888 jobs")));
    row2->addWidget(m_counts);
    return row2;
}

void LeaderboardWidget::connectUi() {
    m_filterTimer = new QTimer(this);
    m_filterTimer->setSingleShot(true);
    m_filterTimer->setInterval(250);
    connect(m_filterTimer, &QTimer::timeout, this, &LeaderboardWidget::applyFilterFromBar);
    connect(m_filter, &QLineEdit::textChanged, m_filterTimer, qOverload<>(&QTimer::start));
    connect(m_filter, &QLineEdit::returnPressed, this, &LeaderboardWidget::applyFilterFromBar);

    connect(m_compare, &QPushButton::clicked, this, [this] {
        const QList<qint64> ids = selectedComponentIds();
        if (ids.size() >= 2 && ids.size() <= kMaxCompare)
            Q_EMIT compareRequested(ids);
    });
    connect(m_export, &QToolButton::clicked, this, &LeaderboardWidget::exportCsvWithDialog);
    connect(m_refresh, &QToolButton::clicked, this, &LeaderboardWidget::refresh);
    connect(m_detailsToggle, &QToolButton::toggled, this, &LeaderboardWidget::updateSelection);
    connect(m_clearScope, &QToolButton::clicked, this, [this] { setScope({}, {}); });
    connect(m_columns, &ColumnChooser::columnsChanged, m_layout,
            &LeaderboardColumns::rememberVisibility);

    connect(m_view, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        Q_EMIT openJobRequested(index.data(models::LeaderboardModel::JobNameRole).toString());
    });
    connect(m_view, &QTableView::customContextMenuRequested, this,
            &LeaderboardWidget::showContextMenu);
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &LeaderboardWidget::updateSelection);
    connect(m_view->horizontalHeader(), &QHeaderView::customContextMenuRequested, this,
            &LeaderboardWidget::showHeaderMenu);

    connect(m_model, &QAbstractItemModel::modelReset, m_layout, &LeaderboardColumns::apply);
    connect(m_model, &models::LeaderboardModel::countsChanged, this,
            &LeaderboardWidget::updateCounts);
    connect(m_details, &JobDetailsPanel::saveRequested, this, &LeaderboardWidget::saveAnnotations);
    connect(m_details, &JobDetailsPanel::openRequested, this, &LeaderboardWidget::openJobRequested);
    connect(m_details, &JobDetailsPanel::cloneRequested, this, &LeaderboardWidget::cloneRequested);
}

// Hide the column under the mouse (never the name), or fit the columns to their contents.
void LeaderboardWidget::showHeaderMenu(const QPoint& pos) {
    const int section = m_view->horizontalHeader()->logicalIndexAt(pos);
    QMenu menu(this);
    if (section >= 0) {
        const QString title =
            m_model->headerData(section, Qt::Horizontal, models::LeaderboardModel::ColumnTitleRole)
                .toString();
        QAction* hide = menu.addAction(QStringLiteral("Hide \"%1\"").arg(title));
        hide->setEnabled(section != 0);
        connect(hide, &QAction::triggered, this, [this, title] { setColumnVisible(title, false); });
    }
    QAction* fit = menu.addAction(QStringLiteral("Fit columns to contents"));
    connect(fit, &QAction::triggered, this, [this] { m_layout->fit(true); });
    menu.exec(m_view->horizontalHeader()->mapToGlobal(pos));
}

void LeaderboardWidget::refresh() {
    m_refresh->setEnabled(false);
    m_loading = true;
    m_service->leaderboard(
        m_task,
        [this](models::LeaderboardTable table) {
            m_loading = false;
            m_refresh->setEnabled(true);
            m_loadError.clear();
            applyTable(std::move(table));
        },
        [this](const QString& message) {
            m_loading = false;
            m_refresh->setEnabled(true);
            m_loadError = message;
            m_firstLoad = false;
            updateCounts();
            Q_EMIT loadFailed(message);
        });
    updateCounts();
}

void LeaderboardWidget::applyTable(models::LeaderboardTable table) {
    const QList<qint64> selected = selectedComponentIds();
    const qint64 current =
        m_view->currentIndex().isValid()
            ? m_view->currentIndex().data(models::LeaderboardModel::ComponentIdRole).toLongLong()
            : 0;
    const int scroll = m_view->verticalScrollBar()->value();

    m_model->setTable(std::move(table));
    if (m_firstLoad) {
        m_firstLoad = false;
        const int created = m_model->table().columnOf(QStringLiteral("Created"));
        if (m_model->sortColumn() < 0 && created >= 0)
            m_view->sortByColumn(created, Qt::DescendingOrder);
    }
    if (!selected.isEmpty()) {
        QItemSelection selection;
        for (qint64 id : selected) {
            const int row = m_model->rowOfComponent(id);
            if (row >= 0)
                selection.select(m_model->index(row, 0),
                                 m_model->index(row, m_model->columnCount() - 1));
        }
        m_view->selectionModel()->select(selection, QItemSelectionModel::ClearAndSelect);
        const int row = m_model->rowOfComponent(current);
        if (row >= 0)
            m_view->selectionModel()->setCurrentIndex(m_model->index(row, 0),
                                                      QItemSelectionModel::NoUpdate);
    }
    m_view->verticalScrollBar()->setValue(scroll);
    if (auto error = m_model->filterError())
        showFilterError(error->text());
    updateCounts();
    updateSelection();
    Q_EMIT loaded(m_model->table().rowCount());
}

void LeaderboardWidget::applyFilterFromBar() {
    m_filterTimer->stop();
    setFilterText(m_filter->text());
}

bool LeaderboardWidget::setFilterText(const QString& text) {
    if (m_filter->text() != text) {
        const QSignalBlocker block(m_filter);
        m_filter->setText(text);
    }
    m_filterTimer->stop();
    if (auto error = m_model->setFilter(text)) {
        showFilterError(error->text());
        return false;
    }
    showFilterError({});
    updateSelection();
    return true;
}

void LeaderboardWidget::showFilterError(const QString& message) {
    m_filterError->setText(message);
    m_filterError->setVisible(!message.isEmpty());
    m_filter->setStyleSheet(message.isEmpty()
                                ? QString()
                                : QStringLiteral("QLineEdit { border: 1px solid %1; "
                                                 "border-radius: 3px; padding: 1px 2px; }")
                                      .arg(kErrorColor));
}

void LeaderboardWidget::setScope(const QString& experiment, const QString& trial) {
    if (experiment == m_model->scopeExperiment() && trial == m_model->scopeTrial())
        return;
    m_model->setScope(experiment, trial);
    updateScopeLabel();
    updateSelection();
    Q_EMIT scopeChanged(experiment, trial);
}

void LeaderboardWidget::updateScopeLabel() {
    const QString experiment = m_model->scopeExperiment();
    const QString trial = m_model->scopeTrial();
    QString text = QStringLiteral("<span style=\"color:#8c959f\">Jobs in</span> ");
    if (experiment.isEmpty())
        text += QStringLiteral("<b>all experiments</b>");
    else
        text += QStringLiteral("<b>") + experiment.toHtmlEscaped() + QStringLiteral("</b>");
    if (!trial.isEmpty())
        text += QStringLiteral(" › <b>") + trial.toHtmlEscaped() + QStringLiteral("</b>");
    m_scope->setText(text);
    m_clearScope->setVisible(!experiment.isEmpty());
}

void LeaderboardWidget::updateCounts() {
    if (!m_loadError.isEmpty()) {
        m_counts->setText(QStringLiteral("<span style=\"color:%1\">Could not read the store: "
                                         "%2</span>")
                              .arg(kErrorColor, m_loadError.toHtmlEscaped()));
        return;
    }
    if (m_firstLoad) {
        m_counts->setText(QStringLiteral("Loading…"));
        return;
    }
    const int shown = m_model->rowCount();
    const int scoped = m_model->scopedCount();
    m_counts->setText(shown == scoped
                          ? QStringLiteral("%1 %2").arg(scoped).arg(
                                scoped == 1 ? QStringLiteral("job") : QStringLiteral("jobs"))
                          : QStringLiteral("%1 of %2 jobs").arg(shown).arg(scoped));
    if (shown == 0) {
        m_empty->setText(m_model->table().rowCount() == 0
                             ? QStringLiteral("No jobs yet.\nLaunch a training job and it "
                                              "appears here.")
                         : scoped == 0 ? QStringLiteral("No jobs in this scope.")
                                       : QStringLiteral("No jobs match the filter."));
        placeEmptyLabel();
    }
    m_empty->setVisible(shown == 0);
}

void LeaderboardWidget::placeEmptyLabel() {
    m_empty->setGeometry(m_view->viewport()->rect());
}

bool LeaderboardWidget::eventFilter(QObject* watched, QEvent* event) {
    if (watched == m_view->viewport() && event->type() == QEvent::Resize)
        placeEmptyLabel();
    return QWidget::eventFilter(watched, event);
}

QList<qint64> LeaderboardWidget::selectedComponentIds() const {
    QModelIndexList rows = m_view->selectionModel()->selectedRows();
    std::sort(rows.begin(), rows.end(),
              [](const QModelIndex& a, const QModelIndex& b) { return a.row() < b.row(); });
    QList<qint64> ids;
    ids.reserve(rows.size());
    for (const QModelIndex& i : rows)
        ids.push_back(m_model->componentId(i.row()));
    return ids;
}

void LeaderboardWidget::selectComponent(qint64 componentId) {
    const int row = m_model->rowOfComponent(componentId);
    if (row < 0)
        return;
    const QModelIndex index = m_model->index(row, 0);
    m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                         QItemSelectionModel::Rows);
    m_view->scrollTo(index, QAbstractItemView::PositionAtCenter);
}

void LeaderboardWidget::updateSelection() {
    const QList<qint64> ids = selectedComponentIds();
    const auto n = ids.size();
    m_compare->setEnabled(n >= 2 && n <= kMaxCompare);
    m_compare->setText(n >= 2 ? QStringLiteral("Compare %1").arg(n) : QStringLiteral("Compare"));
    const models::LeaderboardRow* row = nullptr;
    if (n == 1) {
        const int r = m_model->table().rowOf(ids.front());
        if (r >= 0)
            row = &m_model->table().rows[static_cast<std::size_t>(r)];
    }
    m_details->showJob(row, static_cast<int>(n));
    // The side panel opens for one job: the table keeps the width otherwise.
    m_details->setVisible(m_detailsToggle->isChecked() && row);
}

void LeaderboardWidget::setColumnVisible(const QString& title, bool visible) {
    m_layout->setVisible(title, visible);
}

bool LeaderboardWidget::isColumnVisible(const QString& title) const {
    return m_layout->isVisible(title);
}

bool LeaderboardWidget::exportCsv(const QString& path, QString* error) const {
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) ||
        file.write(m_model->toCsv(m_layout->shownInOrder()).toUtf8()) < 0 || !file.commit()) {
        if (error)
            *error = QStringLiteral("cannot write %1: %2").arg(path, file.errorString());
        return false;
    }
    return true;
}

void LeaderboardWidget::exportCsvWithDialog() {
    const QString path = QFileDialog::getSaveFileName(
        this, QStringLiteral("Export leaderboard"), QStringLiteral("leaderboard.csv"),
        QStringLiteral("CSV files (*.csv);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportCsv(path, &error))
        QMessageBox::warning(this, QStringLiteral("Export leaderboard"), error);
}

void LeaderboardWidget::showContextMenu(const QPoint& pos) {
    const QModelIndex index = m_view->indexAt(pos);
    if (!index.isValid())
        return;
    if (!m_view->selectionModel()->isRowSelected(index.row(), {}))
        m_view->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                             QItemSelectionModel::Rows);
    const QString name = index.data(models::LeaderboardModel::JobNameRole).toString();
    const QList<qint64> ids = selectedComponentIds();

    QMenu menu(this);
    QAction* open = menu.addAction(QStringLiteral("Open"));
    menu.setDefaultAction(open);
    connect(open, &QAction::triggered, this, [this, name] { Q_EMIT openJobRequested(name); });
    QAction* clone = menu.addAction(QStringLiteral("Clone and edit"));
    connect(clone, &QAction::triggered, this, [this, name] { Q_EMIT cloneRequested(name); });
    QAction* insights = menu.addAction(tr("Open Debugger for insights"));
    connect(insights, &QAction::triggered, this, [this, name] { Q_EMIT insightsRequested(name); });
    QAction* compare = menu.addAction(QStringLiteral("Compare %1 selected").arg(ids.size()));
    compare->setEnabled(ids.size() >= 2 && ids.size() <= kMaxCompare);
    connect(compare, &QAction::triggered, this, [this, ids] { Q_EMIT compareRequested(ids); });
    menu.addSeparator();

    const auto& column = m_model->table().columns[static_cast<std::size_t>(index.column())];
    const QVariant value = index.data(models::LeaderboardModel::ValueRole);
    if (value.isValid()) {
        const QString clause = value.typeId() == QMetaType::Double
                                   ? models::equalsClause(column.title, value.toDouble())
                                   : models::equalsClause(column.title, value.toString());
        QAction* filter = menu.addAction(QStringLiteral("Filter: %1").arg(clause));
        connect(filter, &QAction::triggered, this, [this, clause] {
            setFilterText(models::andClause(m_model->filterText(), clause));
        });
    }
    if (index.column() != 0) {
        QAction* hide = menu.addAction(QStringLiteral("Hide column \"%1\"").arg(column.title));
        const QString title = column.title;
        connect(hide, &QAction::triggered, this, [this, title] { setColumnVisible(title, false); });
    }
    QAction* copy = menu.addAction(QStringLiteral("Copy job name"));
    connect(copy, &QAction::triggered, this, [name] { QApplication::clipboard()->setText(name); });
    menu.exec(m_view->viewport()->mapToGlobal(pos));
}

void LeaderboardWidget::saveAnnotations(qint64 id, const QMap<QString, QString>& tags,
                                        const QString& notes) {
    if (!m_writer)
        return;
    const int row = m_model->table().rowOf(id);
    if (row < 0)
        return;
    const models::LeaderboardRow old = m_model->table().rows[static_cast<std::size_t>(row)];
    for (auto it = old.tags.constBegin(); it != old.tags.constEnd(); ++it)
        if (!tags.contains(it.key()))
            m_writer->removeTag(id, it.key().toStdString());
    for (auto it = tags.constBegin(); it != tags.constEnd(); ++it)
        if (!old.tags.contains(it.key()) || old.tags.value(it.key()) != it.value())
            m_writer->setTag(id, it.key().toStdString(), it.value().toStdString());
    if (notes != old.notes)
        m_writer->setNotes(id, notes.toStdString());
    m_model->setAnnotations(id, tags, notes);
}

} // namespace studio::widgets

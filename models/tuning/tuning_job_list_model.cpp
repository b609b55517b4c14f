#include "models/tuning/tuning_job_list_model.h"

#include "models/common/status_style.h"
#include "models/data/data_service.h"

namespace studio::models {

namespace {

QString qs(const std::string& s) {
    return QString::fromStdString(s);
}

int ended(const store::TuningCounters& c) {
    return c.completed + c.stoppedEarly + c.stopped + c.failed;
}

} // namespace

QString tuningJobsText(const store::TuningCounters& c, int maxJobs) {
    QString text = QString::number(ended(c)) + QStringLiteral(" / ") + QString::number(maxJobs);
    if (c.inProgress > 0)
        text += QStringLiteral(" (+") + QString::number(c.inProgress) + QLatin1Char(')');
    return text;
}

QString objectiveText(std::optional<double> value) {
    return value ? QString::number(*value, 'g', 5) : QStringLiteral("-");
}

TuningJobListModel::TuningJobListModel(DataService* data, QObject* parent)
    : QAbstractTableModel(parent)
    , m_service(data) {
    m_coalesce.setSingleShot(true);
    m_coalesce.setInterval(300);
    connect(&m_coalesce, &QTimer::timeout, this, &TuningJobListModel::load);
    connect(m_service, &DataService::jobsChanged, this, &TuningJobListModel::refresh);
    load();
}

int TuningJobListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int TuningJobListModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TuningJobListModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const store::TuningJobRow& r = row(index.row());
    const QString status = qs(r.status);
    switch (role) {
    case NameRole:
        return qs(r.name);
    case StatusRole:
        return status;
    case Qt::ToolTipRole:
        return tr("%1\n%2 · %3, %4 %5\nbest: %6 (%7)")
            .arg(qs(r.name), status, qs(r.strategy), qs(r.objectiveType), qs(r.objectiveName),
                 objectiveText(r.bestObjective), r.bestJob.empty() ? tr("none") : qs(r.bestJob));
    default:
        break;
    }
    switch (index.column()) {
    case NameColumn:
        if (role == Qt::DisplayRole || role == SortRole)
            return qs(r.name);
        if (role == Qt::DecorationRole)
            return statusIcon(status);
        break;
    case StatusColumn:
        if (role == Qt::DisplayRole || role == SortRole)
            return status;
        if (role == Qt::ForegroundRole)
            return statusColor(status);
        break;
    case StrategyColumn:
        if (role == Qt::DisplayRole || role == SortRole)
            return qs(r.strategy);
        break;
    case JobsColumn:
        if (role == Qt::DisplayRole)
            return tuningJobsText(r.counters, r.maxJobs);
        if (role == SortRole)
            return ended(r.counters);
        if (role == Qt::TextAlignmentRole)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    case BestColumn:
        if (role == Qt::DisplayRole)
            return objectiveText(r.bestObjective);
        if (role == SortRole)
            return r.bestObjective ? QVariant(*r.bestObjective) : QVariant();
        if (role == Qt::TextAlignmentRole)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    default:
        break;
    }
    return {};
}

QVariant TuningJobListModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Tuning job");
    case StatusColumn:
        return tr("Status");
    case StrategyColumn:
        return tr("Strategy");
    case JobsColumn:
        return tr("Jobs");
    case BestColumn:
        return tr("Best");
    default:
        return {};
    }
}

void TuningJobListModel::refresh() {
    if (!m_coalesce.isActive())
        m_coalesce.start();
}

void TuningJobListModel::load() {
    m_service->tuningJobs(
        m_task, [this](std::vector<store::TuningJobRow> rows) { setRows(std::move(rows)); },
        [this](const QString&) { Q_EMIT loaded(); });
}

void TuningJobListModel::setRows(std::vector<store::TuningJobRow> rows) {
    // The same tuning jobs in the same order (the usual reload): rows change in place so that
    // views keep their selection.
    bool same = rows.size() == m_rows.size();
    for (std::size_t i = 0; same && i < rows.size(); ++i)
        same = rows[i].id == m_rows[i].id;
    if (same) {
        m_rows = std::move(rows);
        if (!m_rows.empty())
            Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    } else {
        beginResetModel();
        m_rows = std::move(rows);
        endResetModel();
    }
    Q_EMIT loaded();
}

int TuningJobListModel::rowOf(const QString& name) const {
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (qs(m_rows[i].name) == name)
            return int(i);
    return -1;
}

void TuningJobListModel::applyProgress(const QString& name, const QString& status,
                                       const store::TuningCounters& counters,
                                       std::optional<double> best, const QString& bestJob) {
    const int r = rowOf(name);
    if (r < 0) {
        refresh();
        return;
    }
    store::TuningJobRow& row = m_rows[std::size_t(r)];
    const bool ended = row.status == "InProgress" && status != QLatin1String("InProgress");
    row.status = status.toStdString();
    row.counters = counters;
    row.bestObjective = best;
    row.bestJob = bestJob.toStdString();
    Q_EMIT dataChanged(index(r, 0), index(r, ColumnCount - 1));
    if (ended)
        refresh(); // the end time and message come from the store
}

} // namespace studio::models

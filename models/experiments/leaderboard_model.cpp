#include "models/experiments/leaderboard_model.h"

#include "models/common/status_style.h"
#include "models/experiments/leaderboard_format.h"

#include <QColor>
#include <QDateTime>
#include <QIcon>
#include <QThread>

#include <cmath>
#include <limits>

namespace studio::models {

namespace {

QString groupName(ColumnGroup g) {
    switch (g) {
    case ColumnGroup::Job:
        return QStringLiteral("Job");
    case ColumnGroup::Parameters:
        return QStringLiteral("Parameters");
    case ColumnGroup::Metrics:
        return QStringLiteral("Metrics");
    }
    return {};
}

bool sameColumns(const LeaderboardTable& a, const LeaderboardTable& b) {
    if (a.columns.size() != b.columns.size())
        return false;
    for (std::size_t i = 0; i < a.columns.size(); ++i)
        if (a.columns[i].title != b.columns[i].title ||
            a.columns[i].numeric != b.columns[i].numeric)
            return false;
    return true;
}

} // namespace

LeaderboardModel::LeaderboardModel(QObject* parent)
    : QAbstractTableModel(parent) {
}

int LeaderboardModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int LeaderboardModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : m_table.columnCount();
}

Qt::ItemFlags LeaderboardModel::flags(const QModelIndex& index) const {
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
}

QString LeaderboardModel::displayText(int column, int row) const {
    const auto& c = m_table.columns[static_cast<std::size_t>(column)];
    const auto r = static_cast<std::size_t>(row);
    switch (c.cellClass[r]) {
    case CellClass::Missing:
        return {};
    case CellClass::NotANumber:
        return QStringLiteral("NaN");
    case CellClass::Text:
        return c.text[r];
    case CellClass::Number:
        break;
    }
    const double v = c.sortValue[r];
    switch (c.kind) {
    case ColumnKind::Created: // minutes are enough in a table; the tooltip has seconds
        return QDateTime::fromMSecsSinceEpoch(static_cast<qint64>(v * 1000))
            .toString(QStringLiteral("yyyy-MM-dd HH:mm"));
    case ColumnKind::Duration:
        return formatDuration(v);
    default:
        return formatCompactNumber(v);
    }
}

QVariant LeaderboardModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount())
        return {};
    const int row = m_rows[static_cast<std::size_t>(index.row())];
    const int column = index.column();
    const auto& c = m_table.columns[static_cast<std::size_t>(column)];
    const auto& r = m_table.rows[static_cast<std::size_t>(row)];
    const CellClass cls = c.cellClass[static_cast<std::size_t>(row)];
    switch (role) {
    case Qt::DisplayRole:
        return displayText(column, row);
    case Qt::EditRole:
    case ValueRole:
        if (cls == CellClass::Text)
            return c.text[static_cast<std::size_t>(row)];
        if (cls == CellClass::Number)
            return c.sortValue[static_cast<std::size_t>(row)];
        if (cls == CellClass::NotANumber)
            return std::numeric_limits<double>::quiet_NaN();
        return {};
    case Qt::DecorationRole:
        if (c.kind == ColumnKind::Status && cls == CellClass::Text)
            return statusIcon(r.status);
        return {};
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(c.numeric ? Qt::AlignRight | Qt::AlignVCenter
                                             : Qt::AlignLeft | Qt::AlignVCenter);
    case Qt::ForegroundRole:
        if (cls == CellClass::NotANumber)
            return mutedColor();
        return {};
    case Qt::ToolTipRole:
        switch (c.kind) {
        case ColumnKind::Name:
            return QString(r.experiment + QStringLiteral(" › ") + r.trial + QStringLiteral(" › ") +
                           r.name);
        case ColumnKind::Status: {
            QString tip = r.status;
            if (!r.secondaryStatus.isEmpty())
                tip += QStringLiteral(" (") + r.secondaryStatus + QLatin1Char(')');
            if (!r.failureReason.isEmpty())
                tip += QLatin1Char('\n') + r.failureReason;
            return tip;
        }
        case ColumnKind::Created:
            return cls == CellClass::Number ? formatTime(c.sortValue[static_cast<std::size_t>(row)])
                                            : QString();
        case ColumnKind::Duration:
            return displayText(column, row);
        default:
            if (cls == CellClass::Number)
                return QString(c.title + QStringLiteral(": ") +
                               formatExactNumber(c.sortValue[static_cast<std::size_t>(row)]));
            if (cls == CellClass::Text)
                return c.text[static_cast<std::size_t>(row)];
            return {};
        }
        return {};
    case ComponentIdRole:
        return r.id;
    case JobNameRole:
        return r.name;
    case StatusRole:
        return r.status;
    case SortKeyRole:
        if (cls == CellClass::Number || cls == CellClass::Text)
            return c.sortValue[static_cast<std::size_t>(row)];
        return std::numeric_limits<double>::quiet_NaN();
    case ColumnGroupRole:
        return static_cast<int>(c.group);
    case ColumnKindRole:
        return static_cast<int>(c.kind);
    default:
        return {};
    }
}

QVariant LeaderboardModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation == Qt::Vertical) {
        if (role == Qt::DisplayRole && section >= 0 && section < rowCount())
            return section + 1;
        return {};
    }
    if (section < 0 || section >= columnCount())
        return {};
    const auto& c = m_table.columns[static_cast<std::size_t>(section)];
    switch (role) {
    case Qt::DisplayRole:
        // Two lines for every header, the title on the second: a metric's name over its
        // statistic keeps its columns narrow.
        if (c.kind == ColumnKind::Metric)
            return QString(c.key + QLatin1Char('\n') + c.statistic);
        return QString(QLatin1Char('\n') + c.title);
    case Qt::ToolTipRole:
        return QString(groupName(c.group) + QStringLiteral(": ") + c.title +
                       QStringLiteral("\nFilter with: \"") + c.title +
                       QStringLiteral("\" > value"));
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(c.numeric ? Qt::AlignRight | Qt::AlignVCenter
                                             : Qt::AlignLeft | Qt::AlignVCenter);
    case ColumnGroupRole:
        return static_cast<int>(c.group);
    case ColumnKindRole:
        return static_cast<int>(c.kind);
    case ColumnTitleRole:
        return c.title;
    default:
        return {};
    }
}

void LeaderboardModel::sort(int column, Qt::SortOrder order) {
    Q_ASSERT(QThread::currentThread() == thread());
    if (column >= columnCount())
        return;
    m_sortColumn = column;
    m_sortOrder = order;
    m_sortTitle = column >= 0 ? m_table.columns[static_cast<std::size_t>(column)].title : QString();
    if (m_rows.empty())
        return;
    Q_EMIT layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
    const QModelIndexList before = persistentIndexList();
    std::vector<int> tableRows;
    tableRows.reserve(static_cast<std::size_t>(before.size()));
    for (const QModelIndex& i : before)
        tableRows.push_back(m_rows[static_cast<std::size_t>(i.row())]);
    if (column < 0)
        std::sort(m_rows.begin(), m_rows.end());
    else
        m_table.sortRows(m_rows, column, order);
    if (!before.isEmpty()) {
        std::vector<int> position(m_table.rows.size(), -1);
        for (std::size_t i = 0; i < m_rows.size(); ++i)
            position[static_cast<std::size_t>(m_rows[i])] = static_cast<int>(i);
        QModelIndexList after;
        after.reserve(before.size());
        for (qsizetype i = 0; i < before.size(); ++i)
            after.push_back(
                index(position[static_cast<std::size_t>(tableRows[static_cast<std::size_t>(i)])],
                      before[i].column()));
        changePersistentIndexList(before, after);
    }
    Q_EMIT layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

std::vector<int> LeaderboardModel::selectRows(int& scoped) const {
    std::vector<int> out;
    out.reserve(m_table.rows.size());
    const bool filtered = !m_query.matchesAll();
    scoped = 0;
    for (int r = 0; r < m_table.rowCount(); ++r) {
        const auto& row = m_table.rows[static_cast<std::size_t>(r)];
        if (!m_scopeExperiment.isEmpty() && row.experiment != m_scopeExperiment)
            continue;
        if (!m_scopeTrial.isEmpty() && row.trial != m_scopeTrial)
            continue;
        ++scoped;
        if (filtered && !m_query.matches([&](int f) { return m_table.queryValue(f, r); }))
            continue;
        out.push_back(r);
    }
    if (m_sortColumn >= 0)
        m_table.sortRows(out, m_sortColumn, m_sortOrder);
    return out;
}

void LeaderboardModel::replaceRows(std::vector<int> rows) {
    // Remove and insert instead of a reset: the header keeps its sizes, order and hidden
    // sections, and the view only relayouts rows.
    if (!m_rows.empty()) {
        beginRemoveRows({}, 0, static_cast<int>(m_rows.size()) - 1);
        m_rows.clear();
        endRemoveRows();
    }
    if (!rows.empty()) {
        beginInsertRows({}, 0, static_cast<int>(rows.size()) - 1);
        m_rows = std::move(rows);
        endInsertRows();
    }
    Q_EMIT countsChanged(static_cast<int>(m_rows.size()), m_scoped);
}

std::optional<QueryError> LeaderboardModel::compileFilter() {
    auto result = LeaderboardQuery::compile(m_filterText, m_table.queryFields());
    if (!result.ok())
        return result.error;
    m_query = result.query;
    return std::nullopt;
}

void LeaderboardModel::setTable(LeaderboardTable table) {
    Q_ASSERT(QThread::currentThread() == thread());
    const bool keepColumns = sameColumns(m_table, table);
    if (!keepColumns)
        beginResetModel();
    else if (!m_rows.empty()) {
        beginRemoveRows({}, 0, static_cast<int>(m_rows.size()) - 1);
        m_rows.clear();
        endRemoveRows();
    }
    m_table = std::move(table);
    m_sortColumn = m_sortTitle.isEmpty() ? -1 : m_table.columnOf(m_sortTitle);
    m_filterError.reset();
    if (auto error = compileFilter()) {
        m_filterError = error;
        m_query = LeaderboardQuery();
    }
    if (!keepColumns) {
        m_rows = selectRows(m_scoped);
        endResetModel();
        Q_EMIT countsChanged(static_cast<int>(m_rows.size()), m_scoped);
    } else {
        replaceRows(selectRows(m_scoped));
    }
}

void LeaderboardModel::setScope(const QString& experiment, const QString& trial) {
    if (experiment == m_scopeExperiment && trial == m_scopeTrial)
        return;
    m_scopeExperiment = experiment;
    m_scopeTrial = trial;
    replaceRows(selectRows(m_scoped));
}

std::optional<QueryError> LeaderboardModel::setFilter(const QString& text) {
    const QString previous = m_filterText;
    m_filterText = text.trimmed();
    if (auto error = compileFilter()) {
        m_filterText = previous;
        return error;
    }
    m_filterError.reset();
    replaceRows(selectRows(m_scoped));
    return std::nullopt;
}

int LeaderboardModel::rowOfComponent(qint64 id) const {
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_table.rows[static_cast<std::size_t>(m_rows[i])].id == id)
            return static_cast<int>(i);
    return -1;
}

qint64 LeaderboardModel::componentId(int row) const {
    return m_table.rows[static_cast<std::size_t>(m_rows[static_cast<std::size_t>(row)])].id;
}

void LeaderboardModel::setAnnotations(qint64 id, const QMap<QString, QString>& tags,
                                      const QString& notes) {
    const int row = m_table.rowOf(id);
    if (row < 0)
        return;
    m_table.setAnnotations(row, tags, notes);
    const int shown = rowOfComponent(id);
    if (shown >= 0)
        Q_EMIT dataChanged(index(shown, 0), index(shown, columnCount() - 1));
}

QString LeaderboardModel::toCsv(const QList<int>& columns) const {
    QString out;
    QStringList fields;
    for (int c : columns)
        fields.push_back(csvField(m_table.columns[static_cast<std::size_t>(c)].title));
    out += fields.join(QLatin1Char(',')) + QStringLiteral("\r\n");
    for (int row : m_rows) {
        fields.clear();
        for (int column : columns) {
            const auto& c = m_table.columns[static_cast<std::size_t>(column)];
            const auto r = static_cast<std::size_t>(row);
            QString text;
            switch (c.cellClass[r]) {
            case CellClass::Missing:
                break;
            case CellClass::NotANumber:
                text = QStringLiteral("NaN");
                break;
            case CellClass::Text:
                text = c.text[r];
                break;
            case CellClass::Number:
                text = c.kind == ColumnKind::Created ? formatTime(c.sortValue[r])
                                                     : formatExactNumber(c.sortValue[r]);
                break;
            }
            fields.push_back(csvField(text));
        }
        out += fields.join(QLatin1Char(',')) + QStringLiteral("\r\n");
    }
    return out;
}

} // namespace studio::models

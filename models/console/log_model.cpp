#include "models/console/log_model.h"

#include "models/common/status_style.h"

#include <QBrush>
#include <QFile>
#include <QFontDatabase>
#include <QTextStream>

#include <algorithm>

namespace studio::models {

LogModel::LogModel(int maxLines, QObject* parent)
    : QAbstractListModel(parent)
    , m_maxLines(std::max(1, maxLines)) {
}

int LogModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_lines.size());
}

QString LogModel::tagged(const LiveLogLine& l) {
    const QString rank = l.rank < 0 ? QStringLiteral("-") : QString::number(l.rank);
    return QLatin1Char('[') + QString::number(l.node) + QLatin1Char(',') + rank +
           QStringLiteral("]<") + l.stream + QStringLiteral(">:") + l.text;
}

QVariant LogModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() < 0 || index.row() >= rowCount())
        return {};
    const LiveLogLine& l = line(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return tagged(l);
    case Qt::ToolTipRole:
        return QString(l.job + QStringLiteral("  ") + formatTime(l.time));
    case Qt::ForegroundRole:
        if (l.stream == QLatin1String("stderr"))
            return QBrush(statusColor(QStringLiteral("Failed")));
        if (l.rank < 0 || l.stream == QLatin1String("events"))
            return QBrush(mutedColor());
        return {};
    case Qt::FontRole:
        return QFontDatabase::systemFont(QFontDatabase::FixedFont);
    case JobRole:
        return l.job;
    case NodeRole:
        return l.node;
    case RankRole:
        return l.rank;
    case StreamRole:
        return l.stream;
    case TextRole:
        return l.text;
    case TimeRole:
        return l.time;
    default:
        return {};
    }
}

QHash<int, QByteArray> LogModel::roleNames() const {
    auto names = QAbstractListModel::roleNames();
    names.insert(JobRole, "job");
    names.insert(NodeRole, "node");
    names.insert(RankRole, "rank");
    names.insert(StreamRole, "stream");
    names.insert(TextRole, "text");
    names.insert(TimeRole, "time");
    return names;
}

void LogModel::append(const QList<LiveLogLine>& lines) {
    if (lines.isEmpty())
        return;
    // Only the newest maxLines of the batch can stay.
    const int skip = std::max<int>(0, static_cast<int>(lines.size()) - m_maxLines);
    const int incoming = static_cast<int>(lines.size()) - skip;
    const int overflow = static_cast<int>(m_lines.size()) + incoming - m_maxLines;
    if (overflow > 0) {
        beginRemoveRows({}, 0, overflow - 1);
        m_lines.erase(m_lines.begin(), m_lines.begin() + overflow);
        endRemoveRows();
    }
    bool grew = false;
    const int first = static_cast<int>(m_lines.size());
    beginInsertRows({}, first, first + incoming - 1);
    for (int i = skip; i < lines.size(); ++i) {
        const LiveLogLine& l = lines[i];
        if (!m_jobs.contains(l.job) || !m_nodes.contains(l.node) || !m_ranks.contains(l.rank)) {
            m_jobs.insert(l.job);
            m_nodes.insert(l.node);
            m_ranks.insert(l.rank);
            grew = true;
        }
        m_lines.push_back(l);
    }
    endInsertRows();
    if (grew)
        Q_EMIT sourcesChanged();
}

void LogModel::clear() {
    beginResetModel();
    m_lines.clear();
    endResetModel();
}

QStringList LogModel::jobs() const {
    QStringList out(m_jobs.begin(), m_jobs.end());
    out.sort();
    return out;
}

QList<int> LogModel::nodes() const {
    QList<int> out(m_nodes.begin(), m_nodes.end());
    std::sort(out.begin(), out.end());
    return out;
}

QList<int> LogModel::ranks() const {
    QList<int> out(m_ranks.begin(), m_ranks.end());
    std::sort(out.begin(), out.end());
    return out;
}

QList<LiveLogLine> LogModel::readLogFile(const QString& path, const QString& job, int node,
                                         int rank) {
    QList<LiveLogLine> out;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return out;
    QTextStream in(&file);
    QString raw;
    while (in.readLineInto(&raw)) {
        LiveLogLine l{job, node, rank, QStringLiteral("stdout"), raw, 0};
        const qsizetype a = raw.indexOf(QLatin1Char(' '));
        const qsizetype b = a < 0 ? -1 : raw.indexOf(QLatin1Char(' '), a + 1);
        bool ok = false;
        const double t = a > 0 ? raw.left(a).toDouble(&ok) : 0;
        if (ok && b > a) {
            const QString stream = raw.mid(a + 1, b - a - 1);
            if (stream == QLatin1String("stdout") || stream == QLatin1String("stderr") ||
                stream == QLatin1String("events")) {
                l.time = t;
                l.stream = stream;
                l.text = raw.mid(b + 1);
            }
        }
        out.append(std::move(l));
    }
    return out;
}

LogFilterProxy::LogFilterProxy(QObject* parent)
    : QSortFilterProxyModel(parent) {
    setDynamicSortFilter(true);
}

void LogFilterProxy::setJob(const QString& job) {
    m_job = job;
    invalidateFilter();
}

void LogFilterProxy::setNode(int node) {
    m_node = node;
    invalidateFilter();
}

void LogFilterProxy::setRank(int rank) {
    m_rank = rank;
    invalidateFilter();
}

void LogFilterProxy::setStreamShown(const QString& stream, bool shown) {
    if (shown)
        m_hiddenStreams.remove(stream);
    else
        m_hiddenStreams.insert(stream);
    invalidateFilter();
}

void LogFilterProxy::setText(const QString& text) {
    m_text = text;
    invalidateFilter();
}

bool LogFilterProxy::filterAcceptsRow(int row, const QModelIndex& parent) const {
    const auto* model = qobject_cast<const LogModel*>(sourceModel());
    if (!model || parent.isValid())
        return false;
    const LiveLogLine& l = model->line(row);
    if (!m_job.isEmpty() && l.job != m_job)
        return false;
    if (m_node >= 0 && l.node != m_node)
        return false;
    if (m_rank >= -1 && l.rank != m_rank)
        return false;
    if (m_hiddenStreams.contains(l.stream))
        return false;
    return m_text.isEmpty() || l.text.contains(m_text, Qt::CaseInsensitive);
}

} // namespace studio::models

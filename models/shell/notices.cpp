#include "models/shell/notices.h"

#include <QDateTime>
#include <QLocale>

namespace studio::models {

QString noticeKindName(NoticeKind kind) {
    switch (kind) {
    case NoticeKind::JobEnded:
        return QObject::tr("Jobs that end or are interrupted");
    case NoticeKind::RuleFired:
        return QObject::tr("Debugger rules that stop a job or notify");
    case NoticeKind::TuningBest:
        return QObject::tr("A tuning job's new best");
    }
    return {};
}

QString noticeKindKey(NoticeKind kind) {
    switch (kind) {
    case NoticeKind::JobEnded:
        return QStringLiteral("jobs");
    case NoticeKind::RuleFired:
        return QStringLiteral("rules");
    case NoticeKind::TuningBest:
        return QStringLiteral("tuning");
    }
    return {};
}

namespace {

QString ending(const QString& status) {
    if (status == QLatin1String("Completed"))
        return QObject::tr("completed");
    if (status == QLatin1String("Failed"))
        return QObject::tr("failed");
    if (status == QLatin1String("Stopped"))
        return QObject::tr("was stopped");
    return status;
}

bool ended(const QString& status) {
    return status == QLatin1String("Completed") || status == QLatin1String("Failed") ||
           status == QLatin1String("Stopped");
}

} // namespace

std::vector<Notice> NoticeFeed::fromBatch(const LiveBatch& batch) {
    std::vector<Notice> out;
    const QString rulePrefix = QStringLiteral("Stopped by rule ");
    for (const LiveStatus& s : batch.statuses) {
        const QString target = QStringLiteral("job:") + s.job;
        if (s.secondaryStatus == QLatin1String("Interrupted") &&
            s.status != QLatin1String("Failed") && !m_interrupted.contains(s.job)) {
            m_interrupted.insert(s.job);
            out.push_back({NoticeKind::JobEnded, QObject::tr("%1 was interrupted").arg(s.job),
                           s.message, target, QStringLiteral("Interrupted"), s.time});
        } else if (s.secondaryStatus != QLatin1String("Interrupted")) {
            m_interrupted.remove(s.job);
        }
        if (!ended(s.status) || m_ended.contains(s.job))
            continue;
        m_ended.insert(s.job);
        if (s.status == QLatin1String("Stopped") && s.message.startsWith(rulePrefix)) {
            const QString rule = s.message.mid(rulePrefix.size());
            out.push_back({NoticeKind::RuleFired,
                           QObject::tr("Rule %1 stopped %2").arg(rule, s.job), s.message, target,
                           s.status, s.time});
            continue;
        }
        out.push_back({NoticeKind::JobEnded, QStringLiteral("%1 %2").arg(s.job, ending(s.status)),
                       s.message, target, s.status, s.time});
    }
    for (const LiveNotification& n : batch.notifications)
        out.push_back({NoticeKind::RuleFired,
                       QObject::tr("Rule %1 on %2").arg(n.rule, n.job),
                       n.message,
                       QStringLiteral("job:") + n.job,
                       {},
                       n.time});
    return out;
}

std::optional<Notice> NoticeFeed::fromTuning(const QString& name, std::optional<double> best,
                                             const QString& bestJob, double time) {
    if (!best)
        return std::nullopt;
    const auto known = m_best.constFind(name);
    if (known != m_best.cend() && *known == *best)
        return std::nullopt;
    m_best.insert(name, *best);
    return Notice{NoticeKind::TuningBest,
                  QObject::tr("%1: new best %2").arg(name).arg(*best),
                  QObject::tr("by training job %1").arg(bestJob),
                  QStringLiteral("tuning:") + name,
                  {},
                  time};
}

NoticeListModel::NoticeListModel(QObject* parent)
    : QAbstractListModel(parent) {
}

void NoticeListModel::add(const Notice& notice) {
    if (static_cast<int>(m_notices.size()) >= kMax) {
        const int last = static_cast<int>(m_notices.size()) - 1;
        beginRemoveRows({}, last, last);
        m_notices.pop_back();
        endRemoveRows();
    }
    beginInsertRows({}, 0, 0);
    m_notices.insert(m_notices.begin(), notice);
    endInsertRows();
    m_unread = std::min(m_unread + 1, kMax);
    Q_EMIT unreadChanged(m_unread);
}

void NoticeListModel::clear() {
    beginResetModel();
    m_notices.clear();
    endResetModel();
    markRead();
}

void NoticeListModel::markRead() {
    if (m_unread == 0)
        return;
    m_unread = 0;
    Q_EMIT unreadChanged(0);
}

int NoticeListModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_notices.size());
}

QVariant NoticeListModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Notice& n = notice(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return n.title;
    case Qt::ToolTipRole:
    case BodyRole:
        return n.body;
    case Qt::AccessibleTextRole:
        return n.body.isEmpty() ? n.title : QString(n.title + QStringLiteral(": ") + n.body);
    case KindRole:
        return static_cast<int>(n.kind);
    case TargetRole:
        return n.target;
    case TimeRole:
        return QLocale().toString(QDateTime::fromMSecsSinceEpoch(qint64(n.time * 1000)).time(),
                                  QLocale::ShortFormat);
    case UrgentRole:
        return n.urgent();
    default:
        return {};
    }
}

} // namespace studio::models

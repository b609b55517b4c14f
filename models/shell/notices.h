// What the studio tells the user about without being asked: a job that ended (Completed,
// Failed, Stopped) or was interrupted (spot), a Debugger rule that fired (StopTraining stopped
// the job, or Notify), a tuning job's new best objective. NoticeFeed turns live batches and
// tuning progress into notices, each once; NoticeListModel is the status bar's list, newest
// first. GUI thread only.
#pragma once

#include "models/live/live_batch.h"

#include <QAbstractListModel>
#include <QHash>
#include <QSet>

#include <optional>
#include <vector>

namespace studio::models {

enum class NoticeKind { JobEnded, RuleFired, TuningBest };
constexpr int kNoticeKinds = 3;
QString noticeKindName(NoticeKind kind); // "Jobs that end", ... as settings show them
QString noticeKindKey(NoticeKind kind);  // "jobs", "rules", "tuning": the settings key

struct Notice {
    NoticeKind kind = NoticeKind::JobEnded;
    QString title;   // "fmnist-3 failed"
    QString body;    // the status message, the rule's finding, the new best
    QString target;  // what clicking opens: "job:<name>" or "tuning:<name>"
    QString status;  // the job's status for JobEnded ("Failed", "Interrupted", ...)
    double time = 0; // unix seconds
    bool urgent() const { return status == QLatin1String("Failed"); }
};

class NoticeFeed {
public:
    // Notices for the batch's job endings, interruptions and rule notifications. A job's ending
    // is told once even when the batch repeats its status.
    std::vector<Notice> fromBatch(const LiveBatch& batch);
    // A notice when the tuning job's best objective changed (its first best included).
    std::optional<Notice> fromTuning(const QString& name, std::optional<double> best,
                                     const QString& bestJob, double time);

private:
    QSet<QString> m_ended;       // jobs whose end was told
    QSet<QString> m_interrupted; // jobs interrupted now (told again after they resume)
    QHash<QString, double> m_best;
};

class NoticeListModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role { KindRole = Qt::UserRole + 1, BodyRole, TargetRole, TimeRole, UrgentRole };
    static constexpr int kMax = 200; // oldest notices go first

    explicit NoticeListModel(QObject* parent = nullptr);

    void add(const Notice& notice);
    void clear();
    const Notice& notice(int row) const { return m_notices[static_cast<std::size_t>(row)]; }
    int unread() const { return m_unread; }
    void markRead();

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;

Q_SIGNALS:
    void unreadChanged(int unread);

private:
    std::vector<Notice> m_notices; // newest first
    int m_unread = 0;
};

} // namespace studio::models

// The console's lines: a bounded list of rank-tagged log lines (live from the engine bridge, or
// read from a job's log files), and the proxy that filters them by job, node, rank, stream and
// text. GUI thread only.
#pragma once

#include "models/live/live_batch.h"

#include <QAbstractListModel>
#include <QSet>
#include <QSortFilterProxyModel>

#include <deque>

namespace studio::models {

class LogModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role {
        JobRole = Qt::UserRole + 1,
        NodeRole,
        RankRole,
        StreamRole,
        TextRole,
        TimeRole,
    };

    explicit LogModel(int maxLines = 200000, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QHash<int, QByteArray> roleNames() const override;

    // Appends in one insertion; drops the oldest lines beyond maxLines.
    void append(const QList<LiveLogLine>& lines);
    void clear();
    const LiveLogLine& line(int row) const { return m_lines[static_cast<std::size_t>(row)]; }
    int maxLines() const { return m_maxLines; }

    // "[0,1]<stderr>:text" as mpirun --tag-output writes it; the launcher is "[0,-]".
    static QString tagged(const LiveLogLine& l);

    // Reads a rank's log file as the controller writes it: "<unix time> <stream> <text>".
    // Lines that do not parse are kept as stdout text.
    static QList<LiveLogLine> readLogFile(const QString& path, const QString& job, int node,
                                          int rank);

Q_SIGNALS:
    // Jobs, nodes and ranks seen so far grew (for the filter choosers).
    void sourcesChanged();

private:
    std::deque<LiveLogLine> m_lines;
    int m_maxLines;
    QSet<QString> m_jobs;
    QSet<int> m_nodes;
    QSet<int> m_ranks;

public:
    QStringList jobs() const;
    QList<int> nodes() const;
    QList<int> ranks() const;
};

class LogFilterProxy : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit LogFilterProxy(QObject* parent = nullptr);

    void setJob(const QString& job); // "" = every job
    void setNode(int node);          // -1 = every node
    void setRank(int rank);          // -2 = every rank (-1 is the launcher)
    void setStreamShown(const QString& stream, bool shown);
    void setText(const QString& text); // case-insensitive substring; "" = all
    QString text() const { return m_text; }

protected:
    bool filterAcceptsRow(int row, const QModelIndex& parent) const override;

private:
    QString m_job;
    int m_node = -1;
    int m_rank = -2;
    QSet<QString> m_hiddenStreams;
    QString m_text;
};

} // namespace studio::models

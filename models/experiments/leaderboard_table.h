// The leaderboard as a plain value: one row per trial component (job), columns for the job,
// its parameters and its metric summaries ("<metric> - Last|Min|Max|Avg|StdDev|Count"), with
// sort keys computed once so that sorting any column only compares numbers. Built off the GUI
// thread by loadLeaderboardTable() through the data service's store readers, then handed to
// LeaderboardModel. A value: no shared state, safe to move between threads.
#pragma once

#include "models/experiments/leaderboard_query.h"

#include <QMap>
#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace studio::models {

class CancelFlag;
class ReaderPool;

enum class ColumnGroup { Job, Parameters, Metrics };
enum class ColumnKind {
    Name,
    Status,
    Experiment,
    Trial,
    Created,
    Duration,
    Instance,
    Tags,
    Parameter,
    Metric
};

// How a cell sorts: numbers, then text, then NaN, then missing; NaN and missing stay last
// whichever the direction.
enum class CellClass : quint8 { Number, Text, NotANumber, Missing };

struct LeaderboardColumn {
    QString title; // "Name", "lr", "eval:accuracy - Max": what filters name
    ColumnGroup group = ColumnGroup::Job;
    ColumnKind kind = ColumnKind::Name;
    QString key;          // the parameter or metric name
    QString statistic;    // metric columns: Last, Min, Max, Avg, StdDev or Count
    bool numeric = false; // every present cell is a number (right-aligned)

    // One entry per table row.
    std::vector<CellClass> cellClass;
    std::vector<double> sortValue; // Number: the number; Text: the text's rank in natural order
    std::vector<QString> text;     // Text cells; empty when no cell of the column is text
};

struct LeaderboardRow {
    qint64 id = 0;
    QString name;
    QString experiment;
    QString trial;
    QString status;
    QString secondaryStatus;
    QString failureReason;
    QString notes;
    QMap<QString, QString> tags;
};

struct LeaderboardTable {
    std::vector<LeaderboardColumn> columns;
    std::vector<LeaderboardRow> rows;
    QStringList tagKeys; // every tag key any row has, sorted

    int rowCount() const { return static_cast<int>(rows.size()); }
    int columnCount() const { return static_cast<int>(columns.size()); }
    int columnOf(const QString& title) const; // exact title; -1 when absent
    int rowOf(qint64 componentId) const;      // -1 when absent

    // Cell access; column and row in range.
    CellClass cellClass(int column, int row) const;
    double number(int column, int row) const; // NaN unless the cell is a number
    QString text(int column, int row) const;  // the raw text of a text cell, else ""

    // Names a filter may use: the column titles, "notes", then "tag.<key>" per tag key.
    QStringList queryFields() const;
    QueryValue queryValue(int field, int row) const;

    // Orders rows (table row indices) by column: numbers numerically, text in natural order,
    // NaN and missing last in both directions; ties keep table order.
    void sortRows(std::vector<int>& rows, int column, Qt::SortOrder order) const;

    // Replaces a row's tags and notes (after an edit), keeping the Tags column's sort keys.
    void setAnnotations(int row, const QMap<QString, QString>& tags, const QString& notes);
};

// Every component in the database with its parameters, metric summaries and tags, read by four
// of the pool's readers on four threads (the store's queries dominate the time). `now` (unix
// seconds) ends the duration of jobs still running. Throws std::runtime_error on store errors;
// returns early (a partial table) when cancel is raised.
LeaderboardTable loadLeaderboardTable(ReaderPool& readers, double now,
                                      const CancelFlag* cancel = nullptr);
// The same through readers of its own.
LeaderboardTable loadLeaderboardTable(const std::string& databasePath, double now,
                                      const CancelFlag* cancel = nullptr);

// Fills sort keys (ranks of text cells) of every column; loadLeaderboardTable() calls it, and
// so must code that builds a table by hand.
void computeSortKeys(LeaderboardTable& table);

} // namespace studio::models

// The leaderboard's filter language, compiled once and evaluated per row:
//   status = Completed and lr > 1e-3 and name ~ "ddp" and "eval:accuracy - Max" >= 0.9
// Comparisons `field op value` (ops = != < <= > >= ~ !~, ~ a case-insensitive substring), joined
// by and / or / not (also && || !) and parentheses. Fields are bare words or quoted names; values
// are numbers, bare words or quoted strings. Numbers compare numerically when both sides are
// numbers, everything else compares as case-insensitive text. Qt Core only; no I/O.
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <optional>

namespace studio::models {

// One field's value in one row, as the evaluator reads it.
struct QueryValue {
    bool present = false; // false: the row has nothing here (missing parameter, metric, tag)
    double number = std::numeric_limits<double>::quiet_NaN(); // NaN when not a number
    QString text;                                             // also set for numbers (~ reads it)
};

struct QueryError {
    int position = 1; // 1-based character position in the query text
    QString message;  // "expected a value after '>'"

    QString text() const; // "at 14: expected a value after '>'"
};

class LeaderboardQuery {
public:
    struct Result;

    // fields: the names a query may use, matched case-insensitively (the first match wins).
    // A "tag.<key>" name not among them is accepted and reads as missing (no row has that tag).
    // Blank text compiles to a query that matches every row.
    static Result compile(const QString& text, const QStringList& fields);

    LeaderboardQuery(); // matches every row
    bool matchesAll() const { return !m_root; }
    // valueOf(i) is the row's value of fields[i]; i is -1 for a tag no row has.
    bool matches(const std::function<QueryValue(int field)>& valueOf) const;
    // Indices into fields that the query reads, each once.
    QList<int> fieldsRead() const;

    struct Node;

private:
    std::shared_ptr<const Node> m_root;
};

struct LeaderboardQuery::Result {
    LeaderboardQuery query; // matches everything when error is set
    std::optional<QueryError> error;
    bool ok() const { return !error; }
};

// Writing queries ("Filter by this value"): a name or text bare when it is one plain word, else
// quoted with escapes; `field = value` with numbers in full precision; a clause and-ed onto a
// filter, which is parenthesized when it has an `or`.
QString quoteForQuery(const QString& text);
QString equalsClause(const QString& field, double number);
QString equalsClause(const QString& field, const QString& text);
QString andClause(const QString& filter, const QString& clause);

// The closest of candidates to name (case-insensitive edit distance, or containment), for
// "did you mean" hints; "" when none is close.
QString closestName(const QString& name, const QStringList& candidates);

} // namespace studio::models

#include "models/experiments/leaderboard_table.h"

#include "engine/store/store_reader.h"
#include "models/common/background_task.h"
#include "models/common/status_style.h"
#include "models/data/reader_pool.h"
#include "models/experiments/leaderboard_format.h"

#include <QHash>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <future>
#include <limits>
#include <set>
#include <unordered_map>

namespace studio::models {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

const char* const kStatistics[] = {"Last", "Min", "Max", "Avg", "StdDev", "Count"};

// A summary's statistic as SageMaker's analytics reports it; NaN for "no value".
double statistic(const store::MetricSummary& s, int which, bool& present) {
    present = true;
    if (which == 5)
        return static_cast<double>(s.count);
    if (s.count == 0) {
        present = false;
        return kNaN;
    }
    if (which == 0)
        return s.last;
    if (!s.hasFinite()) {
        present = false;
        return kNaN;
    }
    switch (which) {
    case 1:
        return s.min;
    case 2:
        return s.max;
    case 3:
        return s.average();
    default:
        return s.stddev();
    }
}

LeaderboardColumn makeColumn(const QString& title, ColumnGroup group, ColumnKind kind,
                             std::size_t rows) {
    LeaderboardColumn c;
    c.title = title;
    c.group = group;
    c.kind = kind;
    c.cellClass.assign(rows, CellClass::Missing);
    c.sortValue.assign(rows, 0.0);
    return c;
}

void setNumber(LeaderboardColumn& c, std::size_t row, double v) {
    c.cellClass[row] = std::isnan(v) ? CellClass::NotANumber : CellClass::Number;
    c.sortValue[row] = v;
}

void setText(LeaderboardColumn& c, std::size_t row, QString text) {
    if (c.text.empty())
        c.text.resize(c.cellClass.size());
    c.cellClass[row] = CellClass::Text;
    c.text[row] = std::move(text);
}

void rankText(LeaderboardColumn& c) {
    if (c.text.empty())
        return;
    // Rank distinct strings once: most text columns (status, experiment) repeat a few values.
    QHash<QString, int> distinct;
    std::vector<QString> values;
    for (std::size_t r = 0; r < c.cellClass.size(); ++r) {
        if (c.cellClass[r] != CellClass::Text)
            continue;
        auto it = distinct.constFind(c.text[r]);
        if (it == distinct.constEnd()) {
            distinct.insert(c.text[r], static_cast<int>(values.size()));
            values.push_back(c.text[r]);
        }
    }
    // Natural order through precomputed keys; equal keys ("Adam", "adam") by code units.
    std::vector<std::pair<std::u16string, int>> keyed;
    keyed.reserve(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
        keyed.emplace_back(naturalSortKey(values[i]), static_cast<int>(i));
    std::sort(keyed.begin(), keyed.end(), [&](const auto& a, const auto& b) {
        if (a.first != b.first)
            return a.first < b.first;
        return values[static_cast<std::size_t>(a.second)] <
               values[static_cast<std::size_t>(b.second)];
    });
    std::vector<int> order(values.size());
    for (std::size_t i = 0; i < keyed.size(); ++i)
        order[i] = keyed[i].second;
    std::vector<double> rank(values.size());
    for (std::size_t i = 0; i < order.size(); ++i)
        rank[static_cast<std::size_t>(order[i])] = static_cast<double>(i);
    for (std::size_t r = 0; r < c.cellClass.size(); ++r)
        if (c.cellClass[r] == CellClass::Text)
            c.sortValue[r] = rank[static_cast<std::size_t>(distinct.value(c.text[r]))];
}

void finishColumn(LeaderboardColumn& c) {
    c.numeric = std::none_of(c.cellClass.begin(), c.cellClass.end(),
                             [](CellClass k) { return k == CellClass::Text; });
    if (c.numeric)
        c.text.clear();
    rankText(c);
}

bool cancelled(const CancelFlag* cancel) {
    return cancel && cancel->cancelled();
}

} // namespace

int LeaderboardTable::columnOf(const QString& title) const {
    for (std::size_t i = 0; i < columns.size(); ++i)
        if (columns[i].title == title)
            return static_cast<int>(i);
    return -1;
}

int LeaderboardTable::rowOf(qint64 componentId) const {
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].id == componentId)
            return static_cast<int>(i);
    return -1;
}

CellClass LeaderboardTable::cellClass(int column, int row) const {
    return columns[static_cast<std::size_t>(column)].cellClass[static_cast<std::size_t>(row)];
}

double LeaderboardTable::number(int column, int row) const {
    const auto& c = columns[static_cast<std::size_t>(column)];
    const auto r = static_cast<std::size_t>(row);
    return c.cellClass[r] == CellClass::Number ? c.sortValue[r] : kNaN;
}

QString LeaderboardTable::text(int column, int row) const {
    const auto& c = columns[static_cast<std::size_t>(column)];
    const auto r = static_cast<std::size_t>(row);
    return c.cellClass[r] == CellClass::Text ? c.text[r] : QString();
}

QStringList LeaderboardTable::queryFields() const {
    QStringList out;
    out.reserve(static_cast<qsizetype>(columns.size()) + 1 + tagKeys.size());
    for (const auto& c : columns)
        out.push_back(c.title);
    out.push_back(QStringLiteral("notes"));
    for (const QString& k : tagKeys)
        out.push_back(QStringLiteral("tag.") + k);
    return out;
}

QueryValue LeaderboardTable::queryValue(int field, int row) const {
    QueryValue v;
    if (field < 0)
        return v;
    const auto& r = rows[static_cast<std::size_t>(row)];
    const int ncols = columnCount();
    if (field < ncols) {
        const auto& c = columns[static_cast<std::size_t>(field)];
        const auto i = static_cast<std::size_t>(row);
        switch (c.cellClass[i]) {
        case CellClass::Missing:
            return v;
        case CellClass::NotANumber:
            v.present = true;
            v.text = QStringLiteral("NaN");
            return v;
        case CellClass::Text:
            v.present = true;
            v.text = c.text[i];
            return v;
        case CellClass::Number:
            v.present = true;
            v.number = c.sortValue[i];
            v.text =
                c.kind == ColumnKind::Created ? formatTime(v.number) : formatExactNumber(v.number);
            return v;
        }
        return v;
    }
    if (field == ncols) {
        v.present = true;
        v.text = r.notes;
        return v;
    }
    const qsizetype tag = field - ncols - 1;
    if (tag >= tagKeys.size())
        return v;
    auto it = r.tags.constFind(tagKeys[tag]);
    if (it == r.tags.constEnd())
        return v;
    v.present = true;
    v.text = *it;
    bool ok = false;
    const double n = it->toDouble(&ok);
    if (ok)
        v.number = n;
    return v;
}

void LeaderboardTable::sortRows(std::vector<int>& order, int column, Qt::SortOrder o) const {
    if (column < 0 || column >= columnCount())
        return;
    const auto& c = columns[static_cast<std::size_t>(column)];
    const CellClass* cls = c.cellClass.data();
    const double* key = c.sortValue.data();
    const bool desc = o == Qt::DescendingOrder;
    std::sort(order.begin(), order.end(), [=](int a, int b) {
        const CellClass ca = cls[a], cb = cls[b];
        const bool lastA = ca >= CellClass::NotANumber, lastB = cb >= CellClass::NotANumber;
        if (lastA || lastB) {
            if (lastA != lastB)
                return lastB;
            return ca != cb ? ca < cb : a < b;
        }
        if (ca != cb)
            return desc ? ca > cb : ca < cb;
        if (key[a] != key[b])
            return desc ? key[a] > key[b] : key[a] < key[b];
        return a < b;
    });
}

void LeaderboardTable::setAnnotations(int row, const QMap<QString, QString>& tags,
                                      const QString& notes) {
    auto& r = rows[static_cast<std::size_t>(row)];
    r.tags = tags;
    r.notes = notes;
    for (auto it = tags.constBegin(); it != tags.constEnd(); ++it)
        if (!tagKeys.contains(it.key()))
            tagKeys.push_back(it.key());
    tagKeys.sort();
    for (auto& c : columns) {
        if (c.kind != ColumnKind::Tags)
            continue;
        if (tags.isEmpty())
            c.cellClass[static_cast<std::size_t>(row)] = CellClass::Missing;
        else
            setText(c, static_cast<std::size_t>(row), formatTagList(tags));
        rankText(c);
    }
}

void computeSortKeys(LeaderboardTable& table) {
    for (auto& c : table.columns)
        finishColumn(c);
}

namespace {

using RowIndex = std::unordered_map<store::ComponentId, std::size_t>;

// One QString per distinct value: statuses, experiments and tag keys repeat across rows.
class Interner {
public:
    const QString& operator()(const std::string& s) {
        auto it = m_strings.find(s);
        if (it == m_strings.end())
            it = m_strings.emplace(s, QString::fromStdString(s)).first;
        return it->second;
    }

private:
    std::unordered_map<std::string, QString> m_strings;
};

std::vector<LeaderboardColumn> parameterColumns(store::StoreReader& reader,
                                                const std::vector<store::ComponentId>& ids,
                                                const RowIndex& rowOf, const CancelFlag* cancel) {
    const auto params = reader.parameters(ids);
    std::vector<LeaderboardColumn> cols;
    if (cancelled(cancel))
        return cols;
    std::set<std::string> names;
    for (const auto& [id, ps] : params)
        for (const auto& p : ps)
            names.insert(p.name);
    std::unordered_map<std::string, std::size_t> columnOf;
    for (const auto& name : names) {
        columnOf[name] = cols.size();
        cols.push_back(makeColumn(QString::fromStdString(name), ColumnGroup::Parameters,
                                  ColumnKind::Parameter, ids.size()));
        cols.back().key = cols.back().title;
    }
    Interner text;
    for (const auto& [id, ps] : params) {
        const std::size_t row = rowOf.at(id);
        for (const auto& p : ps) {
            auto& col = cols[columnOf[p.name]];
            if (p.number)
                setNumber(col, row, *p.number);
            else
                setText(col, row, text(p.value));
        }
    }
    for (auto& c : cols)
        finishColumn(c);
    return cols;
}

std::vector<LeaderboardColumn> metricColumns(store::StoreReader& reader,
                                             const std::vector<store::ComponentId>& ids,
                                             const RowIndex& rowOf, const CancelFlag* cancel) {
    const auto metrics = reader.metricSummaries(ids);
    std::vector<LeaderboardColumn> cols;
    if (cancelled(cancel))
        return cols;
    std::set<std::string> names;
    for (const auto& [id, ms] : metrics)
        for (const auto& [name, s] : ms)
            names.insert(name);
    std::unordered_map<std::string, std::size_t> firstColumn;
    for (const auto& m : names) {
        firstColumn[m] = cols.size();
        const QString name = QString::fromStdString(m);
        for (const char* stat : kStatistics) {
            auto c = makeColumn(name + QStringLiteral(" - ") + QLatin1String(stat),
                                ColumnGroup::Metrics, ColumnKind::Metric, ids.size());
            c.key = name;
            c.statistic = QLatin1String(stat);
            cols.push_back(std::move(c));
        }
    }
    for (const auto& [id, ms] : metrics) {
        const std::size_t row = rowOf.at(id);
        for (const auto& [name, s] : ms) {
            const std::size_t first = firstColumn[name];
            for (int k = 0; k < 6; ++k) {
                bool present = false;
                const double v = statistic(s, k, present);
                if (present)
                    setNumber(cols[first + static_cast<std::size_t>(k)], row, v);
            }
        }
    }
    for (auto& c : cols)
        finishColumn(c);
    return cols;
}

// Every job's tags in one query, as rows in table order.
std::vector<QMap<QString, QString>> tagsByRow(store::StoreReader& reader,
                                              const std::vector<store::ComponentId>& ids,
                                              const RowIndex& rowOf, const CancelFlag* cancel) {
    std::vector<QMap<QString, QString>> out(ids.size());
    const auto tags = reader.tags(ids);
    if (cancelled(cancel))
        return out;
    Interner keys, values;
    for (const auto& [id, kv] : tags) {
        QMap<QString, QString>& row = out[rowOf.at(id)];
        for (const auto& [k, v] : kv)
            row.insert(keys(k), values(v));
    }
    return out;
}

} // namespace

LeaderboardTable loadLeaderboardTable(const std::string& databasePath, double now,
                                      const CancelFlag* cancel) {
    ReaderPool readers(databasePath);
    return loadLeaderboardTable(readers, now, cancel);
}

namespace {

// The job columns (name to instance, and the tags column filled later) and each row's fields.
void fillJobColumns(LeaderboardTable& t, const std::vector<store::ComponentRow>& comps,
                    double now) {
    const std::size_t n = comps.size();
    auto& cols = t.columns;
    using G = ColumnGroup;
    using K = ColumnKind;
    cols.push_back(makeColumn(QStringLiteral("Name"), G::Job, K::Name, n));
    cols.push_back(makeColumn(QStringLiteral("Status"), G::Job, K::Status, n));
    cols.push_back(makeColumn(QStringLiteral("Experiment"), G::Job, K::Experiment, n));
    cols.push_back(makeColumn(QStringLiteral("Trial"), G::Job, K::Trial, n));
    cols.push_back(makeColumn(QStringLiteral("Created"), G::Job, K::Created, n));
    cols.push_back(makeColumn(QStringLiteral("Duration"), G::Job, K::Duration, n));
    cols.push_back(makeColumn(QStringLiteral("Instance"), G::Job, K::Instance, n));
    cols.push_back(makeColumn(QStringLiteral("Tags"), G::Job, K::Tags, n));

    Interner text;
    QHash<QString, QString> instances;
    t.rows.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const auto& c = comps[i];
        LeaderboardRow& row = t.rows[i];
        row.id = c.id;
        row.name = QString::fromStdString(c.name);
        row.experiment = text(c.experiment);
        row.trial = text(c.trial);
        row.status = text(c.status);
        row.secondaryStatus = text(c.secondaryStatus);
        row.failureReason = text(c.failureReason);
        row.notes = QString::fromStdString(c.notes);

        setText(cols[0], i, row.name);
        setText(cols[1], i, row.status);
        setText(cols[2], i, row.experiment);
        setText(cols[3], i, row.trial);
        setNumber(cols[4], i, c.created);
        double end = c.ended;
        if (end <= 0 && store::isLiveStatus(c.status))
            end = now;
        if (c.started > 0 && end >= c.started)
            setNumber(cols[5], i, end - c.started);
        QString instance = text(c.instanceType) + QStringLiteral(" × ") +
                           QString::number(c.instanceCount) + QStringLiteral(" × ") +
                           QString::number(c.processesPerHost);
        auto shared = instances.constFind(instance);
        if (shared == instances.constEnd())
            shared = instances.insert(instance, instance);
        setText(cols[6], i, *shared);
    }
    for (std::size_t k = 0; k < 7; ++k)
        finishColumn(cols[k]);
}

// Each row's tags, the tags column (equal texts shared) and the sorted tag keys.
void fillTags(LeaderboardTable& t, std::vector<QMap<QString, QString>> tagRows) {
    LeaderboardColumn& column = t.columns[7];
    QSet<QString> tagKeys;
    QHash<QString, QString> tagTexts;
    for (std::size_t i = 0; i < t.rows.size() && i < tagRows.size(); ++i) {
        if (tagRows[i].isEmpty())
            continue;
        t.rows[i].tags = std::move(tagRows[i]);
        for (auto it = t.rows[i].tags.constBegin(); it != t.rows[i].tags.constEnd(); ++it)
            tagKeys.insert(it.key());
        QString tagText = formatTagList(t.rows[i].tags);
        auto shared = tagTexts.constFind(tagText);
        if (shared == tagTexts.constEnd())
            shared = tagTexts.insert(tagText, tagText);
        setText(column, i, *shared);
    }
    finishColumn(column);
    t.tagKeys = QStringList(tagKeys.begin(), tagKeys.end());
    t.tagKeys.sort();
}

} // namespace

LeaderboardTable loadLeaderboardTable(ReaderPool& readers, double now, const CancelFlag* cancel) {
    LeaderboardTable t;
    const std::vector<store::ComponentRow> comps = readers.lease()->components();
    const std::size_t n = comps.size();
    std::vector<store::ComponentId> ids;
    ids.reserve(n);
    RowIndex rowOf;
    rowOf.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
        ids.push_back(comps[i].id);
        rowOf.emplace(comps[i].id, i);
    }
    if (cancelled(cancel))
        return t;

    // Parameters, metric summaries and tags come from three more readers (one per thread) while
    // this thread builds the job columns.
    auto params = std::async(
        std::launch::async, [&] { return parameterColumns(*readers.lease(), ids, rowOf, cancel); });
    auto metrics = std::async(std::launch::async,
                              [&] { return metricColumns(*readers.lease(), ids, rowOf, cancel); });
    auto tags = std::async(std::launch::async,
                           [&] { return tagsByRow(*readers.lease(), ids, rowOf, cancel); });
    fillJobColumns(t, comps, now);
    fillTags(t, tags.get());
    for (auto* part : {&params, &metrics})
        for (auto& c : part->get())
            t.columns.push_back(std::move(c));
    return t;
}

} // namespace studio::models

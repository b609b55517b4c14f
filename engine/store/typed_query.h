// Typed statements over SQLiteCpp: a record lists its columns once, each SELECT expression beside
// the member it fills (Columns<Row>), so a query's column list and the reading of its rows come
// from one table; queryAll/queryOne/queryEach bind values and return typed rows. A row type is a
// record with Columns, a scalar (one column), or a pair or tuple of those (read left to right).
// Internal to engine/store.
#pragma once

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace studio::store {

// Values bound to statement parameters: NaN and empty optionals are stored as NULL.
inline void bindValue(SQLite::Statement& s, int i, int v) {
    s.bind(i, v);
}
inline void bindValue(SQLite::Statement& s, int i, std::int64_t v) {
    s.bind(i, v);
}
inline void bindValue(SQLite::Statement& s, int i, double v) {
    if (std::isnan(v))
        s.bind(i);
    else
        s.bind(i, v);
}
inline void bindValue(SQLite::Statement& s, int i, const std::string& v) {
    s.bind(i, v);
}
template <typename T>
void bindValue(SQLite::Statement& s, int i, const std::optional<T>& v) {
    if (v)
        bindValue(s, i, *v);
    else
        s.bind(i);
}

// Binds `values` to parameters 1, 2, ... in order.
template <typename... Values>
void bindAll(SQLite::Statement& s, const Values&... values) {
    int i = 0;
    (bindValue(s, ++i, values), ...);
}

// Non-NULL column values into members and scalars.
inline void assign(int& v, const SQLite::Column& c) {
    v = c.getInt();
}
inline void assign(std::int64_t& v, const SQLite::Column& c) {
    v = c.getInt64();
}
inline void assign(std::uint64_t& v, const SQLite::Column& c) {
    v = static_cast<std::uint64_t>(c.getInt64());
}
inline void assign(double& v, const SQLite::Column& c) {
    v = c.getDouble();
}
inline void assign(bool& v, const SQLite::Column& c) {
    v = c.getInt() != 0;
}
inline void assign(std::string& v, const SQLite::Column& c) {
    v = c.getString();
}
template <typename T>
void assign(std::optional<T>& v, const SQLite::Column& c) {
    T value{};
    assign(value, c);
    v = std::move(value);
}

// What a NULL reads as: the member as the record initialised it (0, "", nullopt, or the record's
// own default), or NaN (a value that was not a number when written).
enum class OnNull { KeepDefault, NaN };

// One column of a record: its expression in the SELECT list and the member it fills; a Decode
// function (a column stored as JSON) gets every value, NULL included.
template <typename Row>
struct Field {
    using Decode = void (*)(Row&, const SQLite::Column&);
    using Member = std::variant<int Row::*, std::int64_t Row::*, std::uint64_t Row::*,
                                double Row::*, bool Row::*, std::string Row::*,
                                std::optional<int> Row::*, std::optional<double> Row::*, Decode>;

    const char* sql;
    Member member;
    OnNull null = OnNull::KeepDefault;

    template <typename M>
    constexpr Field(const char* expression, M target)
        : sql(expression)
        , member(target) {}
    constexpr Field(const char* expression, double Row::*target, OnNull onNull)
        : sql(expression)
        , member(target)
        , null(onNull) {}

    void read(Row& row, const SQLite::Column& c) const {
        std::visit(
            [&](auto target) {
                if constexpr (std::is_same_v<decltype(target), Decode>) {
                    target(row, c);
                } else if (!c.isNull()) {
                    assign(row.*target, c);
                } else if constexpr (std::is_same_v<decltype(target), double Row::*>) {
                    if (null == OnNull::NaN)
                        row.*target = std::nan("");
                }
            },
            member);
    }
};

// Specialised per record: `static constexpr auto fields = std::to_array<Field<Row>>({...});`
// with the table aliases its expressions use named above it.
template <typename Row>
struct Columns;

template <typename T>
concept MappedRow = requires {
    Columns<T>::fields;
};

template <typename T>
concept TupleRow = requires {
    std::tuple_size<T>::value;
};

// "c.id, c.name, ...": the SELECT list of a record, in the order its fields read.
template <MappedRow Row>
const std::string& columnList() {
    static const std::string list = [] {
        std::string out;
        for (const auto& f : Columns<Row>::fields)
            out += (out.empty() ? "" : ", ") + std::string(f.sql);
        return out;
    }();
    return list;
}

// "SELECT <the record's columns> <rest>".
template <MappedRow Row>
std::string selectColumns(const std::string& rest) {
    return "SELECT " + columnList<Row>() + " " + rest;
}

// How many columns a row type reads.
template <typename T>
constexpr int columnCount();

template <typename T, std::size_t... I>
constexpr int tupleColumnCount(std::index_sequence<I...>) {
    return (columnCount<std::tuple_element_t<I, T>>() + ... + 0);
}

template <typename T>
constexpr int columnCount() {
    if constexpr (MappedRow<T>) {
        return static_cast<int>(Columns<T>::fields.size());
    } else if constexpr (TupleRow<T>) {
        return tupleColumnCount<T>(std::make_index_sequence<std::tuple_size_v<T>>());
    } else {
        return 1;
    }
}

// Reads `row` from the statement's current row, from column `next` on; advances `next`.
template <typename T>
void readRow(const SQLite::Statement& q, int& next, T& row) {
    if constexpr (MappedRow<T>) {
        for (const auto& f : Columns<T>::fields)
            f.read(row, q.getColumn(next++));
    } else if constexpr (TupleRow<T>) {
        std::apply([&](auto&... parts) { (readRow(q, next, parts), ...); }, row);
    } else {
        const SQLite::Column c = q.getColumn(next++);
        if (!c.isNull())
            assign(row, c);
    }
}

// The statement's current row as a `Row`.
template <typename Row>
Row currentRow(const SQLite::Statement& q) {
    Row row{};
    int next = 0;
    readRow(q, next, row);
    return row;
}

// A statement for rows of `Row`, its parameters bound; throws std::logic_error when the SQL
// selects another number of columns than the row type reads.
template <typename Row, typename... Binds>
SQLite::Statement prepareRows(SQLite::Database& db, const std::string& sql, const Binds&... binds) {
    SQLite::Statement q(db, sql);
    if (q.getColumnCount() != columnCount<Row>())
        throw std::logic_error(sql + ": selects " + std::to_string(q.getColumnCount()) +
                               " columns, its row type reads " +
                               std::to_string(columnCount<Row>()));
    bindAll(q, binds...);
    return q;
}

// Calls `each(Row&&)` on every row, in the statement's order.
template <typename Row, typename Each, typename... Binds>
void queryEach(SQLite::Database& db, const std::string& sql, Each&& each, const Binds&... binds) {
    SQLite::Statement q = prepareRows<Row>(db, sql, binds...);
    while (q.executeStep())
        each(currentRow<Row>(q));
}

template <typename Row, typename... Binds>
std::vector<Row> queryAll(SQLite::Database& db, const std::string& sql, const Binds&... binds) {
    std::vector<Row> out;
    queryEach<Row>(
        db, sql, [&out](Row&& row) { out.push_back(std::move(row)); }, binds...);
    return out;
}

// The first row; none when the statement returns no row.
template <typename Row, typename... Binds>
std::optional<Row> queryOne(SQLite::Database& db, const std::string& sql, const Binds&... binds) {
    SQLite::Statement q = prepareRows<Row>(db, sql, binds...);
    if (!q.executeStep())
        return std::nullopt;
    return currentRow<Row>(q);
}

// Runs a statement that returns no rows; the number of rows it changed.
template <typename... Binds>
int execute(SQLite::Database& db, const std::string& sql, const Binds&... binds) {
    SQLite::Statement q(db, sql);
    bindAll(q, binds...);
    return q.exec();
}

} // namespace studio::store

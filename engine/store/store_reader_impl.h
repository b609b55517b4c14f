// The reader's connection and the query shape most of its reads share; internal to engine/store.
#pragma once

#include "engine/store/record_columns.h"
#include "engine/store/store_reader.h"

#include <SQLiteCpp/Database.h>

namespace studio::store {

struct StoreReader::Impl {
    std::unique_ptr<SQLite::Database> db;
};

// One component's rows of a table keyed by component_id, ordered by `order`.
template <MappedRow Row>
std::vector<Row> componentRows(SQLite::Database& db, const std::string& table,
                               const std::string& order, ComponentId id) {
    return queryAll<Row>(
        db, selectColumns<Row>("FROM " + table + " WHERE component_id=? ORDER BY " + order), id);
}

} // namespace studio::store

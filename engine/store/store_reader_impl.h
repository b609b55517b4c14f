// The reader's connection; internal to engine/store.
#pragma once

#include "engine/store/store_reader.h"

#include <SQLiteCpp/Database.h>

namespace studio::store {

struct StoreReader::Impl {
    std::unique_ptr<SQLite::Database> db;
};

} // namespace studio::store

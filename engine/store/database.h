// Opening the studio database: WAL mode, pragmas, and forward-only schema migrations.
// Internal to engine/store; other parts use StoreWriter and StoreReader.
#pragma once

#include <SQLiteCpp/Database.h>

#include <memory>
#include <string>

namespace studio::store {

// The schema version this build writes (PRAGMA user_version).
int latestSchemaVersion();

// Opens (creating when writable) and migrates to the latest version. A file from a newer studio
// is refused with an error naming the file and both versions.
std::unique_ptr<SQLite::Database> openDatabase(const std::string& path, bool readOnly);

// Applies migrations above the file's version up to `target`; each in its own transaction.
void migrate(SQLite::Database& db, const std::string& path, int target);

int schemaVersion(SQLite::Database& db);

} // namespace studio::store

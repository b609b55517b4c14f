#include "engine/store/database.h"

#include <filesystem>
#include <stdexcept>
#include <sys/stat.h>

namespace studio::store {

std::unique_ptr<SQLite::Database> openDatabase(const std::string& path, bool readOnly) {
    if (!readOnly && std::filesystem::path(path).has_parent_path()) {
        const auto dir = std::filesystem::path(path).parent_path();
        if (std::filesystem::create_directories(dir)) // new: only its owner may enter it
            ::chmod(dir.c_str(), 0700);
    }
    std::unique_ptr<SQLite::Database> db;
    try {
        db = std::make_unique<SQLite::Database>(
            path, readOnly ? SQLite::OPEN_READONLY : (SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE),
            5000);
        if (!readOnly) {
            db->exec("PRAGMA journal_mode = WAL");
            db->exec("PRAGMA synchronous = NORMAL"); // durable at checkpoints; safe in WAL mode
        }
        db->exec("PRAGMA foreign_keys = ON");
        if (!readOnly) // the WAL and shared-memory files take the database's mode
            ::chmod(path.c_str(), 0600);
        if (!readOnly)
            migrate(*db, path, latestSchemaVersion());
        else if (schemaVersion(*db) != latestSchemaVersion())
            throw std::runtime_error(
                path + ": schema version " + std::to_string(schemaVersion(*db)) + ", expected " +
                std::to_string(latestSchemaVersion()) + " (open it once with a writer to migrate)");
    } catch (const SQLite::Exception& e) {
        throw std::runtime_error(path + ": " + e.what());
    }
    return db;
}

} // namespace studio::store

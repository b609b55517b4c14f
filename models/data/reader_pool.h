// The GUI's store readers: a reader is opened by the first thread that needs one (a background
// task's worker) and kept for the next query, so that a query does not open and check the
// database again. Thread-safe; each reader is used by one thread at a time (its lease's).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace studio::store {
class StoreReader;
}

namespace studio::models {

class ReaderPool {
public:
    // Keeps up to `keep` idle readers; more are closed when handed back.
    explicit ReaderPool(std::string databasePath, std::size_t keep = 4);
    ~ReaderPool();
    ReaderPool(const ReaderPool&) = delete;
    ReaderPool& operator=(const ReaderPool&) = delete;

    // One reader for the holder's thread; it goes back to the pool when the lease ends, unless
    // the holder gave up on it (a query that threw may leave it in any state).
    class Lease {
    public:
        Lease(Lease&& other) noexcept;
        Lease& operator=(Lease&&) = delete;
        ~Lease();
        store::StoreReader& operator*() const { return *m_reader; }
        store::StoreReader* operator->() const { return m_reader.get(); }
        void discard();

    private:
        friend class ReaderPool;
        Lease(ReaderPool* pool, std::unique_ptr<store::StoreReader> reader);
        ReaderPool* m_pool;
        std::unique_ptr<store::StoreReader> m_reader;
    };

    // An idle reader, or a new one (which throws std::runtime_error naming the file when it
    // cannot be opened).
    Lease lease();
    const std::string& path() const { return m_path; }
    // Readers open now (leased or idle), and idle now.
    std::size_t openReaders() const;
    std::size_t idleReaders() const;

private:
    void giveBack(std::unique_ptr<store::StoreReader> reader);
    void closed();

    const std::string m_path;
    const std::size_t m_keep;
    mutable std::mutex m_mutex;
    std::vector<std::unique_ptr<store::StoreReader>> m_idle;
    std::size_t m_open = 0;
};

} // namespace studio::models

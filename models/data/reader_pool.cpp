#include "models/data/reader_pool.h"

#include "engine/store/store_reader.h"

namespace studio::models {

ReaderPool::ReaderPool(std::string databasePath, std::size_t keep)
    : m_path(std::move(databasePath))
    , m_keep(keep) {
}

ReaderPool::~ReaderPool() = default;

ReaderPool::Lease::Lease(ReaderPool* pool, std::unique_ptr<store::StoreReader> reader)
    : m_pool(pool)
    , m_reader(std::move(reader)) {
}

ReaderPool::Lease::Lease(Lease&& other) noexcept
    : m_pool(other.m_pool)
    , m_reader(std::move(other.m_reader)) {
}

ReaderPool::Lease::~Lease() {
    if (m_reader)
        m_pool->giveBack(std::move(m_reader));
}

void ReaderPool::Lease::discard() {
    if (!m_reader)
        return;
    m_reader.reset();
    m_pool->closed();
}

ReaderPool::Lease ReaderPool::lease() {
    {
        std::lock_guard lock(m_mutex);
        if (!m_idle.empty()) {
            auto reader = std::move(m_idle.back());
            m_idle.pop_back();
            return Lease(this, std::move(reader));
        }
    }
    // Opened outside the lock: opening waits for the file while a writer holds it.
    auto reader = std::make_unique<store::StoreReader>(m_path);
    std::lock_guard lock(m_mutex);
    ++m_open;
    return Lease(this, std::move(reader));
}

void ReaderPool::giveBack(std::unique_ptr<store::StoreReader> reader) {
    std::lock_guard lock(m_mutex);
    if (m_idle.size() < m_keep)
        m_idle.push_back(std::move(reader));
    else
        --m_open; // the surplus one closes
}

void ReaderPool::closed() {
    std::lock_guard lock(m_mutex);
    --m_open;
}

std::size_t ReaderPool::openReaders() const {
    std::lock_guard lock(m_mutex);
    return m_open;
}

std::size_t ReaderPool::idleReaders() const {
    std::lock_guard lock(m_mutex);
    return m_idle.size();
}

} // namespace studio::models

#include "engine/spot/interruption_source.h"

#include "engine/digest/mix64.h"

#include <cmath>
#include <limits>

namespace studio::spot {

NoticeQueue::NoticeQueue(std::string source)
    : m_source(std::move(source)) {
}

void NoticeQueue::push(std::string detail) {
    std::lock_guard lock(m_mutex);
    m_pending.push_back(std::move(detail));
}

void NoticeQueue::attemptStarted(int, double) {
    // A notice for an attempt that has ended does not interrupt the next one.
    std::lock_guard lock(m_mutex);
    m_pending.clear();
}

std::optional<InterruptionNotice> NoticeQueue::poll(double) {
    std::lock_guard lock(m_mutex);
    if (m_pending.empty())
        return std::nullopt;
    InterruptionNotice n{m_source, m_pending.front()};
    m_pending.erase(m_pending.begin());
    return n;
}

SimulatedMarket::SimulatedMarket(double interruptionsPerHour, double meanCapacityWaitSeconds,
                                 std::uint64_t seed)
    : m_rate(interruptionsPerHour)
    , m_meanWait(meanCapacityWaitSeconds)
    , m_seed(seed) {
}

double SimulatedMarket::uniform(int attempt, int stream) const {
    const std::uint64_t bits = digest::mix64(
        digest::mix64(m_seed) ^ digest::mix64(static_cast<std::uint64_t>(attempt) * 2 + stream));
    return (static_cast<double>(bits >> 11) + 0.5) / 9007199254740992.0; // 2^53
}

double SimulatedMarket::interruptionDelay(int attempt) const {
    if (m_rate <= 0)
        return std::numeric_limits<double>::infinity();
    return -std::log(uniform(attempt, 0)) * 3600.0 / m_rate;
}

double SimulatedMarket::capacityWait(int attempt) const {
    if (attempt < 2 || m_meanWait <= 0)
        return 0;
    return -std::log(uniform(attempt, 1)) * m_meanWait;
}

void SimulatedMarket::attemptStarted(int attempt, double now) {
    m_dueAt = now + interruptionDelay(attempt);
}

std::optional<InterruptionNotice> SimulatedMarket::poll(double now) {
    if (m_dueAt < 0 || now < m_dueAt)
        return std::nullopt;
    m_dueAt = -1;
    return InterruptionNotice{"simulated", "simulated spot market reclaimed the capacity"};
}

} // namespace studio::spot

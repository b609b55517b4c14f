// Where spot interruption notices come from: one interface for the simulated market, the EC2
// instance metadata service (relayed by the launchers) and manual requests (mlstudio interrupt,
// the studio's Interrupt action).
// Thread-safety: SimulatedMarket is used by one thread; NoticeQueue may be pushed from any thread.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace studio::spot {

struct InterruptionNotice {
    std::string source; // "simulated" | "imds" | "manual"
    std::string detail; // e.g. the instance-action document, or the user's reason
};

class InterruptionSource {
public:
    virtual ~InterruptionSource() = default;
    // Called when an attempt's ranks have started (attempt counts from 1).
    virtual void attemptStarted(int attempt, double now) = 0;
    // A notice due at or before now; each notice is returned once.
    virtual std::optional<InterruptionNotice> poll(double now) = 0;
};

// Notices pushed from outside (IMDS relays, manual requests).
class NoticeQueue : public InterruptionSource {
public:
    explicit NoticeQueue(std::string source);
    void push(std::string detail);
    void attemptStarted(int attempt, double now) override;
    std::optional<InterruptionNotice> poll(double now) override;

private:
    std::string m_source;
    std::mutex m_mutex;
    std::vector<std::string> m_pending;
};

// A seeded market: interruptions arrive as a Poisson process (exponential gaps with mean
// 3600 / interruptions_per_hour seconds of running time) and each wait for capacity is
// exponential with mean mean_capacity_wait_s. The same seed gives the same times on any machine.
class SimulatedMarket : public InterruptionSource {
public:
    SimulatedMarket(double interruptionsPerHour, double meanCapacityWaitSeconds,
                    std::uint64_t seed);
    // Seconds after an attempt's start when it is interrupted (infinity for rate 0).
    double interruptionDelay(int attempt) const;
    // Seconds to wait for capacity before an attempt (attempt ≥ 2; 0 for the first).
    double capacityWait(int attempt) const;

    void attemptStarted(int attempt, double now) override;
    std::optional<InterruptionNotice> poll(double now) override;

private:
    double uniform(int attempt, int stream) const; // in (0, 1)
    double m_rate;
    double m_meanWait;
    std::uint64_t m_seed;
    double m_dueAt = -1;
};

} // namespace studio::spot

// Events from the trainer to its launcher, one JSON line each on STUDIO_EVENTS_FD.
// Not thread-safe: the training thread owns it.
#pragma once

#include "engine/wire/event.h"

#include <string>

namespace studio::train {

class EventWriter {
public:
    // fd < 0: events are dropped (a trainer run by hand).
    explicit EventWriter(int fd = -1)
        : m_fd(fd) {}
    static EventWriter fromEnvironment();

    bool enabled() const { return m_fd >= 0; }
    void send(wire::Payload payload);

    void metric(const std::string& name, std::int64_t step, double value,
                wire::Phase phase = wire::Phase::Train) {
        send(wire::MetricEvent{name, step, value, phase});
    }
    void progress(std::int64_t step, std::int64_t total) {
        wire::StatusEvent s;
        s.state = "progress";
        s.step = step;
        s.total = total;
        send(s);
    }

private:
    int m_fd;
};

} // namespace studio::train

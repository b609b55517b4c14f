#include "engine/train/event_writer.h"

#include "engine/wire/codec.h"

#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>

namespace studio::train {

EventWriter EventWriter::fromEnvironment() {
    const char* fd = std::getenv("STUDIO_EVENTS_FD");
    if (!fd || !*fd)
        return EventWriter(-1);
    const int n = std::atoi(fd);
    return EventWriter(::fcntl(n, F_GETFD) == -1 ? -1 : n);
}

void EventWriter::send(wire::Payload payload) {
    if (m_fd < 0)
        return;
    wire::Event e{wire::nowSeconds(), 0, 0, std::move(payload)};
    std::string line = wire::encode(e);
    line += '\n';
    const char* p = line.data();
    std::size_t left = line.size();
    while (left > 0) {
        ssize_t n = ::write(m_fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) { // the launcher is gone: stop sending, keep training
            m_fd = -1;
            return;
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
}

} // namespace studio::train

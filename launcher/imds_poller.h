// Polls an EC2 instance metadata endpoint (IMDSv2) for a spot interruption notice, as on a spot
// instance: PUT /latest/api/token, then GET /latest/meta-data/spot/instance-action with the
// token, every interval; 404 means no notice. An endpoint that never answers turns the poll
// off; a failure after answers is retried with back-off (up to 30 s).
// Thread-safety: the poll runs on its own thread; notice() and fd() may be used from any thread.
#pragma once

#include "engine/process/fd.h"

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace studio::launcher {

class ImdsPoller {
public:
    // Starts polling endpoint (e.g. "http://169.254.169.254") every intervalSeconds.
    ImdsPoller(std::string endpoint, double intervalSeconds);
    ~ImdsPoller();
    ImdsPoller(const ImdsPoller&) = delete;
    ImdsPoller& operator=(const ImdsPoller&) = delete;

    // Readable (an eventfd) once a notice has arrived or the poll has been turned off.
    int fd() const { return m_wake.get(); }
    // The instance-action document, once, when a notice has arrived.
    std::optional<std::string> takeNotice();
    // Why the poll was turned off (empty while it runs), once.
    std::optional<std::string> takeDisabledReason();

private:
    void loop();

    std::string m_endpoint;
    double m_interval;
    process::Fd m_wake;
    std::mutex m_mutex;
    std::condition_variable m_changed;
    bool m_quit = false;
    std::optional<std::string> m_notice;
    std::optional<std::string> m_disabled;
    std::atomic<bool> m_abort{false};
    std::thread m_thread;
};

} // namespace studio::launcher

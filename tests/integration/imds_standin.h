// A local stand-in for the EC2 instance metadata service: speaks IMDSv2 over HTTP/1.1 on
// loopback (PUT /latest/api/token, GET /latest/meta-data/spot/instance-action with the token;
// 404 while no notice is posted, 401 without a valid token). A notice is served to the first
// request after it is posted, as a replacement instance would not see it again.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <mutex>
#include <string>
#include <thread>

class ImdsStandIn {
public:
    ImdsStandIn() {
        m_listen = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        ::setsockopt(m_listen, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        ::bind(m_listen, reinterpret_cast<sockaddr*>(&a), sizeof a);
        ::listen(m_listen, 16);
        socklen_t len = sizeof a;
        ::getsockname(m_listen, reinterpret_cast<sockaddr*>(&a), &len);
        m_port = ntohs(a.sin_port);
        m_thread = std::thread([this] { serve(); });
    }
    ~ImdsStandIn() {
        m_quit = true;
        m_thread.join();
        ::close(m_listen);
    }
    std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(m_port); }
    void postNotice() { m_notice = true; }
    // The next n requests get their connection closed with no answer (a flaky endpoint).
    void dropNext(int n) { m_drop = n; }
    int dropped() const { return m_dropped; }
    int tokenRequests() const { return m_tokens; }
    int actionRequests() const { return m_actions; }
    int noticesServed() const { return m_served; }

private:
    void serve() {
        while (!m_quit) {
            pollfd p{m_listen, POLLIN, 0};
            if (::poll(&p, 1, 50) <= 0)
                continue;
            int c = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
            if (c < 0)
                continue;
            if (m_drop > 0) {
                --m_drop;
                ++m_dropped;
            } else {
                handle(c);
            }
            ::close(c);
        }
    }
    void handle(int c) {
        std::string req;
        char buf[4096];
        pollfd p{c, POLLIN, 0};
        while (req.find("\r\n\r\n") == std::string::npos && ::poll(&p, 1, 1000) > 0) {
            ssize_t n = ::read(c, buf, sizeof buf);
            if (n <= 0)
                break;
            req.append(buf, static_cast<std::size_t>(n));
        }
        const std::string line = req.substr(0, req.find("\r\n"));
        std::string status = "404 Not Found", body;
        if (line.rfind("PUT /latest/api/token ", 0) == 0 &&
            req.find("X-aws-ec2-metadata-token-ttl-seconds:") != std::string::npos) {
            ++m_tokens;
            status = "200 OK";
            body = kToken;
        } else if (line.rfind("GET /latest/meta-data/spot/instance-action ", 0) == 0) {
            ++m_actions;
            if (req.find(std::string("X-aws-ec2-metadata-token: ") + kToken) == std::string::npos)
                status = "401 Unauthorized";
            else if (m_notice.exchange(false)) {
                ++m_served;
                status = "200 OK";
                body = R"({"action": "terminate", "time": "2026-11-22T00:00:00Z"})";
            }
        }
        const std::string reply = "HTTP/1.1 " + status +
                                  "\r\nContent-Length: " + std::to_string(body.size()) +
                                  "\r\nConnection: close\r\n\r\n" + body;
        (void)!::write(c, reply.data(), reply.size());
    }

    static constexpr const char* kToken = "AQAEAstand-in-token==";
    int m_listen = -1;
    int m_port = 0;
    std::atomic<bool> m_quit{false};
    std::atomic<bool> m_notice{false};
    std::atomic<int> m_tokens{0}, m_actions{0}, m_served{0}, m_drop{0}, m_dropped{0};
    std::thread m_thread;
};

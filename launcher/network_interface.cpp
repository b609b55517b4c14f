#include "launcher/network_interface.h"

#include "engine/process/fd.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

namespace studio::launcher {

namespace {

std::string addressText(const sockaddr* sa) {
    char buf[INET6_ADDRSTRLEN] = {0};
    if (sa->sa_family == AF_INET)
        ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, buf, sizeof buf);
    else if (sa->sa_family == AF_INET6)
        ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, buf,
                    sizeof buf);
    return buf;
}

std::string interfaceHolding(const std::string& address) {
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) != 0)
        return {};
    std::string name;
    for (ifaddrs* i = list; i; i = i->ifa_next)
        if (i->ifa_addr && addressText(i->ifa_addr) == address) {
            name = i->ifa_name;
            break;
        }
    ::freeifaddrs(list);
    return name;
}

} // namespace

std::optional<Route> routeTo(const std::string& address, std::string* error) {
    const auto fail = [error](const std::string& why) -> std::optional<Route> {
        if (error)
            *error = why;
        return std::nullopt;
    };
    addrinfo hints{};
    hints.ai_socktype = SOCK_DGRAM;
    addrinfo* found = nullptr;
    if (int rc = ::getaddrinfo(address.c_str(), "9", &hints, &found); rc != 0)
        return fail("cannot resolve " + address + ": " + ::gai_strerror(rc));
    // A connected UDP socket sends nothing; it only asks the kernel for the route.
    process::Fd s(::socket(found->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0));
    const int rc = s.valid() ? ::connect(s.get(), found->ai_addr, found->ai_addrlen) : -1;
    ::freeaddrinfo(found);
    if (rc != 0)
        return fail("no route to " + address + ": " + std::strerror(errno));
    sockaddr_storage local{};
    socklen_t len = sizeof local;
    if (::getsockname(s.get(), reinterpret_cast<sockaddr*>(&local), &len) != 0)
        return fail("no route to " + address + ": " + std::strerror(errno));
    Route r;
    r.source = addressText(reinterpret_cast<sockaddr*>(&local));
    r.ifname = interfaceHolding(r.source);
    if (r.ifname.empty())
        return fail("no interface holds " + r.source + ", the source address towards " + address);
    return r;
}

int freePortOnAllInterfaces() {
    process::Fd s(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!s.valid())
        throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    if (::bind(s.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
        throw std::runtime_error(std::string("bind: ") + std::strerror(errno));
    socklen_t len = sizeof addr;
    ::getsockname(s.get(), reinterpret_cast<sockaddr*>(&addr), &len);
    return ntohs(addr.sin_port);
}

} // namespace studio::launcher

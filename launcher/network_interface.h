// Which interface reaches an address. Gloo and NCCL must bind by interface, never by resolving
// the hostname: on many hosts the hostname resolves to 127.0.0.1 (Debian's 127.0.1.1 line), and
// a rank bound there advertises an address its peers cannot reach.
#pragma once

#include <optional>
#include <string>

namespace studio::launcher {

struct Route {
    std::string ifname; // the interface the kernel would send from ("eth1")
    std::string source; // this host's address on it
};

// The route to `address` (a literal or a name); on the host that owns the address, the
// interface that holds it (not lo). nullopt with *error set when there is none.
std::optional<Route> routeTo(const std::string& address, std::string* error = nullptr);

// A TCP port free on every local address a moment ago (the rendezvous port of node 0).
int freePortOnAllInterfaces();

} // namespace studio::launcher

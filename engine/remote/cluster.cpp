#include "engine/remote/cluster.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <regex>
#include <stdexcept>

namespace studio::remote {

namespace {

bool validUser(const std::string& u) {
    static const std::regex re("^[A-Za-z0-9_][A-Za-z0-9._-]*$");
    return std::regex_match(u, re);
}

// A host name or IPv4 address; never a leading '-', which ssh would read as an option.
bool validHost(const std::string& h) {
    static const std::regex re("^[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?$");
    return std::regex_match(h, re);
}

bool validIpv6(const std::string& h) {
    static const std::regex re("^[0-9A-Fa-f:.]+(%[A-Za-z0-9_.-]+)?$");
    return h.find(':') != std::string::npos && std::regex_match(h, re);
}

int parsePort(const std::string& text, const std::string& whole) {
    if (text.empty() || text.size() > 5 ||
        !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        throw std::invalid_argument("\"" + whole + "\": the port must be a number from 1 to 65535");
    const int port = std::stoi(text);
    if (port < 1 || port > 65535)
        throw std::invalid_argument("\"" + whole + "\": the port must be a number from 1 to 65535");
    return port;
}

// slurmrestd's address: http(s)://host[:port][/prefix], or unix:/absolute/socket.
std::string slurmUrlProblem(const std::string& url) {
    static const std::regex web("^https?://[A-Za-z0-9._~-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~/-]*)?$");
    static const std::regex web6(
        "^https?://\\[[0-9A-Fa-f:.]+\\](:[0-9]{1,5})?(/[A-Za-z0-9._~/-]*)?$");
    if (url.empty())
        return "url: a Slurm cluster needs --slurm http(s)://HOST:PORT or unix:/PATH/TO/SOCKET";
    if (url.rfind("unix:", 0) == 0) {
        const std::string path = url.substr(5);
        if (path.empty() || path.front() != '/')
            return "url: \"" + url + "\": a unix socket needs an absolute path (unix:/...)";
        if (path.size() > 107) // sun_path holds 108 bytes with the NUL
            return "url: \"" + url + "\": a socket path has at most 107 bytes";
        if (path.find_first_of("\n\r") != std::string::npos)
            return "url: a socket path cannot hold a newline";
        return {};
    }
    std::smatch m;
    if (!std::regex_match(url, m, web) && !std::regex_match(url, m, web6))
        return "url: \"" + url +
               "\" is not http(s)://HOST[:PORT][/PATH] or unix:/PATH (slurmrestd's address)";
    if (m[1].matched) {
        const int port = std::stoi(m[1].str().substr(1));
        if (port < 1 || port > 65535)
            return "url: \"" + url + "\": the port must be a number from 1 to 65535";
    }
    return {};
}

void validateSlurm(const ClusterConfig& c, std::vector<std::string>& errors) {
    const SlurmSettings& s = c.slurm;
    if (std::string e = slurmUrlProblem(s.url); !e.empty())
        errors.push_back(e);
    static const std::regex envName("^[A-Za-z_][A-Za-z0-9_]*$");
    if (!s.tokenFile.empty() && !s.tokenEnv.empty())
        errors.push_back("token: --token-file and --token-env exclude each other");
    if (s.tokenFile.empty() && s.tokenEnv.empty() && s.url.rfind("http", 0) == 0)
        errors.push_back("token: slurmrestd over http(s) needs a JWT: --token-file FILE or "
                         "--token-env VARIABLE (`scontrol token` mints one)");
    if (!s.tokenFile.empty() &&
        (s.tokenFile.front() != '/' || s.tokenFile.find('\n') != std::string::npos))
        errors.push_back("token_file: an absolute path, got \"" + s.tokenFile + "\"");
    if (!s.tokenEnv.empty() && !std::regex_match(s.tokenEnv, envName))
        errors.push_back("token_env: a variable name (letters, digits, _), got \"" + s.tokenEnv +
                         "\"");
    if (!s.user.empty() && !validUser(s.user))
        errors.push_back("user: a user name (letters, digits, . _ -), got \"" + s.user + "\"");
    static const std::regex slurmName("^[A-Za-z0-9_.,-]+$");
    for (const auto& [field, value] :
         {std::pair<const char*, const std::string&>{"partition", s.partition},
          {"account", s.account},
          {"qos", s.qos}})
        if (!value.empty() && !std::regex_match(value, slurmName))
            errors.push_back(std::string(field) + ": letters, digits and . _ - , only, got \"" +
                             value + "\"");
    static const std::regex version("^v0\\.0\\.[0-9]+$");
    if (!s.apiVersion.empty() && !std::regex_match(s.apiVersion, version))
        errors.push_back("api_version: v0.0.NN (as slurmrestd names its API), got \"" +
                         s.apiVersion + "\"");
    if (!c.hosts.empty())
        errors.push_back("hosts: a Slurm cluster has no --ssh hosts (Slurm allocates the nodes)");
    if (!c.identityFile.empty())
        errors.push_back("identity: only SSH clusters have one");
    if (!c.knownHostsFile.empty())
        errors.push_back("known_hosts: only SSH clusters have one");
    if (c.workdir.empty() || c.workdir.front() != '/')
        errors.push_back("workdir: a Slurm cluster needs --workdir, an absolute path on a "
                         "filesystem that this machine and the nodes share, got \"" +
                         c.workdir + "\"");
    else if (c.workdir.find("%n") != std::string::npos || c.workdir.find("%h") != std::string::npos)
        errors.push_back("workdir: one shared folder on a Slurm cluster; %n and %h do not apply");
}

} // namespace

std::string SshTarget::text() const {
    std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    std::string t = user.empty() ? h : user + "@" + h;
    if (port != 22 || host.find(':') != std::string::npos)
        t += ":" + std::to_string(port);
    return t;
}

SshTarget parseSshTarget(const std::string& text) {
    SshTarget t;
    std::string rest = text;
    if (const auto at = rest.rfind('@'); at != std::string::npos) {
        t.user = rest.substr(0, at);
        rest = rest.substr(at + 1);
        if (!validUser(t.user))
            throw std::invalid_argument("\"" + text + "\": \"" + t.user +
                                        "\" is not a user name (letters, digits, . _ -)");
    }
    if (!rest.empty() && rest.front() == '[') {
        const auto close = rest.find(']');
        if (close == std::string::npos)
            throw std::invalid_argument("\"" + text + "\": an IPv6 address needs its closing ]");
        t.host = rest.substr(1, close - 1);
        const std::string after = rest.substr(close + 1);
        if (!after.empty()) {
            if (after.front() != ':')
                throw std::invalid_argument("\"" + text + "\": expected :PORT after ]");
            t.port = parsePort(after.substr(1), text);
        }
        if (!validIpv6(t.host))
            throw std::invalid_argument("\"" + text + "\": \"" + t.host +
                                        "\" is not an IPv6 address");
        return t;
    }
    if (const auto colon = rest.find(':'); colon != std::string::npos) {
        t.port = parsePort(rest.substr(colon + 1), text);
        rest = rest.substr(0, colon);
    }
    t.host = rest;
    if (!validHost(t.host))
        throw std::invalid_argument("\"" + text + "\": \"" + t.host +
                                    "\" is not a host name or address");
    return t;
}

std::string ClusterConfig::effectiveWorkdir() const {
    return workdir.empty() ? kDefaultWorkdir : workdir;
}

std::string ClusterConfig::workdirFor(std::size_t index) const {
    std::string out;
    const std::string w = effectiveWorkdir();
    for (std::size_t i = 0; i < w.size(); ++i) {
        if (w[i] == '%' && i + 1 < w.size() && (w[i + 1] == 'n' || w[i + 1] == 'h')) {
            out += w[i + 1] == 'n' ? std::to_string(index + 1)
                                   : (index < hosts.size() ? hosts[index].host : "local");
            ++i;
        } else {
            out += w[i];
        }
    }
    return out;
}

std::string ClusterConfig::program(const std::string& name) const {
    if (installDir.empty())
        return name;
    return installDir.back() == '/' ? installDir + name : installDir + "/" + name;
}

ClusterConfig localCluster() {
    ClusterConfig c;
    c.name = kLocalCluster;
    c.kind = "local";
    return c;
}

std::vector<std::string> validateCluster(const ClusterConfig& c) {
    std::vector<std::string> errors;
    static const std::regex namePattern("^[a-zA-Z0-9](-*[a-zA-Z0-9])*$");
    if (c.name.empty() || c.name.size() > 63 || !std::regex_match(c.name, namePattern))
        errors.push_back("name: up to 63 letters, digits and hyphens, starting and ending with a "
                         "letter or digit, got \"" +
                         c.name + "\"");
    if (c.name == kLocalCluster && c.kind != "local")
        errors.push_back("name: \"local\" is the built-in cluster (this machine)");
    if (c.kind == "local")
        return errors;
    if (c.kind != "ssh" && c.kind != "slurm")
        errors.push_back("kind: \"ssh\", \"slurm\" or \"local\", got \"" + c.kind + "\"");
    if (c.kind == "slurm")
        validateSlurm(c, errors);
    else if (c.slurm != SlurmSettings{})
        errors.push_back("slurm: only Slurm clusters (--slurm URL) have Slurm settings");
    if (c.hosts.empty() && c.kind != "slurm")
        errors.push_back("hosts: a cluster needs at least one --ssh host");
    for (std::size_t i = 0; i < c.hosts.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (c.hosts[i] == c.hosts[j])
                errors.push_back("hosts: " + c.hosts[i].text() + " is listed twice");
    for (const auto& [field, path] :
         {std::pair<const char*, const std::string&>{"identity", c.identityFile},
          {"known_hosts", c.knownHostsFile},
          {"install_dir", c.installDir}})
        if (!path.empty() && path.find('\n') != std::string::npos)
            errors.push_back(std::string(field) + ": a path cannot hold a newline");
    if (c.workdir.find('\n') != std::string::npos)
        errors.push_back("workdir: a path cannot hold a newline");
    if (!c.socketIfname.empty()) {
        static const std::regex ifname("^[A-Za-z0-9_.:-]{1,15}$");
        if (!std::regex_match(c.socketIfname, ifname))
            errors.push_back("socket_ifname: an interface name of up to 15 characters, got \"" +
                             c.socketIfname + "\"");
    }
    if (!c.rendezvousAddress.empty()) {
        try {
            parseSshTarget(c.rendezvousAddress);
        } catch (const std::exception&) {
            errors.push_back("rendezvous_address: a host name or address, got \"" +
                             c.rendezvousAddress + "\"");
        }
    }
    if (!(c.hostTimeoutSeconds >= 1))
        errors.push_back("host_timeout: at least 1 second");
    return errors;
}

std::string clusterToJson(const ClusterConfig& c) {
    nlohmann::json hosts = nlohmann::json::array();
    for (const auto& h : c.hosts)
        hosts.push_back(h.text());
    nlohmann::json j{{"kind", c.kind},
                     {"hosts", hosts},
                     {"identity", c.identityFile},
                     {"known_hosts", c.knownHostsFile},
                     {"workdir", c.workdir},
                     {"rendezvous_address", c.rendezvousAddress},
                     {"socket_ifname", c.socketIfname},
                     {"install_dir", c.installDir},
                     {"host_timeout", c.hostTimeoutSeconds}};
    if (c.kind == "slurm") // where the token is, never the token
        j["slurm"] = {{"url", c.slurm.url},
                      {"token_file", c.slurm.tokenFile},
                      {"token_env", c.slurm.tokenEnv},
                      {"user", c.slurm.user},
                      {"partition", c.slurm.partition},
                      {"account", c.slurm.account},
                      {"qos", c.slurm.qos},
                      {"api_version", c.slurm.apiVersion}};
    return j.dump();
}

ClusterConfig clusterFromJson(const std::string& name, const std::string& text) {
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (!j.is_object())
        throw std::runtime_error("cluster " + name + ": its stored definition is not JSON");
    ClusterConfig c;
    c.name = name;
    try {
        c.kind = j.value("kind", "ssh");
        for (const auto& h : j.value("hosts", nlohmann::json::array()))
            c.hosts.push_back(parseSshTarget(h.get<std::string>()));
        c.identityFile = j.value("identity", "");
        c.knownHostsFile = j.value("known_hosts", "");
        c.workdir = j.value("workdir", "");
        c.rendezvousAddress = j.value("rendezvous_address", "");
        c.socketIfname = j.value("socket_ifname", "");
        c.installDir = j.value("install_dir", "");
        c.hostTimeoutSeconds = j.value("host_timeout", kDefaultHostTimeoutSeconds);
        if (const auto s = j.find("slurm"); s != j.end() && s->is_object()) {
            c.slurm.url = s->value("url", "");
            c.slurm.tokenFile = s->value("token_file", "");
            c.slurm.tokenEnv = s->value("token_env", "");
            c.slurm.user = s->value("user", "");
            c.slurm.partition = s->value("partition", "");
            c.slurm.account = s->value("account", "");
            c.slurm.qos = s->value("qos", "");
            c.slurm.apiVersion = s->value("api_version", "");
        }
    } catch (const std::exception& e) {
        throw std::runtime_error("cluster " + name + ": " + e.what());
    }
    return c;
}

} // namespace studio::remote

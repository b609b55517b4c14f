#include "models/clusters/cluster_form.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace studio::models {

namespace fs = std::filesystem;

namespace {

std::string trimmed(const std::string& s) {
    const auto first = s.find_first_not_of(" \t\r");
    if (first == std::string::npos)
        return {};
    return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

std::string absolutePath(const std::string& text) {
    std::string p = trimmed(text);
    if (p.empty())
        return p;
    if (p == "~" || p.rfind("~/", 0) == 0)
        if (const char* home = std::getenv("HOME"))
            p = std::string(home) + p.substr(1);
    return fs::absolute(p).lexically_normal().string();
}

// "hosts: message" -> {"hosts", "message"}; a message without a field goes under "name".
std::pair<std::string, std::string> splitField(const std::string& problem) {
    const auto colon = problem.find(": ");
    if (colon == std::string::npos || problem.find(' ') < colon)
        return {"name", problem};
    return {problem.substr(0, colon), problem.substr(colon + 2)};
}

} // namespace

ClusterFormResult readClusterForm(const ClusterForm& form,
                                  const std::vector<std::string>& takenNames) {
    ClusterFormResult r;
    remote::ClusterConfig& c = r.config;
    c.name = trimmed(form.name);
    std::istringstream lines(form.hosts);
    std::string line;
    for (int number = 1; std::getline(lines, line); ++number) {
        line = trimmed(line);
        if (line.empty())
            continue;
        try {
            c.hosts.push_back(remote::parseSshTarget(line));
        } catch (const std::exception& e) {
            r.problems["hosts"].push_back("line " + std::to_string(number) + ": " + e.what());
        }
    }
    c.identityFile = absolutePath(form.identityFile);
    c.knownHostsFile = absolutePath(form.knownHostsFile);
    c.workdir = trimmed(form.workdir);
    c.rendezvousAddress = trimmed(form.rendezvousAddress);
    c.socketIfname = trimmed(form.socketIfname);
    c.installDir = trimmed(form.installDir);
    c.hostTimeoutSeconds = form.hostTimeoutSeconds;

    const bool unparsedHosts = r.problems.count("hosts") > 0;
    if (c.hosts.empty() && !unparsedHosts)
        r.problems["hosts"].push_back("at least one host, one a line: [user@]host[:port]");
    for (const auto& problem : remote::validateCluster(c)) {
        auto [field, message] = splitField(problem);
        // The engine words this one for the command line's --ssh; said above for the form.
        if (field == "hosts" && c.hosts.empty())
            continue;
        r.problems[field].push_back(message);
    }
    if (std::find(takenNames.begin(), takenNames.end(), c.name) != takenNames.end() &&
        c.name != remote::kLocalCluster)
        r.problems["name"].push_back("a cluster named " + c.name +
                                     " exists (edit it, or remove it first)");
    std::error_code ec;
    if (!c.identityFile.empty() && !fs::is_regular_file(c.identityFile, ec))
        r.problems["identity"].push_back(c.identityFile + " does not exist");
    return r;
}

ClusterForm clusterForm(const remote::ClusterConfig& c) {
    ClusterForm f;
    f.name = c.name;
    for (const auto& h : c.hosts)
        f.hosts += h.text() + "\n";
    f.identityFile = c.identityFile;
    f.knownHostsFile = c.knownHostsFile;
    f.workdir = c.workdir;
    f.rendezvousAddress = c.rendezvousAddress;
    f.socketIfname = c.socketIfname;
    f.installDir = c.installDir;
    f.hostTimeoutSeconds = c.hostTimeoutSeconds;
    return f;
}

} // namespace studio::models

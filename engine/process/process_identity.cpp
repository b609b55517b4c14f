#include "engine/process/process_identity.h"

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace studio::process {

namespace {

struct Stat {
    std::string state;
    long session = 0;
    std::string startTicks;
};

// The fields after the command name, which may itself hold spaces and parentheses.
bool readStat(long pid, Stat& out) {
    if (pid <= 0)
        return false;
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(in, line))
        return false;
    const auto close = line.rfind(')');
    if (close == std::string::npos || close + 2 > line.size())
        return false;
    std::istringstream rest(line.substr(close + 2));
    rest >> out.state;
    std::string field;
    for (int i = 4; i <= 22 && rest >> field; ++i)
        if (i == 6)
            out.session = std::atol(field.c_str());
    out.startTicks = field;
    return !out.startTicks.empty();
}

} // namespace

std::string processStartTicks(long pid) {
    Stat s;
    return readStat(pid, s) ? s.startTicks : std::string();
}

bool processRunning(long pid, const std::string& startTicks) {
    Stat s;
    if (startTicks.empty() || !readStat(pid, s))
        return false;
    return s.startTicks == startTicks && s.state != "Z" && s.state != "X";
}

int killOrphanedSession(long leaderPid, const std::string& leaderStart) {
    if (leaderPid <= 1 || leaderStart.empty() || processRunning(leaderPid, leaderStart))
        return 0;
    Stat leader;
    if (readStat(leaderPid, leader) && leader.startTicks != leaderStart &&
        leader.session == leaderPid)
        return 0; // the pid leads another session now: those processes are not ours
    const long since = std::atol(leaderStart.c_str());
    int killed = 0;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
        const std::string name = entry.path().filename().string();
        if (name.find_first_not_of("0123456789") != std::string::npos)
            continue;
        const long pid = std::atol(name.c_str());
        Stat s;
        if (!readStat(pid, s) || s.session != leaderPid || s.state == "Z" ||
            std::atol(s.startTicks.c_str()) < since)
            continue;
        if (::kill(static_cast<pid_t>(pid), SIGKILL) == 0)
            ++killed;
    }
    return killed;
}

} // namespace studio::process

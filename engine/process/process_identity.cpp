#include "engine/process/process_identity.h"

#include <fstream>
#include <sstream>

namespace studio::process {

namespace {

// The fields after the command name, which may itself hold spaces and parentheses.
bool statFields(long pid, std::string& state, std::string& startTicks) {
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
    rest >> state;
    std::string field;
    for (int i = 4; i <= 22 && rest >> field; ++i) {
    }
    startTicks = field;
    return !startTicks.empty();
}

} // namespace

std::string processStartTicks(long pid) {
    std::string state, ticks;
    return statFields(pid, state, ticks) ? ticks : std::string();
}

bool processRunning(long pid, const std::string& startTicks) {
    std::string state, ticks;
    if (startTicks.empty() || !statFields(pid, state, ticks))
        return false;
    return ticks == startTicks && state != "Z" && state != "X";
}

} // namespace studio::process

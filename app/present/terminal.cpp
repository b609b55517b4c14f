#include "app/present/terminal.h"

#include <cstdlib>
#include <cstring>
#include <unistd.h>

namespace studio::present {

TerminalMode terminalMode(bool isTty, const char* term, const char* noColor) {
    TerminalMode m;
    m.interactive = isTty && !(term && std::strcmp(term, "dumb") == 0);
    m.color = m.interactive && !(noColor && *noColor) && term && *term;
    return m;
}

TerminalMode terminalModeOf(int fd) {
    return terminalMode(::isatty(fd) != 0, std::getenv("TERM"), std::getenv("NO_COLOR"));
}

namespace {

const char* statusColor(const std::string& status) {
    if (status == "Completed")
        return "\033[32m";
    if (status == "Failed")
        return "\033[31m";
    if (status == "Stopped" || status == "Stopping")
        return "\033[33m";
    if (status == "InProgress")
        return "\033[36m";
    if (status == "Imported")
        return "\033[34m";
    return nullptr;
}

} // namespace

std::string statusCell(const std::string& status, int width, bool color) {
    std::string text = status;
    if (static_cast<int>(text.size()) < width)
        text.resize(static_cast<std::size_t>(width), ' ');
    const char* c = color ? statusColor(status) : nullptr;
    if (!c)
        return text;
    // Colour the word only, so the padding after it stays plain.
    return c + status + "\033[0m" + text.substr(status.size());
}

} // namespace studio::present

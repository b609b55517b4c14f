// How the CLI writes to a stream: lines rewritten in place (progress bars) only on an
// interactive terminal, colour only there and only when NO_COLOR is unset or empty
// (no-color.org); a pipe, a file or TERM=dumb gets plain lines.
#pragma once

#include <string>

namespace studio::present {

struct TerminalMode {
    bool interactive = false; // \r and erase-line may be used
    bool color = false;       // ANSI colours may be used
};

// The rule, from its inputs: isTty (isatty of the stream), $TERM and $NO_COLOR (null: unset).
TerminalMode terminalMode(bool isTty, const char* term, const char* noColor);
// The mode of file descriptor fd in this process's environment.
TerminalMode terminalModeOf(int fd);

// A job status padded to width columns, coloured by what it means when color is set:
// Completed green, Failed red, Stopped and Stopping yellow, InProgress cyan, Imported blue.
std::string statusCell(const std::string& status, int width, bool color);

} // namespace studio::present

#include "engine/remote/shell_quote.h"

#include <stdexcept>

namespace studio::remote {

std::string shellQuote(std::string_view word) {
    std::string out;
    out.reserve(word.size() + 2);
    out += '\'';
    for (char c : word) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    out += '\'';
    return out;
}

std::string shellCommand(const std::vector<std::string>& argv) {
    if (argv.empty())
        throw std::invalid_argument("shellCommand: empty command");
    std::string out = "exec";
    for (const auto& a : argv) {
        if (a.find('\0') != std::string::npos)
            throw std::invalid_argument("an argument holds a NUL byte, which no command line can "
                                        "carry");
        out += ' ';
        out += shellQuote(a);
    }
    return out;
}

} // namespace studio::remote

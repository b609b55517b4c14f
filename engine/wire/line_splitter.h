// Splits a byte stream into lines: on '\n', and on a lone '\r' (progress bars redraw with it).
// Lines longer than the limit are cut into pieces so one runaway writer cannot exhaust memory.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace studio::wire {

class LineSplitter {
public:
    explicit LineSplitter(std::size_t maxLine = 1 << 20)
        : m_maxLine(maxLine) {}

    // Appends bytes; returns the lines completed by them, without terminators.
    std::vector<std::string> append(std::string_view bytes);
    // The unterminated rest, at end of stream; empty when there is none.
    std::string finish();

private:
    std::string m_partial;
    std::size_t m_maxLine;
    bool m_lastWasCr = false;
};

} // namespace studio::wire

// Splits a byte stream into lines: on '\n', and on a lone '\r' (progress bars redraw with it).
// A line longer than the limit comes out in pieces, each marked, so one runaway writer cannot
// exhaust memory and nobody mistakes a piece for a line of its own.
#pragma once

#include "engine/wire/event.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace studio::wire {

struct SplitLine {
    std::string text;
    LinePart part = LinePart::Whole;
    std::size_t lineBytes = 0; // for Last: the whole line's length
};

class LineSplitter {
public:
    explicit LineSplitter(std::size_t maxLine = 1 << 20)
        : m_maxLine(maxLine) {}

    // Appends bytes; returns the lines completed by them, without terminators.
    std::vector<SplitLine> append(std::string_view bytes);
    // The unterminated rest, at end of stream; empty text when there is none.
    SplitLine finish();

private:
    std::string m_partial;
    std::size_t m_maxLine;
    bool m_lastWasCr = false;
    std::size_t m_cutBytes = 0; // bytes of the current line already given out as pieces

    void complete(std::vector<SplitLine>& out);
};

} // namespace studio::wire

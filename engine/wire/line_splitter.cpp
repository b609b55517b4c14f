#include "engine/wire/line_splitter.h"

namespace studio::wire {

void LineSplitter::complete(std::vector<SplitLine>& out) {
    SplitLine l;
    l.lineBytes = m_cutBytes + m_partial.size();
    l.part = m_cutBytes > 0 ? LinePart::Last : LinePart::Whole;
    l.text = std::move(m_partial);
    m_partial.clear();
    m_cutBytes = 0;
    out.push_back(std::move(l));
}

std::vector<SplitLine> LineSplitter::append(std::string_view bytes) {
    std::vector<SplitLine> lines;
    for (char c : bytes) {
        if (c == '\n') {
            if (!m_lastWasCr)
                complete(lines);
            m_lastWasCr = false;
            continue;
        }
        m_lastWasCr = false;
        if (c == '\r') {
            complete(lines);
            m_lastWasCr = true;
            continue;
        }
        m_partial.push_back(c);
        if (m_partial.size() >= m_maxLine) {
            m_cutBytes += m_partial.size();
            lines.push_back({std::move(m_partial), LinePart::Piece, 0});
            m_partial.clear();
        }
    }
    return lines;
}

SplitLine LineSplitter::finish() {
    std::vector<SplitLine> out;
    if (!m_partial.empty() || m_cutBytes > 0)
        complete(out);
    m_lastWasCr = false;
    return out.empty() ? SplitLine{} : std::move(out.front());
}

} // namespace studio::wire

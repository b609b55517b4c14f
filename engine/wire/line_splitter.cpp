#include "engine/wire/line_splitter.h"

namespace studio::wire {

std::vector<std::string> LineSplitter::append(std::string_view bytes) {
    std::vector<std::string> lines;
    for (char c : bytes) {
        if (c == '\n') {
            if (!m_lastWasCr)
                lines.push_back(std::move(m_partial));
            m_partial.clear();
            m_lastWasCr = false;
            continue;
        }
        m_lastWasCr = false;
        if (c == '\r') {
            lines.push_back(std::move(m_partial));
            m_partial.clear();
            m_lastWasCr = true;
            continue;
        }
        m_partial.push_back(c);
        if (m_partial.size() >= m_maxLine) {
            lines.push_back(std::move(m_partial));
            m_partial.clear();
        }
    }
    return lines;
}

std::string LineSplitter::finish() {
    std::string rest = std::move(m_partial);
    m_partial.clear();
    m_lastWasCr = false;
    return rest;
}

} // namespace studio::wire

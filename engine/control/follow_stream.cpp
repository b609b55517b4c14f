#include "engine/control/follow_stream.h"

namespace studio::control {

namespace {
constexpr std::string_view kMarker = "@@studio-follow 1 ";
}

std::vector<FollowItem> FollowStream::append(std::string_view bytes) {
    std::vector<FollowItem> items;
    m_partial.append(bytes.data(), bytes.size());
    std::size_t start = 0;
    for (auto nl = m_partial.find('\n'); nl != std::string::npos;
         nl = m_partial.find('\n', start)) {
        items.push_back(classify(m_partial.substr(start, nl - start)));
        start = nl + 1;
    }
    m_partial.erase(0, start);
    return items;
}

FollowItem FollowStream::classify(std::string line) {
    using K = FollowItem::Kind;
    if (!m_started) {
        if (line.rfind(kMarker, 0) == 0) {
            m_started = true;
            return {K::Marker, line.substr(kMarker.size())};
        }
        return {K::Noise, std::move(line)};
    }
    if (!line.empty() && line.front() == '{')
        return {K::Line, std::move(line)};
    if (line.rfind("#hb", 0) == 0)
        return {K::Heartbeat, {}};
    if (line == "#end")
        return {K::End, {}};
    if (line == "#gone")
        return {K::Gone, {}};
    if (line.rfind("#error ", 0) == 0)
        return {K::Error, line.substr(7)};
    return {K::Noise, std::move(line)};
}

} // namespace studio::control

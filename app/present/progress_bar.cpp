#include "app/present/progress_bar.h"

#include <cmath>
#include <cstdio>
#include <ctime>

namespace studio::present {

std::string formatDuration(double seconds) {
    if (seconds < 0)
        seconds = 0;
    long s = static_cast<long>(seconds);
    char buf[32];
    if (s < 60)
        std::snprintf(buf, sizeof buf, "%lds", s);
    else if (s < 3600)
        std::snprintf(buf, sizeof buf, "%02ld:%02ld", s / 60, s % 60);
    else
        std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
    return buf;
}

std::string formatTime(double t) {
    if (t <= 0)
        return "-";
    std::time_t secs = static_cast<std::time_t>(t);
    std::tm tm{};
    ::localtime_r(&secs, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S", &tm);
    return buf;
}

std::string formatValue(double v) {
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v > 0 ? "Infinity" : "-Infinity";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return buf;
}

std::string renderProgress(const ProgressState& s) {
    std::string head = s.secondary.empty() ? s.status : s.secondary;
    while (head.size() < 11)
        head += ' ';
    std::string tail = "  " + formatDuration(s.elapsedSeconds);
    if (s.step >= 0)
        tail +=
            "  step " + std::to_string(s.step) + (s.total > 0 ? "/" + std::to_string(s.total) : "");
    if (!s.metricName.empty())
        tail += "  " + s.metricName + "=" + formatValue(s.metricValue);

    const int barWidth =
        std::max(10, std::min(30, s.width - static_cast<int>(head.size() + tail.size()) - 8));
    std::string bar = "[";
    std::string pct;
    if (s.total > 0 && s.step >= 0) {
        const double frac =
            std::min(1.0, static_cast<double>(s.step) / static_cast<double>(s.total));
        const int filled = static_cast<int>(std::round(frac * barWidth));
        for (int i = 0; i < barWidth; ++i)
            bar += i < filled ? "#" : "-";
        char buf[16];
        std::snprintf(buf, sizeof buf, " %3d%%", static_cast<int>(std::floor(frac * 100)));
        pct = buf;
    } else {
        // Unknown length: a short block bouncing across the bar.
        const int span = barWidth - 3;
        int pos = span > 0 ? s.tick % (2 * span) : 0;
        if (pos > span)
            pos = 2 * span - pos;
        for (int i = 0; i < barWidth; ++i)
            bar += (i >= pos && i < pos + 3) ? "=" : " ";
    }
    bar += "]";
    std::string line = head + " " + bar + pct + tail;
    if (static_cast<int>(line.size()) > s.width)
        line.resize(static_cast<std::size_t>(std::max(0, s.width)));
    return line;
}

} // namespace studio::present

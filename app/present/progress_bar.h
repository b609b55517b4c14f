// Text for the CLI's live progress line; pure formatting, unit-tested.
#pragma once

#include <cstdint>
#include <string>

namespace studio::present {

struct ProgressState {
    std::string status = "InProgress";
    std::string secondary = "Starting";
    double elapsedSeconds = 0;
    std::int64_t step = -1;
    std::int64_t total = -1;
    std::string metricName; // last metric seen; empty: none yet
    double metricValue = 0;
    int width = 80; // terminal columns
    int tick = 0;   // animation frame for unknown totals
};

std::string renderProgress(const ProgressState& s);
// "42s", "03:07", "1:02:03"
std::string formatDuration(double seconds);
// Local time "2026-11-21 19:35:02"; "-" for 0.
std::string formatTime(double unixSeconds);
// Shortest round-trip-ish text: "0.2341", "1.2e-05", "NaN".
std::string formatValue(double v);

} // namespace studio::present

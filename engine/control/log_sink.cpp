#include "engine/control/log_sink.h"

#include <cstdlib>
#include <filesystem>

namespace studio::control {

LogSink::LogSink(std::string dir)
    : m_dir(std::move(dir)) {
}

LogSink::~LogSink() {
    for (auto& [k, f] : m_files)
        if (f.f)
            std::fclose(f.f);
}

std::string LogSink::fileName(int node, int rank) {
    return rank < 0 ? "launcher-" + std::to_string(node) + ".log"
                    : "rank-" + std::to_string(rank) + ".log";
}

void LogSink::write(double t, int node, int rank, wire::Stream stream, const std::string& text) {
    auto key = std::make_pair(node, rank);
    auto it = m_files.find(key);
    if (it == m_files.end()) {
        File f;
        f.row.node = node;
        f.row.rank = rank;
        f.row.path = (std::filesystem::path(m_dir) / fileName(node, rank)).string();
        f.f = std::fopen(f.row.path.c_str(), "a");
        it = m_files.emplace(key, f).first;
    }
    File& f = it->second;
    if (!f.f)
        return;
    int n = std::fprintf(f.f, "%.3f %s %s\n", t, wire::streamName(stream), text.c_str());
    if (n > 0) {
        f.row.lines += 1;
        f.row.bytes += n;
    }
}

void LogSink::flush() {
    for (auto& [k, f] : m_files)
        if (f.f)
            std::fflush(f.f);
}

std::vector<store::LogFileRow> LogSink::files() const {
    std::vector<store::LogFileRow> out;
    for (const auto& [k, f] : m_files)
        out.push_back(f.row);
    return out;
}

bool parseLogLine(const std::string& line, LogLine& out) {
    auto a = line.find(' ');
    if (a == std::string::npos)
        return false;
    auto b = line.find(' ', a + 1);
    if (b == std::string::npos)
        return false;
    char* end = nullptr;
    out.time = std::strtod(line.c_str(), &end);
    if (end != line.c_str() + a)
        return false;
    out.stream = line.substr(a + 1, b - a - 1);
    out.text = line.substr(b + 1);
    return true;
}

} // namespace studio::control

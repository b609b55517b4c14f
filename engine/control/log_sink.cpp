#include "engine/control/log_sink.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdio_ext.h>
#include <sys/stat.h>
#include <unistd.h>

namespace studio::control {

namespace {

// Truncates an open file after its last newline; returns the new size.
std::int64_t endOfLastLine(int fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return 0;
    std::int64_t end = st.st_size;
    char buf[4096];
    while (end > 0) {
        const std::int64_t from =
            std::max<std::int64_t>(0, end - static_cast<std::int64_t>(sizeof buf));
        const ssize_t n = ::pread(fd, buf, static_cast<std::size_t>(end - from), from);
        if (n <= 0)
            break;
        const void* nl = ::memrchr(buf, '\n', static_cast<std::size_t>(n));
        if (nl) {
            end = from + (static_cast<const char*>(nl) - buf) + 1;
            break;
        }
        end = from;
    }
    if (end != st.st_size)
        (void)!::ftruncate(fd, end);
    return end;
}

} // namespace

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

void LogSink::write(double t, int node, int rank, wire::Stream stream, const std::string& text,
                    wire::LinePart part) {
    if (!m_error.empty()) {
        ++m_dropped;
        return;
    }
    auto key = std::make_pair(node, rank);
    auto it = m_files.find(key);
    if (it == m_files.end()) {
        File f;
        f.row.node = node;
        f.row.rank = rank;
        f.row.path = (std::filesystem::path(m_dir) / fileName(node, rank)).string();
        f.f = std::fopen(f.row.path.c_str(), "a+e");
        it = m_files.emplace(key, f).first;
    }
    File& f = it->second;
    if (!f.f) { // it could not be created: as a failed write, not a silent drop
        m_error = "cannot write " + f.row.path + ": " + std::strerror(errno ? errno : EIO);
        ++m_dropped;
        return;
    }
    const bool continuing = f.midLine && part != wire::LinePart::Whole && f.midStream == stream;
    long n = 0;
    if (f.midLine && !continuing) { // another stream came between the pieces: end the line
        n += std::fputc('\n', f.f) == EOF ? 0 : 1;
        f.row.lines += 1;
    }
    if (!continuing)
        n += std::fprintf(f.f, "%.3f %s ", t, wire::streamName(stream));
    n += static_cast<long>(std::fwrite(text.data(), 1, text.size(), f.f));
    f.midLine = part == wire::LinePart::Piece;
    f.midStream = stream;
    if (!f.midLine) {
        n += std::fputc('\n', f.f) == EOF ? 0 : 1;
        f.row.lines += 1;
    }
    if (n > 0) {
        f.row.bytes += n;
        f.changed = true;
    }
    if (std::ferror(f.f))
        fail(f, errno);
}

void LogSink::flush() {
    for (auto& [k, f] : m_files)
        if (f.f && (std::fflush(f.f) != 0 || std::ferror(f.f)))
            fail(f, errno);
}

// Every file is closed where its last whole line ends: what a full buffer half-wrote is cut
// off (cutting always succeeds, it frees space), and no line is added after that.
void LogSink::fail(File& f, int error) {
    if (m_error.empty())
        m_error = "cannot write " + f.row.path + ": " + std::strerror(error ? error : EIO);
    for (auto& [k, file] : m_files)
        if (file.f) {
            if (&file != &f)
                std::fflush(file.f);
            ::__fpurge(file.f); // what could not be written is not tried again at fclose
            file.row.bytes = endOfLastLine(::fileno(file.f));
            file.changed = true;
            std::fclose(file.f);
            file.f = nullptr;
        }
}

std::vector<store::LogFileRow> LogSink::files() const {
    std::vector<store::LogFileRow> out;
    for (const auto& [k, f] : m_files)
        out.push_back(f.row);
    return out;
}

std::vector<store::LogFileRow> LogSink::takeChanged() {
    std::vector<store::LogFileRow> out;
    for (auto& [k, f] : m_files)
        if (f.changed) {
            f.changed = false;
            out.push_back(f.row);
        }
    return out;
}

void LogSink::resume(const std::vector<store::LogFileRow>& stored) {
    for (const auto& row : stored) {
        File f;
        f.row = row;
        f.row.path = (std::filesystem::path(m_dir) / fileName(row.node, row.rank)).string();
        std::error_code ec;
        if (std::filesystem::exists(f.row.path, ec))
            std::filesystem::resize_file(f.row.path, static_cast<std::uintmax_t>(row.bytes), ec);
        f.f = std::fopen(f.row.path.c_str(), "a+e");
        auto key = std::make_pair(row.node, row.rank);
        if (auto it = m_files.find(key); it != m_files.end() && it->second.f)
            std::fclose(it->second.f);
        m_files[key] = f;
    }
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

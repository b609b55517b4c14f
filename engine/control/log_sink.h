// Writes each rank's log lines to jobs/<job>/logs/rank-<R>.log (launcher lines to
// launcher-<N>.log), one line per event: "<unix time> <stream> <text>". The pieces of a line
// over the launcher's limit are joined back into that one line. Not thread-safe.
#pragma once

#include "engine/store/records.h"
#include "engine/wire/event.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace studio::control {

class LogSink {
public:
    explicit LogSink(std::string dir);
    ~LogSink();
    LogSink(const LogSink&) = delete;
    LogSink& operator=(const LogSink&) = delete;

    void write(double t, int node, int rank, wire::Stream stream, const std::string& text,
               wire::LinePart part = wire::LinePart::Whole);
    void flush();
    std::vector<store::LogFileRow> files() const;
    // The files written to since the last call (their rows with the sizes now).
    std::vector<store::LogFileRow> takeChanged();
    // Continues files another process wrote: each is cut back to the size stored with the
    // journal offset, so a line is never written twice after a takeover.
    void resume(const std::vector<store::LogFileRow>& stored);
    static std::string fileName(int node, int rank);
    // The first write that failed (a full disk, an I/O error), naming the file and the cause;
    // empty while all is well. After it the sink drops every line: a half-written log is not
    // continued, and what space is left goes to recording how the job ended.
    const std::string& error() const { return m_error; }
    std::int64_t droppedLines() const { return m_dropped; }

private:
    struct File {
        std::FILE* f = nullptr;
        store::LogFileRow row;
        bool changed = false;
        bool midLine = false; // a Piece was written, its line not ended yet
        wire::Stream midStream = wire::Stream::Stdout;
    };
    std::string m_dir;
    std::map<std::pair<int, int>, File> m_files;
    std::string m_error;
    std::int64_t m_dropped = 0;

    void fail(File& f, int error);
};

// One parsed line of a log file.
struct LogLine {
    double time = 0;
    std::string stream;
    std::string text;
};
bool parseLogLine(const std::string& line, LogLine& out);

} // namespace studio::control

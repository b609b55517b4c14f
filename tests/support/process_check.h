// Test helpers for processes the tests start.
#pragma once

#include <QFile>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <string>
#include <unistd.h>

// Whether a process has ended (zombies of a non-reaping init count as ended).
inline bool processGone(std::int64_t pid) {
    if (pid <= 0 || (::kill(static_cast<pid_t>(pid), 0) == -1 && errno == ESRCH))
        return true;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return true;
    const QByteArray text = stat.readAll();
    const int close = text.lastIndexOf(')');
    return close > 0 && text.mid(close + 2, 1) == "Z";
}

// Reads a descriptor until end of file.
inline std::string readToEnd(int fd) {
    std::string s;
    char buf[65536];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0)
        s.append(buf, static_cast<std::size_t>(n));
    return s;
}

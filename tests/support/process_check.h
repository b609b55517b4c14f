// Test helper: whether a process has ended (zombies of a non-reaping init count as ended).
#pragma once

#include <QFile>

#include <cerrno>
#include <csignal>
#include <cstdint>

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

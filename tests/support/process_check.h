// Test helpers for processes the tests start.
#pragma once

#include "tests/support/read_to_end.h"

#include <QDir>
#include <QFile>

#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

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

// The local addresses of the TCP sockets a process listens on ("127.0.0.1", "::", ...), read from
// /proc: its socket inodes matched against the LISTEN rows of its net/tcp and net/tcp6.
inline std::vector<std::string> listeningAddresses(std::int64_t pid) {
    std::set<std::string> inodes;
    const QString fds = QStringLiteral("/proc/%1/fd").arg(pid);
    for (const QString& fd : QDir(fds).entryList(QDir::Files | QDir::System)) {
        const QString target = QFile::symLinkTarget(fds + QLatin1Char('/') + fd);
        const QString prefix = QStringLiteral("/proc/%1/fd/socket:[").arg(pid);
        if (target.startsWith(prefix))
            inodes.insert(target.mid(prefix.size()).chopped(1).toStdString());
    }
    std::vector<std::string> out;
    for (const char* table : {"tcp", "tcp6"}) {
        std::ifstream in("/proc/" + std::to_string(pid) + "/net/" + table);
        std::string line;
        std::getline(in, line); // header
        while (std::getline(in, line)) {
            std::istringstream row(line);
            std::string slot, local, remote, state, queues, timer, retr, uid, timeout, inode;
            row >> slot >> local >> remote >> state >> queues >> timer >> retr >> uid >> timeout >>
                inode;
            if (state != "0A" || !inodes.count(inode))
                continue;
            // Each 32-bit word of the address is printed in host (little-endian) order.
            const std::string hex = local.substr(0, local.find(':'));
            unsigned char bytes[16] = {};
            for (std::size_t word = 0; word < hex.size() / 8; ++word) {
                const auto value =
                    static_cast<std::uint32_t>(std::stoul(hex.substr(word * 8, 8), nullptr, 16));
                for (int b = 0; b < 4; ++b)
                    bytes[word * 4 + static_cast<std::size_t>(b)] =
                        static_cast<unsigned char>(value >> (8 * b));
            }
            char text[INET6_ADDRSTRLEN] = {};
            ::inet_ntop(hex.size() == 8 ? AF_INET : AF_INET6, bytes, text, sizeof text);
            out.emplace_back(text);
        }
    }
    return out;
}

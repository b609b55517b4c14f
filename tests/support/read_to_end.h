// Reading what a child process wrote: a descriptor read until end of file. Qt-free.
#pragma once

#include <string>
#include <unistd.h>

// Reads a descriptor until end of file.
inline std::string readToEnd(int fd) {
    std::string s;
    char buf[65536];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0)
        s.append(buf, static_cast<std::size_t>(n));
    return s;
}

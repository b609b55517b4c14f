#include "engine/train/idx_file.h"

#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace studio::train {

namespace {

std::vector<std::uint8_t> readAll(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb"); // reads plain files too
    if (!f)
        throw std::runtime_error("cannot open " + path);
    std::vector<std::uint8_t> out;
    std::uint8_t buf[1 << 16];
    while (true) {
        int n = gzread(f, buf, sizeof buf);
        if (n < 0) {
            int err = 0;
            std::string msg = gzerror(f, &err);
            gzclose(f);
            throw std::runtime_error(path + ": corrupt compressed data (" + msg + ")");
        }
        if (n == 0)
            break;
        out.insert(out.end(), buf, buf + n);
    }
    gzclose(f);
    return out;
}

std::uint32_t bigEndian(const std::uint8_t* p) {
    return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) |
           std::uint32_t(p[3]);
}

} // namespace

IdxData parseIdx(const std::vector<std::uint8_t>& raw, const std::string& name, int expectedRank) {
    if (raw.size() < 4)
        throw std::runtime_error(name + ": too short for an IDX header (" +
                                 std::to_string(raw.size()) + " bytes)");
    const std::uint32_t magic = bigEndian(raw.data());
    const int type = static_cast<int>((magic >> 8) & 0xff);
    const int rank = static_cast<int>(magic & 0xff);
    if ((magic >> 16) != 0 || type != 0x08)
        throw std::runtime_error(name + ": not an unsigned-byte IDX file (magic 0x" + [&] {
            char b[16];
            std::snprintf(b, sizeof b, "%08x", magic);
            return std::string(b);
        }() + ")");
    if (rank != expectedRank)
        throw std::runtime_error(name + ": expected " + std::to_string(expectedRank) +
                                 " dimension(s), the file has " + std::to_string(rank));
    const std::size_t header = 4 + 4 * static_cast<std::size_t>(rank);
    if (raw.size() < header)
        throw std::runtime_error(name + ": truncated header");
    IdxData d;
    std::size_t expected = 1;
    for (int i = 0; i < rank; ++i) {
        d.dims.push_back(bigEndian(raw.data() + 4 + 4 * i));
        // Dimensions whose product wraps around would let a short file pass the size check.
        if (__builtin_mul_overflow(expected, static_cast<std::size_t>(d.dims.back()), &expected))
            throw std::runtime_error(name + ": the header's dimensions overflow (dimension " +
                                     std::to_string(i) + " is " + std::to_string(d.dims.back()) +
                                     ")");
    }
    if (raw.size() - header != expected)
        throw std::runtime_error(
            name + ": " + (raw.size() - header < expected ? "truncated" : "trailing data") +
            ": the header announces " + std::to_string(expected) + " bytes of data, the file has " +
            std::to_string(raw.size() - header));
    d.bytes.assign(raw.begin() + static_cast<std::ptrdiff_t>(header), raw.end());
    return d;
}

IdxData readIdx(const std::string& path, int expectedRank) {
    return parseIdx(readAll(path), path, expectedRank);
}

std::string findIdx(const std::string& folder, const std::string& stem) {
    for (const auto& name : {stem + ".gz", stem}) {
        auto p = std::filesystem::path(folder) / name;
        if (std::filesystem::exists(p))
            return p.string();
    }
    throw std::runtime_error("no " + stem + "[.gz] in " + folder);
}

} // namespace studio::train

#include "engine/train/npy_file.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace studio::train {

std::string npyHeader(const std::string& descr, const std::vector<std::int64_t>& shape) {
    std::string dims;
    for (auto d : shape)
        dims += std::to_string(d) + ", ";
    if (shape.size() > 1)
        dims.resize(dims.size() - 2);
    else if (shape.size() == 1)
        dims.resize(dims.size() - 1); // "(5,)"
    std::string dict =
        "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
    // magic (6) + version (2) + length (2) + dict + padding + '\n' is a multiple of 64.
    const std::size_t unpadded = 10 + dict.size() + 1;
    dict.append((64 - unpadded % 64) % 64, ' ');
    dict += '\n';
    std::string header = "\x93NUMPY";
    header += '\x01';
    header += '\x00';
    header += static_cast<char>(dict.size() & 0xff);
    header += static_cast<char>((dict.size() >> 8) & 0xff);
    return header + dict;
}

void writeNpy(const std::string& path, const std::string& descr,
              const std::vector<std::int64_t>& shape, const void* data, std::size_t bytes) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        const std::string header = npyHeader(descr, shape);
        out.write(header.data(), static_cast<std::streamsize>(header.size()));
        out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
        if (!out)
            throw std::runtime_error("cannot write " + tmp);
    }
    std::error_code ec;
    std::filesystem::rename(tmp, path, ec);
    if (ec)
        throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + ec.message());
}

} // namespace studio::train

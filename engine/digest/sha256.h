// SHA-256 (FIPS 180-4): checkpoint integrity, content hashes of staged folders.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace studio::digest {

class Sha256 {
public:
    Sha256();
    void update(const void* data, std::size_t size);
    std::array<std::uint8_t, 32> digest();
    std::string hex();

private:
    void block(const std::uint8_t* p);
    std::uint32_t m_h[8];
    std::uint8_t m_buffer[64];
    std::size_t m_buffered = 0;
    std::uint64_t m_length = 0;
};

std::string sha256Hex(std::string_view bytes);
// Throws std::runtime_error naming the file when it cannot be read.
std::string sha256File(const std::string& path);

} // namespace studio::digest

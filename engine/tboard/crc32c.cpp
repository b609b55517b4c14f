#include "engine/tboard/crc32c.h"

#include <array>
#include <cstring>

namespace studio::tboard {

namespace {

constexpr std::uint32_t kPolynomial = 0x82f63b78; // Castagnoli, reflected

// Slicing-by-8 tables: table[k][b] is the CRC of byte b followed by k zero bytes.
struct Tables {
    std::array<std::array<std::uint32_t, 256>, 8> t{};
    Tables() {
        for (std::uint32_t b = 0; b < 256; ++b) {
            std::uint32_t c = b;
            for (int i = 0; i < 8; ++i)
                c = (c >> 1) ^ ((c & 1) ? kPolynomial : 0);
            t[0][b] = c;
        }
        for (std::size_t k = 1; k < 8; ++k)
            for (std::size_t b = 0; b < 256; ++b)
                t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
    }
};

const Tables& tables() {
    static const Tables tables;
    return tables;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) std::uint32_t crc32cHardware(const unsigned char* p,
                                                               std::size_t n) {
    std::uint64_t c = 0xffffffffu;
    for (; n >= 8; n -= 8, p += 8) {
        std::uint64_t v;
        std::memcpy(&v, p, 8);
        c = __builtin_ia32_crc32di(c, v);
    }
    auto c32 = static_cast<std::uint32_t>(c);
    for (; n > 0; --n, ++p)
        c32 = __builtin_ia32_crc32qi(c32, *p);
    return c32 ^ 0xffffffffu;
}

bool hasSse42() {
    static const bool has = __builtin_cpu_supports("sse4.2");
    return has;
}
#endif

} // namespace

std::uint32_t crc32cPortable(const void* data, std::size_t size) {
    const auto& t = tables().t;
    const auto* p = static_cast<const unsigned char*>(data);
    std::uint32_t c = 0xffffffffu;
    for (; size >= 8; size -= 8, p += 8) {
        std::uint32_t lo, hi;
        std::memcpy(&lo, p, 4); // little-endian hosts only, as the studio's targets are
        std::memcpy(&hi, p + 4, 4);
        lo ^= c;
        c = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^
            t[3][hi & 0xff] ^ t[2][(hi >> 8) & 0xff] ^ t[1][(hi >> 16) & 0xff] ^ t[0][hi >> 24];
    }
    for (; size > 0; --size, ++p)
        c = (c >> 8) ^ t[0][(c ^ *p) & 0xff];
    return c ^ 0xffffffffu;
}

std::uint32_t crc32c(const void* data, std::size_t size) {
#if defined(__x86_64__)
    if (hasSse42())
        return crc32cHardware(static_cast<const unsigned char*>(data), size);
#endif
    return crc32cPortable(data, size);
}

std::uint32_t maskedCrc32c(const void* data, std::size_t size) {
    const std::uint32_t c = crc32c(data, size);
    return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

} // namespace studio::tboard

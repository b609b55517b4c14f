// SplitMix64's finaliser: a fixed, portable 64-bit mix (std:: distributions differ between
// libraries), used to derive reproducible random streams from seeds and counters.
#pragma once

#include <cstdint>

namespace studio::digest {

inline std::uint64_t mix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

} // namespace studio::digest

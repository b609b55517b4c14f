// A counter-based random stream: the value at (key, counter) is a pure function, so data order
// and dropout masks need no generator state and replay exactly after a resume.
#pragma once

#include "engine/digest/mix64.h"

#include <cstdint>

namespace studio::train {

using digest::mix64;

inline std::uint64_t streamKey(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0) {
    return mix64(mix64(seed ^ 0x5851f42d4c957f2dULL) ^ mix64(a + 0x14057b7ef767814fULL) ^
                 (b * 0x9e3779b97f4a7c15ULL));
}

inline std::uint64_t randomBits(std::uint64_t key, std::uint64_t counter) {
    return mix64(key + counter * 0xd1342543de82ef95ULL);
}

__extension__ typedef unsigned __int128 Uint128; // GCC and Clang; no ISO 128-bit type yet

// Uniform in [0, n) by multiply-shift (Lemire), without a modulo.
inline std::uint64_t randomBelow(std::uint64_t key, std::uint64_t counter, std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<Uint128>(randomBits(key, counter)) * n) >> 64);
}

} // namespace studio::train

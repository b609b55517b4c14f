// CRC-32C (Castagnoli), as TensorBoard's record format checks lengths and data with, and its
// masked form. The SSE4.2 instruction is used where the CPU has it; the table-driven version is
// the fallback, and both give the same value (tested).
#pragma once

#include <cstddef>
#include <cstdint>

namespace studio::tboard {

std::uint32_t crc32c(const void* data, std::size_t size);
std::uint32_t crc32cPortable(const void* data, std::size_t size); // the fallback, for tests
// ((c >> 15) | (c << 17)) + 0xa282ead8 of c = crc32c(data)
std::uint32_t maskedCrc32c(const void* data, std::size_t size);

} // namespace studio::tboard

// Fuzzes the IDX reader on bytes in memory: the first byte picks the rank the caller expects
// (images 3, labels 1, or another), the rest is the file. A bad file is a std::runtime_error;
// a good one holds exactly the bytes its header announces.
#include "engine/train/idx_file.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0)
        return 0;
    const int expectedRank = data[0] % 5;
    const std::vector<std::uint8_t> raw(data + 1, data + size);
    try {
        const studio::train::IdxData d = studio::train::parseIdx(raw, "fuzz.idx", expectedRank);
        std::size_t announced = 1;
        for (std::int64_t dim : d.dims)
            announced *= static_cast<std::size_t>(dim);
        if (d.dims.size() != static_cast<std::size_t>(expectedRank) || d.bytes.size() != announced)
            std::abort();
    } catch (const std::runtime_error&) {
        // The documented answer to a bad file.
    }
    return 0;
}

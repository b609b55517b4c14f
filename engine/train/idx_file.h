// IDX files (MNIST, Fashion-MNIST), raw or gzip-compressed: magic number, dimensions and size are
// checked, and a truncated or corrupt file is an error naming it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace studio::train {

struct IdxData {
    std::vector<std::int64_t> dims; // [count, rows, cols] for images, [count] for labels
    std::vector<std::uint8_t> bytes;
};

// Reads an unsigned-byte IDX file; expectedRank is 3 for images and 1 for labels.
IdxData readIdx(const std::string& path, int expectedRank);

// "train-images-idx3-ubyte" in a folder, as .gz or raw; throws naming the folder when neither is.
std::string findIdx(const std::string& folder, const std::string& stem);

} // namespace studio::train

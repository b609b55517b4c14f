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

// Reads an unsigned-byte IDX file; expectedRank is 3 for images and 1 for labels. Throws
// std::runtime_error naming the file when it cannot be read or is not such a file.
IdxData readIdx(const std::string& path, int expectedRank);
// The same check on bytes already in memory (decompressed); `name` stands for the file in
// messages. Throws std::runtime_error as readIdx does.
IdxData parseIdx(const std::vector<std::uint8_t>& raw, const std::string& name, int expectedRank);

// "train-images-idx3-ubyte" in a folder, as .gz or raw; throws naming the folder when neither is.
std::string findIdx(const std::string& folder, const std::string& stem);

} // namespace studio::train

// NumPy's .npy format (version 1.0), for the raw tensors the debugger hook saves: any NumPy reads
// them with numpy.load, no framework needed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace studio::train {

// descr: NumPy's type string ("<f4", "<f8", "<i8"); data holds product(shape) items in C order.
// Writes atomically (a temporary file renamed into place); throws std::runtime_error naming the
// file.
void writeNpy(const std::string& path, const std::string& descr,
              const std::vector<std::int64_t>& shape, const void* data, std::size_t bytes);

// The header text of a .npy file up to and including its newline, for tests and readers.
std::string npyHeader(const std::string& descr, const std::vector<std::int64_t>& shape);

} // namespace studio::train

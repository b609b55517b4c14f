// Live bytes of LibTorch's CPU tensors, counted by a thin wrapper around its CPU allocator (an
// atomic add per allocation: cheap enough to read after every pipeline action).
#pragma once

#include <cstdint>

namespace studio::train {

// Installs the counting allocator once per process; later calls do nothing.
void installMemoryTracker();
// Bytes of CPU tensor memory allocated and not yet freed since the tracker was installed.
std::int64_t trackedBytes();

} // namespace studio::train

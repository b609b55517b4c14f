// Writing a whole file so that readers see the old content or the new, never a torn one: a
// temporary file beside it, fsync, rename, and a sync of the folder. The trainer's checkpoints
// and model files, and the launcher's hook configuration, are written this way.
#pragma once

#include <string>

namespace studio::process {

// Throws std::runtime_error naming the file when it cannot be written.
void writeFileAtomically(const std::string& path, const std::string& bytes);

} // namespace studio::process

// A rank's log line as the CLI and notebooks print it.
#pragma once

#include <string>

namespace studio::present {

// "[node,rank]<stream>:text", the mpirun --tag-output convention; rank < 0 is the launcher.
std::string taggedLine(int node, int rank, const std::string& stream, const std::string& text);

} // namespace studio::present

// The one place that turns an argument vector into a POSIX shell command line. Remote commands
// pass through the login shell of the host (sshd runs them with `$SHELL -c`), so every word a
// spec or a cluster supplies is quoted here and reaches the remote program as the same bytes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace studio::remote {

// One word in single quotes; a single quote inside becomes '\''. Never empty: '' for "".
std::string shellQuote(std::string_view word);
// "exec" and the quoted words: the remote shell replaces itself with the program, so no
// shell stays between sshd and the program (signals and exit codes pass straight through).
std::string shellCommand(const std::vector<std::string>& argv);

} // namespace studio::remote

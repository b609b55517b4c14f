// studio-launcher's subcommands for the studio's side of a remote host: probe (what the host
// has), stage (receive a folder as a tar stream), pack (send one), signal (a detached
// launcher, checked by start time). Each takes the arguments after its name, writes to stdout
// and returns the exit code.
#pragma once

#include <string>
#include <vector>

namespace studio::launcher {

int runProbe(const std::vector<std::string>& args);
int runStage(const std::vector<std::string>& args);
int runPack(const std::vector<std::string>& args);
int runSignal(const std::vector<std::string>& args);

} // namespace studio::launcher

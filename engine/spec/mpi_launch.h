// Which launcher starts a job's ranks: Open MPI's mpirun (a script or command with
// distribution.mpi enabled and no torch_distributed), or the studio's torchrun-style launcher.
// And custom_mpi_options split into mpirun's arguments the way a shell would, without a shell.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace studio::spec {

struct JobSpec;

struct RankLauncher {
    bool mpirun = false;
    std::string name;   // "mpirun" | "torchrun"
    std::string reason; // why this spec gets it, in a sentence
};

RankLauncher rankLauncher(const JobSpec& spec);

// Splits like sh's word splitting with '...' and "..." quoting and \ escapes (inside "..." only
// before $ ` " \ and a newline, as in sh), with no expansion of any kind. nullopt and *error set
// (the reason) when a quote is left open or a \ ends the text.
std::optional<std::vector<std::string>> splitMpiOptions(const std::string& text,
                                                        std::string* error = nullptr);

} // namespace studio::spec

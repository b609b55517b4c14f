// `studio-launcher mpi-rank --socket PREFIX --ppn N`: what mpirun starts for each rank of a
// distribution.mpi job. It finds its node from OMPI_COMM_WORLD_RANK, asks that node's launcher
// (mpi_wire.h) for the rank's environment and command, runs it with the events socket as
// STUDIO_EVENTS_FD, passes on SIGTERM/SIGINT/SIGHUP, copies its stderr through (keeping the
// last lines), and reports how it ended. It exits as the rank did.
#pragma once

#include <string>
#include <vector>

namespace studio::launcher {

int runMpiRank(const std::vector<std::string>& args);

} // namespace studio::launcher

// The pieces of a job run under Open MPI's mpirun (distribution.mpi for a script): node 0's
// launcher runs one mpirun for the whole job; mpirun starts `studio-launcher mpi-rank` on every
// host (mpi_rank.h), and each of those connects to its node's launcher over an abstract Unix
// socket, gets its rank's environment and command, and reports how the rank ended. The ranks'
// stdout and stderr come back through mpirun, tagged "[job,rank]<stream>:" (--tag-output).
#pragma once

#include "engine/process/fd.h"
#include "engine/process/process.h"
#include "engine/wire/event.h"
#include "launcher/launch_config.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace studio::launcher::mpi {

// "mlstudio-mpi/<run id>/<journal file name>": the same on every node of one attempt.
std::string socketPrefix(const LaunchConfig& c);
// The abstract socket of node `node`'s launcher.
std::string socketName(const std::string& prefix, int node);

// Listens on the abstract socket `name` (non-blocking, close-on-exec); throws
// std::runtime_error naming it when it cannot (another launcher has it).
process::Fd listenAbstract(const std::string& name);
// Connects to the abstract socket `name`; an invalid Fd (errno set) when nobody listens.
process::Fd connectAbstract(const std::string& name);

struct Peer {
    pid_t pid = 0;
    uid_t uid = 0;
};
// The connected process's credentials (SO_PEERCRED).
std::optional<Peer> peerOf(int fd);

// mpirun --tag-output marks each piece of output it relays with "[job,rank]<stream>:" (<stddiag>
// counts as stderr), and a piece need not end a line: "[1,1]<stdout>:text[1,3]<stdout>:more" then
// "[1,1]<stdout>:" and a newline is rank 1's line "text" and the start of rank 3's. TaggedOutput
// puts each rank's lines back together from mpirun's output lines.
struct TaggedLine {
    int rank = -1; // -1: mpirun's own text
    wire::Stream stream = wire::Stream::Stdout;
    std::string text;
};
class TaggedOutput {
public:
    // One line of mpirun's output (without its newline); the lines it completes.
    std::vector<TaggedLine> line(std::string_view text);
    // What is left unfinished at the end of mpirun's output.
    std::vector<TaggedLine> finish();

private:
    std::map<std::pair<int, int>, std::string> m_partial; // (rank, stream) -> text so far
};

// The host list of mpirun: each distinct host once, in order, with its slots ("a:2,b:2").
std::string hostList(const std::vector<std::string>& hosts, int slotsPerHost);

// mpirun's whole argv for the job (custom_mpi_options last before the program, as SageMaker
// appends them). sshConfig: a ssh_config file for mpirun's own SSH launch ("" for none).
struct MpirunPlan {
    std::vector<std::string> hosts; // one per node, as mpirun reaches it (not on Slurm)
    std::string sshConfig;
    // Inside a Slurm allocation: mpirun takes the allocation's nodes, ppn ranks each, and starts
    // its daemons with srun --overlap (the launchers' step holds the nodes).
    bool slurm = false;
    bool asRoot = false;
    std::string self; // studio-launcher as the hosts run it
};
std::vector<std::string> mpirunArgv(const LaunchConfig& c, const MpirunPlan& plan);

// The hello a rank's shim sends, and what the launcher answers.
std::string helloLine(int rank);
std::optional<int> parseHello(std::string_view line);

struct RankSetup {
    std::map<std::string, std::string> env; // set over the shim's own environment
    std::vector<std::string> argv;
    std::string workdir;
    std::vector<int> cpus;
    std::string error; // the launcher refused the rank (why)
};
std::string setupLine(const RankSetup& s);
std::optional<RankSetup> parseSetup(std::string_view line);

// How the rank ended, written by its shim on the events socket after the rank exited.
struct RankEnd {
    process::ExitStatus status;
    std::vector<std::string> stderrTail;
};
std::string exitLine(const RankEnd& e);
// nullopt: not an exit line (an event of the rank).
std::optional<RankEnd> parseExit(std::string_view line);

} // namespace studio::launcher::mpi

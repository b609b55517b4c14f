#include "engine/control/slurm_script.h"

#include "engine/remote/shell_quote.h"

#include <stdexcept>

namespace studio::control {

using remote::shellQuote;

namespace {

// The launcher's words as script text: fixed words quoted, the computed ones as variables.
std::string launcherWords(const SlurmScriptInput& in) {
    const std::vector<std::string>& argv = in.launcherArgv;
    if (argv.empty())
        throw std::invalid_argument("slurmBatchScript: no launcher argv");
    std::string out = shellQuote(argv[0]) + " --slurm";
    bool command = false;
    for (std::size_t i = 1; i < argv.size(); ++i) {
        const std::string& a = argv[i];
        if (command) {
            out += " " + shellQuote(a);
            continue;
        }
        if (a == "--") {
            command = true;
            out += " --";
        } else if (a == "--detach" || a == "--env-stdin") {
        } else if (a == "--node-rank" || a == "--journal") {
            ++i;
        } else if (a == "--master-addr") {
            ++i;
            out += " --master-addr \"$master\"";
        } else if (a == "--master-port") {
            ++i;
            out += " --master-port \"$port\"";
        } else {
            out += " " + shellQuote(a);
        }
    }
    // %n: the launcher puts its node's number there (SLURM_NODEID).
    const std::string journal =
        shellQuote(in.jobDir + "/logs/node-%n/journal") + "\"$suffix\"" + shellQuote(".jsonl");
    const auto dashes = out.find(" -- ");
    const std::string flag = " --journal " + journal;
    if (dashes == std::string::npos)
        throw std::invalid_argument("slurmBatchScript: the launcher argv has no rank command");
    out.insert(dashes, flag);
    return out;
}

} // namespace

std::string slurmJournalPath(const std::string& jobDir, int node, int attempt) {
    return jobDir + "/logs/node-" + std::to_string(node) + "/journal" +
           (attempt > 1 ? "." + std::to_string(attempt) : std::string()) + ".jsonl";
}

int slurmRendezvousPort(long long jobId, int restartCount) {
    return 20000 + static_cast<int>((jobId * 16 + restartCount) % 20000);
}

std::string slurmBatchScript(const SlurmScriptInput& in) {
    const std::string nodes = std::to_string(in.nodes);
    std::string s;
    s += "#!/bin/bash\n";
    s += "# ML Studio job " + in.jobName + " on Slurm cluster " + in.cluster + ": " + nodes +
         " node(s) x " + std::to_string(in.ranksPerNode) + " rank(s).\n";
    s += "# Written by the studio; every value in it is shell-quoted.\n";
    s += "set -u\n";
    s += "attempt=$(( ${SLURM_RESTART_COUNT:-0} + " + std::to_string(in.firstAttempt) + " ))\n";
    s += "suffix=\"\"\n";
    s += "if [ \"$attempt\" -gt 1 ]; then suffix=\".$attempt\"; fi\n";
    // The first node's address, not its name: node names need not resolve.
    s += "first=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n";
    s += "master=$(scontrol show node \"$first\" 2>/dev/null | "
         "sed -n 's/.*NodeAddr=\\([^ ]*\\).*/\\1/p' | head -n 1)\n";
    s += "master=${master:-$first}\n";
    s += "port=$(( 20000 + (SLURM_JOB_ID * 16 + ${SLURM_RESTART_COUNT:-0}) % 20000 ))\n";
    s += "echo \"studio: Slurm job $SLURM_JOB_ID, attempt $attempt, nodes $SLURM_JOB_NODELIST, "
         "rendezvous $master:$port\"\n";
    s += "exec srun --nodes=" + nodes + " --ntasks=" + nodes +
         " --ntasks-per-node=1 --kill-on-bad-exit=1 --output=" +
         shellQuote(in.jobDir + "/logs/node-%n/launcher.out") +
         " --error=" + shellQuote(in.jobDir + "/logs/node-%n/launcher.err") + " \\\n    " +
         launcherWords(in) + "\n";
    return s;
}

} // namespace studio::control

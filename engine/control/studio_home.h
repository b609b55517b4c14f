// Where the studio keeps its data ($MLSTUDIO_HOME, default $XDG_DATA_HOME/mlstudio) and settings
// ($XDG_CONFIG_HOME/mlstudio), and the layout of one job's folder.
#pragma once

#include <string>
#include <vector>

namespace studio::control {

std::string
studioHome(); // $MLSTUDIO_HOME, else $XDG_DATA_HOME/mlstudio, else ~/.local/share/mlstudio
std::string databasePath(const std::string& home);
// Where the settings of the studio whose data is in dataHome live: $XDG_CONFIG_HOME/mlstudio
// (else ~/.config/mlstudio) for the default data folder; dataHome itself for any other (a
// $MLSTUDIO_HOME or a controller's own home: one self-contained folder, as tests use).
std::string configHome(const std::string& dataHome);
// The studio window's settings file (theme, open notebooks, layout): <configHome>/studio.ini.
// Creates the folder; a studio.ini left in the data home by an earlier version is moved there.
std::string settingsPath(const std::string& dataHome);
// Creates the home 0700, or makes an existing one of this user 0700: it holds specs with their
// environment, the database and control sockets. Throws naming the folder when it cannot.
void makePrivateHome(const std::string& home);

struct JobPaths {
    std::string root;           // <home>/jobs/<job>
    std::string spec;           // spec.json
    std::string logs;           // logs/
    std::string checkpoints;    // checkpoints/ (unless the spec sets checkpoint_local_path)
    std::string model;          // model/
    std::string output;         // output/ (SM_OUTPUT_DATA_DIR)
    std::string debugOutput;    // debug-output/
    std::string profilerOutput; // profiler-output/

    static JobPaths of(const std::string& home, const std::string& job);
    void create() const; // throws std::runtime_error naming the folder
};

// "<base>-YYYY-MM-DD-HH-MM-SS-mmm" (UTC), as the SageMaker SDK names jobs.
std::string timestampedJobName(const std::string& base, double unixSeconds);

// Identifies this process across pid reuse: "host:pid:start-ticks".
std::string processOwnerId();
// True when the owner is this host's live process (owners on other hosts count as alive).
bool ownerAlive(const std::string& owner);

// Where the studio's own programs are looked for, in order, for an executable at self: its own
// folder (the build tree's bin/, or /usr/bin for mlstudio itself), then <self's folder>/../lib/
// mlstudio (the installed package keeps the helpers users never run there).
std::vector<std::string> programDirectories(const std::string& self);
// The first of programDirectories(self), then pathList's folders (PATH's syntax), that holds an
// executable file called name; "" when none does.
std::string findProgramFrom(const std::string& self, const std::string& name,
                            const std::string& pathList);
// findProgramFrom for this process and $PATH: a program beside the running executable, in its
// ../lib/mlstudio, else on PATH; "" when not found.
std::string findProgram(const std::string& name);

} // namespace studio::control

// mlstudio: the command line and, in GUI builds, the studio window (no arguments on a display,
// or `mlstudio studio`).
#include "app/cli/cli.h"

#include <csignal>

#ifdef STUDIO_WITH_GUI
#include "app/notebook/nbrun.h"
#include "app/studio_app.h"
#endif

int main(int argc, char** argv) {
    ::signal(SIGPIPE, SIG_IGN); // a closed pipe or socket is an error to handle, not a death
    std::vector<std::string> args(argv + 1, argv + argc);
#ifdef STUDIO_WITH_GUI
    if (args.empty() && studio::app::displayAvailable())
        return studio::app::runStudio(argc, argv);
    studio::cli::QtHooks hooks;
    hooks.openStudio = [&](const std::string& insightsJob) {
        return studio::app::runStudio(1, argv, insightsJob);
    };
    hooks.runNotebook = [&](const studio::present::NotebookRunOptions& o) {
        return studio::notebook::runNotebook(o);
    };
    if (studio::app::displayAvailable())
        hooks.openJob = [&](const std::string& job) {
            return studio::app::runStudio(1, argv, {}, job);
        };
    return studio::cli::runCli(args, hooks);
#else
    return studio::cli::runCli(args);
#endif
}

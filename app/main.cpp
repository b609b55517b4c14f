// mlstudio: the command line (and, in GUI builds, the studio window).
#include "app/cli/cli.h"

int main(int argc, char** argv) {
    return studio::cli::runCli(std::vector<std::string>(argv + 1, argv + argc));
}

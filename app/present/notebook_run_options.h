// What `mlstudio nbrun` was asked to do: parsed by the CLI, carried out by the notebook runtime
// (GUI builds only), so both sides share it without the CLI depending on Qt.
#pragma once

#include <string>

namespace studio::present {

struct NotebookRunOptions {
    std::string notebook;
    std::string out;          // empty: the notebook itself
    bool allowErrors = false; // go on after a cell that fails (the exit code is still 1)
    double cellTimeout = 0;   // seconds per cell; 0: none
    bool stopJobs = false;    // stop the notebook's jobs still running at the end (else wait)
};

} // namespace studio::present

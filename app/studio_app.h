// The studio window as an application: Qt, the theme, the embedded controller and the main
// window. Only in GUI builds.
#pragma once

#include <string>

namespace studio::app {

// Whether a window can be shown: an X11 or Wayland display, or an explicit Qt platform.
bool displayAvailable();
// Runs the studio until its window closes; returns the exit code. insightsJob (a job name or
// unique prefix) opens that job's Debugger insights tab at start, job that job's tab.
int runStudio(int argc, char** argv, const std::string& insightsJob = {},
              const std::string& job = {});

} // namespace studio::app

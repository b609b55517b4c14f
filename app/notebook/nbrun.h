// `mlstudio nbrun`: executes a notebook headless with the studio's kernel, as `jupyter nbconvert
// --execute` does, waits for the jobs it started and writes the notebook with its outputs.
// Exit codes: 0 every cell ran, 1 a cell failed (or timed out), 2 the file cannot be used,
// 130 interrupted (Ctrl-C).
#pragma once

#include "app/present/notebook_run_options.h"

namespace studio::notebook {

int runNotebook(const present::NotebookRunOptions& options);

} // namespace studio::notebook

// The training and tuning jobs a notebook's cells started, found by their cards' MIME data
// (kJobMimeType, kTuningMimeType) once the cells have run. `mlstudio nbrun` waits for those
// still running, or stops them through `mlstudio stop` (which reaches the studio process that
// follows each: the SDK's own `mlstudio run` or `mlstudio tune`). Reads the studio's store.
// Not thread-safe.
#pragma once

#include "models/notebook/notebook_document.h"

#include <QString>
#include <QStringList>

#include <atomic>

namespace studio::notebook {

struct NotebookJobNames {
    QStringList jobs;
    QStringList tunings;
};

// The jobs and tuning jobs the notebook's outputs show, each once, in order of appearance.
NotebookJobNames notebookJobs(const models::NotebookDocument& doc);

class NotebookJobs {
public:
    // interrupted: set by Ctrl-C; while waiting it stops the jobs.
    NotebookJobs(const models::NotebookDocument& doc, const std::atomic<bool>& interrupted);

    // Waits for the ones still running (printing which), or stops them first (stop, or after
    // Ctrl-C).
    void finish(bool stop);

private:
    QStringList running() const;
    void stopAll(const QStringList& names, const char* why);

    NotebookJobNames m_names;
    const std::atomic<bool>& m_interrupted;
};

} // namespace studio::notebook

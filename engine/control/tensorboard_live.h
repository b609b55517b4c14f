// A job's metrics written as TensorBoard event files while it runs (tensorboard_output_config):
// the job's thread hands this writer every event it routes; each metric point goes into an event
// file under local_path/<job>/, the folders `mlstudio export --tensorboard` writes, and the files
// are flushed once per batch of events, so a user's `tensorboard --logdir local_path` shows the
// job live. Not thread-safe: the job's thread owns it.
#pragma once

#include "engine/spec/job_spec.h"
#include "engine/tboard/event_file.h"
#include "engine/wire/event.h"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

namespace studio::control {

class TensorboardLive {
public:
    // Opens root/<job>/ at once with the job's hyperparameters (an HParams session). report is
    // called once, with a line for the job's log naming the folder, when it cannot be written;
    // nothing more is written then, and the job goes on.
    TensorboardLive(std::filesystem::path root, std::string jobName, tboard::SessionStart session,
                    std::function<void(const std::string&)> report);
    ~TensorboardLive(); // flushes

    TensorboardLive(const TensorboardLive&) = delete;
    TensorboardLive& operator=(const TensorboardLive&) = delete;

    // Metric events are written; a rank's "tensorboard_tag" status (its launcher read that
    // series from the job's own event files) keeps the series out, since TensorBoard shows it
    // from those files already. Other events are ignored.
    void onEvent(const wire::Event& e);
    void flush(); // after each batch of events
    // Every run's session ends with the job's status (Completed, Failed, Stopped, ...).
    void finish(const std::string& status, double endTime);

    bool failed() const { return m_failed; }
    std::filesystem::path jobFolder() const { return m_root / m_job; }

private:
    using NodeRank = std::pair<int, int>;

    std::filesystem::path m_root;
    std::string m_job;
    tboard::SessionStart m_session;
    std::function<void(const std::string&)> m_report;
    bool m_failed = false;
    bool m_dirty = false;
    // root/<job>/ is the first (node, rank) that reports; each further one has its own folder.
    std::unique_ptr<tboard::EventFileWriter> m_first;
    std::optional<NodeRank> m_firstOwner;
    std::map<NodeRank, std::unique_ptr<tboard::EventFileWriter>> m_others;
    std::set<std::pair<int, std::string>> m_fromFiles; // (rank, tag) of the job's own files

    tboard::EventFileWriter* writerFor(const NodeRank& key);
    std::unique_ptr<tboard::EventFileWriter> open(const std::filesystem::path& folder);
    void fail(const std::string& what);
};

// The job's hyperparameters as an HParams session: numbers as numbers, true and false as
// booleans, the rest as text (as the exporter types the stored parameters); grouped by the job.
tboard::SessionStart hparamSession(const spec::JobSpec& spec, const std::string& jobName,
                                   double startTime);

} // namespace studio::control

#include "engine/control/tensorboard_live.h"

#include "engine/tboard/export.h"

#include <stdexcept>

namespace studio::control {

namespace fs = std::filesystem;

namespace {

// The suffix of the studio's own event files: launchers never read them back as a script's.
const std::string kSuffix = "mlstudio";

} // namespace

tboard::SessionStart hparamSession(const spec::JobSpec& spec, const std::string& jobName,
                                   double startTime) {
    tboard::SessionStart s;
    for (const auto& [name, v] : spec.hyperparameters) {
        if (v.number)
            s.hparams[name] = *v.number;
        else if (v.text == "true" || v.text == "false")
            s.hparams[name] = v.text == "true";
        else
            s.hparams[name] = v.text;
    }
    s.groupName = jobName;
    s.startTime = startTime;
    return s;
}

TensorboardLive::TensorboardLive(fs::path root, std::string jobName, tboard::SessionStart session,
                                 std::function<void(const std::string&)> report)
    : m_root(std::move(root))
    , m_job(std::move(jobName))
    , m_session(std::move(session))
    , m_report(std::move(report)) {
    m_first = open(m_root / m_job);
}

TensorboardLive::~TensorboardLive() = default; // each writer flushes as it closes

std::unique_ptr<tboard::EventFileWriter> TensorboardLive::open(const fs::path& folder) {
    if (m_failed)
        return nullptr;
    try {
        auto w = std::make_unique<tboard::EventFileWriter>(folder, kSuffix, m_session.startTime);
        w->addSessionStart(m_session, m_session.startTime);
        w->flush();
        return w;
    } catch (const std::exception& e) {
        fail(e.what());
        return nullptr;
    }
}

void TensorboardLive::fail(const std::string& what) {
    if (m_failed)
        return;
    m_failed = true;
    m_first.reset();
    m_others.clear();
    if (m_report)
        m_report("tensorboard_output_config: the job's TensorBoard files in " +
                 jobFolder().string() + " cannot be written (" + what +
                 "); the job goes on without them");
}

tboard::EventFileWriter* TensorboardLive::writerFor(const NodeRank& key) {
    if (!m_firstOwner)
        m_firstOwner = key;
    if (*m_firstOwner == key)
        return m_first.get();
    auto& w = m_others[key];
    if (!w)
        w = open(jobFolder() /
                 ("node" + std::to_string(key.first) + "-rank" + std::to_string(key.second)));
    return w.get();
}

void TensorboardLive::onEvent(const wire::Event& e) {
    if (m_failed)
        return;
    if (const auto* s = e.as<wire::StatusEvent>()) {
        if (s->state == "tensorboard_tag" && e.rank >= 0)
            m_fromFiles.emplace(e.rank, s->message);
        return;
    }
    const auto* m = e.as<wire::MetricEvent>();
    if (!m || m_fromFiles.count({e.rank, m->name}))
        return;
    tboard::EventFileWriter* w = writerFor({e.node, e.rank});
    if (!w)
        return;
    try {
        w->addScalar(tboard::ScalarPoint{m->name, m->step, e.t, m->value});
        m_dirty = true;
    } catch (const std::exception& ex) {
        fail(ex.what());
    }
}

void TensorboardLive::flush() {
    if (!m_dirty || m_failed)
        return;
    m_dirty = false;
    try {
        if (m_first)
            m_first->flush();
        for (auto& [key, w] : m_others)
            if (w)
                w->flush();
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

void TensorboardLive::finish(const std::string& status, double endTime) {
    if (m_failed)
        return;
    const int code = tboard::sessionStatusOf(status);
    try {
        if (m_first)
            m_first->addSessionEnd(code, endTime);
        for (auto& [key, w] : m_others)
            if (w)
                w->addSessionEnd(code, endTime);
        m_dirty = true;
    } catch (const std::exception& e) {
        fail(e.what());
    }
    flush();
}

} // namespace studio::control

// The hyperparameter tuning jobs of the notebook API (studio_api_tuning.js): submit through the
// controller's tuner, then describe, analytics, best job, stop and wait from the store, so a
// tuning job of another studio process (attach) reads the same.
#include "app/notebook/kernel_worker.h"
#include "app/notebook/studio_host.h"
#include "app/present/progress_bar.h"
#include "engine/control/controller.h"
#include "engine/control/tuner.h"
#include "engine/store/store_reader.h"
#include "engine/store/tuning_analytics.h"
#include "engine/tune/tuning_parser.h"

#include <QJsonDocument>

#include <chrono>

namespace studio::notebook {

namespace {

double now() {
    using namespace std::chrono;
    return duration<double>(system_clock::now().time_since_epoch()).count();
}

store::TuningJobRow tuningRow(store::StoreReader& reader, const nlohmann::json& args) {
    if (!args.is_object() || !args.contains("tuning") || !args["tuning"].is_string())
        throw HostError("a tuning job's name is required", "tuning");
    const std::string key = args["tuning"].get<std::string>();
    std::optional<store::TuningJobRow> row;
    try {
        row = reader.tuningJob(key);
    } catch (const std::exception& e) {
        throw HostError(e.what(), "tuning");
    }
    if (!row)
        throw HostError("there is no tuning job \"" + key + "\"", "tuning");
    return *row;
}

// "2/4 jobs done, 2 running; best eval:accuracy 0.71 (job)".
std::string progressText(const store::TuningJobRow& t) {
    std::string s = store::countersText(t.counters, t.maxJobs);
    if (t.bestObjective)
        s += "; best " + t.objectiveName + " " + present::formatValue(*t.bestObjective) + " (" +
             t.bestJob + ")";
    return s;
}

} // namespace

StudioHost::Json StudioHost::tuningSubmit(const Json& args) {
    control::Tuner* tuner = m_worker.tuner();
    if (!tuner)
        throw HostError("this notebook kernel has no tuner, so it cannot start tuning jobs "
                        "(the studio's notebooks and mlstudio nbrun have one)");
    tune::TuningParseResult parsed = tune::parseTuningJson(args.at("document"), resolvePath("."));
    if (!parsed.ok()) {
        std::string message = "HyperparameterTuner: the tuning job is invalid:";
        for (const auto& e : parsed.errors)
            message += "\n  " + e.text();
        throw HostError(message, parsed.errors.front().path, "SpecError");
    }
    control::SubmittedTuningJob submitted;
    try {
        submitted = tuner->submit(*parsed.spec);
    } catch (const std::exception& e) {
        throw HostError(std::string("HyperparameterTuner: ") + e.what(),
                        parsed.spec->warmStart ? "tuning.warm_start_config" : "");
    }
    m_worker.watchTuning(QString::fromStdString(submitted.name));
    return submitted.name;
}

StudioHost::Json StudioHost::tuningResolve(const Json& args) {
    return tuningRow(m_worker.reader(), args).name;
}

StudioHost::Json StudioHost::tuningDocument(const Json& args) {
    Json doc = Json::parse(tuningRow(m_worker.reader(), args).specJson, nullptr, false);
    if (!doc.is_object())
        return Json::object();
    doc.erase("base_dir");
    return doc;
}

StudioHost::Json StudioHost::tuningDescribe(const Json& args) {
    m_worker.controller().writer().flush();
    store::StoreReader& reader = m_worker.reader();
    const store::TuningJobRow row = tuningRow(reader, args);
    Json out = Json::parse(
        store::describeTuningJob(reader, row).dump(-1, ' ', false, Json::error_handler_t::replace));
    // The SDK nests these in HyperParameterTuningJobConfig; notebooks read them often.
    out["Strategy"] = row.strategy;
    out["HyperParameterTuningJobObjective"] = {{"Type", row.objectiveType},
                                               {"MetricName", row.objectiveName}};
    return out;
}

StudioHost::Json StudioHost::tuningAnalytics(const Json& args) {
    m_worker.controller().writer().flush();
    store::StoreReader& reader = m_worker.reader();
    return tableJson(store::tuningAnalytics(reader, tuningRow(reader, args)));
}

StudioHost::Json StudioHost::tuningBest(const Json& args) {
    m_worker.controller().writer().flush();
    const store::TuningJobRow row = tuningRow(m_worker.reader(), args);
    if (row.bestJob.empty())
        throw HostError("tuning job " + row.name + " has no best training job: none has reported " +
                            row.objectiveName + " yet",
                        "tuning");
    return row.bestJob;
}

StudioHost::Json StudioHost::tuningStop(const Json& args) {
    const store::TuningJobRow row = tuningRow(m_worker.reader(), args);
    if (!m_worker.tuner())
        throw HostError("this notebook kernel has no tuner, so it cannot stop tuning jobs");
    return m_worker.tuner()->stop(row.name);
}

StudioHost::Json StudioHost::tuningWait(const Json& args) {
    store::StoreReader& reader = m_worker.reader();
    const std::string name = tuningRow(reader, args).name;
    const bool logs = args.value("logs", true);
    std::string printed;
    store::TuningJobRow row;
    while (true) {
        row = *reader.tuningJob(name);
        const std::string line = row.status + " - " + progressText(row);
        if (logs && line != printed)
            m_worker.writeStream(
                QStringLiteral("stdout"),
                QString::fromStdString(present::formatTime(now()) + " " + line + "\n"));
        printed = line;
        if (!store::isLiveStatus(row.status))
            break;
        if (!m_worker.pump(0.25))
            throw HostError("interrupted while waiting for tuning job " + name +
                                "; it goes on running",
                            {}, "Interrupted");
    }
    if (logs)
        m_worker.writeStream(QStringLiteral("stdout"),
                             QString::fromStdString(
                                 "HyperparameterTuningJob " + name + ": " + row.status +
                                 (row.statusMessage.empty() ? "" : " (" + row.statusMessage + ")") +
                                 (row.bestJob.empty() ? "" : "; best training job " + row.bestJob) +
                                 "\n"));
    if (row.status == "Failed")
        throw HostError("Error for HyperParameterTuning job " + name +
                            ": Failed. Reason: " + row.statusMessage,
                        {}, "UnexpectedStatusException");
    return row.status;
}

StudioHost::Json StudioHost::tuningDisplay(const Json& args) {
    const std::string name = tuningRow(m_worker.reader(), args).name;
    const QJsonObject out = m_worker.tuningDisplay(QString::fromStdString(name));
    const QJsonObject bundle{{QStringLiteral("data"), out.value(QStringLiteral("data"))},
                             {QStringLiteral("metadata"), out.value(QStringLiteral("metadata"))}};
    return Json::parse(QJsonDocument(bundle).toJson(QJsonDocument::Compact).toStdString());
}

} // namespace studio::notebook

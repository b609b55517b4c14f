// The native side of the notebook's studio API (studio_api.js): one object per kernel context,
// reached from JavaScript as host.call(method, argsJson). Jobs go to the application's
// controller, tuning jobs to its tuner, records to its store writer, reads through the kernel
// thread's store reader.
// Kernel thread only.
#pragma once

#include <QJSValue>
#include <QObject>
#include <QString>

#include <nlohmann/json.hpp>

#include <map>
#include <stdexcept>
#include <string>

namespace studio::store {
struct AnalyticsTable;
}

namespace studio::notebook {

class KernelWorker;

// An analytics table as notebook code gets it: {"columns": [...], "rows": [[...], ...]}.
nlohmann::json tableJson(const store::AnalyticsTable& table);

// An error for notebook code: the message, and the spec field or argument it is about.
struct HostError : std::runtime_error {
    HostError(const std::string& message, std::string field = {}, std::string name = {})
        : std::runtime_error(message)
        , field(std::move(field))
        , name(std::move(name)) {}
    std::string field;
    std::string name; // the JavaScript error's name; "" for StudioError
};

class StudioHost : public QObject {
    Q_OBJECT
public:
    StudioHost(KernelWorker& worker, QObject* parent);

    // {"ok": result} or {"error": message, "field": path, "name": ...} as JSON text.
    Q_INVOKABLE QString call(const QString& method, const QString& argsJson);
    Q_INVOKABLE void write(const QString& stream, const QString& text);
    // A MIME bundle {data, metadata} shown as display_data.
    Q_INVOKABLE void display(const QString& bundleJson);
    // Starts a job from {spec, custom: [{name, actions, kinds, criteria}]} with the custom
    // rules' functions in the same order; answers like call() with the job's name.
    Q_INVOKABLE QString submit(const QString& argsJson, const QJSValue& ruleFunctions);

private:
    using Json = nlohmann::json;
    Json dispatch(const std::string& method, const Json& args);
    // Jobs (studio_host_jobs.cpp).
    Json validate(const Json& args);
    Json jobStatus(const Json& args);
    Json jobDescribe(const Json& args);
    Json jobLogs(const Json& args);
    Json jobMetrics(const Json& args);
    Json jobFindings(const Json& args);
    Json jobBilling(const Json& args);
    Json jobInsights(const Json& args);
    Json jobWait(const Json& args);
    // Experiments, trials, trackers and analytics (studio_host_records.cpp).
    Json experimentCreate(const Json& args);
    Json experimentLoad(const Json& args);
    Json experimentTrials(const Json& args);
    Json trialCreate(const Json& args);
    Json trialLoad(const Json& args);
    Json trialAddComponent(const Json& args);
    Json trialComponents(const Json& args);
    Json trackerCreate(const Json& args);
    Json trackerParameters(const Json& args);
    Json trackerMetric(const Json& args);
    Json trackerArtifact(const Json& args);
    Json trackerClose(const Json& args);
    Json analytics(const Json& args);
    // Hyperparameter tuning jobs (studio_host_tuning.cpp).
    Json tuningSubmit(const Json& args);
    Json tuningResolve(const Json& args);
    Json tuningDocument(const Json& args);
    Json tuningDescribe(const Json& args);
    Json tuningAnalytics(const Json& args);
    Json tuningBest(const Json& args);
    Json tuningStop(const Json& args);
    Json tuningWait(const Json& args);
    Json tuningDisplay(const Json& args);

    // The job's exact name for a name or unique prefix; throws HostError.
    std::string jobName(const Json& args);
    // A path in notebook code, relative to the notebook's folder.
    std::string resolvePath(const std::string& path) const;

    KernelWorker& m_worker;
    // A tracker's next iteration number per (component, metric) when log_metric gives none.
    std::map<std::pair<std::string, std::string>, std::int64_t> m_nextStep;
};

} // namespace studio::notebook

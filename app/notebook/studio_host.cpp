#include "app/notebook/studio_host.h"

#include "app/notebook/kernel_worker.h"
#include "engine/control/controller.h"
#include "engine/spec/spec_parser.h"
#include "engine/store/store_reader.h"

#include <QDir>
#include <QJsonDocument>
#include <QJsonObject>

#include <functional>
#include <map>
#include <set>

namespace studio::notebook {

namespace {

std::string firstErrorField(const std::vector<spec::SpecError>& errors) {
    return errors.empty() ? std::string() : errors.front().path;
}

// Runs work and answers {"ok": result} or {"error", "field", "name"} as JSON text.
QString reply(const std::function<nlohmann::json()>& work) {
    nlohmann::json out;
    try {
        out["ok"] = work();
    } catch (const HostError& e) {
        out["error"] = e.what();
        if (!e.field.empty())
            out["field"] = e.field;
        if (!e.name.empty())
            out["name"] = e.name;
    } catch (const std::exception& e) {
        out["error"] = e.what();
    }
    return QString::fromStdString(
        out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

} // namespace

StudioHost::StudioHost(KernelWorker& worker, QObject* parent)
    : QObject(parent)
    , m_worker(worker) {
}

QString StudioHost::call(const QString& method, const QString& argsJson) {
    return reply(
        [&] { return dispatch(method.toStdString(), Json::parse(argsJson.toStdString())); });
}

void StudioHost::write(const QString& stream, const QString& text) {
    m_worker.writeStream(stream == QStringLiteral("stderr") ? stream : QStringLiteral("stdout"),
                         text);
}

void StudioHost::display(const QString& bundleJson) {
    QJsonObject out = QJsonDocument::fromJson(bundleJson.toUtf8()).object();
    out.insert(QStringLiteral("output_type"), QStringLiteral("display_data"));
    if (!out.contains(QStringLiteral("metadata")))
        out.insert(QStringLiteral("metadata"), QJsonObject());
    m_worker.sendOutput(out);
}

QString StudioHost::submit(const QString& argsJson, const QJSValue& ruleFunctions) {
    return reply([&]() -> Json {
        const Json args = Json::parse(argsJson.toStdString());
        const std::string text = args.at("spec").dump();
        const std::string base = resolvePath(".");
        spec::ParseResult parsed = spec::parseSpecText(text, base);
        if (!parsed.ok()) {
            std::string message = "Estimator: the job spec is invalid:";
            for (const auto& e : parsed.errors)
                message += "\n  " + e.text();
            throw HostError(message, firstErrorField(parsed.errors), "SpecError");
        }
        std::vector<control::CustomRule> custom;
        std::vector<std::pair<std::string, std::shared_ptr<debugger::ExternalRuleLink>>> links;
        int index = 0;
        for (const Json& r : args.value("custom", Json::array())) {
            const std::string name = r.at("name").get<std::string>();
            for (const auto& listed : parsed.spec->rules)
                if (listed.name == name)
                    throw HostError("rules: two rules are named " + name, "rules", "SpecError");
            std::vector<std::string> actions = r.value("actions", std::vector<std::string>{});
            for (const auto& a : actions)
                if (a != "StopTraining" && a != "Notify")
                    throw HostError("rules: custom rule " + name + ": unknown action \"" + a +
                                        "\" (StopTraining or Notify)",
                                    "rules", "SpecError");
            const auto kindList = r.value("kinds", std::vector<std::string>{"metric"});
            const std::set<std::string> kinds(kindList.begin(), kindList.end());
            const std::string criteria = r.value("criteria", "custom rule " + name);
            auto link = std::make_shared<debugger::ExternalRuleLink>();
            control::CustomRule c;
            c.make = [name, criteria, kinds, link] {
                return std::make_unique<debugger::ExternalRule>(name, criteria, kinds, link);
            };
            c.actions = actions;
            custom.push_back(std::move(c));
            links.emplace_back(name, link);
            ++index;
        }
        std::vector<QJSValue> functions;
        for (int i = 0; i < index; ++i)
            functions.push_back(ruleFunctions.property(static_cast<quint32>(i)));
        for (std::size_t i = 0; i < links.size(); ++i)
            if (!functions[i].isCallable())
                throw HostError("rules: custom rule " + links[i].first + " has no function",
                                "rules", "SpecError");
        // Events wait in the links until the functions are registered, so none is missed.
        const control::SubmittedJob submitted =
            m_worker.controller().submit(*parsed.spec, std::move(custom));
        const QString name = QString::fromStdString(submitted.name);
        for (std::size_t i = 0; i < links.size(); ++i)
            m_worker.addCustomRule(name, QString::fromStdString(links[i].first), functions[i],
                                   links[i].second);
        m_worker.watchJob(name);
        return submitted.name;
    });
}

StudioHost::Json StudioHost::dispatch(const std::string& method, const Json& args) {
    using Handler = Json (StudioHost::*)(const Json&);
    static const std::map<std::string, Handler> handlers = {
        {"validate", &StudioHost::validate},
        {"job.status", &StudioHost::jobStatus},
        {"job.describe", &StudioHost::jobDescribe},
        {"job.logs", &StudioHost::jobLogs},
        {"job.metrics", &StudioHost::jobMetrics},
        {"job.findings", &StudioHost::jobFindings},
        {"job.billing", &StudioHost::jobBilling},
        {"job.insights", &StudioHost::jobInsights},
        {"job.wait", &StudioHost::jobWait},
        {"experiment.create", &StudioHost::experimentCreate},
        {"experiment.load", &StudioHost::experimentLoad},
        {"experiment.trials", &StudioHost::experimentTrials},
        {"trial.create", &StudioHost::trialCreate},
        {"trial.load", &StudioHost::trialLoad},
        {"trial.add_component", &StudioHost::trialAddComponent},
        {"trial.components", &StudioHost::trialComponents},
        {"tracker.create", &StudioHost::trackerCreate},
        {"tracker.parameters", &StudioHost::trackerParameters},
        {"tracker.metric", &StudioHost::trackerMetric},
        {"tracker.artifact", &StudioHost::trackerArtifact},
        {"tracker.close", &StudioHost::trackerClose},
        {"analytics", &StudioHost::analytics},
        {"tuning.submit", &StudioHost::tuningSubmit},
        {"tuning.resolve", &StudioHost::tuningResolve},
        {"tuning.document", &StudioHost::tuningDocument},
        {"tuning.describe", &StudioHost::tuningDescribe},
        {"tuning.analytics", &StudioHost::tuningAnalytics},
        {"tuning.best", &StudioHost::tuningBest},
        {"tuning.stop", &StudioHost::tuningStop},
        {"tuning.wait", &StudioHost::tuningWait},
        {"tuning.display", &StudioHost::tuningDisplay},
    };
    if (method == "sleep") {
        const double seconds = args.value("seconds", 0.0);
        if (!(seconds >= 0))
            throw HostError("sleep: seconds must be a number >= 0", "seconds");
        if (!m_worker.pump(seconds))
            throw HostError("interrupted", {}, "Interrupted");
        return nullptr;
    }
    if (method == "job.resolve")
        return jobName(args);
    if (method == "job.stop") {
        const std::string job = jobName(args);
        return m_worker.controller().stop(job, "Stopped from a notebook");
    }
    if (method == "job.interrupt") {
        const std::string job = jobName(args);
        if (!m_worker.controller().interrupt(job, "Interrupted from a notebook"))
            throw HostError("job " + job +
                                " is not a running spot job of this studio (interrupt needs "
                                "use_spot_instances: true)",
                            "job");
        return true;
    }
    if (method == "job.display") {
        const QJsonObject out = m_worker.jobDisplay(QString::fromStdString(jobName(args)));
        QJsonObject bundle{{QStringLiteral("data"), out.value(QStringLiteral("data"))},
                           {QStringLiteral("metadata"), out.value(QStringLiteral("metadata"))}};
        return Json::parse(QJsonDocument(bundle).toJson(QJsonDocument::Compact).toStdString());
    }
    const auto it = handlers.find(method);
    if (it == handlers.end())
        throw HostError("the studio API has no method " + method);
    return (this->*(it->second))(args);
}

std::string StudioHost::jobName(const Json& args) {
    if (!args.is_object() || !args.contains("job") || !args["job"].is_string())
        throw HostError("a job name is required", "job");
    try {
        return m_worker.reader().resolveJob(args["job"].get<std::string>()).name;
    } catch (const std::exception& e) {
        throw HostError(e.what(), "job");
    }
}

std::string StudioHost::resolvePath(const std::string& path) const {
    const QDir base(m_worker.options().workingDir.isEmpty() ? QDir::currentPath()
                                                            : m_worker.options().workingDir);
    return QDir::cleanPath(base.absoluteFilePath(QString::fromStdString(path))).toStdString();
}

StudioHost::Json StudioHost::validate(const Json& args) {
    const spec::ParseResult parsed = spec::parseSpecText(args.at("spec").dump(), resolvePath("."));
    if (!parsed.ok()) {
        std::string message = "Estimator: the job spec is invalid:";
        for (const auto& e : parsed.errors)
            message += "\n  " + e.text();
        throw HostError(message, firstErrorField(parsed.errors), "SpecError");
    }
    return true;
}

} // namespace studio::notebook

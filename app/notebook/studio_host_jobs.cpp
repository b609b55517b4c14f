// The job handle's methods of the notebook API: status, describe, logs, metrics, findings,
// billing, insights and wait.
#include "app/notebook/kernel_worker.h"
#include "app/notebook/studio_host.h"
#include "app/present/json_views.h"
#include "app/present/progress_bar.h"
#include "app/present/tagged_line.h"
#include "engine/control/controller.h"
#include "engine/control/log_sink.h"
#include "engine/spot/job_billing.h"
#include "engine/store/store_reader.h"
#include "engine/wire/event.h"

#include <QString>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace studio::notebook {

namespace {

bool ended(const std::string& status) {
    return status != "InProgress" && status != "Stopping";
}

nlohmann::json table(std::vector<std::string> columns, nlohmann::json rows) {
    return {{"columns", std::move(columns)}, {"rows", std::move(rows)}};
}

nlohmann::json number(double v) {
    return nlohmann::json::parse(present::numberJson(v).dump());
}

} // namespace

StudioHost::Json StudioHost::jobStatus(const Json& args) {
    const auto row = m_worker.reader().component(jobName(args));
    return {{"status", row->status}, {"secondary_status", row->secondaryStatus}};
}

StudioHost::Json StudioHost::jobDescribe(const Json& args) {
    const auto detail = m_worker.reader().detail(jobName(args));
    return Json::parse(
        present::jobJson(*detail).dump(-1, ' ', false, Json::error_handler_t::replace));
}

StudioHost::Json StudioHost::jobLogs(const Json& args) {
    store::StoreReader& reader = m_worker.reader();
    const auto row = reader.component(jobName(args));
    const int onlyRank =
        args.contains("rank") && args["rank"].is_number() ? args["rank"].get<int>() : -2;
    struct Line {
        double time;
        std::size_t order;
        std::string text;
    };
    std::vector<Line> lines;
    std::size_t order = 0;
    for (const auto& file : reader.logFiles(row->id)) {
        if (onlyRank != -2 && file.rank != onlyRank)
            continue;
        std::ifstream in(file.path, std::ios::binary);
        std::string text;
        while (std::getline(in, text)) {
            control::LogLine l;
            if (control::parseLogLine(text, l))
                lines.push_back(
                    {l.time, order++, present::taggedLine(file.node, file.rank, l.stream, l.text)});
        }
    }
    std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) {
        return a.time < b.time || (a.time == b.time && a.order < b.order);
    });
    std::size_t first = 0;
    if (args.contains("tail") && args["tail"].is_number()) {
        const auto tail = static_cast<std::size_t>(std::max(0, args["tail"].get<int>()));
        first = lines.size() > tail ? lines.size() - tail : 0;
    }
    Json out = Json::array();
    for (std::size_t i = first; i < lines.size(); ++i)
        out.push_back(lines[i].text);
    return out;
}

StudioHost::Json StudioHost::jobMetrics(const Json& args) {
    store::StoreReader& reader = m_worker.reader();
    const auto row = reader.component(jobName(args));
    if (args.contains("name") && args["name"].is_string()) {
        const std::string name = args["name"].get<std::string>();
        const auto names = reader.metricNames(row->id);
        if (std::find(names.begin(), names.end(), name) == names.end()) {
            std::string known;
            for (const auto& n : names)
                known += (known.empty() ? "" : ", ") + n;
            throw HostError("job " + row->name + " has no metric \"" + name + "\" (it has " +
                                (known.empty() ? std::string("none yet") : known) + ")",
                            "name");
        }
        Json rows = Json::array();
        for (const auto& p : reader.metricPoints(row->id, name))
            rows.push_back({p.step, number(p.value), p.time, p.node, p.rank});
        return table({"step", "value", "time", "node", "rank"}, rows);
    }
    Json rows = Json::array();
    for (const auto& [name, s] : reader.metricSummaries(row->id))
        rows.push_back({name, number(s.min), number(s.max), number(s.average()), number(s.stddev()),
                        number(s.last), s.count});
    return table({"metric", "Min", "Max", "Avg", "StdDev", "Last", "Count"}, rows);
}

StudioHost::Json StudioHost::jobFindings(const Json& args) {
    store::StoreReader& reader = m_worker.reader();
    const auto row = reader.component(jobName(args));
    Json findings = Json::array();
    for (const auto& f : reader.findings(row->id))
        findings.push_back(
            {f.rule, present::formatTime(f.time), f.step, f.device, f.message, f.recommendation});
    Json rules = Json::array();
    for (const auto& r : reader.ruleStatuses(row->id))
        rules.push_back({r.rule, r.status, r.fired, r.actions, r.message});
    Json out = table({"rule", "time", "step", "device", "message", "recommendation"}, findings);
    out["rules"] = table({"rule", "status", "fired", "actions", "message"}, rules);
    return out;
}

StudioHost::Json StudioHost::jobBilling(const Json& args) {
    const std::string job = jobName(args);
    const auto b = spot::jobBilling(m_worker.reader(), job);
    return Json::parse(
        present::billingJson(b).dump(-1, ' ', false, Json::error_handler_t::replace));
}

StudioHost::Json StudioHost::jobInsights(const Json& args) {
    const std::string job = jobName(args);
    m_worker.requestOpen(QStringLiteral("insights"), QString::fromStdString(job));
    Json out = jobFindings(args)["rules"];
    const auto row = m_worker.reader().component(job);
    const std::filesystem::path report =
        std::filesystem::path(row->jobDir) / "profiler-output" / "profiler-report.html";
    out["report"] = std::filesystem::exists(report) ? report.string() : std::string();
    return out;
}

StudioHost::Json StudioHost::jobWait(const Json& args) {
    const std::string job = jobName(args);
    const bool logs = args.value("logs", true);
    const std::int64_t untilStep = args.contains("until_step") && args["until_step"].is_number()
                                       ? args["until_step"].get<std::int64_t>()
                                       : -1;
    store::StoreReader& reader = m_worker.reader();
    std::size_t printed = 0;
    std::string status;
    while (true) {
        const auto row = reader.component(job);
        status = row->status;
        if (logs) {
            const auto transitions = reader.transitions(row->id);
            for (; printed < transitions.size(); ++printed) {
                const auto& t = transitions[printed];
                m_worker.writeStream(
                    QStringLiteral("stdout"),
                    QString::fromStdString(present::formatTime(t.startTime) + " " + t.status +
                                           " - " + t.secondaryStatus +
                                           (t.message.empty() ? "" : ": " + t.message) + "\n"));
            }
        }
        if (ended(status))
            break;
        if (untilStep >= 0 && m_worker.controller().progress(job).step >= untilStep)
            return status;
        if (!m_worker.pump(0.25))
            throw HostError("interrupted while waiting for " + job + "; the job goes on running",
                            {}, "Interrupted");
    }
    if (logs) {
        const auto b = spot::jobBilling(reader, job);
        std::string summary =
            "Training seconds: " + std::to_string(static_cast<long long>(b.trainingTimeSeconds)) +
            "\nBillable seconds: " + std::to_string(static_cast<long long>(b.billableTimeSeconds)) +
            "\n";
        if (b.savingsPercent > 0)
            summary +=
                "Managed Spot Training savings: " + present::formatValue(b.savingsPercent) + "%\n";
        m_worker.writeStream(QStringLiteral("stdout"), QString::fromStdString(summary));
    }
    if (status == "Failed") {
        const auto row = reader.component(job);
        throw HostError("Error for Training job " + job + ": Failed. Reason: " + row->failureReason,
                        {}, "UnexpectedStatusException");
    }
    return status;
}

} // namespace studio::notebook

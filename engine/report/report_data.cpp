#include "engine/report/report_data.h"

#include "engine/debugger/rule_catalog.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <set>

namespace studio::report {
namespace {

// The number after a device prefix: ("gpu3", "gpu") -> 3; nullopt when it is not that form.
std::optional<int> deviceIndex(std::string_view device, std::string_view prefix) {
    if (device.size() <= prefix.size() || device.substr(0, prefix.size()) != prefix)
        return std::nullopt;
    int v = 0;
    const char* b = device.data() + prefix.size();
    const char* e = device.data() + device.size();
    auto [end, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || end != e)
        return std::nullopt;
    return v;
}

std::vector<double> values(const std::vector<store::SystemSample>& samples, double divisor = 1) {
    std::vector<double> out;
    out.reserve(samples.size());
    for (const auto& s : samples)
        out.push_back(s.value / divisor);
    return out;
}

double maxOf(const std::vector<store::SystemSample>& samples) {
    double m = 0;
    for (const auto& s : samples)
        if (std::isfinite(s.value))
            m = std::max(m, s.value);
    return m;
}

bool isIdentifier(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    });
}

std::string trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return std::string(s);
}

std::string scalarText(const nlohmann::json& v) {
    if (v.is_string())
        return v.get<std::string>();
    if (v.is_number_float()) {
        const double d = v.get<double>();
        if (std::isfinite(d) && std::abs(d) >= 1e-3 && std::abs(d) < 1e12) {
            std::string s = formatNumber(d, 4);
            while (s.find('.') != std::string::npos && (s.back() == '0' || s.back() == '.'))
                s.pop_back();
            return s;
        }
    }
    return v.dump();
}

void flattenInto(const nlohmann::json& v, const std::string& key,
                 std::vector<std::pair<std::string, std::string>>& out) {
    if (v.is_object()) {
        if (v.empty() && !key.empty())
            out.emplace_back(key, "{}");
        for (auto it = v.begin(); it != v.end(); ++it)
            flattenInto(it.value(), key.empty() ? it.key() : key + "." + it.key(), out);
        return;
    }
    if (v.is_array()) {
        const bool scalars = std::none_of(v.begin(), v.end(), [](const nlohmann::json& e) {
            return e.is_object() || e.is_array();
        });
        if (scalars) {
            std::string s = "[";
            std::size_t shown = 0;
            for (const auto& e : v) {
                if (shown == 12) {
                    s += ", … (" + std::to_string(v.size()) + " values)";
                    break;
                }
                s += (shown++ ? ", " : "") + scalarText(e);
            }
            out.emplace_back(key, s + "]");
            return;
        }
        for (std::size_t i = 0; i < v.size(); ++i)
            flattenInto(v[i], key + "[" + std::to_string(i) + "]", out);
        return;
    }
    out.emplace_back(key.empty() ? "value" : key, scalarText(v));
}

} // namespace

double stepDurationMs(const store::StepTiming& t) {
    return t.dataMs + t.forwardMs + t.backwardMs + t.commMs + t.optimizerMs;
}

JobSummary summarizeJob(const store::ComponentRow& row, const std::vector<store::StepTiming>& steps,
                        double lastDataTime) {
    JobSummary s;
    s.created = row.created;
    s.start = row.started > 0 ? row.started : row.created;
    s.running = row.ended <= 0;
    s.end = row.ended > 0 ? row.ended : std::max(s.start, lastDataTime);
    s.jobDuration = std::max(0.0, s.end - s.start);
    double first = INFINITY, last = -INFINITY;
    for (const auto& t : steps) {
        first = std::min(first, t.time - stepDurationMs(t) / 1000);
        last = std::max(last, t.time);
    }
    s.hasSteps = !steps.empty();
    if (s.hasSteps) {
        s.loopStart = std::max(first, s.start);
        s.loopEnd = std::min(std::max(last, s.loopStart), std::max(s.end, s.loopStart));
        s.loopDuration = s.loopEnd - s.loopStart;
        s.initialization = s.loopStart - s.start;
        s.finalization = std::max(0.0, s.end - s.loopEnd);
    } else {
        s.initialization = s.jobDuration;
    }
    return s;
}

std::vector<SystemStatRow> systemStatistics(const std::vector<store::SystemSeries>& series) {
    std::map<int, std::vector<const store::SystemSeries*>> byNode;
    for (const auto& s : series)
        byNode[s.node].push_back(&s);
    std::vector<SystemStatRow> rows;
    for (const auto& [node, list] : byNode) {
        auto find = [&](std::string_view device, std::string_view metric) {
            for (const auto* s : list)
                if (s->device == device && s->metric == metric)
                    return s;
            return static_cast<const store::SystemSeries*>(nullptr);
        };
        std::set<const store::SystemSeries*> used;
        auto add = [&](const store::SystemSeries* s, const std::string& label) {
            if (!s)
                return;
            used.insert(s);
            SystemStatRow r{node, label, s->device, s->metric, "%", {}};
            double divisor = 1;
            if (s->device == "net" || s->device == "disk") {
                const ScaledUnit u = byteRateUnit(maxOf(s->samples));
                r.unit = u.unit;
                divisor = u.divisor;
            }
            r.stats = plot::summarize(values(s->samples, divisor));
            rows.push_back(std::move(r));
        };
        add(find("cpu", "util"), "CPU total");
        std::vector<double> cores;
        for (const auto* s : list)
            if (deviceIndex(s->device, "cpu") && s->metric == "util") {
                used.insert(s);
                const auto v = values(s->samples);
                cores.insert(cores.end(), v.begin(), v.end());
            }
        if (!cores.empty())
            rows.push_back({node, "CPU per core", "cpu*", "util", "%", plot::summarize(cores)});
        add(find("cpu", "iowait"), "I/O wait");
        add(find("mem", "used"), "Memory used");
        add(find("net", "rx"), "Network received");
        add(find("net", "tx"), "Network sent");
        add(find("disk", "read"), "Disk read");
        add(find("disk", "write"), "Disk write");
        std::vector<const store::SystemSeries*> gpus;
        for (const auto* s : list)
            if (deviceIndex(s->device, "gpu"))
                gpus.push_back(s);
        std::sort(gpus.begin(), gpus.end(), [](auto* a, auto* b) {
            return std::pair(*deviceIndex(a->device, "gpu"), a->metric) <
                   std::pair(*deviceIndex(b->device, "gpu"), b->metric);
        });
        for (const auto* s : gpus)
            if (s->metric == "util")
                add(s, "GPU " + s->device);
        for (const auto* s : gpus)
            if (s->metric == "mem")
                add(s, "GPU memory " + s->device);
        for (const auto* s : list)
            if (!used.count(s)) {
                add(s, s->device + " " + s->metric);
                rows.back().unit = "";
            }
    }
    return rows;
}

std::vector<StepStatRow> stepStatistics(const std::vector<store::StepTiming>& steps) {
    const bool anyTrain = std::any_of(
        steps.begin(), steps.end(), [](const store::StepTiming& t) { return t.phase == "train"; });
    std::map<std::pair<int, int>, std::vector<const store::StepTiming*>> byRank;
    for (const auto& t : steps)
        if (!anyTrain || t.phase == "train")
            byRank[{t.rank, t.node}].push_back(&t);
    std::vector<StepStatRow> rows;
    for (auto& [key, list] : byRank) {
        std::stable_sort(list.begin(), list.end(),
                         [](auto* a, auto* b) { return a->step < b->step; });
        StepStatRow r;
        r.rank = key.first;
        r.node = key.second;
        for (const auto* t : list) {
            r.durationsMs.push_back(stepDurationMs(*t));
            r.byStep.push_back({static_cast<double>(t->step), r.durationsMs.back()});
        }
        r.stats = plot::summarize(r.durationsMs);
        rows.push_back(std::move(r));
    }
    return rows;
}

PhaseTotals phaseTotals(const std::vector<store::StepTiming>& steps) {
    PhaseTotals p;
    for (const auto& t : steps) {
        p.dataMs += t.dataMs;
        p.forwardMs += t.forwardMs;
        p.backwardMs += t.backwardMs;
        p.commMs += t.commMs;
        p.optimizerMs += t.optimizerMs;
        const double d = stepDurationMs(t);
        if (t.phase == "train")
            p.trainMs += d, ++p.trainSteps;
        else if (t.phase == "eval")
            p.evalMs += d, ++p.evalSteps;
        else
            p.otherMs += d, ++p.otherSteps;
    }
    return p;
}

std::vector<EventStatRow> eventStatistics(const std::vector<store::FrameworkEventRow>& events) {
    std::map<std::pair<std::string, std::string>, EventStatRow> groups;
    double total = 0;
    for (const auto& e : events) {
        auto& g = groups[{e.name, e.category}];
        g.name = e.name;
        g.category = e.category;
        ++g.count;
        g.totalMs += e.durationMs;
        g.maxMs = std::max(g.maxMs, e.durationMs);
        total += e.durationMs;
    }
    std::vector<EventStatRow> rows;
    for (auto& [key, g] : groups) {
        g.meanMs = g.totalMs / static_cast<double>(g.count);
        g.share = total > 0 ? g.totalMs / total : 0;
        rows.push_back(std::move(g));
    }
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.totalMs > b.totalMs; });
    return rows;
}

std::map<std::string, std::string> parseRuleParameters(const std::string& text) {
    std::map<std::string, std::string> out;
    std::string lastKey;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t next = text.find(", ", pos);
        if (next == std::string::npos)
            next = text.size();
        const std::string_view piece(text.data() + pos, next - pos);
        const auto eq = piece.find('=');
        const std::string name = eq == std::string_view::npos ? "" : trim(piece.substr(0, eq));
        if (isIdentifier(name)) {
            lastKey = name;
            out[name] = trim(piece.substr(eq + 1));
        } else if (!lastKey.empty()) {
            out[lastKey] += ", " + std::string(piece);
        }
        pos = next + 2;
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> flattenDetails(const nlohmann::json& details) {
    std::vector<std::pair<std::string, std::string>> out;
    flattenInto(details, "", out);
    return out;
}

Coincidence coincidence(const std::vector<store::SystemSample>& busy, double busyAbove,
                        const std::vector<store::SystemSample>& gpu, double gpuBelow,
                        double toleranceSeconds) {
    std::vector<store::SystemSample> sorted = gpu;
    std::sort(sorted.begin(), sorted.end(), [](auto& a, auto& b) { return a.time < b.time; });
    Coincidence c;
    for (const auto& s : busy) {
        auto it =
            std::lower_bound(sorted.begin(), sorted.end(), s.time,
                             [](const store::SystemSample& g, double t) { return g.time < t; });
        const store::SystemSample* nearest = nullptr;
        if (it != sorted.end())
            nearest = &*it;
        if (it != sorted.begin() &&
            (!nearest || s.time - std::prev(it)->time < nearest->time - s.time))
            nearest = &*std::prev(it);
        if (!nearest || std::abs(nearest->time - s.time) > toleranceSeconds)
            continue;
        ++c.matched;
        if (s.value > busyAbove && nearest->value < gpuBelow)
            ++c.both;
    }
    return c;
}

std::vector<store::SystemSample>
maxByTime(const std::vector<const std::vector<store::SystemSample>*>& series) {
    std::map<double, double> byTime;
    for (const auto* s : series)
        for (const auto& sample : *s) {
            auto [it, inserted] = byTime.emplace(sample.time, sample.value);
            if (!inserted)
                it->second = std::max(it->second, sample.value);
        }
    std::vector<store::SystemSample> out;
    for (const auto& [t, v] : byTime)
        out.push_back({t, v});
    return out;
}

int statusOrder(const std::string& status) {
    static const std::vector<std::string> order = {"IssuesFound", "Error", "InProgress",
                                                   "NoIssuesFound", "NotApplicable"};
    const auto it = std::find(order.begin(), order.end(), status);
    return static_cast<int>(it - order.begin());
}

std::vector<int> ReportData::nodeIds() const {
    std::set<int> ids;
    for (const auto& n : nodes)
        ids.insert(n.node);
    for (const auto& s : series)
        ids.insert(s.node);
    return {ids.begin(), ids.end()};
}

std::string ReportData::nodeLabel(int node) const {
    for (const auto& n : nodes)
        if (n.node == node && !n.host.empty())
            return "node " + std::to_string(node) + " (" + n.host + ")";
    return "node " + std::to_string(node);
}

const store::SystemSeries* ReportData::seriesOf(int node, std::string_view device,
                                                std::string_view metric) const {
    for (const auto& s : series)
        if (s.node == node && s.device == device && s.metric == metric)
            return &s;
    return nullptr;
}

std::vector<const store::SystemSeries*> ReportData::gpuSeries(int node,
                                                              std::string_view metric) const {
    std::vector<const store::SystemSeries*> out;
    for (const auto& s : series)
        if (s.node == node && s.metric == metric && deviceIndex(s.device, "gpu"))
            out.push_back(&s);
    std::sort(out.begin(), out.end(), [](auto* a, auto* b) {
        return *deviceIndex(a->device, "gpu") < *deviceIndex(b->device, "gpu");
    });
    return out;
}

const RuleView* ReportData::rule(std::string_view name) const {
    for (const auto& r : rules)
        if (r.status.rule == name)
            return &r;
    return nullptr;
}

const store::ParameterRow* ReportData::batchSize() const {
    for (const char* name : {"batch-size", "batch_size", "per_device_train_batch_size",
                             "train_batch_size", "train-batch-size", "batchsize"})
        for (const auto& p : parameters)
            if (p.name == name)
                return &p;
    return nullptr;
}

std::vector<RuleView> loadRuleViews(store::StoreReader& reader, store::ComponentId id) {
    std::vector<RuleView> rules;
    const auto findings = reader.findings(id);
    for (const auto& r : reader.ruleStatuses(id)) {
        RuleView v{r, {}, {}};
        if (const auto* info = debugger::findRule(r.rule))
            v.description = info->description;
        for (const auto& f : findings)
            if (f.rule == r.rule)
                v.findings.push_back(f);
        rules.push_back(std::move(v));
    }
    std::stable_sort(rules.begin(), rules.end(), [](const RuleView& a, const RuleView& b) {
        return std::pair(statusOrder(a.status.status), a.status.rule) <
               std::pair(statusOrder(b.status.status), b.status.rule);
    });
    return rules;
}

ReportData gatherReport(store::StoreReader& reader, const std::string& job) {
    ReportData d;
    d.job = reader.resolveJob(job);
    const auto id = d.job.id;
    d.transitions = reader.transitions(id);
    d.nodes = reader.nodes(id);
    d.ranks = reader.ranks(id);
    d.series = reader.systemSeries(id);
    d.steps = reader.stepTimings(id);
    d.frameworkEvents = reader.frameworkEvents(id);
    if (auto ops = reader.facts(id, "operators"); !ops.empty())
        d.operators = nlohmann::json::parse(ops.front().body, nullptr, false);
    d.parameters = reader.parameters({id})[id];

    double lastData = 0;
    for (const auto& s : d.series)
        for (const auto& sample : s.samples)
            lastData = std::max(lastData, sample.time);
    for (const auto& t : d.steps)
        lastData = std::max(lastData, t.time);
    d.summary = summarizeJob(d.job, d.steps, lastData);
    d.system = systemStatistics(d.series);
    d.stepStats = stepStatistics(d.steps);
    d.phases = phaseTotals(d.steps);
    d.events = eventStatistics(d.frameworkEvents);

    for (int node : d.nodeIds()) {
        const auto util = d.gpuSeries(node, "util");
        const auto mem = d.gpuSeries(node, "mem");
        std::set<std::string> devices;
        for (const auto* s : util)
            devices.insert(s->device);
        for (const auto* s : mem)
            devices.insert(s->device);
        std::vector<std::string> ordered(devices.begin(), devices.end());
        std::sort(ordered.begin(), ordered.end(), [](const auto& a, const auto& b) {
            return *deviceIndex(a, "gpu") < *deviceIndex(b, "gpu");
        });
        for (const auto& dev : ordered) {
            GpuStatRow g{node, dev, {}, {}};
            if (const auto* s = d.seriesOf(node, dev, "util"))
                g.utilization = plot::summarize(values(s->samples));
            if (const auto* s = d.seriesOf(node, dev, "mem"))
                g.memory = plot::summarize(values(s->samples));
            d.gpus.push_back(std::move(g));
        }
    }

    d.rules = loadRuleViews(reader, id);
    return d;
}

namespace {

nlohmann::json statsJson(const plot::SampleStats& s) {
    return {{"count", s.count}, {"mean", s.mean}, {"max", s.max},
            {"p99", s.p99},     {"p95", s.p95},   {"p50", s.p50},
            {"p5", s.p5},       {"min", s.min},   {"stddev", s.stddev}};
}

double share(double part, double whole) {
    return whole > 0 ? part / whole * 100 : 0;
}

} // namespace

nlohmann::json reportJson(const ReportData& d) {
    const auto& s = d.summary;
    nlohmann::json j;
    j["job"] = {{"name", d.job.name},
                {"status", d.job.status},
                {"secondary_status", d.job.secondaryStatus},
                {"failure_reason", d.job.failureReason},
                {"instance_type", d.job.instanceType},
                {"instance_count", d.job.instanceCount},
                {"processes_per_host", d.job.processesPerHost}};
    nlohmann::json summary = {{"start_time", s.start},
                              {"end_time", s.end},
                              {"running", s.running},
                              {"job_duration_in_seconds", s.jobDuration},
                              {"initialization_in_seconds", s.initialization},
                              {"finalization_in_seconds", s.finalization},
                              {"initialization_percent", share(s.initialization, s.jobDuration)},
                              {"finalization_percent", share(s.finalization, s.jobDuration)}};
    if (s.hasSteps) {
        summary["training_loop_start"] = s.loopStart;
        summary["training_loop_end"] = s.loopEnd;
        summary["training_loop_duration"] = s.loopDuration;
        summary["training_loop_percent"] = share(s.loopDuration, s.jobDuration);
    }
    j["summary"] = summary;
    j["system_usage"] = nlohmann::json::array();
    for (const auto& r : d.system) {
        auto row = statsJson(r.stats);
        row["node"] = r.node;
        row["metric"] = r.metric;
        row["unit"] = r.unit;
        j["system_usage"].push_back(row);
    }
    j["step_durations"] = nlohmann::json::array();
    for (const auto& r : d.stepStats) {
        auto row = statsJson(r.stats);
        row["node"] = r.node;
        row["rank"] = r.rank;
        row["unit"] = "ms";
        j["step_durations"].push_back(row);
    }
    const auto& p = d.phases;
    j["phases_ms"] = {
        {"data", p.dataMs}, {"forward", p.forwardMs},      {"backward", p.backwardMs},
        {"comm", p.commMs}, {"optimizer", p.optimizerMs},  {"train", p.trainMs},
        {"eval", p.evalMs}, {"train_steps", p.trainSteps}, {"eval_steps", p.evalSteps}};
    j["framework_events"] = nlohmann::json::array();
    for (const auto& e : d.events)
        j["framework_events"].push_back({{"name", e.name},
                                         {"category", e.category},
                                         {"count", e.count},
                                         {"total_ms", e.totalMs},
                                         {"mean_ms", e.meanMs},
                                         {"max_ms", e.maxMs},
                                         {"percent", e.share * 100}});
    j["gpus"] = nlohmann::json::array();
    for (const auto& g : d.gpus)
        j["gpus"].push_back({{"node", g.node},
                             {"gpu", g.device},
                             {"utilization", statsJson(g.utilization)},
                             {"memory", statsJson(g.memory)}});
    j["rules"] = nlohmann::json::array();
    for (const auto& r : d.rules) {
        auto details = nlohmann::json::parse(r.status.details, nullptr, false);
        if (details.is_discarded())
            details = r.status.details;
        j["rules"].push_back({{"rule", r.status.rule},
                              {"kind", r.status.kind},
                              {"status", r.status.status},
                              {"message", r.status.message},
                              {"fired", r.status.fired},
                              {"datapoints", r.status.datapoints},
                              {"parameters", r.status.parameters},
                              {"findings", r.findings.size()},
                              {"details", details}});
    }
    return j;
}

} // namespace studio::report

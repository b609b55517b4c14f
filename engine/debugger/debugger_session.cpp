#include "engine/debugger/debugger_session.h"

#include "engine/debugger/rule_registry.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace studio::debugger {

namespace {

// Stands in for a rule that could not be built, so its error shows under its name.
struct BrokenRule : Rule {
    using Rule::Rule;
    void onEvent(const wire::Event&) override {}
    std::string criteria() const override { return {}; }
};

std::unique_ptr<Rule> buildRule(const std::string& name,
                                const std::map<std::string, std::string>& params) {
    try {
        return makeBuiltinRule(name, params);
    } catch (const std::exception& ex) {
        const RuleInfo* info = findRule(name);
        auto rule = std::make_unique<BrokenRule>(name, info ? info->kind : RuleKind::Model);
        rule->setError(ex.what());
        return rule;
    }
}

std::string describeParams(const std::string& name,
                           const std::map<std::string, std::string>& params) {
    const RuleInfo* info = findRule(name);
    if (!info)
        return {};
    try {
        return RuleParams(*info, params).describe();
    } catch (const std::exception&) {
        return {};
    }
}

struct Entry {
    std::unique_ptr<Rule> rule;
    std::vector<std::string> actions;
    std::string parameters; // as described for the store
    int stored = 0;
    bool stopSent = false;
    bool notified = false;
    RuleStatus lastStatus = RuleStatus::InProgress;
    std::int64_t lastFired = 0;
    double lastWrite = 0;
};

std::string lower(std::string s) {
    for (auto& c : s)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Scripts have no hook: their metric_definitions metrics stand in for the scalar collections.
// A name with "loss" feeds losses; validation/eval/test names (or eval-phase metrics) are EVAL.
std::optional<wire::TensorEvent> scalarFromMetric(const wire::MetricEvent& m) {
    const std::string n = lower(m.name);
    wire::TensorEvent t;
    t.collection = n.find("loss") != std::string::npos ? "losses" : "metrics";
    t.name = m.name;
    t.step = m.step;
    t.reductions = {{"value", m.value}};
    auto marks = [&n](const char* word) { // "val:loss", "val_loss", "train:val-loss", ...
        for (std::size_t at = n.find(word); at != std::string::npos; at = n.find(word, at + 1)) {
            const std::size_t end = at + std::strlen(word);
            const bool startOk = at == 0 || !std::isalnum(static_cast<unsigned char>(n[at - 1]));
            const bool endOk = end == n.size() || !std::isalpha(static_cast<unsigned char>(n[end]));
            if (startOk && endOk)
                return true;
        }
        return false;
    };
    const bool eval = m.phase == wire::Phase::Eval || marks("val") || marks("validation") ||
                      marks("eval") || marks("test");
    t.phase = eval ? wire::Phase::Eval : wire::Phase::Train;
    return t;
}

std::string joined(const std::vector<std::string>& v) {
    std::string out;
    for (const auto& s : v)
        out += (out.empty() ? "" : ", ") + s;
    return out;
}

} // namespace

struct DebuggerSession::Impl {
    JobFacts facts;
    store::StoreWriter* writer = nullptr;
    store::ComponentId id = 0;
    SessionCallbacks callbacks;
    std::vector<Entry> entries;
    double lastTick = 0;
    bool finished = false;

    void guard(Entry& e, const std::function<void()>& f) {
        if (e.rule->status() == RuleStatus::Error)
            return;
        try {
            f();
        } catch (const std::exception& ex) {
            e.rule->setError(ex.what());
        }
    }

    void writeStatus(Entry& e, double now, bool final) {
        if (!writer)
            return;
        store::RuleStatusRow row;
        row.rule = e.rule->name();
        row.kind = e.rule->kind() == RuleKind::Model ? "model" : "profiler";
        row.status = ruleStatusName(e.rule->status());
        row.message = e.rule->statusMessage();
        row.updated = now;
        row.fired = e.rule->fired();
        row.datapoints = e.rule->datapoints();
        row.parameters = e.parameters;
        row.actions = joined(e.actions);
        try {
            row.criteria = e.rule->criteria();
        } catch (const std::exception&) {
        }
        if (final) {
            try {
                row.details = e.rule->details().dump();
            } catch (const std::exception& ex) {
                row.details = nlohmann::json{{"error", ex.what()}}.dump();
            }
        }
        writer->setRuleStatus(id, row);
        e.lastStatus = e.rule->status();
        e.lastFired = e.rule->fired();
        e.lastWrite = now;
    }

    void collect(Entry& e, double now) {
        for (Finding& f : e.rule->takeNewFindings()) {
            if (writer && e.stored < kMaxStoredFindings) {
                ++e.stored;
                writer->addFinding(id, store::FindingRow{e.rule->name(), f.time > 0 ? f.time : now,
                                                         f.step, f.node, f.device, f.message,
                                                         f.recommendation, f.criteria});
            }
            const bool stop =
                std::find(e.actions.begin(), e.actions.end(), "StopTraining") != e.actions.end() ||
                e.rule->stopsTrainingOnFire();
            if (stop && !e.stopSent) {
                e.stopSent = true;
                if (callbacks.stopTraining)
                    callbacks.stopTraining(e.rule->name(), "Stopped by rule " + e.rule->name());
            }
            const bool notify =
                std::find(e.actions.begin(), e.actions.end(), "Notify") != e.actions.end();
            if (notify && !e.notified) {
                e.notified = true;
                const std::string text = e.rule->name() + ": " + f.message;
                if (writer)
                    writer->addNotification(id, now, e.rule->name(), text);
                if (callbacks.notify)
                    callbacks.notify(e.rule->name(), text, now);
            }
        }
        // Statuses change rarely; fired counts are refreshed at most once a second.
        if (e.rule->status() != e.lastStatus ||
            (e.rule->fired() != e.lastFired && now - e.lastWrite >= 1.0))
            writeStatus(e, now, false);
    }
};

DebuggerSession::DebuggerSession(const spec::JobSpec& spec, JobFacts facts,
                                 store::StoreWriter* writer, store::ComponentId id,
                                 SessionCallbacks callbacks)
    : d(std::make_unique<Impl>()) {
    d->facts = std::move(facts);
    d->writer = writer;
    d->id = id;
    d->callbacks = std::move(callbacks);

    std::map<std::string, std::string> reportParams;
    std::vector<std::string> listed;
    for (const auto& rc : spec.rules) {
        if (rc.name == "ProfilerReport") {
            reportParams = rc.parameters;
            continue;
        }
        listed.push_back(rc.name);
        addRule(buildRule(rc.name, rc.parameters), rc.actions);
        d->entries.back().parameters = describeParams(rc.name, rc.parameters);
    }
    // ProfilerReport: every profiler rule not listed on its own, with "<Rule>_<param>" values.
    if (!spec.profiler.disabled) {
        for (const auto& info : ruleCatalog()) {
            if (info.kind != RuleKind::Profiler ||
                std::find(listed.begin(), listed.end(), info.name) != listed.end())
                continue;
            std::map<std::string, std::string> params;
            for (const auto& [key, value] : reportParams)
                if (key.rfind(info.name + "_", 0) == 0)
                    params[key.substr(info.name.size() + 1)] = value;
            addRule(buildRule(info.name, params));
            d->entries.back().parameters = describeParams(info.name, params);
        }
    }
}

DebuggerSession::~DebuggerSession() = default;

void DebuggerSession::addRule(std::unique_ptr<Rule> rule, std::vector<std::string> actions) {
    Entry e;
    e.rule = std::move(rule);
    e.actions = std::move(actions);
    d->guard(e, [&] { e.rule->start(d->facts); });
    d->entries.push_back(std::move(e));
    d->writeStatus(d->entries.back(), d->facts.submitTime > 0 ? d->facts.submitTime : 0, false);
}

bool DebuggerSession::empty() const {
    return d->entries.empty();
}

std::vector<const Rule*> DebuggerSession::rules() const {
    std::vector<const Rule*> out;
    for (const auto& e : d->entries)
        out.push_back(e.rule.get());
    return out;
}

void DebuggerSession::onEvent(const wire::Event& ev) {
    if (d->finished || d->entries.empty())
        return;
    const wire::Event* feed = &ev;
    wire::Event translated;
    if (!d->facts.builtinTrainer) {
        if (const auto* m = ev.as<wire::MetricEvent>()) {
            translated = wire::Event{ev.t, ev.node, ev.rank, *scalarFromMetric(*m)};
            for (auto& e : d->entries)
                d->guard(e, [&] { e.rule->onEvent(translated); });
        }
    }
    for (auto& e : d->entries) {
        d->guard(e, [&] { e.rule->onEvent(*feed); });
        d->collect(e, ev.t);
    }
}

void DebuggerSession::tick(double now) {
    if (d->finished || now - d->lastTick < 1.0)
        return;
    d->lastTick = now;
    for (auto& e : d->entries) {
        d->guard(e, [&] { e.rule->onTick(now); });
        d->collect(e, now);
    }
}

void DebuggerSession::finish(double now) {
    if (d->finished)
        return;
    d->finished = true;
    for (auto& e : d->entries) {
        d->guard(e, [&] { e.rule->finish(now); });
        // Findings of the last evaluation are stored; actions no longer matter.
        for (Finding& f : e.rule->takeNewFindings())
            if (d->writer && e.stored++ < kMaxStoredFindings)
                d->writer->addFinding(d->id,
                                      store::FindingRow{e.rule->name(), f.time > 0 ? f.time : now,
                                                        f.step, f.node, f.device, f.message,
                                                        f.recommendation, f.criteria});
        d->writeStatus(e, now, true);
    }
}

} // namespace studio::debugger

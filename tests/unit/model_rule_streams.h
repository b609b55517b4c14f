// Crafted event streams for the Debugger's model rules (test_model_rules), by name, and a driver
// that runs one rule over a stream the way the debugger session drives it.
#pragma once

#include "engine/debugger/debugger_session.h"
#include "engine/debugger/rule_registry.h"

#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace studio::testing {

inline constexpr double kT0 = 1'700'000'000.0;
inline constexpr auto kTrain = wire::Phase::Train;
inline constexpr auto kEval = wire::Phase::Eval;
inline const double kNaN = std::numeric_limits<double>::quiet_NaN();
inline const double kInf = std::numeric_limits<double>::infinity();

using Reductions = std::vector<std::pair<std::string, double>>;

struct Stream {
    std::vector<wire::Event> events;
    std::vector<double> ticks; // onTick times, merged with the events by time
};

// Events at kT0 + step seconds unless a time is given.
class StreamBuilder {
public:
    StreamBuilder& tensor(std::int64_t step, const std::string& collection, const std::string& name,
                          Reductions reductions, wire::Phase phase = kTrain, int rank = 0) {
        wire::TensorEvent t{collection, name, step, std::move(reductions), phase};
        m_s.events.push_back(wire::Event{time(step), 0, rank, std::move(t)});
        return *this;
    }
    StreamBuilder& loss(std::int64_t step, double value, wire::Phase phase = kTrain,
                        const std::string& name = "loss") {
        return tensor(step, "losses", name, {{"value", value}}, phase);
    }
    StreamBuilder& stepAt(double t, std::int64_t step) {
        m_s.events.push_back(wire::Event{t, 0, 0, wire::StepEvent{step}});
        return *this;
    }
    StreamBuilder& ticks(double from, double to, double every) {
        for (double t = from; t <= to; t += every)
            m_s.ticks.push_back(t);
        return *this;
    }
    StreamBuilder& at(double t) {
        m_fixedTime = t;
        return *this;
    }
    Stream build() const { return m_s; }

private:
    double time(std::int64_t step) const {
        return m_fixedTime ? *m_fixedTime : kT0 + static_cast<double>(step);
    }
    Stream m_s;
    std::optional<double> m_fixedTime;
};

// Losses at steps 0, every, 2 * every, ... (eval ones too), ordered by step.
Stream losses(const std::vector<double>& train, const std::vector<double>& eval = {},
              std::int64_t every = 10, const std::string& trainName = "loss",
              const std::string& evalName = "loss");

// Data every 10 s up to lastData, then ticks every `tickEvery` s up to end.
Stream activity(double lastData, double end, double tickEvery, double gapFrom = -1,
                double gapTo = -1);

// The stream a row of the rule table names ("grads_vanishing", ...).
Stream namedStream(const std::string& name);

// "key=value;key=value" as rule parameters.
std::map<std::string, std::string> parseParams(const std::string& text);

debugger::JobFacts facts(const std::string& jobName = "job-1");

struct Outcome {
    std::unique_ptr<debugger::Rule> rule;
    std::vector<debugger::Finding> findings;
    std::vector<double> findingsAt; // when each finding came out: the event or tick time
};

// Builds the rule through the registry, starts it, feeds the stream's events and ticks in time
// order and finishes it a second after the last.
Outcome run(const std::string& name, const std::map<std::string, std::string>& params,
            const Stream& s);
Outcome run(const std::string& name, const std::map<std::string, std::string>& params,
            const std::string& stream);

} // namespace studio::testing

#include "engine/wire/codec.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

namespace studio::wire {
namespace {

using json = nlohmann::ordered_json; // keeps the order of fields, reductions included

// Encoding keeps the field order of the protocol ("v", "kind", "t", ...) so lines read well.
using ojson = nlohmann::ordered_json;

ojson number(double v) {
    if (std::isnan(v))
        return "NaN";
    if (std::isinf(v))
        return v > 0 ? "Infinity" : "-Infinity";
    return v;
}

// Thrown inside decode() to report the first bad field; never escapes this file.
struct FieldError {
    std::string message;
};

double readNumber(const json& o, const char* key, bool required, double fallback = 0.0) {
    auto it = o.find(key);
    if (it == o.end()) {
        if (required)
            throw FieldError{std::string("missing field \"") + key + "\""};
        return fallback;
    }
    if (it->is_number())
        return it->get<double>();
    if (it->is_string()) {
        const auto& s = it->get_ref<const std::string&>();
        if (s == "NaN")
            return std::numeric_limits<double>::quiet_NaN();
        if (s == "Infinity")
            return std::numeric_limits<double>::infinity();
        if (s == "-Infinity")
            return -std::numeric_limits<double>::infinity();
    }
    throw FieldError{std::string("field \"") + key + "\" must be a number"};
}

std::int64_t readInt(const json& o, const char* key, bool required, std::int64_t fallback = 0) {
    auto it = o.find(key);
    if (it == o.end()) {
        if (required)
            throw FieldError{std::string("missing field \"") + key + "\""};
        return fallback;
    }
    // Integers past int64 would wrap (unsigned) or be undefined behaviour (floats) when cast.
    if (it->is_number_unsigned() &&
        it->get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
        throw FieldError{std::string("field \"") + key + "\" is out of range"};
    if (it->is_number_integer())
        return it->get<std::int64_t>();
    if (it->is_number_float()) {
        double d = it->get<double>();
        if (std::floor(d) == d && std::isfinite(d)) {
            if (d < -0x1p63 || d >= 0x1p63)
                throw FieldError{std::string("field \"") + key + "\" is out of range"};
            return static_cast<std::int64_t>(d);
        }
    }
    throw FieldError{std::string("field \"") + key + "\" must be an integer"};
}

// An int field: out of [lo, hi] is an error, never a silent narrowing.
int readSmallInt(const json& o, const char* key, bool required, int fallback, int lo,
                 int hi = std::numeric_limits<int>::max()) {
    const std::int64_t v = readInt(o, key, required, fallback);
    if (v < lo || v > hi)
        throw FieldError{std::string("field \"") + key + "\" must be from " + std::to_string(lo) +
                         " to " + std::to_string(hi) + ", got " + std::to_string(v)};
    return static_cast<int>(v);
}

std::string readString(const json& o, const char* key, bool required) {
    auto it = o.find(key);
    if (it == o.end()) {
        if (required)
            throw FieldError{std::string("missing field \"") + key + "\""};
        return {};
    }
    if (!it->is_string())
        throw FieldError{std::string("field \"") + key + "\" must be a string"};
    return it->get<std::string>();
}

Phase readPhase(const json& o) {
    std::string p = readString(o, "phase", false);
    if (p.empty() || p == "train")
        return Phase::Train;
    if (p == "eval")
        return Phase::Eval;
    throw FieldError{"field \"phase\" must be \"train\" or \"eval\""};
}

Stream readStream(const json& o) {
    std::string s = readString(o, "stream", false);
    if (s.empty() || s == "stdout")
        return Stream::Stdout;
    if (s == "stderr")
        return Stream::Stderr;
    if (s == "events")
        return Stream::Events;
    throw FieldError{"field \"stream\" must be \"stdout\", \"stderr\" or \"events\""};
}

// An optional array field whose items must all be of one type ("integers", "strings").
template <typename T>
void readArray(const json& o, const char* key, const char* items, bool (json::*isItem)() const,
               std::vector<T>& out) {
    auto it = o.find(key);
    if (it == o.end())
        return;
    if (!it->is_array())
        throw FieldError{std::string("field \"") + key + "\" must be an array"};
    for (const auto& item : *it) {
        if (!(item.*isItem)())
            throw FieldError{std::string("field \"") + key + "\" must hold " + items};
        out.push_back(item.get<T>());
    }
}

LogEvent readLog(const json& o) {
    const std::string part = readString(o, "part", false);
    if (!part.empty() && part != "piece" && part != "last")
        throw FieldError{"field \"part\" must be \"piece\" or \"last\""};
    return LogEvent{readStream(o), readString(o, "text", true),
                    part.empty()      ? LinePart::Whole
                    : part == "piece" ? LinePart::Piece
                                      : LinePart::Last};
}

MetricEvent readMetric(const json& o) {
    std::string name = readString(o, "name", true);
    if (name.empty())
        throw FieldError{"field \"name\" must not be empty"};
    return MetricEvent{std::move(name), readInt(o, "step", true), readNumber(o, "value", true),
                       readPhase(o)};
}

TensorEvent readTensor(const json& o) {
    TensorEvent e{readString(o, "collection", true),
                  readString(o, "name", true),
                  readInt(o, "step", true),
                  {},
                  readPhase(o)};
    auto it = o.find("reductions");
    if (it != o.end()) {
        if (!it->is_object())
            throw FieldError{"field \"reductions\" must be an object"};
        for (auto r = it->begin(); r != it->end(); ++r)
            e.reductions.emplace_back(r.key(), readNumber(*it, r.key().c_str(), true));
    }
    return e;
}

StatusEvent readStatus(const json& o) {
    StatusEvent e;
    e.state = readString(o, "state", true);
    e.message = readString(o, "message", false);
    e.host = readString(o, "host", false);
    e.cores = readSmallInt(o, "cores", false, 0, 0);
    e.gpus = readSmallInt(o, "gpus", false, 0, 0);
    e.step = readInt(o, "step", false, -1);
    e.total = readInt(o, "total", false, -1);
    readArray(o, "pids", "integers", &json::is_number_integer, e.pids);
    return e;
}

ProfileEvent readProfile(const json& o) {
    ProfileEvent e{readString(o, "name", true),
                   readString(o, "category", true),
                   readInt(o, "step", true),
                   readNumber(o, "start", true),
                   readNumber(o, "dur", true),
                   readInt(o, "pid", false),
                   readPhase(o)};
    if (e.durationMs < 0)
        throw FieldError{"field \"dur\" must not be negative"};
    return e;
}

ParamEvent readParam(const json& o) {
    ParamEvent e;
    e.name = readString(o, "name", true);
    if (e.name.empty())
        throw FieldError{"field \"name\" must not be empty"};
    auto it = o.find("value");
    if (it == o.end())
        throw FieldError{"missing field \"value\""};
    if (it->is_string()) {
        e.value = it->get<std::string>();
    } else if (it->is_number()) {
        e.isNumber = true;
        e.number = it->get<double>();
        e.value = it->dump();
    } else {
        throw FieldError{"field \"value\" must be a string or a number"};
    }
    return e;
}

ArtifactEvent readArtifact(const json& o) {
    ArtifactEvent e{readString(o, "name", true), readString(o, "value", true),
                    readString(o, "media_type", false), readString(o, "type", false)};
    if (e.name.empty())
        throw FieldError{"field \"name\" must not be empty"};
    if (e.type.empty())
        e.type = "output";
    if (e.type != "output" && e.type != "input")
        throw FieldError{"field \"type\" must be \"output\" or \"input\""};
    return e;
}

FactsEvent readFacts(const json& o) {
    FactsEvent e;
    e.topic = readString(o, "topic", true);
    if (e.topic.empty())
        throw FieldError{"field \"topic\" must not be empty"};
    auto it = o.find("body");
    if (it == o.end() || !it->is_object())
        throw FieldError{"field \"body\" must be an object"};
    e.body = it->dump(-1, ' ', false, json::error_handler_t::replace);
    return e;
}

ExitEvent readExit(const json& o) {
    ExitEvent e{readSmallInt(o, "code", true, 0, std::numeric_limits<int>::min()),
                readSmallInt(o, "signal", false, 0, 0),
                {}};
    readArray(o, "stderr_tail", "strings", &json::is_string, e.stderrTail);
    return e;
}

// The payload of a known kind; nullopt for a kind this version does not know.
std::optional<Payload> readPayload(const std::string& kind, const json& o) {
    if (kind == "log")
        return readLog(o);
    if (kind == "metric")
        return readMetric(o);
    if (kind == "sys")
        return SysEvent{readString(o, "device", true), readString(o, "metric", true),
                        readNumber(o, "value", true)};
    if (kind == "step")
        return StepEvent{readInt(o, "step", true),         readPhase(o),
                         readNumber(o, "data", false),     readNumber(o, "forward", false),
                         readNumber(o, "backward", false), readNumber(o, "comm", false),
                         readNumber(o, "optimizer", false)};
    if (kind == "tensor")
        return readTensor(o);
    if (kind == "status")
        return readStatus(o);
    if (kind == "profile")
        return readProfile(o);
    if (kind == "checkpoint")
        return CheckpointEvent{readInt(o, "step", true), readString(o, "path", true),
                               readString(o, "sha256", false), readInt(o, "bytes", false)};
    if (kind == "exit")
        return readExit(o);
    if (kind == "param")
        return readParam(o);
    if (kind == "artifact")
        return readArtifact(o);
    if (kind == "facts")
        return readFacts(o);
    return std::nullopt;
}

struct Writer {
    ojson& o;
    void operator()(const LogEvent& e) {
        o["stream"] = streamName(e.stream);
        o["text"] = e.text;
        if (e.part != LinePart::Whole)
            o["part"] = e.part == LinePart::Piece ? "piece" : "last";
    }
    void operator()(const MetricEvent& e) {
        o["name"] = e.name;
        o["step"] = e.step;
        o["value"] = number(e.value);
        o["phase"] = phaseName(e.phase);
    }
    void operator()(const SysEvent& e) {
        o["device"] = e.device;
        o["metric"] = e.metric;
        o["value"] = number(e.value);
    }
    void operator()(const StepEvent& e) {
        o["step"] = e.step;
        o["phase"] = phaseName(e.phase);
        o["data"] = number(e.dataMs);
        o["forward"] = number(e.forwardMs);
        o["backward"] = number(e.backwardMs);
        o["comm"] = number(e.commMs);
        o["optimizer"] = number(e.optimizerMs);
    }
    void operator()(const TensorEvent& e) {
        o["collection"] = e.collection;
        o["name"] = e.name;
        o["step"] = e.step;
        ojson r = ojson::object();
        for (const auto& [k, v] : e.reductions)
            r[k] = number(v);
        o["reductions"] = std::move(r);
        if (e.phase != Phase::Train)
            o["phase"] = phaseName(e.phase);
    }
    void operator()(const ProfileEvent& e) {
        o["name"] = e.name;
        o["category"] = e.category;
        o["step"] = e.step;
        o["start"] = number(e.start);
        o["dur"] = number(e.durationMs);
        if (e.pid)
            o["pid"] = e.pid;
        if (e.phase != Phase::Train)
            o["phase"] = phaseName(e.phase);
    }
    void operator()(const StatusEvent& e) {
        o["state"] = e.state;
        if (!e.message.empty())
            o["message"] = e.message;
        if (!e.host.empty())
            o["host"] = e.host;
        if (e.cores)
            o["cores"] = e.cores;
        if (e.gpus)
            o["gpus"] = e.gpus;
        if (e.step >= 0)
            o["step"] = e.step;
        if (e.total >= 0)
            o["total"] = e.total;
        if (!e.pids.empty())
            o["pids"] = e.pids;
    }
    void operator()(const CheckpointEvent& e) {
        o["step"] = e.step;
        o["path"] = e.path;
        o["sha256"] = e.sha256;
        o["bytes"] = e.bytes;
    }
    void operator()(const ParamEvent& e) {
        o["name"] = e.name;
        if (e.isNumber)
            o["value"] = number(e.number);
        else
            o["value"] = e.value;
    }
    void operator()(const ArtifactEvent& e) {
        o["name"] = e.name;
        o["value"] = e.value;
        if (!e.mediaType.empty())
            o["media_type"] = e.mediaType;
        o["type"] = e.type;
    }
    void operator()(const FactsEvent& e) {
        o["topic"] = e.topic;
        ojson body = ojson::parse(e.body, nullptr, false);
        o["body"] = body.is_object() ? std::move(body) : ojson::object();
    }
    void operator()(const ExitEvent& e) {
        o["code"] = e.code;
        o["signal"] = e.signal;
        if (!e.stderrTail.empty())
            o["stderr_tail"] = e.stderrTail;
    }
};

} // namespace

std::string encode(const Event& e) {
    ojson o = ojson::object();
    o["v"] = kProtocolVersion;
    o["kind"] = kindName(e.payload);
    o["t"] = number(e.t); // decode() accepts "NaN" here; a bare NaN would be dumped as null
    o["node"] = e.node;
    o["rank"] = e.rank;
    std::visit(Writer{o}, e.payload);
    // Replace invalid UTF-8 (a rank may print anything) instead of throwing.
    return o.dump(-1, ' ', false, ojson::error_handler_t::replace);
}

Decoded decode(std::string_view line) {
    Decoded d;
    json o = json::parse(line.begin(), line.end(), nullptr, false);
    if (o.is_discarded() || !o.is_object()) {
        d.error = "not a JSON object";
        return d;
    }
    try {
        if (auto v = o.find("v"); v != o.end() && !v->is_number_integer())
            throw FieldError{"field \"v\" must be an integer"};
        std::string kind = readString(o, "kind", true);
        std::optional<Payload> payload = readPayload(kind, o);
        if (!payload)
            return d; // unknown kind: ignored, not an error
        Event e;
        e.payload = std::move(*payload);
        d.hasTime = o.contains("t");
        e.t = readNumber(o, "t", false);
        d.hasOrigin = o.contains("node") && o.contains("rank");
        e.node = readSmallInt(o, "node", false, 0, 0);
        e.rank = readSmallInt(o, "rank", false, -1, -1); // -1: the launcher itself
        d.event = std::move(e);
    } catch (const FieldError& err) {
        d.error = err.message;
    }
    return d;
}

Event malformedAsLog(std::string_view line, double t, int node, int rank) {
    return Event{t, node, rank, LogEvent{Stream::Events, std::string(line)}};
}

} // namespace studio::wire

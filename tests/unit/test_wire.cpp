// Wire protocol: every kind round-trips; malformed lines are errors, unknown kinds are ignored.
#include "engine/wire/codec.h"
#include "engine/wire/line_splitter.h"

#include "tests/support/plain_test.h"

#include <cmath>
#include <limits>

using namespace studio::wire;
using studio::testing::nearly;

namespace {

std::vector<std::string> texts(const std::vector<SplitLine>& lines) {
    std::vector<std::string> out;
    for (const auto& l : lines)
        out.push_back(l.text);
    return out;
}

// A line that does not decode and the part of the error it must give.
struct MalformedLine {
    const char* row;
    std::string line;
    std::string error;
};

const MalformedLine kMalformedLines[] = {
    {"not json", "loss=0.3", "not a JSON object"},
    {"truncated", R"({"v":1,"kind":"metric","name":"x")", "not a JSON object"},
    {"array", "[1,2,3]", "not a JSON object"},
    {"string", R"("hello")", "not a JSON object"},
    {"no kind", R"({"v":1,"name":"x"})", "missing field \"kind\""},
    {"kind not string", R"({"v":1,"kind":3})", "field \"kind\" must be a string"},
    {"version not int", R"({"v":"1","kind":"log","text":"x"})", "field \"v\""},
    {"metric no value", R"({"v":1,"kind":"metric","name":"x","step":1})",
     "missing field \"value\""},
    {"metric value text", R"({"v":1,"kind":"metric","name":"x","step":1,"value":"high"})",
     "field \"value\" must be a number"},
    {"metric empty name", R"({"v":1,"kind":"metric","name":"","step":1,"value":1})",
     "must not be empty"},
    {"step fractional", R"({"v":1,"kind":"metric","name":"x","step":1.5,"value":1})",
     "field \"step\" must be an integer"},
    // Past int64 a cast would wrap or be undefined behaviour (found by tests/fuzz).
    {"step too large", R"({"v":1,"kind":"metric","name":"x","step":1e19,"value":1})",
     "field \"step\" is out of range"},
    {"step too small", R"({"v":1,"kind":"metric","name":"x","step":-1e19,"value":1})",
     "field \"step\" is out of range"},
    {"step past int64",
     R"({"v":1,"kind":"metric","name":"x","step":9223372036854775808,"value":1})",
     "field \"step\" is out of range"},
    // node and rank are ints: a wider value is refused, not narrowed into another rank.
    {"rank past int", R"({"v":1,"kind":"log","text":"x","node":0,"rank":4294967296})",
     "field \"rank\" must be from -1 to 2147483647, got 4294967296"},
    {"rank below launcher", R"({"v":1,"kind":"log","text":"x","node":0,"rank":-2})",
     "field \"rank\" must be from -1"},
    {"node negative", R"({"v":1,"kind":"log","text":"x","node":-1,"rank":0})",
     "field \"node\" must be from 0"},
    {"exit signal past int", R"({"v":1,"kind":"exit","code":1,"signal":2147483648})",
     "field \"signal\" must be from 0 to 2147483647"},
    {"bad phase", R"({"v":1,"kind":"metric","name":"x","step":1,"value":1,"phase":"test"})",
     "field \"phase\""},
    {"log no text", R"({"v":1,"kind":"log"})", "missing field \"text\""},
    {"log bad stream", R"({"v":1,"kind":"log","text":"x","stream":"tty"})", "field \"stream\""},
    {"tensor reductions list",
     R"({"v":1,"kind":"tensor","collection":"c","name":"n","step":1,"reductions":[1]})",
     "field \"reductions\" must be an object"},
    {"profile negative duration",
     R"({"v":1,"kind":"profile","name":"conv1","category":"forward","step":1,"start":1,"dur":-2})",
     "field \"dur\" must not be negative"},
    {"profile no start",
     R"({"v":1,"kind":"profile","name":"conv1","category":"forward","step":1,"dur":2})",
     "missing field \"start\""},
    {"status pids strings", R"({"v":1,"kind":"status","state":"s","pids":["a"]})",
     "field \"pids\" must hold integers"},
    {"exit no code", R"({"v":1,"kind":"exit"})", "missing field \"code\""},
    {"param no value", R"({"v":1,"kind":"param","name":"lr"})", "missing field \"value\""},
    {"param list value", R"({"v":1,"kind":"param","name":"lr","value":[1]})",
     "field \"value\" must be a string or a number"},
    {"param empty name", R"({"v":1,"kind":"param","name":"","value":1})", "must not be empty"},
    {"artifact bad type", R"({"v":1,"kind":"artifact","name":"m","value":"v","type":"both"})",
     "field \"type\""},
    {"facts body text", R"({"v":1,"kind":"facts","topic":"provenance","body":"x"})",
     "field \"body\" must be an object"},
    {"facts no topic", R"({"v":1,"kind":"facts","body":{}})", "missing field \"topic\""},
    {"sys value null", R"({"v":1,"kind":"sys","device":"cpu","metric":"util","value":null})",
     "field \"value\" must be a number"},
};

} // namespace

TEST_CASE("roundTripsEveryKind") {
    const std::vector<Payload> payloads = {
        LogEvent{Stream::Stderr, "Traceback (most recent call last): \"x\" \t tab"},
        MetricEvent{"train:loss", 42, 0.125, Phase::Train},
        MetricEvent{"eval:accuracy", 7, 0.9, Phase::Eval},
        SysEvent{"cpu3", "util", 87.5},
        StepEvent{10, Phase::Train, 1.5, 2.5, 3.5, 4.5, 5.5},
        TensorEvent{"gradients", "fc1.weight", 20, {{"l2_norm", 3.0}, {"abs_mean", 0.5}}},
        TensorEvent{"losses", "loss", 30, {{"value", 0.25}}, Phase::Eval},
        ProfileEvent{"conv1", "forward", 6, 1732218900.125, 3.25, 4242, Phase::Train},
        ProfileEvent{"bucket 0", "comm", 6, 1732218900.5, 0.75, 0, Phase::Eval},
        StatusEvent{"ranks_started", "ok", "vm", 2, 1, 5, 100, {11, 12}},
        CheckpointEvent{120, "/tmp/ck/step-120.pt", "ab12", 4096},
        ExitEvent{3, 0, {"line one", "line two"}},
        ParamEvent{"optimizer", "adam", false, 0},
        ParamEvent{"lr", "0.001", true, 0.001},
        ArtifactEvent{"model", "/tmp/m.pt", "application/octet-stream", "output"},
        ArtifactEvent{"data", "s3://b/k", "", "input"},
        FactsEvent{"provenance", R"({"python":"3.11.2","packages":{"numpy":"1.24.2"}})"},
    };
    for (const auto& p : payloads) {
        Event e{1732218900.25, 1, 3, p};
        const std::string line = encode(e);
        REQUIRE(line.find('\n') == std::string::npos);
        REQUIRE_MESSAGE(line.rfind("{\"v\":1,\"kind\":\"", 0) == 0, line.c_str());
        Decoded d = decode(line);
        REQUIRE_MESSAGE(d.error.empty(), d.error.c_str());
        REQUIRE(d.event.has_value());
        REQUIRE(d.event->t == nearly(1732218900.25));
        REQUIRE(d.event->node == 1);
        REQUIRE(d.event->rank == 3);
        REQUIRE(d.event->payload.index() == p.index());
        REQUIRE(encode(*d.event) == line); // decode(encode(x)) == x, field for field
    }
}

TEST_CASE("nonFiniteValuesTravelAsStrings") {
    for (double v : {std::numeric_limits<double>::quiet_NaN(), HUGE_VAL, -HUGE_VAL}) {
        const std::string line = encode(Event{1.0, 0, 0, MetricEvent{"loss", 1, v, Phase::Train}});
        Decoded d = decode(line);
        REQUIRE(d.event);
        const double back = d.event->as<MetricEvent>()->value;
        if (std::isnan(v))
            REQUIRE(std::isnan(back));
        else
            REQUIRE(back == nearly(v));
    }
    // The time and a profile's start too: a bare NaN would be written as null, which no
    // longer decodes (found by tests/fuzz).
    for (const char* line :
         {R"({"v":1,"kind":"metric","t":"NaN","name":"x","step":1,"value":2})",
          R"({"v":1,"kind":"profile","t":1,"name":"a","category":"step","step":1,)"
          R"("start":"-Infinity","dur":1})"}) {
        Decoded d = decode(line);
        REQUIRE_MESSAGE(d.event, d.error.c_str());
        Decoded again = decode(encode(*d.event));
        REQUIRE_MESSAGE(again.event, again.error.c_str());
        REQUIRE(encode(*again.event) == encode(*d.event));
    }
}

TEST_CASE("malformedLines") {
    for (const MalformedLine& row : kMalformedLines) {
        INFO("row: ", row.row);
        Decoded d = decode(row.line);
        REQUIRE(!d.event);
        REQUIRE_MESSAGE(d.error.find(row.error) != std::string::npos, d.error);
        // The line survives as a log line.
        Event e = malformedAsLog(row.line, 5.0, 1, 2);
        REQUIRE(e.as<LogEvent>()->text == row.line);
        REQUIRE(e.as<LogEvent>()->stream == Stream::Events);
    }
}

TEST_CASE("unknownKindsAndFieldsAreIgnored") {
    Decoded d = decode(R"({"v":2,"kind":"hologram","t":1})");
    REQUIRE(d.ignored());
    d = decode(R"({"v":1,"kind":"metric","name":"x","step":1,"value":2,"color":"red","v2":{}})");
    REQUIRE(d.event);
    REQUIRE(d.event->as<MetricEvent>()->value == nearly(2.0));
    REQUIRE(!d.hasTime);
    REQUIRE(!d.hasOrigin);
}

TEST_CASE("lineSplitter") {
    LineSplitter s;
    auto a = s.append("one\ntw");
    REQUIRE(a.size() == std::size_t(1));
    REQUIRE(a[0].text == std::string("one"));
    REQUIRE(a[0].part == LinePart::Whole);
    auto b = s.append("o\r\nthree\rfour\n\n");
    REQUIRE(texts(b) == (std::vector<std::string>{"two", "three", "four", ""}));
    s.append("tail");
    REQUIRE(s.finish().text == std::string("tail"));
    REQUIRE(s.finish().text == std::string());
}

// Pieces of an over-long line are marked; the last says how long the whole line was.
TEST_CASE("lineSplitterMarksPiecesOfRunawayLines") {
    LineSplitter s(8);
    auto lines = s.append("abcdefghijklmnopqr\nok\n");
    REQUIRE(texts(lines) == (std::vector<std::string>{"abcdefgh", "ijklmnop", "qr", "ok"}));
    REQUIRE((lines[0].part == LinePart::Piece && lines[1].part == LinePart::Piece));
    REQUIRE(lines[2].part == LinePart::Last);
    REQUIRE(lines[2].lineBytes == std::size_t(18));
    REQUIRE(lines[3].part == LinePart::Whole);
    s.append("0123456789");
    const SplitLine rest = s.finish();
    REQUIRE(rest.part == LinePart::Last);
    REQUIRE(rest.lineBytes == std::size_t(10));
}

// Wire protocol: every kind round-trips; malformed lines are errors, unknown kinds are ignored.
#include "engine/wire/codec.h"
#include "engine/wire/line_splitter.h"

#include <QtTest>

#include <cmath>
#include <limits>

using namespace studio::wire;

class TestWire : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void roundTripsEveryKind() {
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
        };
        for (const auto& p : payloads) {
            Event e{1732218900.25, 1, 3, p};
            const std::string line = encode(e);
            QVERIFY(line.find('\n') == std::string::npos);
            QVERIFY2(line.rfind("{\"v\":1,\"kind\":\"", 0) == 0, line.c_str());
            Decoded d = decode(line);
            QVERIFY2(d.error.empty(), d.error.c_str());
            QVERIFY(d.event.has_value());
            QCOMPARE(d.event->t, 1732218900.25);
            QCOMPARE(d.event->node, 1);
            QCOMPARE(d.event->rank, 3);
            QCOMPARE(d.event->payload.index(), p.index());
            QCOMPARE(encode(*d.event), line); // decode(encode(x)) == x, field for field
        }
    }

    void nonFiniteValuesTravelAsStrings() {
        for (double v : {std::numeric_limits<double>::quiet_NaN(), HUGE_VAL, -HUGE_VAL}) {
            const std::string line =
                encode(Event{1.0, 0, 0, MetricEvent{"loss", 1, v, Phase::Train}});
            Decoded d = decode(line);
            QVERIFY(d.event);
            const double back = d.event->as<MetricEvent>()->value;
            if (std::isnan(v))
                QVERIFY(std::isnan(back));
            else
                QCOMPARE(back, v);
        }
        // The time and a profile's start too: a bare NaN would be written as null, which no
        // longer decodes (found by tests/fuzz).
        for (const char* line :
             {R"({"v":1,"kind":"metric","t":"NaN","name":"x","step":1,"value":2})",
              R"({"v":1,"kind":"profile","t":1,"name":"a","category":"step","step":1,)"
              R"("start":"-Infinity","dur":1})"}) {
            Decoded d = decode(line);
            QVERIFY2(d.event, d.error.c_str());
            Decoded again = decode(encode(*d.event));
            QVERIFY2(again.event, again.error.c_str());
            QCOMPARE(encode(*again.event), encode(*d.event));
        }
    }

    void malformedLines_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("error");
        QTest::newRow("not json") << "loss=0.3"
                                  << "not a JSON object";
        QTest::newRow("truncated") << R"({"v":1,"kind":"metric","name":"x")"
                                   << "not a JSON object";
        QTest::newRow("array") << "[1,2,3]"
                               << "not a JSON object";
        QTest::newRow("string") << R"("hello")"
                                << "not a JSON object";
        QTest::newRow("no kind") << R"({"v":1,"name":"x"})"
                                 << "missing field \"kind\"";
        QTest::newRow("kind not string") << R"({"v":1,"kind":3})"
                                         << "field \"kind\" must be a string";
        QTest::newRow("version not int") << R"({"v":"1","kind":"log","text":"x"})"
                                         << "field \"v\"";
        QTest::newRow("metric no value") << R"({"v":1,"kind":"metric","name":"x","step":1})"
                                         << "missing field \"value\"";
        QTest::newRow("metric value text")
            << R"({"v":1,"kind":"metric","name":"x","step":1,"value":"high"})"
            << "field \"value\" must be a number";
        QTest::newRow("metric empty name")
            << R"({"v":1,"kind":"metric","name":"","step":1,"value":1})"
            << "must not be empty";
        QTest::newRow("step fractional")
            << R"({"v":1,"kind":"metric","name":"x","step":1.5,"value":1})"
            << "field \"step\" must be an integer";
        // Past int64 a cast would wrap or be undefined behaviour (found by tests/fuzz).
        QTest::newRow("step too large")
            << R"({"v":1,"kind":"metric","name":"x","step":1e19,"value":1})"
            << "field \"step\" is out of range";
        QTest::newRow("step too small")
            << R"({"v":1,"kind":"metric","name":"x","step":-1e19,"value":1})"
            << "field \"step\" is out of range";
        QTest::newRow("step past int64")
            << R"({"v":1,"kind":"metric","name":"x","step":9223372036854775808,"value":1})"
            << "field \"step\" is out of range";
        // node and rank are ints: a wider value is refused, not narrowed into another rank.
        QTest::newRow("rank past int")
            << R"({"v":1,"kind":"log","text":"x","node":0,"rank":4294967296})"
            << "field \"rank\" must be from -1 to 2147483647, got 4294967296";
        QTest::newRow("rank below launcher")
            << R"({"v":1,"kind":"log","text":"x","node":0,"rank":-2})"
            << "field \"rank\" must be from -1";
        QTest::newRow("node negative") << R"({"v":1,"kind":"log","text":"x","node":-1,"rank":0})"
                                       << "field \"node\" must be from 0";
        QTest::newRow("exit signal past int")
            << R"({"v":1,"kind":"exit","code":1,"signal":2147483648})"
            << "field \"signal\" must be from 0 to 2147483647";
        QTest::newRow("bad phase")
            << R"({"v":1,"kind":"metric","name":"x","step":1,"value":1,"phase":"test"})"
            << "field \"phase\"";
        QTest::newRow("log no text") << R"({"v":1,"kind":"log"})"
                                     << "missing field \"text\"";
        QTest::newRow("log bad stream") << R"({"v":1,"kind":"log","text":"x","stream":"tty"})"
                                        << "field \"stream\"";
        QTest::newRow("tensor reductions list")
            << R"({"v":1,"kind":"tensor","collection":"c","name":"n","step":1,"reductions":[1]})"
            << "field \"reductions\" must be an object";
        QTest::newRow("profile negative duration")
            << R"({"v":1,"kind":"profile","name":"conv1","category":"forward","step":1,"start":1,"dur":-2})"
            << "field \"dur\" must not be negative";
        QTest::newRow("profile no start")
            << R"({"v":1,"kind":"profile","name":"conv1","category":"forward","step":1,"dur":2})"
            << "missing field \"start\"";
        QTest::newRow("status pids strings")
            << R"({"v":1,"kind":"status","state":"s","pids":["a"]})"
            << "field \"pids\" must hold integers";
        QTest::newRow("exit no code") << R"({"v":1,"kind":"exit"})"
                                      << "missing field \"code\"";
        QTest::newRow("sys value null")
            << R"({"v":1,"kind":"sys","device":"cpu","metric":"util","value":null})"
            << "field \"value\" must be a number";
    }
    void malformedLines() {
        QFETCH(QString, line);
        QFETCH(QString, error);
        Decoded d = decode(line.toStdString());
        QVERIFY(!d.event);
        QVERIFY2(d.error.find(error.toStdString()) != std::string::npos, d.error.c_str());
        // The line survives as a log line.
        Event e = malformedAsLog(line.toStdString(), 5.0, 1, 2);
        QCOMPARE(e.as<LogEvent>()->text, line.toStdString());
        QCOMPARE(e.as<LogEvent>()->stream, Stream::Events);
    }

    void unknownKindsAndFieldsAreIgnored() {
        Decoded d = decode(R"({"v":2,"kind":"hologram","t":1})");
        QVERIFY(d.ignored());
        d = decode(
            R"({"v":1,"kind":"metric","name":"x","step":1,"value":2,"color":"red","v2":{}})");
        QVERIFY(d.event);
        QCOMPARE(d.event->as<MetricEvent>()->value, 2.0);
        QVERIFY(!d.hasTime);
        QVERIFY(!d.hasOrigin);
    }

    static std::vector<std::string> texts(const std::vector<SplitLine>& lines) {
        std::vector<std::string> out;
        for (const auto& l : lines)
            out.push_back(l.text);
        return out;
    }

    void lineSplitter() {
        LineSplitter s;
        auto a = s.append("one\ntw");
        QCOMPARE(a.size(), std::size_t(1));
        QCOMPARE(a[0].text, std::string("one"));
        QVERIFY(a[0].part == LinePart::Whole);
        auto b = s.append("o\r\nthree\rfour\n\n");
        QCOMPARE(texts(b), (std::vector<std::string>{"two", "three", "four", ""}));
        s.append("tail");
        QCOMPARE(s.finish().text, std::string("tail"));
        QCOMPARE(s.finish().text, std::string());
    }

    // Pieces of an over-long line are marked; the last says how long the whole line was.
    void lineSplitterMarksPiecesOfRunawayLines() {
        LineSplitter s(8);
        auto lines = s.append("abcdefghijklmnopqr\nok\n");
        QCOMPARE(texts(lines), (std::vector<std::string>{"abcdefgh", "ijklmnop", "qr", "ok"}));
        QVERIFY(lines[0].part == LinePart::Piece && lines[1].part == LinePart::Piece);
        QVERIFY(lines[2].part == LinePart::Last);
        QCOMPARE(lines[2].lineBytes, std::size_t(18));
        QVERIFY(lines[3].part == LinePart::Whole);
        s.append("0123456789");
        const SplitLine rest = s.finish();
        QVERIFY(rest.part == LinePart::Last);
        QCOMPARE(rest.lineBytes, std::size_t(10));
    }
};

QTEST_GUILESS_MAIN(TestWire)
#include "test_wire.moc"

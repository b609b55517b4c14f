// A runaway print in a notebook cell: 100,000 lines of stream output reach a cell's outputs in
// chunks of 1,000 lines (as ipykernel sends stdout when a loop prints faster than its 0.2 s
// flush), each chunk delivered as soon as the event loop has taken the last, in a notebook-sized
// window. A 10 ms precise timer measures the event loop's lateness meanwhile: how long the GUI
// could not answer. Goal: lateness p99 <= 50 ms, with nothing dropped (the output keeps every
// line, the view counts every line, the last line shows).
// Anchor (same window size, same chunks, rounds interleaved): a plain QPlainTextEdit taking each
// chunk with appendPlainText, Qt's own log view; it keeps every line on screen and does no ANSI
// colours or carriage returns, which the output view does.
//
// Usage: bench_stream_output [--quick] [--json FILE] [lines]   (quick: 10,000 lines, 1 round;
// full: 100,000 lines, 3 rounds)
#include "models/data/data_service.h"
#include "tests/bench/bench_support.h"
#include "widgets/notebook/output_area.h"
#include "widgets/notebook/text_output_view.h"

#include <QApplication>
#include <QEventLoop>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <functional>

using namespace studio;

namespace {

constexpr double kGoalMs = 50;
constexpr int kChunkLines = 1000;
constexpr int kProbeMs = 10;

QStringList makeChunks(int lines) {
    QStringList chunks;
    QString chunk;
    for (int i = 1; i <= lines; ++i) {
        chunk += QStringLiteral("epoch %1 step %2 loss %3 lr 0.001 throughput 1843.2 samples/s\n")
                     .arg(i / 1000 + 1)
                     .arg(i)
                     .arg(2.3 / (1 + i * 1e-3), 0, 'f', 4);
        if (i % kChunkLines == 0 || i == lines) {
            chunks.append(chunk);
            chunk.clear();
        }
    }
    return chunks;
}

double percentile(std::vector<double> v, double p) {
    if (v.empty())
        return NAN;
    std::sort(v.begin(), v.end());
    const auto k = static_cast<std::size_t>(std::ceil(p * static_cast<double>(v.size())));
    return v[std::clamp<std::size_t>(k, 1, v.size()) - 1];
}

struct Run {
    std::vector<double> lateness; // ms per probe tick
    double seconds = 0;           // first chunk to the last painted
};

// Delivers the chunks one per event-loop turn while the probe ticks; the window is painted
// after the last one.
Run feed(const QStringList& chunks, QWidget* window,
         const std::function<void(const QString&)>& deliver) {
    Run run;
    QEventLoop loop;
    QTimer probe;
    probe.setTimerType(Qt::PreciseTimer);
    probe.setInterval(kProbeMs);
    auto last = bench::Clock::now();
    QObject::connect(&probe, &QTimer::timeout, [&] {
        const auto now = bench::Clock::now();
        const double ms = std::chrono::duration<double, std::milli>(now - last).count();
        run.lateness.push_back(std::max(0.0, ms - kProbeMs));
        last = now;
    });
    qsizetype next = 0;
    std::function<void()> step = [&] {
        deliver(chunks.at(next++));
        if (next < chunks.size())
            QTimer::singleShot(0, step);
        else
            QTimer::singleShot(0, &loop, &QEventLoop::quit);
    };
    const auto start = bench::Clock::now();
    probe.start();
    last = bench::Clock::now();
    QTimer::singleShot(0, step);
    loop.exec();
    window->repaint();
    run.seconds = bench::secondsSince(start);
    probe.stop();
    return run;
}

QJsonObject streamOutput(const QString& text) {
    return {{QStringLiteral("output_type"), QStringLiteral("stream")},
            {QStringLiteral("name"), QStringLiteral("stdout")},
            {QStringLiteral("text"), text}};
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    const bench::Options options = bench::Options::parse(argc, argv);
    const int lines = options.pick(0, 10000, 100000);
    const int rounds = options.quick ? 1 : 3;
    bench::Report report("bench_stream_output", options);
    report.anchor({"QPlainTextEdit",
                   "Qt's plain log view: a QPlainTextEdit taking each chunk with appendPlainText; "
                   "every line stays on screen, no ANSI colours or carriage returns",
                   QT_VERSION_STR, 0, "none", "",
                   "the same chunks of 1,000 lines, one per event-loop turn, in a window of the "
                   "same size"});
    QTemporaryDir home;
    if (!report.check(home.isValid(), "a temporary home"))
        return report.finish();
    models::DataService service(home.filePath(QStringLiteral("studio.db")));
    const QStringList chunks = makeChunks(lines);
    const QString all = chunks.join(QString());

    std::vector<Run> ours, theirs;
    bool shown = true, kept = true, counted = true, lastShown = true, anchorCounted = true;
    bench::interleave(
        rounds, {[&](int) {
                     QScrollArea page;
                     page.setWidgetResizable(true);
                     auto* area = new widgets::OutputArea(&service);
                     page.setWidget(area);
                     page.resize(1000, 800);
                     page.show();
                     shown = QTest::qWaitForWindowExposed(&page) && shown;
                     ours.push_back(feed(chunks, &page, [area](const QString& c) {
                         area->append(streamOutput(c));
                     }));
                     const auto* view = qobject_cast<widgets::TextOutputView*>(area->viewAt(0));
                     kept = kept && area->count() == 1 &&
                            area->output(0).value(QStringLiteral("text")) == all;
                     counted = counted && view && view->lineCount() == lines;
                     lastShown = lastShown && view && view->shownText().endsWith(chunks.last());
                 },
                 [&](int) {
                     QPlainTextEdit edit;
                     edit.setReadOnly(true);
                     edit.resize(1000, 800);
                     edit.show();
                     shown = QTest::qWaitForWindowExposed(&edit) && shown;
                     theirs.push_back(feed(chunks, &edit, [&edit](const QString& c) {
                         edit.appendPlainText(c.chopped(1));
                     }));
                     anchorCounted = anchorCounted && edit.document()->blockCount() == lines;
                 }});
    report.check(shown, "the windows show");
    report.check(kept, "the output keeps every chunk, in order");
    report.check(counted, "the view counts every line");
    report.check(lastShown, "the last chunk is on screen");
    report.check(anchorCounted, "the anchor holds every line");

    std::vector<double> oursLate, theirsLate;
    bench::Samples oursTime = bench::lowerIsBetter(), theirsTime = bench::lowerIsBetter();
    for (const Run& r : ours) {
        oursLate.insert(oursLate.end(), r.lateness.begin(), r.lateness.end());
        oursTime.add(r.seconds * 1e3);
    }
    for (const Run& r : theirs) {
        theirsLate.insert(theirsLate.end(), r.lateness.begin(), r.lateness.end());
        theirsTime.add(r.seconds * 1e3);
    }
    const std::string per = std::to_string(lines) + " lines in chunks of " +
                            std::to_string(kChunkLines) + "; " + std::to_string(rounds) +
                            " rounds; lateness of a " + std::to_string(kProbeMs) +
                            " ms precise timer, all ticks of all rounds";
    report.figure({"event-loop lateness p99", "ms", percentile(oursLate, 0.99),
                   percentile(theirsLate, 0.99), "QPlainTextEdit",
                   bench::Goal::valueAtMost(kGoalMs), per});
    report.figure({"event-loop lateness max", "ms", percentile(oursLate, 1.0),
                   percentile(theirsLate, 1.0), "QPlainTextEdit", std::nullopt, per});
    report.figure({"all lines in and painted", "ms", oursTime.median(), theirsTime.median(),
                   "QPlainTextEdit", std::nullopt,
                   "median of " + std::to_string(rounds) + " rounds"});
    report.details()["lines"] = lines;
    report.details()["chunks"] = chunks.size();
    report.details()["ticks"] = oursLate.size();
    report.details()["anchor_ticks"] = theirsLate.size();
    report.details()["lateness_p50_ms"] = percentile(oursLate, 0.5);
    report.details()["anchor_lateness_p50_ms"] = percentile(theirsLate, 0.5);
    report.details()["total_ms"] = oursTime.json();
    report.details()["anchor_total_ms"] = theirsTime.json();
    report.details()["shown_lines_cap"] = widgets::TextOutputView::kMaxShownLines;
    return report.finish();
}

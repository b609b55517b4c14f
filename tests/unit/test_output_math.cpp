// The notebook outputs' math, table-driven: ANSI escape sequences into styled spans (every SGR
// form IPython and common libraries write, the sequences that are dropped, text cut anywhere
// between two chunks), the colour palette, carriage returns and backspaces applied to stream
// text as JupyterLab applies them (whole and chunk by chunk), streams joined into a cell's
// outputs, the choice of MIME type, image sizes from metadata, JSON indentation and the tuning
// card's summary and bars.
#include "models/notebook/ansi_text.h"
#include "models/notebook/notebook_document.h"
#include "models/notebook/output_mime.h"
#include "models/notebook/stream_text.h"
#include "models/notebook/tuning_summary.h"
#include "models/tuning/tuning_data.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QtTest>

#include <cmath>
#include <limits>

using namespace studio::models;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString colourName(const AnsiColor& c) {
    if (c.kind == AnsiColor::Kind::Indexed)
        return QString::number(c.index);
    return QStringLiteral("#%1").arg(c.rgb, 6, 16, QLatin1Char('0'));
}

// Spans as "(style)text": style is a comma list of fg:N, bg:N (or #rrggbb), b, i, u, inv.
QString describe(const QVector<AnsiSpan>& spans) {
    QString out;
    for (const AnsiSpan& s : spans) {
        QStringList style;
        if (s.style.foreground.kind != AnsiColor::Kind::Default)
            style << QStringLiteral("fg:") + colourName(s.style.foreground);
        if (s.style.background.kind != AnsiColor::Kind::Default)
            style << QStringLiteral("bg:") + colourName(s.style.background);
        if (s.style.bold)
            style << QStringLiteral("b");
        if (s.style.italic)
            style << QStringLiteral("i");
        if (s.style.underline)
            style << QStringLiteral("u");
        if (s.style.inverse)
            style << QStringLiteral("inv");
        out += QLatin1Char('(') + style.join(QLatin1Char(',')) + QLatin1Char(')') + s.text;
    }
    return out;
}

// Neighbouring spans of one style as one (what two feeds give apart, one feed gives joined).
QVector<AnsiSpan> joined(const QVector<AnsiSpan>& spans) {
    QVector<AnsiSpan> out;
    for (const AnsiSpan& s : spans) {
        if (!out.isEmpty() && out.last().style == s.style)
            out.last().text += s.text;
        else
            out.append(s);
    }
    return out;
}

QJsonObject stream(const QString& name, const QJsonValue& text) {
    return {{QStringLiteral("output_type"), QStringLiteral("stream")},
            {QStringLiteral("name"), name},
            {QStringLiteral("text"), text}};
}

// JSON written with ' for " (moc cannot read raw string literals).
QByteArray quoted(const char* text) {
    return QByteArray(text).replace('\'', '"');
}

QJsonObject json(const char* text) {
    return QJsonDocument::fromJson(quoted(text)).object();
}

// Text with '~' standing for ESC, so the rows read like the sequences they test.
QString esc(const char* text) {
    return QString::fromUtf8(text).replace(QLatin1Char('~'), QChar(0x1b));
}

QStringList strings(std::initializer_list<const char*> list) {
    QStringList out;
    for (const char* s : list)
        out.append(QString::fromUtf8(s));
    return out;
}

} // namespace

class TestOutputMath : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void ansiSpans_data() {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("expected");
        const auto row = [](const char* name, const char* in, const char* out) {
            QTest::newRow(name) << esc(in) << QString::fromUtf8(out);
        };
        row("plain", "abc", "()abc");
        row("red then reset", "~[31mred~[0m plain", "(fg:1)red() plain");
        row("bold green", "~[1;32mok", "(fg:2,b)ok");
        row("bright and default", "~[91mx~[39my", "(fg:9)x()y");
        row("background", "~[44mx~[49my", "(bg:4)x()y");
        row("bright background", "~[103mx", "(bg:11)x");
        row("256 colours", "~[38;5;208mx", "(fg:208)x");
        row("24-bit colour", "~[38;2;255;128;0mx", "(fg:#ff8000)x");
        row("24-bit background", "~[48;2;1;2;3mx", "(bg:#010203)x");
        row("empty parameters reset", "~[31mx~[my", "(fg:1)x()y");
        row("ipython traceback", "~[0;31mZeroDivisionError~[0m: division by zero",
            "(fg:1)ZeroDivisionError(): division by zero");
        row("bold off", "~[1mB~[22mn", "(b)B()n");
        row("attributes", "~[3;4;7mx~[23;24;27my", "(i,u,inv)x()y");
        row("other CSI dropped", "a~[2Kb~[1Ac", "()abc");
        row("private sequence", "~[?25lx", "()x");
        row("OSC hyperlink", "~]8;;http://x~\\link~]8;;~\\", "()link");
        row("OSC title", "~]0;title\x07text", "()text");
        row("charset designation", "~(Bx", "()x");
        row("controls dropped",
            "a\x07"
            "b\x01"
            "c\td\n",
            "()abc\td\n");
        row("broken CSI", "~[31\nx", "()\nx");
        row("colour without numbers", "~[38;5mx", "()x");
        row("index out of range", "~[38;5;300mx", "()x");
        row("codes after a colour", "~[38;5;1;1mx", "(fg:1,b)x");
    }
    void ansiSpans() {
        QFETCH(QString, input);
        QFETCH(QString, expected);
        AnsiParser parser;
        QCOMPARE(describe(parser.feed(input)), expected);
    }

    // A colour set in one chunk holds in the next, and a sequence cut anywhere is read whole.
    void ansiAcrossChunks() {
        const QString text = esc("~[0;31m---~[0m\n~[0;32mFile ~[38;2;10;20;30mx.py"
                                 "~]8;;http://a~\\link~]8;;~\\ ~[1mend");
        AnsiParser whole;
        const QString expected = describe(whole.feed(text));
        for (qsizetype cut = 0; cut <= text.size(); ++cut) {
            AnsiParser parser;
            QVector<AnsiSpan> spans = parser.feed(QStringView(text).left(cut));
            spans += parser.feed(QStringView(text).mid(cut));
            QCOMPARE(describe(joined(spans)), expected);
        }
        AnsiParser parser;
        parser.feed(esc("~[1;34m"));
        QCOMPARE(describe(parser.feed(QStringLiteral("x"))), QStringLiteral("(fg:4,b)x"));
        parser.reset();
        QCOMPARE(describe(parser.feed(QStringLiteral("x"))), QStringLiteral("()x"));
    }

    void stripping() {
        QCOMPARE(stripAnsi(esc("~[0;31mA~[0m\x07"
                               "B")),
                 QStringLiteral("AB"));
        QCOMPARE(stripAnsi(QStringLiteral("tab\there\n")), QStringLiteral("tab\there\n"));
    }

    void palette_data() {
        QTest::addColumn<int>("index");
        QTest::addColumn<bool>("dark");
        QTest::addColumn<uint>("rgb");
        QTest::newRow("red") << 1 << false << 0xe75c58u;
        QTest::newRow("bright red") << 9 << false << 0xb22b31u;
        QTest::newRow("dark red") << 1 << true << 0xff7b72u;
        QTest::newRow("cube black") << 16 << false << 0x000000u;
        QTest::newRow("cube blue") << 21 << false << 0x0000ffu;
        QTest::newRow("cube red") << 196 << false << 0xff0000u;
        QTest::newRow("cube orange") << 208 << false << 0xff8700u;
        QTest::newRow("cube white") << 231 << false << 0xffffffu;
        QTest::newRow("grey first") << 232 << false << 0x080808u;
        QTest::newRow("grey last") << 255 << false << 0xeeeeeeu;
        QTest::newRow("out of range") << 256 << false << 0xc5c1b4u;
    }
    void palette() {
        QFETCH(int, index);
        QFETCH(bool, dark);
        QFETCH(uint, rgb);
        QCOMPARE(ansiIndexedRgb(index, dark), quint32(rgb));
    }

    void paint() {
        constexpr quint32 fg = 0x111111, bg = 0xfefefe;
        AnsiStyle bold;
        bold.bold = true;
        bold.foreground = AnsiColor::indexed(1);
        QCOMPARE(ansiPaint(bold, false, fg, bg).foreground.value(), ansiIndexedRgb(9, false));
        bold.foreground = AnsiColor::indexed(100); // only 0-7 brighten
        QCOMPARE(ansiPaint(bold, false, fg, bg).foreground.value(), ansiIndexedRgb(100, false));
        AnsiStyle inverse;
        inverse.inverse = true;
        AnsiPaint p = ansiPaint(inverse, false, fg, bg);
        QCOMPARE(p.foreground.value(), bg);
        QCOMPARE(p.background.value(), fg);
        inverse.foreground = AnsiColor::fromRgb(0x123456);
        p = ansiPaint(inverse, false, fg, bg);
        QCOMPARE(p.foreground.value(), bg);
        QCOMPARE(p.background.value(), quint32(0x123456));
        const AnsiPaint plain = ansiPaint(AnsiStyle{}, true, fg, bg);
        QVERIFY(!plain.foreground && !plain.background);
    }

    void resolve_data() {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("expected");
        const auto row = [](const char* name, const char* in, const char* out) {
            QTest::newRow(name) << QString::fromUtf8(in) << QString::fromUtf8(out);
        };
        row("plain", "a\nb\n", "a\nb\n");
        row("empty", "", "");
        row("progress", "0%\r50%\r100%\n", "100%\n");
        row("shorter keeps the tail", "abcdef\rXY", "XYcdef");
        row("crlf", "a\r\nb", "a\nb");
        row("final cr stays", "50%\r", "50%\r");
        row("two final crs", "50%\r\r", "50%\r");
        row("backspaces", "abc\b\bX", "aX");
        row("backspace at a line start", "a\n\bb", "a\nb");
        row("backspaces stop at a newline", "a\n\b\bb", "a\nb");
        row("backspace before cr", "abc\rX\b", "abc\r");
        row("cr per line", "l1\rL1\nl2\rL2\n", "L1\nL2\n");
        row("surrogate pair", "a\xf0\x9f\x98\x80\bb", "ab");
        // tqdm's bar (with '=' for its '#', which moc misreads inside a string).
        row("tqdm", " 10%|=         | 1/10\r 20%|==        | 2/10\r100%|==========| 10/10\n",
            "100%|==========| 10/10\n");
    }
    void resolve() {
        QFETCH(QString, input);
        QFETCH(QString, expected);
        QCOMPARE(resolveOverwrites(input), expected);
        QCOMPARE(resolveOverwrites(expected), expected); // resolving again changes nothing
    }

    void appendChunks_data() {
        QTest::addColumn<QStringList>("chunks");
        QTest::addColumn<QString>("expected");
        const auto row = [](const char* name, std::initializer_list<const char*> chunks,
                            const char* out) {
            QTest::newRow(name) << strings(chunks) << QString::fromUtf8(out);
        };
        row("progress over chunks", {"50%\r", "60%\r", "done\n"}, "done\n");
        row("backspace in the next chunk", {"abc", "\b\bX"}, "aX");
        row("lines and a bar", {"line1\nprog 1\r", "prog 2\r", "prog 3\n", "next"},
            "line1\nprog 3\nnext");
        row("cr then newline apart", {"a\r", "\n", "b"}, "a\nb");
        row("backspace after a newline", {"x\n", "\by"}, "x\ny");
        row("overwrite across chunks", {"ab\r", "c"}, "cb");
        row("plain chunks", {"a", "b\n", "c"}, "ab\nc");
    }
    void appendChunks() {
        QFETCH(QStringList, chunks);
        QFETCH(QString, expected);
        QString text;
        for (const QString& chunk : chunks) {
            const QString before = text;
            const qsizetype from = appendResolved(text, chunk);
            QCOMPARE(from, before.lastIndexOf(u'\n') + 1);
            QCOMPARE(text.left(from), before.left(from)); // nothing before the last line moved
        }
        QCOMPARE(text, expected);
        QCOMPARE(resolveOverwrites(chunks.join(QString())), expected);
    }

    void joiningOutputs() {
        QJsonArray outputs;
        QCOMPARE(appendOutputTo(outputs, stream(QStringLiteral("stdout"), QStringLiteral("a\n"))),
                 0);
        QCOMPARE(appendOutputTo(outputs, stream(QStringLiteral("stdout"), QStringLiteral("b\r"))),
                 0);
        QCOMPARE(
            appendOutputTo(outputs, stream(QStringLiteral("stdout"),
                                           QJsonArray{QStringLiteral("c\n"), QStringLiteral("d")})),
            0);
        QCOMPARE(appendOutputTo(outputs, stream(QStringLiteral("stderr"), QStringLiteral("e"))), 1);
        QCOMPARE(appendOutputTo(outputs, stream(QStringLiteral("stdout"), QStringLiteral("p\rq"))),
                 2);
        const QJsonObject display{{QStringLiteral("output_type"), QStringLiteral("display_data")},
                                  {QStringLiteral("data"), QJsonObject{}}};
        QCOMPARE(appendOutputTo(outputs, display), 3);
        QCOMPARE(appendOutputTo(outputs, stream(QStringLiteral("stdout"), QStringLiteral("z"))), 4);
        QCOMPARE(outputs.size(), 5);
        QCOMPARE(outputs.at(0).toObject().value(QStringLiteral("text")).toString(),
                 QStringLiteral("a\nc\nd"));
        QCOMPARE(outputs.at(2).toObject().value(QStringLiteral("text")).toString(),
                 QStringLiteral("q"));
        QCOMPARE(outputs.at(3).toObject(), display);
        QVERIFY(!joinsStream(stream(QStringLiteral("stdout"), QString()), display));
    }

    void chooseMime_data() {
        QTest::addColumn<QByteArray>("output");
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("mime");
        const auto row = [](const char* name, const char* data, OutputKind kind, const char* mime) {
            QTest::newRow(name) << (quoted("{'output_type': 'display_data', 'data': ") +
                                    quoted(data) + "}")
                                << int(kind) << QString::fromLatin1(mime);
        };
        row("plain", "{'text/plain': 'x'}", OutputKind::Text, "text/plain");
        row("html over plain", "{'text/plain': 'x', 'text/html': '<b>x</b>'}", OutputKind::Html,
            "text/html");
        row("png over plain", "{'image/png': 'iVBO', 'text/plain': '<Figure>'}", OutputKind::Image,
            "image/png");
        row("png over svg", "{'image/svg+xml': '<svg/>', 'image/png': 'iVBO'}", OutputKind::Image,
            "image/png");
        row("svg", "{'image/svg+xml': '<svg/>', 'text/plain': 'f'}", OutputKind::Svg,
            "image/svg+xml");
        row("jpeg", "{'image/jpeg': '/9j/', 'text/html': 'x'}", OutputKind::Image, "image/jpeg");
        row("markdown", "{'text/markdown': '# x', 'text/plain': 'x'}", OutputKind::Markdown,
            "text/markdown");
        row("json", "{'application/json': {'a': 1}, 'text/plain': 'x'}", OutputKind::Json,
            "application/json");
        row("latex with plain", "{'text/latex': '$x$', 'text/plain': 'x'}", OutputKind::Text,
            "text/plain");
        row("latex alone", "{'text/latex': '$x$'}", OutputKind::Text, "text/latex");
        row("job card",
            "{'application/vnd.mlstudio.job.v1+json': {'job': 'j'},"
            "            'text/html': '<b>j</b>', 'text/plain': 'j'}",
            OutputKind::JobCard, kJobMimeType);
        row("job card without a job",
            "{'application/vnd.mlstudio.job.v1+json': {},"
            "            'text/plain': 'j'}",
            OutputKind::Text, "text/plain");
        row("tuning card",
            "{'application/vnd.mlstudio.tuning.v1+json': {'tuning': 't'},"
            "            'image/png': 'iVBO', 'text/html': 't'}",
            OutputKind::TuningCard, kTuningMimeType);
        row("widget only", "{'application/vnd.jupyter.widget-view+json': {'model_id': '1'}}",
            OutputKind::Empty, "");
        row("no data", "{}", OutputKind::Empty, "");
        QTest::newRow("stream") << quoted("{'output_type': 'stream', 'name': 'stdout'}")
                                << int(OutputKind::Stream) << QString();
        QTest::newRow("error") << quoted("{'output_type': 'error', 'ename': 'E'}")
                               << int(OutputKind::Error) << QString();
    }
    void chooseMime() {
        QFETCH(QByteArray, output);
        QFETCH(int, kind);
        QFETCH(QString, mime);
        const QJsonObject o = QJsonDocument::fromJson(output).object();
        QVERIFY(!o.isEmpty());
        const OutputChoice choice = chooseOutput(o);
        QCOMPARE(int(choice.kind), kind);
        QCOMPARE(choice.mimeType, mime);
    }

    void cardNames() {
        const QJsonObject job =
            json("{'output_type': 'display_data', 'data':"
                 "            {'application/vnd.mlstudio.job.v1+json': {'job': 'fmnist-1'}}}");
        QCOMPARE(jobOfOutput(job), QStringLiteral("fmnist-1"));
        QCOMPARE(tuningOfOutput(job), QString());
        const QJsonObject tuning =
            json("{'output_type': 'display_data', 'data':"
                 "            {'application/vnd.mlstudio.tuning.v1+json': {'tuning': 'hpo'}}}");
        QCOMPARE(tuningOfOutput(tuning), QStringLiteral("hpo"));
        QCOMPARE(
            mimeText(json("{'data': {'text/plain': ['a\\n', 'b']}}"), QStringLiteral("text/plain")),
            QStringLiteral("a\nb"));
    }

    void imageSizes_data() {
        QTest::addColumn<QSize>("pixels");
        QTest::addColumn<QSize>("metadata");
        QTest::addColumn<QSize>("shown");
        QTest::newRow("own size") << QSize(640, 480) << QSize() << QSize(640, 480);
        QTest::newRow("retina width") << QSize(1280, 960) << QSize(640, 0) << QSize(640, 480);
        QTest::newRow("height only") << QSize(100, 50) << QSize(0, 100) << QSize(200, 100);
        QTest::newRow("both") << QSize(100, 50) << QSize(30, 40) << QSize(30, 40);
        QTest::newRow("no pixels") << QSize() << QSize(30, 40) << QSize(30, 40);
    }
    void imageSizes() {
        QFETCH(QSize, pixels);
        QFETCH(QSize, metadata);
        QFETCH(QSize, shown);
        const QSize m(std::max(metadata.width(), 0), std::max(metadata.height(), 0));
        QCOMPARE(displayedImageSize(pixels, m), shown);
    }

    void imageMetadata() {
        const QString png = QStringLiteral("image/png");
        QCOMPARE(imageMetadataSize(json("{'metadata': {'image/png': {'width': 320.4,"
                                        "                     'height': 240}}}"),
                                   png),
                 QSize(320, 240));
        QCOMPARE(imageMetadataSize(json("{'metadata': {'width': '300'}}"), png), QSize(300, 0));
        QCOMPARE(imageMetadataSize(json("{'metadata': {'image/png': {'width': -5}}}"), png),
                 QSize(0, 0));
        QCOMPARE(imageMetadataSize(json("{}"), png), QSize(0, 0));
        QCOMPARE(neededBackground(json("{'metadata': {'needs_background': 'light'}}")),
                 QStringLiteral("light"));
        QCOMPARE(neededBackground(json("{'metadata': {'needs_background': 3}}")), QString());
    }

    void jsonText() {
        const QJsonObject value = json("{'b': [1, 2.5], 'a': {'c': 'x\\'y'}, 'e': {}, 'f': [],"
                                       "            'n': null, 't': true}");
        QCOMPARE(prettyJson(value), QStringLiteral("{\n"
                                                   "  \"a\": {\n"
                                                   "    \"c\": \"x\\\"y\"\n"
                                                   "  },\n"
                                                   "  \"b\": [\n"
                                                   "    1,\n"
                                                   "    2.5\n"
                                                   "  ],\n"
                                                   "  \"e\": {},\n"
                                                   "  \"f\": [],\n"
                                                   "  \"n\": null,\n"
                                                   "  \"t\": true\n"
                                                   "}"));
        QCOMPARE(prettyJson(QJsonValue(QStringLiteral("s"))), QStringLiteral("\"s\""));
    }

    void tuningFromPayload() {
        const TuningCardSummary s = TuningCardSummary::fromPayload(
            json("{'tuning': 'hpo',"
                 "            'status': 'InProgress', 'max_jobs': 6, 'best_job': 'hpo-2', "
                 "'best_objective': 0.91,"
                 "            'objective': {'name': 'eval:accuracy', 'type': 'Maximize'},"
                 "            'jobs': [{'job': 'hpo-1', 'objective': 0.8, 'status': 'Completed'},"
                 "                     {'job': 'hpo-2', 'objective': 0.91, 'status': 'Completed'},"
                 "                     {'job': 'hpo-3', 'objective': 0.5, 'status': 'Stopped', "
                 "'stopped_early': true},"
                 "                     {'job': 'hpo-4', 'status': 'Failed'},"
                 "                     {'job': 'hpo-5', 'status': 'InProgress'}]}"));
        QCOMPARE(s.tuning, QStringLiteral("hpo"));
        QCOMPARE(s.objectiveName, QStringLiteral("eval:accuracy"));
        QVERIFY(s.maximize);
        QCOMPARE(s.maxJobs, 6);
        QCOMPARE(s.done, 4);
        QCOMPARE(s.inProgress, 1);
        QCOMPARE(s.stoppedEarly, 1);
        QCOMPARE(s.failed, 1);
        QCOMPARE(s.bestObjective.value(), 0.91);
        QCOMPARE(s.jobs.size(), 5);
        QVERIFY(std::isnan(s.jobs.at(3).objective));
        QVERIFY(!s.ended());
        QCOMPARE(s.progressText(),
                 QStringLiteral("4/6 training jobs done (1 running), 1 stopped early, 1 failed"));

        // The older form: the objective's name with objective_type beside it; counts given.
        const TuningCardSummary old = TuningCardSummary::fromPayload(json(
            "{'tuning': 't', 'status': 'Completed', 'objective': 'loss',"
            "            'objective_type': 'Minimize', 'max_jobs': 2, 'done': 2, 'jobs': []}"));
        QCOMPARE(old.objectiveName, QStringLiteral("loss"));
        QVERIFY(!old.maximize);
        QCOMPARE(old.done, 2);
        QVERIFY(old.ended());
        QVERIFY(!old.bestObjective);
        QVERIFY(!TuningCardSummary{}.ended()); // not started
    }

    void tuningFromStore() {
        TuningJobData data;
        data.job.name = "hpo";
        data.job.status = "Completed";
        data.job.statusMessage = "max_jobs reached";
        data.job.objectiveName = "loss";
        data.job.objectiveType = "Minimize";
        data.job.maxJobs = 3;
        data.job.counters.completed = 2;
        data.job.counters.failed = 1;
        data.job.bestJob = "hpo-2";
        data.job.bestObjective = 0.2;
        for (int i = 0; i < 3; ++i) {
            TuningTrial t;
            t.ordinal = i;
            t.job = QStringLiteral("hpo-%1").arg(i + 1);
            t.objective = i == 2 ? kNaN : 0.4 - 0.2 * i;
            t.state = i == 2 ? QStringLiteral("Failed") : QStringLiteral("Completed");
            data.trials.push_back(t);
        }
        const TuningCardSummary s = TuningCardSummary::fromData(data);
        QCOMPARE(s.tuning, QStringLiteral("hpo"));
        QVERIFY(!s.maximize);
        QCOMPARE(s.done, 3);
        QCOMPARE(s.failed, 1);
        QCOMPARE(s.bestJob, QStringLiteral("hpo-2"));
        QCOMPARE(s.jobs.at(2).status, QStringLiteral("Failed")); // the state when no status
        QVERIFY(s.ended());
        QCOMPARE(s.objectives().size(), 3);
    }

    void bars_data() {
        QTest::addColumn<QVector<double>>("objectives");
        QTest::addColumn<QVector<QRectF>>("bars");
        QTest::newRow("three") << QVector<double>{1, 2, 3}
                               << QVector<QRectF>{QRectF(1, 85, 8, 15), QRectF(11, 42.5, 8, 57.5),
                                                  QRectF(21, 0, 8, 100)};
        QTest::newRow("equal") << QVector<double>{5, 5}
                               << QVector<QRectF>{QRectF(1.5, 0, 12, 100),
                                                  QRectF(16.5, 0, 12, 100)};
        QTest::newRow("missing") << QVector<double>{kNaN, 2}
                                 << QVector<QRectF>{QRectF(1.5, 100, 12, 0),
                                                    QRectF(16.5, 0, 12, 100)};
        QTest::newRow("none") << QVector<double>{} << QVector<QRectF>{};
    }
    void bars() {
        QFETCH(QVector<double>, objectives);
        QFETCH(QVector<QRectF>, bars);
        const QVector<QRectF> got = objectiveBars(objectives, QRectF(0, 0, 30, 100));
        QCOMPARE(got.size(), bars.size());
        for (qsizetype i = 0; i < got.size(); ++i) {
            QVERIFY2(std::abs(got[i].left() - bars[i].left()) < 1e-9 &&
                         std::abs(got[i].top() - bars[i].top()) < 1e-9 &&
                         std::abs(got[i].width() - bars[i].width()) < 1e-9 &&
                         std::abs(got[i].height() - bars[i].height()) < 1e-9,
                     qPrintable(QStringLiteral("bar %1").arg(i)));
        }
        // Many jobs in a narrow strip: no gaps, still inside.
        const QVector<QRectF> many =
            objectiveBars(QVector<double>(200, 1.0), QRectF(0, 0, 100, 10));
        QCOMPARE(many.size(), 200);
        QCOMPARE(many.last().right(), 100.0);
    }
};

QTEST_GUILESS_MAIN(TestOutputMath)
#include "test_output_math.moc"

// Opening a long notebook: 200 cells (markdown and code, the code cells' outputs stream text,
// results and 50 matplotlib figures as PNG, made once by Debian's python3 with
// tests/gui/notebook_outputs.py) opened in the notebook editor (NotebookEditor::openFile: the
// file read and parsed, the cell widgets and their output views built) up to its first paint in
// a notebook-sized window. Goal: <= 300 ms (median).
// Anchor (same file, rounds interleaved): reading the file and parsing it with QJsonDocument
// only, the floor any viewer of the file pays.
//
// Usage: bench_notebook_open [--quick] [--json FILE] [cells]   (quick: 1 round; full: 7 rounds;
// 200 cells either way)
#include "models/data/data_service.h"
#include "models/notebook/notebook_document.h"
#include "tests/bench/bench_support.h"
#include "widgets/notebook/image_output_view.h"
#include "widgets/notebook/notebook_editor.h"

#include <QApplication>
#include <QFile>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using namespace studio;

namespace {

constexpr double kGoalMs = 300;
constexpr int kFigureEvery = 4; // every 4th cell a figure: 50 in 200

QJsonObject output(const char* type, const QJsonObject& fields) {
    QJsonObject o = fields;
    o.insert(QStringLiteral("output_type"), QString::fromLatin1(type));
    return o;
}

// A notebook of `cells` cells: a code cell with a figure every 4th cell, markdown for most 5th
// ones, otherwise a code cell with a few lines of training log and a result.
models::NotebookDocument makeNotebook(int cells, const QString& png) {
    // The metadata a new notebook has (the Python kernel); the cells are the bench's own.
    models::NotebookDocument doc = models::NotebookDocument::create();
    doc.cells.clear();
    for (int i = 0; i < cells; ++i) {
        models::NotebookCell c;
        c.id = QStringLiteral("c%1").arg(i, 4, 10, QLatin1Char('0'));
        if (i % kFigureEvery != 0 && i % 5 == 1) {
            c.type = models::CellType::Markdown;
            c.source = QStringLiteral("## Step %1\n\nTrain, then *look* at the loss.").arg(i);
            doc.cells.append(c);
            continue;
        }
        c.executionCount = i + 1;
        if (i % kFigureEvery == 0) {
            c.source = QStringLiteral("plt.plot(history['step'], history['loss'])");
            c.outputs.append(
                output("display_data",
                       {{QStringLiteral("data"),
                         QJsonObject{{QStringLiteral("image/png"), png},
                                     {QStringLiteral("text/plain"),
                                      QStringLiteral("<Figure size 640x320 with 1 Axes>")}}},
                        {QStringLiteral("metadata"), QJsonObject{}}}));
        } else {
            c.source = QStringLiteral("for epoch in range(3):\n    print(train(epoch))\nscore");
            QString log;
            for (int e = 0; e < 3; ++e)
                log += QStringLiteral("epoch %1 loss %2\n").arg(e).arg(1.0 / (e + i + 1));
            c.outputs.append(output("stream", {{QStringLiteral("name"), QStringLiteral("stdout")},
                                               {QStringLiteral("text"), log}}));
            c.outputs.append(
                output("execute_result",
                       {{QStringLiteral("data"),
                         QJsonObject{{QStringLiteral("text/plain"), QString::number(0.9 + i)}}},
                        {QStringLiteral("metadata"), QJsonObject{}},
                        {QStringLiteral("execution_count"), i + 1}}));
        }
        doc.cells.append(c);
    }
    return doc;
}

// A matplotlib figure as base64 PNG; empty when Python could not make one.
QString figurePng(QString* error) {
    QProcess python;
    python.start(QStringLiteral(STUDIO_SYSTEM_PYTHON), {QStringLiteral(STUDIO_NOTEBOOK_OUTPUTS)});
    if (!python.waitForFinished(120000) || python.exitCode() != 0) {
        *error = QString::fromUtf8(python.readAllStandardError());
        return {};
    }
    return QJsonDocument::fromJson(python.readAllStandardOutput())
        .object()
        .value(QStringLiteral("png"))
        .toString();
}

} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    const bench::Options options = bench::Options::parse(argc, argv);
    const int cells = options.pick(0, 200, 200);
    const int rounds = options.quick ? 1 : 7;
    bench::Report report("bench_notebook_open", options);
    report.anchor({"QJsonDocument",
                   "reading the .ipynb and parsing it with QJsonDocument::fromJson", QT_VERSION_STR,
                   0, "none", "", "the same file from the page cache"});
    QTemporaryDir home;
    if (!report.check(home.isValid(), "a temporary home"))
        return report.finish();
    QString error;
    const QString png = figurePng(&error);
    if (!report.check(!png.isEmpty(), "matplotlib made a figure" +
                                          (error.isEmpty() ? "" : ": " + error.toStdString())))
        return report.finish();
    const QString path = home.filePath(QStringLiteral("long.ipynb"));
    makeNotebook(cells, png).save(path);
    const int figures = (cells + kFigureEvery - 1) / kFigureEvery;
    models::DataService service(home.filePath(QStringLiteral("studio.db")));

    bench::Samples ours = bench::lowerIsBetter(), theirs = bench::lowerIsBetter();
    bench::Samples built = bench::lowerIsBetter(); // openFile alone: parsed, widgets made
    bool shown = true, opened = true, allCells = true, allFigures = true, parsed = true;
    bench::interleave(rounds,
                      {[&](int) {
                           widgets::NotebookEditor editor(&service);
                           editor.resize(1200, 900);
                           editor.show();
                           shown = QTest::qWaitForWindowExposed(&editor) && shown;
                           const auto start = bench::Clock::now();
                           opened = editor.openFile(path) && opened;
                           built.add(bench::secondsSince(start) * 1e3);
                           QCoreApplication::sendPostedEvents(); // layouts
                           editor.repaint();
                           ours.add(bench::secondsSince(start) * 1e3);
                           allCells = allCells && editor.cellCount() == cells;
                           allFigures =
                               allFigures &&
                               editor.findChildren<widgets::ImageOutputView*>().size() == figures;
                       },
                       [&](int) {
                           const auto start = bench::Clock::now();
                           QFile f(path);
                           parsed = f.open(QIODevice::ReadOnly) &&
                                    QJsonDocument::fromJson(f.readAll()).isObject() && parsed;
                           theirs.add(bench::secondsSince(start) * 1e3);
                       }});
    report.check(shown, "the editor shows");
    report.check(opened, "the editor opens the notebook");
    report.check(allCells, "every cell is in the editor");
    report.check(allFigures, "every figure has its image view");
    report.check(parsed, "the anchor parses the file");
    report.figure({"open " + std::to_string(cells) + " cells with " + std::to_string(figures) +
                       " figures, to first paint",
                   "ms", ours.median(), theirs.median(), "QJsonDocument",
                   bench::Goal::valueAtMost(kGoalMs),
                   "median of " + std::to_string(rounds) + " rounds"});
    report.details()["file_bytes"] = QFileInfo(path).size();
    report.details()["open_ms"] = ours.json();
    report.details()["open_file_ms"] = built.json();
    report.details()["anchor_parse_ms"] = theirs.json();
    return report.finish();
}

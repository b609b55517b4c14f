// The example notebooks end to end on a real Jupyter kernel (Debian's ipykernel) and the
// `mlstudio` Python SDK: each example in resources/notebooks run by `mlstudio nbrun` and again by
// Jupyter's own nbclient (it runs outside the studio, and the studio opens nbclient's file byte
// for byte as it was written), with the outputs a reader expects (the live job or tuning card in
// its final state, a pandas table, a matplotlib figure) and the files valid for nbformat. Then
// nbrun's own cases: bad files refused untouched, a failing cell stopping the run, --allow-errors
// going on, --timeout interrupting a sleeping cell.
#include "models/notebook/notebook_document.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>
#include <functional>

using studio::models::CellType;
using studio::models::NotebookDocument;

namespace {

const QString kNotebooks = QStringLiteral(STUDIO_SOURCE_DIR "/resources/notebooks/");

// What running an example must leave in its outputs.
struct Expected {
    const char* file;
    const char* cardMime;   // the live card the notebook shows
    const char* cardStatus; // the card's final status
    bool figure;            // an image/png output (matplotlib)
    bool table;             // a text/html pandas DataFrame
    QStringList texts;      // printed somewhere in the outputs
};

const Expected kExamples[] = {
    {"data-parallel-fashion-mnist.ipynb",
     studio::models::kJobMimeType,
     "Completed",
     true,
     true,
     {QStringLiteral("[0,1]<stdout>:"), QStringLiteral("Training seconds: "),
      QStringLiteral("instances: 1"), QStringLiteral("final accuracy")}},
    {"pipeline-model-parallel.ipynb",
     studio::models::kJobMimeType,
     "Completed",
     true,
     true,
     {QStringLiteral("pipeline:busy_fraction"), QStringLiteral("backward_ms"),
      QStringLiteral("first loss")}},
    {"spot-training.ipynb",
     studio::models::kJobMimeType,
     "Completed",
     true,
     true,
     {QStringLiteral("Interrupted"), QStringLiteral("resuming from the checkpoint"),
      QStringLiteral("Managed Spot Training savings: "), QStringLiteral("interruptions: 1\n")}},
    {"debugger-rules.ipynb",
     studio::models::kJobMimeType,
     "Stopped",
     true,
     true,
     {QStringLiteral("Stopped by rule"), QStringLiteral("IssuesFound"),
      QStringLiteral("LossNotDecreasing")}},
    {"experiments-comparison.ipynb",
     studio::models::kJobMimeType,
     "Completed",
     true,
     true,
     {QStringLiteral("mlp-learning-rates-preprocessing"), QStringLiteral("best learning rate: "),
      QStringLiteral("'lr-0-5', 'preprocessing']")}},
    {"hyperparameter-tuning.ipynb",
     studio::models::kTuningMimeType,
     "Completed",
     true,
     true,
     {QStringLiteral("best eval:accuracy = "), QStringLiteral("FinalObjectiveValue")}},
};

struct Ran {
    int code = -1; // -1: did not start, crashed or was killed at the timeout
    QString out;
    QString err;
    qint64 ms = 0;
};

QJsonObject dataOf(const QJsonValue& output) {
    return output.toObject().value(QStringLiteral("data")).toObject();
}

// The outputs of every code cell, in order, into outputs; what is wrong ("" for nothing): an
// error output, a cell that did not run once, in order.
QString codeOutputs(const NotebookDocument& doc, QJsonArray& outputs) {
    int expected = 1;
    for (const auto& cell : doc.cells) {
        if (cell.type != CellType::Code)
            continue;
        if (cell.executionCount.value_or(-1) != expected++)
            return QStringLiteral("cell %1 ran as %2")
                .arg(cell.id)
                .arg(cell.executionCount.value_or(-1));
        for (const QJsonValue& o : cell.outputs) {
            const QJsonObject out = o.toObject();
            if (out.value(QStringLiteral("output_type")).toString() == QStringLiteral("error"))
                return cell.id + QStringLiteral(": ") +
                       out.value(QStringLiteral("ename")).toString() + QStringLiteral(": ") +
                       out.value(QStringLiteral("evalue")).toString();
            outputs.append(o);
        }
    }
    return {};
}

// Stream text, text/plain and text/html of the outputs, joined.
QString outputText(const QJsonArray& outputs) {
    QString text;
    for (const QJsonValue& o : outputs) {
        text += studio::models::joinedText(o.toObject().value(QStringLiteral("text")));
        text += studio::models::joinedText(dataOf(o).value(QStringLiteral("text/plain")));
        text += studio::models::joinedText(dataOf(o).value(QStringLiteral("text/html")));
    }
    return text;
}

// The last output carrying mime, its whole MIME bundle.
QJsonObject lastBundleWith(const QJsonArray& outputs, const QString& mime) {
    QJsonObject found;
    for (const QJsonValue& o : outputs)
        if (dataOf(o).contains(mime))
            found = dataOf(o);
    return found;
}

bool anyOutput(const QJsonArray& outputs, const std::function<bool(const QJsonObject&)>& test) {
    return std::any_of(outputs.begin(), outputs.end(),
                       [&](const QJsonValue& o) { return test(dataOf(o)); });
}

// Where two byte arrays first differ, with a line of each around it.
QString firstDifference(const QByteArray& a, const QByteArray& b) {
    qsizetype i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i])
        ++i;
    const auto around = [i](const QByteArray& s) {
        const qsizetype from = std::max<qsizetype>(0, s.lastIndexOf('\n', i - 1));
        return QString::fromUtf8(s.mid(from, 160)).replace(QLatin1Char('\n'), QStringLiteral("⏎"));
    };
    return QStringLiteral("sizes %1 and %2, first difference at byte %3:\n  studio:  %4\n  "
                          "nbformat: %5")
        .arg(a.size())
        .arg(b.size())
        .arg(i)
        .arg(around(a), around(b));
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    QCOMPARE(f.write(bytes), bytes.size());
}

// Runs a notebook with Jupyter's own client, as a JupyterLab user's `jupyter execute` would,
// and writes it with nbformat.
const char* kNbclientScript = R"(import os, sys
import nbformat
from nbclient import NotebookClient
source, out = sys.argv[1], sys.argv[2]
nb = nbformat.read(source, as_version=4)
folder = os.path.dirname(os.path.abspath(source))
NotebookClient(nb, kernel_name="python3", timeout=600,
               resources={"metadata": {"path": folder}}).execute()
nbformat.write(nb, out)
)";

} // namespace

class TestNotebooks : public QObject {
    Q_OBJECT
    QTemporaryDir m_home;
    QTemporaryDir m_files;

    // What a user's notebook kernel gets: the studio home, the SDK and the CLI it runs.
    QProcessEnvironment environment() const {
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("MLSTUDIO_HOME"), m_home.path());
        env.insert(QStringLiteral("MLSTUDIO_IMDS_ENDPOINT"), QStringLiteral("off"));
        env.insert(QStringLiteral("MLSTUDIO_CLI"), QStringLiteral(STUDIO_BIN_DIR "/mlstudio"));
        const QString sdk = QStringLiteral(STUDIO_SOURCE_DIR "/python");
        const QString path = env.value(QStringLiteral("PYTHONPATH"));
        env.insert(QStringLiteral("PYTHONPATH"),
                   path.isEmpty() ? sdk : sdk + QLatin1Char(':') + path);
        return env;
    }

    // Runs a program to its end; one still running at the timeout is killed (and reaped).
    Ran run(const QString& program, const QStringList& args, int timeoutMs) const {
        QProcess p;
        p.setProcessEnvironment(environment());
        QElapsedTimer clock;
        clock.start();
        p.start(program, args);
        Ran r;
        if (!p.waitForStarted())
            return r;
        if (!p.waitForFinished(timeoutMs)) {
            p.kill();
            p.waitForFinished();
        }
        r.ms = clock.elapsed();
        r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
        r.out = QString::fromUtf8(p.readAllStandardOutput());
        r.err = QString::fromUtf8(p.readAllStandardError());
        return r;
    }

    Ran nbrun(const QStringList& args, int timeoutMs = 600000) const {
        return run(QStringLiteral(STUDIO_BIN_DIR "/mlstudio"),
                   QStringList{QStringLiteral("nbrun")} + args, timeoutMs);
    }

    // Jupyter's own validator (python3-nbformat) accepts the file.
    void checkValidNbformat(const QString& path) const {
        const Ran r =
            run(QStringLiteral("/usr/bin/python3"),
                {QStringLiteral("-c"),
                 QStringLiteral("import nbformat, sys\n"
                                "nbformat.validate(nbformat.read(sys.argv[1], as_version=4))\n"),
                 path},
                60000);
        QVERIFY2(r.code == 0, qPrintable(path + QStringLiteral(": ") + r.err));
    }

    // A notebook of code cells (the studio's default Python kernel), written where the tests
    // keep their files.
    QString writeNotebook(const QString& name, const QStringList& cells) const {
        NotebookDocument doc = NotebookDocument::create();
        doc.cells.clear();
        for (const QString& source : cells) {
            studio::models::NotebookCell c;
            c.id = doc.newCellId();
            c.source = source;
            doc.cells.append(c);
        }
        const QString path = m_files.filePath(name);
        doc.save(path);
        return path;
    }

    static void examplesTable() {
        QTest::addColumn<int>("example");
        for (std::size_t i = 0; i < std::size(kExamples); ++i)
            QTest::newRow(kExamples[i].file) << static_cast<int>(i);
    }

    // The outputs of a run example hold what its reader is meant to see.
    static void checkExampleOutputs(const QString& path, const Expected& e) {
        const NotebookDocument doc = NotebookDocument::load(path);
        QJsonArray outputs;
        const QString wrong = codeOutputs(doc, outputs);
        QVERIFY2(wrong.isEmpty(), qPrintable(wrong));
        const QJsonObject card = lastBundleWith(outputs, QString::fromLatin1(e.cardMime));
        QVERIFY2(!card.isEmpty(), e.cardMime);
        const QJsonObject state = card.value(QString::fromLatin1(e.cardMime)).toObject();
        QCOMPARE(state.value(QStringLiteral("status")).toString(),
                 QString::fromLatin1(e.cardStatus));
        // The twins JupyterLab and a console show.
        QVERIFY(!studio::models::joinedText(card.value(QStringLiteral("text/html"))).isEmpty());
        QVERIFY(!studio::models::joinedText(card.value(QStringLiteral("text/plain"))).isEmpty());
        if (e.cardMime == studio::models::kTuningMimeType) {
            QCOMPARE(state.value(QStringLiteral("done")).toInt(), 4);
            QCOMPARE(state.value(QStringLiteral("jobs")).toArray().size(), 4);
            const QString best = state.value(QStringLiteral("best_job")).toString();
            QVERIFY(!best.isEmpty());
            QVERIFY(outputText(outputs).contains(QStringLiteral("best training job: ") + best));
        }
        if (e.figure)
            QVERIFY2(
                anyOutput(outputs,
                          [](const QJsonObject& d) {
                              return !d.value(QStringLiteral("image/png")).toString().isEmpty();
                          }),
                "no image/png output");
        if (e.table)
            QVERIFY2(anyOutput(outputs,
                               [](const QJsonObject& d) {
                                   return studio::models::joinedText(
                                              d.value(QStringLiteral("text/html")))
                                       .contains(QStringLiteral("class=\"dataframe\""));
                               }),
                     "no pandas table");
        const QString text = outputText(outputs);
        for (const QString& t : e.texts)
            QVERIFY2(text.contains(t), qPrintable(t + QStringLiteral(" not in:\n") + text));
    }

    // The tuning jobs and jobs of the studio home that have not ended.
    QStringList unfinishedJobs() const {
        QStringList names;
        for (const QString& what : {QStringLiteral("tuning-jobs"), QStringLiteral("jobs")}) {
            const Ran list = run(QStringLiteral(STUDIO_BIN_DIR "/mlstudio"),
                                 {QStringLiteral("list"), what, QStringLiteral("--json")}, 60000);
            for (const QJsonValue& j : QJsonDocument::fromJson(list.out.toUtf8()).array()) {
                const QString status = j.toObject().value(QStringLiteral("status")).toString();
                if (status == QStringLiteral("InProgress") || status == QStringLiteral("Stopping"))
                    names << j.toObject().value(QStringLiteral("name")).toString();
            }
        }
        return names;
    }

    // Stops what still runs in the studio home (a failed check can leave a job that fit() was
    // waiting for) and waits until it has ended, so no process outlives the test.
    void stopUnfinishedJobs() const {
        for (const QString& name : unfinishedJobs())
            run(QStringLiteral(STUDIO_BIN_DIR "/mlstudio"), {QStringLiteral("stop"), name}, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(unfinishedJobs().isEmpty(), 180000);
    }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_home.isValid() && m_files.isValid()); }
    void cleanupTestCase() { stopUnfinishedJobs(); }

    // Each example through the studio's headless runner; the example file stays as it is.
    void nbrunRunsTheExamples_data() { examplesTable(); }
    void nbrunRunsTheExamples() {
        QFETCH(int, example);
        const Expected& e = kExamples[example];
        const QString source = kNotebooks + QString::fromLatin1(e.file);
        const QByteArray before = readAll(source);
        const QString out =
            m_files.filePath(QStringLiteral("nbrun-") + QString::fromLatin1(e.file));
        const Ran r = nbrun({source, QStringLiteral("--out"), out});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(QStringLiteral("wrote ") + out), qPrintable(r.err));
        QCOMPARE(readAll(source), before);
        checkValidNbformat(out);
        checkExampleOutputs(out, e);
    }

    // Each example through Jupyter's nbclient with the same environment: it runs outside the
    // studio, and the studio writes back exactly the bytes nbformat wrote.
    void nbclientRunsTheExamples_data() { examplesTable(); }
    void nbclientRunsTheExamples() {
        QFETCH(int, example);
        const Expected& e = kExamples[example];
        const QString out =
            m_files.filePath(QStringLiteral("nbclient-") + QString::fromLatin1(e.file));
        const Ran r = run(QStringLiteral("/usr/bin/python3"),
                          {QStringLiteral("-c"), QString::fromUtf8(kNbclientScript),
                           kNotebooks + QString::fromLatin1(e.file), out},
                          600000);
        QVERIFY2(r.code == 0, qPrintable(r.err.right(4000)));
        checkValidNbformat(out);
        checkExampleOutputs(out, e);
        if (QTest::currentTestFailed())
            return;
        const QByteArray written = readAll(out);
        const QByteArray studio = NotebookDocument::load(out).toJson();
        QVERIFY2(studio == written, qPrintable(firstDifference(studio, written)));
    }

    // Files nbrun cannot run are refused with exit 2, a message naming the file and why, and
    // are left as they were.
    void nbrunRefusesBadFiles_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("why");
        QTest::newRow("not JSON") << QByteArray(R"({"nbformat": 4, "cells": [ {"cell_type": )")
                                  << QStringLiteral("JSON");
        QTest::newRow("nbformat 3")
            << QByteArray(R"({"metadata": {}, "nbformat": 3, "nbformat_minor": 0,)"
                          R"( "worksheets": [{"cells": [{"cell_type": "code", "input": "1+1",)"
                          R"( "language": "python", "outputs": []}]}]})")
            << QStringLiteral("nbformat");
        QTest::newRow("JavaScript kernel")
            << QByteArray(
                   R"nb({"cells": [{"cell_type": "code", "execution_count": null, "id": "a1",)nb"
                   R"nb( "metadata": {}, "outputs": [], "source": ["print('hi')"]}],)nb"
                   R"nb( "metadata": {"kernelspec": {"display_name": "JavaScript (ML Studio)",)nb"
                   R"nb( "language": "javascript", "name": "mlstudio-javascript"},)nb"
                   R"nb( "language_info": {"name": "javascript"}}, "nbformat": 4,)nb"
                   R"nb( "nbformat_minor": 5})nb")
            << QStringLiteral("JavaScript");
    }
    void nbrunRefusesBadFiles() {
        QFETCH(QByteArray, content);
        QFETCH(QString, why);
        const QString path = m_files.filePath(QStringLiteral("refused.ipynb"));
        writeFile(path, content);
        const Ran r = nbrun({path}, 120000);
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(path) && r.err.contains(why), qPrintable(r.err));
        QCOMPARE(readAll(path), content);
    }

    // The first failing cell ends the run (exit 1): its error is saved, later cells do not run;
    // with --allow-errors they do, and the exit code still says a cell failed.
    void failingCellStopsTheRun() {
        const QString path = writeNotebook(QStringLiteral("fails.ipynb"),
                                           {QStringLiteral("a = 1\nprint('first', a)"),
                                            QStringLiteral("a += 1\nprint(a / 0)"),
                                            QStringLiteral("print('third', a)")});
        const QString out = m_files.filePath(QStringLiteral("fails-out.ipynb"));
        const Ran r = nbrun({path, QStringLiteral("--out"), out}, 120000);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("ZeroDivisionError")), qPrintable(r.err));
        NotebookDocument doc = NotebookDocument::load(out);
        QCOMPARE(studio::models::joinedText(
                     doc.cells[0].outputs[0].toObject().value(QStringLiteral("text"))),
                 QStringLiteral("first 1\n"));
        const QJsonObject error = doc.cells[1].outputs.last().toObject();
        QCOMPARE(error.value(QStringLiteral("output_type")).toString(), QStringLiteral("error"));
        QCOMPARE(error.value(QStringLiteral("ename")).toString(),
                 QStringLiteral("ZeroDivisionError"));
        QVERIFY(!error.value(QStringLiteral("traceback")).toArray().isEmpty());
        QVERIFY(!doc.cells[2].executionCount.has_value());
        QVERIFY(doc.cells[2].outputs.isEmpty());
        checkValidNbformat(out);

        const Ran all =
            nbrun({path, QStringLiteral("--out"), out, QStringLiteral("--allow-errors")}, 120000);
        QCOMPARE(all.code, 1);
        doc = NotebookDocument::load(out);
        QCOMPARE(doc.cells[2].executionCount.value_or(-1), 3);
        QCOMPARE(studio::models::joinedText(
                     doc.cells[2].outputs[0].toObject().value(QStringLiteral("text"))),
                 QStringLiteral("third 2\n"));
    }

    // --timeout interrupts a cell that would sleep ten minutes: the run ends soon after the
    // timeout (a run still going after a minute is killed and fails the test), the cell shows
    // KeyboardInterrupt and the cells after it do not run.
    void timeoutInterruptsTheCell() {
        const QString path =
            writeNotebook(QStringLiteral("sleeps.ipynb"),
                          {QStringLiteral("import time\nprint('going to sleep')"),
                           QStringLiteral("time.sleep(600)"), QStringLiteral("print('woke up')")});
        const QString out = m_files.filePath(QStringLiteral("sleeps-out.ipynb"));
        const Ran r = nbrun(
            {path, QStringLiteral("--out"), out, QStringLiteral("--timeout"), QStringLiteral("3")},
            60000);
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains(QStringLiteral("--timeout")), qPrintable(r.err));
        QVERIFY2(r.ms >= 3000, qPrintable(QString::number(r.ms)));
        const NotebookDocument doc = NotebookDocument::load(out);
        QCOMPARE(doc.cells[1].outputs.last().toObject().value(QStringLiteral("ename")).toString(),
                 QStringLiteral("KeyboardInterrupt"));
        QVERIFY(!doc.cells[2].executionCount.has_value());
    }
};

QTEST_GUILESS_MAIN(TestNotebooks)
#include "test_notebooks.moc"

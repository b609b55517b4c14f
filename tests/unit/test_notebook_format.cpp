// The notebook file format (nbformat 4 read, written and round-tripped, clear errors for bad
// files) and how outputs enter a document: streams joined (carriage returns applied), displays
// updated by their Jupyter display id in every cell, clear_output now or at the next output.
#include "models/notebook/nbformat_json.h"
#include "models/notebook/notebook_document.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

using studio::models::CellType;
using studio::models::NotebookCell;
using studio::models::NotebookDocument;
using studio::models::NotebookError;

namespace {

QByteArray readFile(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QByteArray jupyterNotebook() {
    // As Jupyter writes it: sources as arrays of lines, a notebook of the old JavaScript kernel,
    // an attachment and a cell field the studio does not use.
    QJsonObject markdown{
        {QStringLiteral("cell_type"), QStringLiteral("markdown")},
        {QStringLiteral("id"), QStringLiteral("intro")},
        {QStringLiteral("metadata"), QJsonObject()},
        {QStringLiteral("attachments"), QJsonObject{{QStringLiteral("a.png"), QJsonObject()}}},
        {QStringLiteral("source"),
         QJsonArray{QStringLiteral("# Title\n"), QStringLiteral("text")}}};
    QJsonObject code{
        {QStringLiteral("cell_type"), QStringLiteral("code")},
        {QStringLiteral("metadata"), QJsonObject{{QStringLiteral("collapsed"), false}}},
        {QStringLiteral("execution_count"), 3},
        {QStringLiteral("source"), QStringLiteral("print(1)\nprint(2)")},
        {QStringLiteral("outputs"),
         QJsonArray{QJsonObject{
             {QStringLiteral("output_type"), QStringLiteral("stream")},
             {QStringLiteral("name"), QStringLiteral("stdout")},
             {QStringLiteral("text"), QJsonArray{QStringLiteral("1\n"), QStringLiteral("2\n")}}}}}};
    QJsonObject root{
        {QStringLiteral("cells"), QJsonArray{markdown, code}},
        {QStringLiteral("metadata"),
         QJsonObject{{QStringLiteral("language_info"),
                      QJsonObject{{QStringLiteral("name"), QStringLiteral("javascript")}}},
                     {QStringLiteral("custom"), QStringLiteral("kept")}}},
        {QStringLiteral("nbformat"), 4},
        {QStringLiteral("nbformat_minor"), 4}};
    return QJsonDocument(root).toJson();
}

} // namespace

class TestNotebookFormat : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void readsJupyterFiles() {
        const NotebookDocument doc =
            NotebookDocument::fromJson(jupyterNotebook(), QStringLiteral("a.ipynb"));
        QCOMPARE(doc.cells.size(), 2);
        QCOMPARE(doc.cells[0].type, CellType::Markdown);
        QCOMPARE(doc.cells[0].source, QStringLiteral("# Title\ntext"));
        QCOMPARE(doc.cells[0].id, QStringLiteral("intro"));
        QCOMPARE(doc.cells[1].type, CellType::Code);
        QCOMPARE(doc.cells[1].executionCount.value_or(-1), 3);
        QCOMPARE(doc.cells[1].outputs.size(), 1);
        QVERIFY(!doc.cells[1].id.isEmpty()); // nbformat 4.4 had no ids: one is made
        QVERIFY(doc.isJavaScript());
    }

    void roundTripKeepsWhatItDoesNotUse() {
        const NotebookDocument doc = NotebookDocument::fromJson(jupyterNotebook());
        const QJsonObject written = QJsonDocument::fromJson(doc.toJson()).object();
        QCOMPARE(written.value(QStringLiteral("nbformat")).toInt(), 4);
        QCOMPARE(written.value(QStringLiteral("nbformat_minor")).toInt(), 5);
        QCOMPARE(written.value(QStringLiteral("metadata"))
                     .toObject()
                     .value(QStringLiteral("custom"))
                     .toString(),
                 QStringLiteral("kept"));
        const QJsonArray cells = written.value(QStringLiteral("cells")).toArray();
        QVERIFY(cells[0].toObject().contains(QStringLiteral("attachments")));
        QCOMPARE(cells[0].toObject().value(QStringLiteral("source")).toArray(),
                 (QJsonArray{QStringLiteral("# Title\n"), QStringLiteral("text")}));
        QCOMPARE(cells[1]
                     .toObject()
                     .value(QStringLiteral("metadata"))
                     .toObject()
                     .value(QStringLiteral("collapsed")),
                 QJsonValue(false));
        // Jupyter's layout: one-space indent, text as arrays of lines.
        QVERIFY(doc.toJson().startsWith("{\n \"cells\": [\n  {\n"));
        const NotebookDocument again = NotebookDocument::fromJson(doc.toJson());
        QCOMPARE(again.toJson(), doc.toJson());
    }

    void saveIsAtomicAndLoadNamesTheFile() {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("n.ipynb"));
        NotebookDocument doc = NotebookDocument::create();
        doc.cells[0].source = QStringLiteral("1 + 1");
        doc.save(path);
        QCOMPARE(NotebookDocument::load(path).cells[0].source, QStringLiteral("1 + 1"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("n.ipynb")});
        try {
            NotebookDocument::load(dir.filePath(QStringLiteral("missing.ipynb")));
            QFAIL("loading a missing file must throw");
        } catch (const NotebookError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("missing.ipynb")),
                     e.what());
        }
    }

    void badFiles_data() {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("message");
        QTest::newRow("not json") << QByteArray("{\"cells\": [")
                                  << QStringLiteral("not valid JSON");
        QTest::newRow("no nbformat")
            << QByteArray("{\"cells\": []}") << QStringLiteral("\"nbformat\" is missing");
        QTest::newRow("nbformat 3") << QByteArray("{\"nbformat\": 3, \"cells\": []}")
                                    << QStringLiteral("nbformat 3 is not supported");
        QTest::newRow("cells not array") << QByteArray("{\"nbformat\": 4, \"cells\": {}}")
                                         << QStringLiteral("\"cells\" must be an array");
        QTest::newRow("bad cell type")
            << QByteArray(
                   "{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"python\", \"source\": \"\"}]}")
            << QStringLiteral("cell 1: cell_type must be code, markdown or raw");
        QTest::newRow("bad source")
            << QByteArray(
                   "{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\", \"source\": 3}]}")
            << QStringLiteral("cell 1: source must be a string or an array of lines");
        QTest::newRow("bad output")
            << QByteArray(
                   "{\"nbformat\": 4, \"cells\": [{\"cell_type\": \"code\", \"source\": \"\", "
                   "\"outputs\": [{}]}]}")
            << QStringLiteral("cell 1: every output needs an output_type");
    }
    void badFiles() {
        QFETCH(QByteArray, json);
        QFETCH(QString, message);
        try {
            NotebookDocument::fromJson(json, QStringLiteral("bad.ipynb"));
            QFAIL("a bad notebook must throw");
        } catch (const NotebookError& e) {
            const QString what = QString::fromUtf8(e.what());
            QVERIFY2(what.startsWith(QStringLiteral("bad.ipynb: ")), e.what());
            QVERIFY2(what.contains(message), e.what());
        }
    }

    void outputsMergeAndUpdate() {
        NotebookDocument doc = NotebookDocument::create();
        const QString id = doc.cells[0].id;
        auto stream = [](const QString& name, const QString& text) {
            return QJsonObject{{QStringLiteral("output_type"), QStringLiteral("stream")},
                               {QStringLiteral("name"), name},
                               {QStringLiteral("text"), text}};
        };
        QCOMPARE(doc.appendOutput(id, stream(QStringLiteral("stdout"), QStringLiteral("a\n"))), 0);
        QCOMPARE(doc.appendOutput(id, stream(QStringLiteral("stdout"), QStringLiteral("b\n"))), 0);
        // A progress bar: the carriage return rewrites the line, as a terminal shows it.
        doc.appendOutput(id, stream(QStringLiteral("stdout"), QStringLiteral("10%\r")));
        doc.appendOutput(id, stream(QStringLiteral("stdout"), QStringLiteral("100%\n")));
        QCOMPARE(doc.appendOutput(id, stream(QStringLiteral("stderr"), QStringLiteral("c\n"))), 1);
        QCOMPARE(doc.cells[0].outputs.size(), 2);
        QCOMPARE(doc.cells[0].outputs[0].toObject().value(QStringLiteral("text")).toString(),
                 QStringLiteral("a\nb\n100%\n"));
        QCOMPARE(doc.appendOutput(QStringLiteral("nope"), stream(QStringLiteral("stdout"), {})),
                 -1);
    }

    void displaysUpdateInEveryCell() {
        NotebookDocument doc = NotebookDocument::create();
        NotebookCell second;
        second.id = doc.newCellId();
        doc.cells.append(second);
        auto display = [](const QString& type, const QString& text) {
            return QJsonObject{
                {QStringLiteral("output_type"), type},
                {QStringLiteral("data"), QJsonObject{{QStringLiteral("text/plain"), text}}},
                {QStringLiteral("metadata"), QJsonObject()}};
        };
        doc.appendOutput(doc.cells[0].id,
                         display(QStringLiteral("display_data"), QStringLiteral("v1")),
                         QStringLiteral("display-one"));
        QJsonObject result = display(QStringLiteral("execute_result"), QStringLiteral("r1"));
        result.insert(QStringLiteral("execution_count"), 4);
        doc.appendOutput(doc.cells[1].id, result, QStringLiteral("display-one"));
        doc.appendOutput(doc.cells[1].id,
                         display(QStringLiteral("display_data"), QStringLiteral("other")));
        const QVector<int> changed =
            doc.updateDisplay(QStringLiteral("display-one"),
                              display(QStringLiteral("display_data"), QStringLiteral("v2")));
        QCOMPARE(changed, (QVector<int>{0, 1}));
        auto text = [&](int cell, int k) {
            return doc.cells[cell]
                .outputs[k]
                .toObject()
                .value(QStringLiteral("data"))
                .toObject()
                .value(QStringLiteral("text/plain"))
                .toString();
        };
        QCOMPARE(text(0, 0), QStringLiteral("v2"));
        QCOMPARE(text(1, 0), QStringLiteral("v2"));
        QCOMPARE(text(1, 1), QStringLiteral("other"));
        // An update keeps what kind of output it was and its count.
        QCOMPARE(doc.cells[1].outputs[0].toObject().value(QStringLiteral("output_type")).toString(),
                 QStringLiteral("execute_result"));
        QCOMPARE(
            doc.cells[1].outputs[0].toObject().value(QStringLiteral("execution_count")).toInt(), 4);
        QVERIFY(doc.updateDisplay(QStringLiteral("unknown"),
                                  display(QStringLiteral("display_data"), {}))
                    .isEmpty());
        // Display ids are transient: nothing of them is saved.
        QVERIFY(!doc.toJson().contains("display-one"));
    }

    void clearOutputNowOrAtTheNextOutput() {
        NotebookDocument doc = NotebookDocument::create();
        const QString id = doc.cells[0].id;
        const QJsonObject frame{{QStringLiteral("output_type"), QStringLiteral("stream")},
                                {QStringLiteral("name"), QStringLiteral("stdout")},
                                {QStringLiteral("text"), QStringLiteral("frame\n")}};
        doc.appendOutput(id, frame);
        QVERIFY(doc.clearOutput(id, /*wait=*/true));
        QCOMPARE(doc.cells[0].outputs.size(), 1); // kept until the next output comes
        doc.appendOutput(id, frame);
        QCOMPARE(doc.cells[0].outputs.size(), 1);
        QCOMPARE(doc.cells[0].outputs[0].toObject().value(QStringLiteral("text")).toString(),
                 QStringLiteral("frame\n"));
        QVERIFY(doc.clearOutput(id, /*wait=*/false));
        QVERIFY(doc.cells[0].outputs.isEmpty());
        QVERIFY(!doc.clearOutput(QStringLiteral("nope"), false));
        doc.appendOutput(id, frame);
        doc.clearOutputs();
        QVERIFY(doc.cells[0].outputs.isEmpty());
    }

    // The writer's text is Python's own json.dumps of the same value, as nbformat writes it.
    void writesJsonAsNbformatDoes() {
        const QByteArray cases =
            readFile(QStringLiteral(STUDIO_TEST_DATA "/notebooks/python-json-cases.json"));
        const nlohmann::json value = nlohmann::json::parse(cases.constBegin(), cases.constEnd());
        const QByteArray ours = studio::models::nbformatJson(value);
        QProcess py;
        py.start(QStringLiteral("/usr/bin/python3"),
                 {QStringLiteral("-c"),
                  QStringLiteral("import json,sys; v=json.load(sys.stdin); "
                                 "sys.stdout.buffer.write(json.dumps(v, indent=1, "
                                 "sort_keys=True, ensure_ascii=False).encode())")});
        QVERIFY(py.waitForStarted());
        py.write(ours);
        py.closeWriteChannel();
        QVERIFY(py.waitForFinished(30000));
        QCOMPARE(ours, py.readAllStandardOutput());
        QVERIFY(ours.contains("3.0,") && ours.contains("1e+16"));
        QCOMPARE(studio::models::splitLinesKeepEnds(QStringLiteral("a\r\nb\rc\nd")),
                 (QJsonArray{QStringLiteral("a\r\n"), QStringLiteral("b\r"), QStringLiteral("c\n"),
                             QStringLiteral("d")}));
        QCOMPARE(studio::models::splitLinesKeepEnds(QString()), QJsonArray());
    }

    // A file as Jupyter wrote it comes back byte for byte, numbers such as 1.0 included; a
    // changed cell is written anew, the others as they were.
    void unchangedFilesRoundTripByteForByte() {
        const QByteArray file =
            readFile(QStringLiteral(STUDIO_TEST_DATA "/notebooks/written-by-jupyter.ipynb"));
        QVERIFY(!file.isEmpty());
        NotebookDocument doc = NotebookDocument::fromJson(file);
        QCOMPARE(doc.toJson(), file);
        doc.cells[1].source = QStringLiteral("# Other");
        const QByteArray changed = doc.toJson();
        QVERIFY(changed.contains("\"accuracy\": 1.0"));
        QVERIFY(changed.contains("\"scale\": 2.0"));
        QVERIFY(changed.contains("\"# Other\""));
    }

    // Found by the fuzzer: Qt reads a lone surrogate escape into a string, which JSON text cannot
    // carry; the writer puts U+FFFD there instead of failing, and the file reads again.
    void loneSurrogatesAreWrittenAsReplacements() {
        const QByteArray file = "{\"cells\": [{\"cell_type\": \"markdown\", \"id\": \"x\", "
                                "\"metadata\": {}, \"source\": \"a\\ud800b\"}], "
                                "\"metadata\": {}, \"nbformat\": 4, \"nbformat_minor\": 5}";
        NotebookDocument doc = NotebookDocument::fromJson(file);
        doc.cells[0].source += QStringLiteral("!"); // changed: written from Qt's value
        const NotebookDocument again = NotebookDocument::fromJson(doc.toJson());
        QCOMPARE(again.cells[0].source, QStringLiteral("a\uFFFDb!"));
    }

    void newNotebooksArePython() {
        const NotebookDocument doc = NotebookDocument::create();
        QVERIFY(!doc.isJavaScript());
        const QJsonObject spec = doc.metadata.value(QStringLiteral("kernelspec")).toObject();
        QCOMPARE(spec.value(QStringLiteral("name")).toString(), QStringLiteral("python3"));
        QCOMPARE(spec.value(QStringLiteral("display_name")).toString(),
                 QStringLiteral("Python 3 (ipykernel)"));
        QCOMPARE(doc.cells.size(), 1);
    }

    void javaScriptNotebooksAreRecognised() {
        QByteArray py = jupyterNotebook();
        py.replace("javascript", "python");
        QVERIFY(!NotebookDocument::fromJson(py).isJavaScript());
        QVERIFY(NotebookDocument::fromJson(jupyterNotebook()).isJavaScript());
        // A notebook that names no language is not taken for a JavaScript one.
        QVERIFY(!NotebookDocument::fromJson(R"({"cells": [], "metadata": {}, "nbformat": 4,
                                                "nbformat_minor": 5})")
                     .isJavaScript());
        NotebookDocument doc = NotebookDocument::create();
        doc.setKernelMetadata({{QStringLiteral("name"), QStringLiteral("js")},
                               {QStringLiteral("display_name"), QStringLiteral("JS")},
                               {QStringLiteral("language"), QStringLiteral("javascript")}},
                              {});
        QVERIFY(doc.isJavaScript());
    }
};

QTEST_GUILESS_MAIN(TestNotebookFormat)
#include "test_notebook_format.moc"

// The notebook file format (nbformat 4 read, written and round-tripped, clear errors for bad files)
// and the REPL rewrite that makes a cell's top-level declarations global.
#include "app/notebook/declaration_hoist.h"
#include "models/notebook/notebook_document.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QtTest>

using studio::notebook::hoistDeclarations;
using studio::models::CellType;
using studio::models::NotebookDocument;
using studio::models::NotebookError;

namespace {

QByteArray jupyterNotebook() {
    // As Jupyter writes it: sources as arrays of lines, a Python-free JavaScript kernel, an
    // attachment and a cell field the studio does not use.
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
        QVERIFY(doc.appendOutput(id, stream(QStringLiteral("stdout"), QStringLiteral("a\n"))));
        QVERIFY(doc.appendOutput(id, stream(QStringLiteral("stdout"), QStringLiteral("b\n"))));
        QVERIFY(doc.appendOutput(id, stream(QStringLiteral("stderr"), QStringLiteral("c\n"))));
        QCOMPARE(doc.cells[0].outputs.size(), 2);
        QCOMPARE(doc.cells[0].outputs[0].toObject().value(QStringLiteral("text")).toString(),
                 QStringLiteral("a\nb\n"));
        QJsonObject display{
            {QStringLiteral("output_type"), QStringLiteral("display_data")},
            {QStringLiteral("data"),
             QJsonObject{{QStringLiteral("text/plain"), QStringLiteral("v1")}}},
            {QStringLiteral("metadata"),
             QJsonObject{{QStringLiteral("mlstudio"),
                          QJsonObject{{QStringLiteral("display_id"), QStringLiteral("job:x")}}}}}};
        QVERIFY(doc.updateDisplay(id, QStringLiteral("job:x"), display));
        QCOMPARE(doc.cells[0].outputs.size(), 3);
        display.insert(QStringLiteral("data"),
                       QJsonObject{{QStringLiteral("text/plain"), QStringLiteral("v2")}});
        QVERIFY(doc.updateDisplay(id, QStringLiteral("job:x"), display));
        QCOMPARE(doc.cells[0].outputs.size(), 3);
        QCOMPARE(studio::models::displayIdOf(doc.cells[0].outputs[2].toObject()),
                 QStringLiteral("job:x"));
        QVERIFY(!doc.appendOutput(QStringLiteral("nope"), display));
        doc.clearOutputs();
        QVERIFY(doc.cells[0].outputs.isEmpty());
    }

    void pythonNotebooksAreRecognised() {
        QByteArray py = jupyterNotebook();
        py.replace("javascript", "python");
        QVERIFY(!NotebookDocument::fromJson(py).isJavaScript());
    }

    void hoisting_data() {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("expected");
        auto row = [](const char* name, const char* src, const char* want) {
            QTest::newRow(name) << QString::fromUtf8(src) << QString::fromUtf8(want);
        };
        row("let and const", "let a = 1;\nconst b = 2", "var a = 1;\nvar b = 2");
        row("class", "class Foo extends Bar { f() { let x = 1; } }",
            "var Foo = class Foo extends Bar { f() { let x = 1; } }");
        row("nested untouched",
            "function f() { const x = 1; return x; }\nfor (let i = 0; i < 2; ++i) {}",
            "function f() { const x = 1; return x; }\nfor (let i = 0; i < 2; ++i) {}");
        row("strings", "print('let x = 1'); const s = \"const y\";",
            "print('let x = 1'); var s = \"const y\";");
        row("template", "const t = `a ${ {b: 1}.b } let c = ${'}'}`;\nlet d = 2",
            "var t = `a ${ {b: 1}.b } let c = ${'}'}`;\nvar d = 2");
        row("comments", "// const a = 1\n/* let b */ const c = 3",
            "// const a = 1\n/* let b */ var c = 3");
        row("regex", "const r = /let x = [/]/g; let y = 1", "var r = /let x = [/]/g; var y = 1");
        row("destructuring", "const {a, b} = o; let [c] = arr;", "var {a, b} = o; var [c] = arr;");
        row("property named let", "o.let = 1; x.const", "o.let = 1; x.const");
        row("let as a name", "let = 5", "let = 5");
        row("after block", "if (x) { y(); } const z = 1", "if (x) { y(); } var z = 1");
    }
    void hoisting() {
        QFETCH(QString, source);
        QFETCH(QString, expected);
        QCOMPARE(hoistDeclarations(source), expected);
    }
};

QTEST_GUILESS_MAIN(TestNotebookFormat)
#include "test_notebook_format.moc"

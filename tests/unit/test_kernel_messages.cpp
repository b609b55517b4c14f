// Jupyter messages as notebooks keep them: IOPub messages into nbformat outputs (transient
// display ids apart), cursor positions between Qt's UTF-16 and the protocol's code points, the
// error a dead kernel leaves, the Python that moves a kernel to a folder (run by a real Python
// with awkward folder names), and which interpreter a bare "python3" kernelspec gets.
#include "app/notebook/kernel_messages.h"

#include <QDir>
#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>

using namespace studio;
using namespace studio::notebook;

namespace {

jupyter::Message message(const std::string& type, jupyter::Json content) {
    jupyter::Message m;
    m.header = {{"msg_type", type}, {"msg_id", "m1"}};
    m.parentHeader = {{"msg_id", "p1"}};
    m.content = std::move(content);
    return m;
}

} // namespace

class TestKernelMessages : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void outputsAsNbformatKeepsThem() {
        const QJsonObject stream =
            outputOf(message("stream", {{"name", "stderr"}, {"text", "warn\n"}}));
        QCOMPARE(stream, (QJsonObject{{QStringLiteral("output_type"), QStringLiteral("stream")},
                                      {QStringLiteral("name"), QStringLiteral("stderr")},
                                      {QStringLiteral("text"), QStringLiteral("warn\n")}}));
        const auto result = message("execute_result", {{"execution_count", 7},
                                                       {"data", {{"text/plain", "2"}}},
                                                       {"metadata", jupyter::Json::object()},
                                                       {"transient", {{"display_id", "abc"}}}});
        const QJsonObject r = outputOf(result);
        QCOMPARE(r.value(QStringLiteral("output_type")).toString(),
                 QStringLiteral("execute_result"));
        QCOMPARE(r.value(QStringLiteral("execution_count")).toInt(), 7);
        QVERIFY(!r.contains(QStringLiteral("transient"))); // never saved
        QCOMPARE(displayIdOf(result), QStringLiteral("abc"));
        const QJsonObject update = outputOf(message(
            "update_display_data", {{"data", {{"image/png", "iVBOR"}}}, {"transient", {}}}));
        QCOMPARE(update.value(QStringLiteral("output_type")).toString(),
                 QStringLiteral("display_data"));
        QVERIFY(update.value(QStringLiteral("metadata")).isObject());
        QCOMPARE(displayIdOf(message("display_data", {{"data", {}}})), QString());
        const QJsonObject error =
            outputOf(message("error", {{"ename", "ZeroDivisionError"},
                                       {"evalue", "division by zero"},
                                       {"traceback", {"\x1b[0;31mline 1\x1b[0m", "line 2"}}}));
        QCOMPARE(error.value(QStringLiteral("traceback")).toArray().size(), 2);
        QCOMPARE(error.value(QStringLiteral("ename")).toString(),
                 QStringLiteral("ZeroDivisionError"));
    }

    void languageInfoFromKernelInfo() {
        const QJsonObject info =
            languageInfoOf({{"protocol_version", "5.3"},
                            {"language_info", {{"name", "python"}, {"version", "3.11.2"}}}});
        QCOMPARE(info.value(QStringLiteral("name")).toString(), QStringLiteral("python"));
        QVERIFY(languageInfoOf(jupyter::Json::object()).isEmpty());
    }

    void cursorPositionsInCodePoints() {
        // "é" is one UTF-16 unit; "😀" is two units but one code point.
        const QString code = QStringLiteral("é😀x = 1");
        QCOMPARE(code.indexOf(QLatin1Char('x')), 3);
        QCOMPARE(codePointOffset(code, 3), 2);
        QCOMPARE(utf16Offset(code, 2), 3);
        QCOMPARE(codePointOffset(code, code.size()), 7);
        QCOMPARE(utf16Offset(code, 7), static_cast<int>(code.size()));
        QCOMPARE(utf16Offset(code, 99), static_cast<int>(code.size()));
        QCOMPARE(codePointOffset(code, -5), 0);
    }

    void deadKernels() {
        const int killed = -SIGKILL; // as Python's returncode: killed by signal 9
        const QString m = deathMessage(killed, QStringLiteral("Traceback...\nMemoryError\n"));
        QVERIFY2(m.contains(QStringLiteral("signal 9, SIGKILL")), qPrintable(m));
        QVERIFY(m.contains(QStringLiteral("MemoryError")));
        QVERIFY2(deathMessage(1, {}).contains(QStringLiteral("exit status 1")),
                 qPrintable(deathMessage(1, {})));
        const QJsonObject out = deadKernelOutput(m);
        QCOMPARE(out.value(QStringLiteral("ename")).toString(), QStringLiteral("DeadKernelError"));
        QVERIFY(out.value(QStringLiteral("traceback")).toArray().size() >= 2);
    }

    void chdirSurvivesAwkwardNames() {
        QTemporaryDir root;
        const QString dir = root.filePath(QStringLiteral("it's a \"dir\" é😀 \\x"));
        QVERIFY(QDir().mkpath(dir));
        QProcess py;
        py.start(QStringLiteral("/usr/bin/python3"),
                 {QStringLiteral("-c"),
                  chdirCode(dir) + QStringLiteral("\nimport os\nprint(os.getcwd())")});
        QVERIFY(py.waitForFinished(30000));
        QCOMPARE(py.exitCode(), 0);
        QCOMPARE(QString::fromUtf8(py.readAllStandardOutput()).trimmed(),
                 QDir(dir).canonicalPath());
    }

    void barePythonRunsTheStudiosPython() {
        jupyter::KernelSpec spec;
        spec.argv = {"python3", "-m", "ipykernel_launcher", "-f", "{connection_file}"};
        qunsetenv("MLSTUDIO_PYTHON");
        QCOMPARE(resolveInterpreter(spec).argv.front(), std::string("/usr/bin/python3"));
        qputenv("MLSTUDIO_PYTHON", "/opt/py/bin/python");
        QCOMPARE(resolveInterpreter(spec).argv.front(), std::string("/opt/py/bin/python"));
        qunsetenv("MLSTUDIO_PYTHON");
        spec.argv.front() = "/usr/local/bin/python3.12";
        QCOMPARE(resolveInterpreter(spec).argv.front(), std::string("/usr/local/bin/python3.12"));
    }
};

QTEST_GUILESS_MAIN(TestKernelMessages)
#include "test_kernel_messages.moc"

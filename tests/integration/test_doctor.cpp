// `mlstudio doctor` as users run it: against stand-in trainers ($MLSTUDIO_TRAINER scripts that
// print a fixed probe: CPU only, two GPUs, a failing or garbled probe) and stand-in Pythons
// ($MLSTUDIO_PYTHON), then against this build's real studio-train and Python.
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

namespace {

struct DoctorRun {
    int code = -1;
    QString out;
    QString err;
};

const char* kCpuProbe =
    R"json({"libtorch": "1.13.1", "cuda_compiled": false, "cuda_available": false, "cuda_runtime": "",
"devices": [], "nccl": {"compiled": false, "version": "", "process_group": "unavailable: no CUDA"},
"gloo": true, "blas": "open (OpenBLAS)", "threads": {"intra_op": 2, "inter_op": 2},
"parallel": "ATen/Parallel: OpenMP", "amp": ["bf16"]})json";

const char* kTwoGpuProbe =
    R"json({"libtorch": "2.15.0", "cuda_compiled": true, "cuda_available": true, "cuda_runtime": "13.2",
"devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "memory_bytes": 85045608448, "capability": "9.0"},
            {"index": 1, "name": "NVIDIA H100 80GB HBM3", "memory_bytes": 85045608448, "capability": "9.0"}],
"nccl": {"compiled": true, "version": "2.30.7", "process_group": "ok"},
"gloo": true, "blas": "mkl", "threads": {"intra_op": 16, "inter_op": 16},
"parallel": "ATen/Parallel: OpenMP", "amp": ["bf16", "fp16"], "a_field_from_later": 1})json";

} // namespace

class TestDoctor : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    int m_scripts = 0;

    // An executable shell script with this body; returns its path.
    QString script(const QString& body) {
        const QString path = m_dir.filePath(QStringLiteral("fake-%1.sh").arg(++m_scripts));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        f.write("#!/bin/sh\n" + body.toUtf8() + "\n");
        f.close();
        f.setPermissions(f.permissions() | QFile::ExeOwner);
        return path;
    }

    QString probePrinting(const char* json) {
        const QString file = m_dir.filePath(QStringLiteral("probe-%1.json").arg(++m_scripts));
        QFile f(file);
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(file));
        f.write(json);
        f.close();
        // Only --probe --json answers, as the real trainer does.
        return script(
            QStringLiteral("[ \"$1 $2\" = \"--probe --json\" ] || exit 2\ncat '%1'").arg(file));
    }

    QString pythonWithTorch(const char* version) {
        return script(
            QStringLiteral("[ \"$1\" = -c ] || exit 2\necho %1").arg(QLatin1String(version)));
    }

    // trainer / python: "" leaves the variable unset (the build's programs are used).
    DoctorRun doctor(const QString& trainer, const QString& python, bool json) {
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("MLSTUDIO_HOME"), m_dir.filePath(QStringLiteral("home")));
        env.remove(QStringLiteral("MLSTUDIO_TRAINER"));
        env.remove(QStringLiteral("MLSTUDIO_PYTHON"));
        if (!trainer.isEmpty())
            env.insert(QStringLiteral("MLSTUDIO_TRAINER"), trainer);
        if (!python.isEmpty())
            env.insert(QStringLiteral("MLSTUDIO_PYTHON"), python);
        QProcess p;
        p.setProcessEnvironment(env);
        QStringList args{QStringLiteral("doctor")};
        if (json)
            args << QStringLiteral("--json");
        p.start(QStringLiteral(STUDIO_BIN_DIR "/mlstudio"), args);
        if (!p.waitForFinished(150000))
            p.kill();
        return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
                QString::fromUtf8(p.readAllStandardOutput()),
                QString::fromUtf8(p.readAllStandardError())};
    }

    struct JsonRun {
        int code = -1;
        nlohmann::json doc; // discarded when it printed no JSON
    };
    JsonRun doctorJson(const QString& trainer, const QString& python) {
        const DoctorRun r = doctor(trainer, python, true);
        if (r.code != 0)
            qInfo().noquote() << "exit" << r.code << r.out << r.err;
        return {r.code, nlohmann::json::parse(r.out.toStdString(), nullptr, false)};
    }

    static bool hasWarning(const nlohmann::json& j, const std::string& part) {
        for (const auto& w : j["warnings"])
            if (w.get<std::string>().find(part) != std::string::npos)
                return true;
        return false;
    }

private Q_SLOTS:
    void cpuTrainer() {
        const QString trainer = probePrinting(kCpuProbe);
        const auto jRun = doctorJson(trainer, pythonWithTorch("1.13.0a0"));
        QCOMPARE(jRun.code, 0);
        const nlohmann::json& j = jRun.doc;
        QVERIFY(j.is_object());
        QCOMPARE(j["version"].get<std::string>(), std::string(STUDIO_VERSION));
        QCOMPARE(j["ok"], true);
        QCOMPARE(j["studio_train"]["path"].get<std::string>(), trainer.toStdString());
        QCOMPARE(j["studio_train"]["from_env"], true);
        QCOMPARE(j["studio_launcher"].get<std::string>(),
                 std::string(STUDIO_BIN_DIR "/studio-launcher"));
        QCOMPARE(j["trainer"]["libtorch"], "1.13.1");
        QCOMPARE(j["trainer"]["gloo"], true);
        QCOMPARE(j["trainer"]["devices"].size(), std::size_t(0));
        QVERIFY(j["trainer_error"].is_null());
        QCOMPARE(j["python"]["torch"], "1.13.0a0");
        QCOMPARE(j["torch_matches_libtorch"], true);
        QVERIFY2(j["warnings"].empty(), j.dump().c_str());

        const DoctorRun text = doctor(trainer, pythonWithTorch("1.13.0a0"), false);
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.contains(QStringLiteral("\n  LibTorch:        1.13.1\n")),
                 qPrintable(text.out));
        QVERIFY(text.out.contains(QStringLiteral("  CUDA:            not compiled in")));
        QVERIFY(text.out.contains(QStringLiteral("  Gloo:            yes\n")));
        QVERIFY(text.out.contains(QStringLiteral("\ndevices:\n  no CUDA device\n")));
        QVERIFY(text.out.contains(QStringLiteral("1.13.0a0 (matches LibTorch 1.13.1)")));
        QVERIFY(!text.out.contains(QStringLiteral("warnings:")));
    }

    void twoGpusAndAnotherTorch() {
        const QString trainer = probePrinting(kTwoGpuProbe);
        const auto jRun = doctorJson(trainer, pythonWithTorch("2.5.1+cu121"));
        QCOMPARE(jRun.code, 0);
        const nlohmann::json& j = jRun.doc;
        QCOMPARE(j["ok"], true);
        QCOMPARE(j["trainer"]["devices"].size(), std::size_t(2));
        QCOMPARE(j["trainer"]["devices"][1]["memory_bytes"].get<std::int64_t>(), 85045608448);
        QCOMPARE(j["trainer"]["nccl"]["version"], "2.30.7");
        QCOMPARE(j["trainer"]["a_field_from_later"], 1); // passed through as printed
        QCOMPARE(j["torch_matches_libtorch"], false);
        QVERIFY2(hasWarning(j, "Python torch 2.5.1+cu121 and studio-train's LibTorch 2.15.0"),
                 j.dump().c_str());

        const DoctorRun text = doctor(trainer, pythonWithTorch("2.5.1+cu121"), false);
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.contains(
                     QStringLiteral("\ndevices:\n"
                                    "  cuda:0  NVIDIA H100 80GB HBM3, 79.2 GiB, capability 9.0\n"
                                    "  cuda:1  NVIDIA H100 80GB HBM3, 79.2 GiB, capability 9.0\n")),
                 qPrintable(text.out));
        QVERIFY(text.out.contains(QStringLiteral("  CUDA:            runtime 13.2, available\n")));
        QVERIFY(text.out.contains(QStringLiteral("  NCCL:            2.30.7, process group ok\n")));
        QVERIFY(text.out.contains(QStringLiteral("\nwarnings:\n  - Python torch 2.5.1+cu121")));
    }

    void pythonWithoutTorch() {
        const QString python = script(
            QStringLiteral("echo 'Traceback (most recent call last):' >&2\n"
                           "echo \"ModuleNotFoundError: No module named 'torch'\" >&2\nexit 1"));
        const auto jRun = doctorJson(probePrinting(kCpuProbe), python);
        QCOMPARE(jRun.code, 0);
        const nlohmann::json& j = jRun.doc;
        QVERIFY(j["python"]["torch"].is_null());
        QCOMPARE(j["python"]["error"], "ModuleNotFoundError: No module named 'torch'");
        QVERIFY(j["torch_matches_libtorch"].is_null());
        QVERIFY(hasWarning(j, "has no torch"));
        const auto missingRun =
            doctorJson(probePrinting(kCpuProbe), m_dir.filePath(QStringLiteral("no-python")));
        QCOMPARE(missingRun.code, 0);
        const nlohmann::json& missing = missingRun.doc;
        QVERIFY(missing["python"]["torch"].is_null());
        QVERIFY(!missing["python"]["error"].get<std::string>().empty());
    }

    void failingProbe_data() {
        QTest::addColumn<QString>("body");
        QTest::addColumn<QString>("error");
        QTest::newRow("unknown option")
            << QStringLiteral("echo 'The following arguments were not expected: --json --probe' "
                              ">&2\necho 'Run with --help for more information.' >&2\nexit 109")
            << QStringLiteral("studio-train probe failed: The following arguments were not "
                              "expected: --json --probe");
        QTest::newRow("not JSON") << QStringLiteral("echo 'LibTorch 2.1'")
                                  << QStringLiteral("studio-train probe failed: it printed no "
                                                    "JSON (\"LibTorch 2.1\")");
        QTest::newRow("field missing")
            << QStringLiteral("echo '{\"libtorch\": \"2.1.0\", \"cuda_available\": false}'")
            << QStringLiteral("studio-train probe failed: field \"cuda_compiled\" is missing");
        QTest::newRow("killed") << QStringLiteral("kill -9 $$")
                                << QStringLiteral("studio-train probe failed: killed by signal 9");
    }

    void failingProbe() {
        QFETCH(QString, body);
        QFETCH(QString, error);
        const QString trainer = script(body);
        const auto jRun = doctorJson(trainer, pythonWithTorch("1.13.1"));
        QCOMPARE(jRun.code, 1);
        const nlohmann::json& j = jRun.doc;
        QCOMPARE(j["ok"], false);
        QVERIFY(j["trainer"].is_null());
        QVERIFY2(QString::fromStdString(j["trainer_error"].get<std::string>()).startsWith(error),
                 j.dump().c_str());
        QCOMPARE(j["python"]["torch"], "1.13.1");

        const DoctorRun text = doctor(trainer, pythonWithTorch("1.13.1"), false);
        QCOMPARE(text.code, 1);
        QVERIFY2(text.out.contains(QStringLiteral("\nerror: ") + error), qPrintable(text.out));
        QVERIFY(!text.out.contains(QStringLiteral("devices:")));
    }

    void trainerNotFound() {
        const auto jRun =
            doctorJson(m_dir.filePath(QStringLiteral("no-such-trainer")), pythonWithTorch("2.1"));
        QCOMPARE(jRun.code, 1);
        const nlohmann::json& j = jRun.doc;
        QCOMPARE(j["ok"], false);
        QVERIFY2(j["trainer_error"].get<std::string>().find("no-such-trainer") != std::string::npos,
                 j.dump().c_str());
    }

    // This build's studio-train and Python, as a user's `mlstudio doctor` sees them.
    void realTrainer() {
        const auto jRun = doctorJson({}, {});
        QCOMPARE(jRun.code, 0);
        const nlohmann::json& j = jRun.doc;
        QVERIFY2(j["ok"] == true, j.dump(2).c_str());
        QCOMPARE(j["studio_train"]["path"].get<std::string>(),
                 std::string(STUDIO_BIN_DIR "/studio-train"));
        QCOMPARE(j["studio_train"]["from_env"], false);
        QVERIFY(!j["trainer"]["libtorch"].get<std::string>().empty());
        QCOMPARE(j["trainer"]["gloo"], true);
        const DoctorRun text = doctor({}, {}, false);
        QCOMPARE(text.code, 0);
        qInfo().noquote() << "\n" << text.out;
    }
};

QTEST_GUILESS_MAIN(TestDoctor)
#include "test_doctor.moc"

// Help > About ML Studio: the box opens at once with "probing…", then shows the doctor report of
// a stand-in trainer ($MLSTUDIO_TRAINER) and Python ($MLSTUDIO_PYTHON); the report's HTML for a
// CPU trainer, two GPUs and a failed probe.
#include "engine/control/controller.h"
#include "tests/support/screenshot.h"
#include "tests/support/test_controller.h"
#include "widgets/shell/about_dialog.h"
#include "widgets/shell/main_window.h"

#include <QAction>
#include <QFile>
#include <QLabel>
#include <QMenuBar>
#include <QTemporaryDir>
#include <QtTest>

Q_DECLARE_METATYPE(studio::control::DoctorReport)

using namespace studio;
using namespace studio::models;
using namespace studio::widgets;

namespace {

control::DoctorReport cpuReport() {
    control::DoctorReport r;
    r.version = "1.0";
    r.probe.emplace();
    r.probe->libtorch = "1.13.1";
    r.probe->gloo = true;
    r.probe->blas = "open (OpenBLAS)";
    r.probe->intraOpThreads = 2;
    r.probe->interOpThreads = 1;
    r.probe->ncclProcessGroup = "unavailable: no CUDA";
    r.probe->amp = {"bf16"};
    r.python = "/usr/bin/python3";
    r.pythonTorch = "1.13.0a0";
    r.torchMatch = true;
    return r;
}

control::DoctorReport twoGpuReport() {
    control::DoctorReport r = cpuReport();
    r.probe->libtorch = "2.15.0";
    r.probe->cudaCompiled = r.probe->cudaAvailable = true;
    r.probe->cudaRuntime = "13.2";
    for (int i = 0; i < 2; ++i)
        r.probe->devices.push_back({i, "NVIDIA H100 80GB HBM3", 85045608448, "9.0"});
    r.probe->ncclCompiled = true;
    r.probe->ncclVersion = "2.30.7";
    r.probe->ncclProcessGroup = "ok";
    r.torchMatch = false;
    r.warnings = {"Python torch 1.13.0a0 and studio-train's LibTorch 2.15.0 differ"};
    return r;
}

control::DoctorReport failedReport() {
    control::DoctorReport r = cpuReport();
    r.probe.reset();
    r.torchMatch.reset();
    r.probeError = "studio-train probe failed: The following argument was not expected: <x>";
    return r;
}

} // namespace

class TestAboutDialog : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;

    QString script(const QString& name, const QByteArray& body) {
        const QString path = m_dir.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            qFatal("cannot write %s", qPrintable(path));
        f.write("#!/bin/sh\n" + body + "\n");
        f.close();
        f.setPermissions(f.permissions() | QFile::ExeOwner);
        return path;
    }

private Q_SLOTS:
    void reportHtml_data() {
        QTest::addColumn<control::DoctorReport>("report");
        QTest::addColumn<QStringList>("shown");
        QTest::addColumn<QStringList>("absent");
        QTest::newRow("cpu") << cpuReport()
                             << QStringList{QStringLiteral("<b>LibTorch</b></td><td>1.13.1<"),
                                            QStringLiteral("not compiled in (CPU LibTorch)"),
                                            QStringLiteral("no CUDA device"),
                                            QStringLiteral("open (OpenBLAS)"),
                                            QStringLiteral("intra-op 2, inter-op 1"),
                                            QStringLiteral("1.13.0a0 (matches LibTorch 1.13.1)")}
                             << QStringList{QStringLiteral("Warnings")};
        QTest::newRow("two GPUs")
            << twoGpuReport()
            << QStringList{QStringLiteral("runtime 13.2, available"),
                           QStringLiteral("<b>cuda:0</b></td><td>NVIDIA H100 80GB HBM3, 79.2 GiB, "
                                          "capability 9.0"),
                           QStringLiteral("<b>cuda:1</b>"),
                           QStringLiteral("2.30.7, process group ok"),
                           QStringLiteral("<li>Python torch 1.13.0a0 and studio-train's "
                                          "LibTorch 2.15.0 differ</li>")}
            << QStringList{QStringLiteral("no CUDA device")};
        QTest::newRow("failed probe")
            << failedReport()
            << QStringList{QStringLiteral("unknown: the probe failed"),
                           QStringLiteral("<b>studio-train probe failed: The following argument "
                                          "was not expected: &lt;x&gt;</b>"),
                           QStringLiteral("1.13.0a0<")}
            << QStringList{QStringLiteral("Gloo"), QStringLiteral("CUDA")};
    }

    void reportHtml() {
        QFETCH(control::DoctorReport, report);
        QFETCH(QStringList, shown);
        QFETCH(QStringList, absent);
        const QString html = doctorReportHtml(report);
        for (const QString& s : shown)
            QVERIFY2(html.contains(s), qPrintable(s + QStringLiteral(" in ") + html));
        for (const QString& s : absent)
            QVERIFY2(!html.contains(s), qPrintable(s + QStringLiteral(" in ") + html));
    }

    void helpAboutShowsTheProbe() {
        const QString probe = m_dir.filePath(QStringLiteral("probe.json"));
        QFile f(probe);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"libtorch": "2.15.0", "cuda_compiled": true, "cuda_available": true,
            "cuda_runtime": "13.2", "devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3",
            "memory_bytes": 85045608448, "capability": "9.0"}], "nccl": {"compiled": true,
            "version": "2.30.7", "process_group": "ok"}, "gloo": true, "blas": "mkl",
            "threads": {"intra_op": 16, "inter_op": 16}, "parallel": "ATen/Parallel: OpenMP",
            "amp": ["bf16", "fp16"]})");
        f.close();
        // A moment's delay, so the box is seen while it probes.
        qputenv("MLSTUDIO_TRAINER",
                script(QStringLiteral("trainer.sh"), "sleep 0.3; cat '" + probe.toUtf8() + "'")
                    .toUtf8());
        qputenv("MLSTUDIO_PYTHON", script(QStringLiteral("python.sh"), "echo 2.15.1").toUtf8());

        QTemporaryDir home;
        control::Controller controller(testControllerOptions(home.path()));
        MainWindow w(controller);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QAction* about = nullptr;
        for (QAction* a : w.menuBar()->findChildren<QAction*>())
            if (a->text() == QStringLiteral("&About ML Studio"))
                about = a;
        QVERIFY(about);
        about->trigger();
        auto* box = w.findChild<AboutDialog*>(QStringLiteral("aboutDialog"));
        QVERIFY(box);
        QTRY_VERIFY(box->isVisible());
        QCOMPARE(box->reportText(), QStringLiteral("probing…"));
        QVERIFY(!box->probed());
        shoot(box, "about-probing.png");
        about->trigger(); // a second click brings the same box forward
        QCOMPARE(w.findChildren<AboutDialog*>().size(), 1);

        QTRY_VERIFY_WITH_TIMEOUT(box->probed(), 20000);
        const QString text = box->reportText();
        QVERIFY2(text.contains(QStringLiteral("<b>LibTorch</b></td><td>2.15.0<")),
                 qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("NVIDIA H100 80GB HBM3, 79.2 GiB, capability 9.0")));
        QVERIFY(text.contains(QStringLiteral("2.15.1 (matches LibTorch 2.15.0)")));
        shoot(box, "about.png");
        box->close();
        QTRY_VERIFY(w.findChildren<AboutDialog*>().isEmpty());
        qunsetenv("MLSTUDIO_TRAINER");
        qunsetenv("MLSTUDIO_PYTHON");
    }
};

QTEST_MAIN(TestAboutDialog)
#include "test_about_dialog.moc"

// What the notebook GUI tests share: a studio home in a temporary folder, a window whose
// notebooks get real Jupyter kernels (ipykernel, with this tree's `mlstudio` package and CLI),
// notebooks written from code cells, and waits on a cell's end.
#pragma once

#include "app/notebook/jupyter_kernel.h"
#include "app/notebook/kernel_environment.h"
#include "engine/control/controller.h"
#include "models/notebook/notebook_document.h"
#include "tests/support/test_controller.h"
#include "widgets/notebook/code_cell_widget.h"
#include "widgets/notebook/notebook_editor.h"
#include "widgets/shell/main_window.h"
#include "widgets/shell/notebook_tabs.h"

#include <QDir>
#include <QFile>
#include <QPointer>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QtTest>

#include <csignal>
#include <memory>

namespace notebook_fixture {

inline QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// A cell's finished() among the kernel's signals so far: -1 none, 0 failed, 1 ok.
inline int finishedState(const QSignalSpy& spy, const QString& cellId) {
    for (const QList<QVariant>& args : spy)
        if (args.at(0).toString() == cellId)
            return args.at(1).toBool() ? 1 : 0;
    return -1;
}

// Whether a process of this id still exists (a zombie counts as gone: it ran to its end).
inline bool processAlive(int pid) {
    if (pid <= 0 || ::kill(pid, 0) != 0)
        return false;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray line = stat.readAll();
    const qsizetype close = line.lastIndexOf(')');
    return close < 0 || line.mid(close + 2, 1) != "Z";
}

// A kernel factory as the studio's own: a JupyterKernel with the studio's environment.
inline studio::widgets::NotebookTabs::KernelFactory kernelFactory(const QString& home) {
    return [home](const QString& dir, const QString& name,
                  QObject* parent) -> studio::models::NotebookKernel* {
        studio::notebook::KernelLaunch launch;
        launch.kernelName = studio::notebook::installedKernel(name) ? name : QString();
        launch.workingDir = dir;
        launch.environment = studio::notebook::studioKernelEnvironment(home);
        return new studio::notebook::JupyterKernel(std::move(launch), parent);
    };
}

class Fixture {
public:
    void init() {
        qputenv("STUDIO_NO_DIALOGS", "1");
        qputenv("MLSTUDIO_HOME", m_home.path().toUtf8());
        qputenv("MLSTUDIO_IMDS_ENDPOINT", "off");
        qputenv("MLSTUDIO_CLI", STUDIO_BIN_DIR "/mlstudio");
        m_controller =
            std::make_unique<studio::control::Controller>(testControllerOptions(m_home.path()));
        m_workspace = m_home.filePath(QStringLiteral("workspace"));
        QDir().mkpath(m_workspace);
    }

    std::unique_ptr<studio::widgets::MainWindow> window() {
        auto w = std::make_unique<studio::widgets::MainWindow>(*m_controller);
        w->setKernelFactory(kernelFactory(m_home.path()));
        w->notebooks()->setSaveQuestion([](const QString&) { return QMessageBox::Discard; });
        w->resize(1500, 1000);
        w->show();
        return w;
    }

    QString writeNotebook(const QString& name, const QStringList& codeCells) const {
        studio::models::NotebookDocument doc = studio::models::NotebookDocument::create();
        doc.cells.clear();
        for (const QString& source : codeCells) {
            studio::models::NotebookCell c;
            c.id = doc.newCellId();
            c.source = source;
            doc.cells.append(c);
        }
        const QString path = QDir(m_workspace).filePath(name);
        doc.save(path);
        return path;
    }

    // Runs a cell and waits for its end; returns whether it succeeded.
    static bool runAndWait(studio::widgets::NotebookEditor* ed, int index, int timeoutMs = 60000) {
        QSignalSpy finished(ed->kernel(), &studio::models::NotebookKernel::finished);
        const QString id = ed->cell(index)->cellId();
        ed->runCell(index);
        return QTest::qWaitFor([&] { return finishedState(finished, id) >= 0; }, timeoutMs) &&
               finishedState(finished, id) == 1;
    }

    // Waits until the editor's kernel is ready.
    static bool waitIdle(studio::widgets::NotebookEditor* ed, int timeoutMs = 60000) {
        return QTest::qWaitFor(
            [&] { return ed->kernel()->state() == studio::models::KernelState::Idle; }, timeoutMs);
    }

    static void closeTab(studio::widgets::MainWindow& w, QWidget* tab) {
        QPointer<QWidget> gone = tab;
        Q_EMIT w.tabs()->tabCloseRequested(w.tabs()->indexOf(tab));
        QTRY_VERIFY(gone.isNull());
    }

    QString home() const { return m_home.path(); }
    const QString& workspace() const { return m_workspace; }
    studio::control::Controller& controller() { return *m_controller; }

private:
    QTemporaryDir m_home;
    QString m_workspace;
    std::unique_ptr<studio::control::Controller> m_controller;
};

} // namespace notebook_fixture

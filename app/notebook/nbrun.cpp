#include "app/notebook/nbrun.h"

#include "app/notebook/jupyter_kernel.h"
#include "app/notebook/kernel_environment.h"
#include "app/notebook/notebook_jobs.h"
#include "app/present/progress_bar.h"
#include "models/notebook/notebook_document.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFileInfo>
#include <QJsonArray>
#include <QTimer>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <optional>
#include <utility>

namespace studio::notebook {

namespace {

std::atomic<bool> g_interrupted{false};

void onSigint(int) {
    g_interrupted = true;
}

QString firstLine(const QString& source) {
    QString line = source.section(QLatin1Char('\n'), 0, 0).trimmed();
    if (line.size() > 60)
        line = line.left(57) + QStringLiteral("...");
    return line;
}

// The notebook to run; none, with the reason printed, when it cannot be read or does not run
// here.
std::optional<models::NotebookDocument> loadNotebook(const present::NotebookRunOptions& o) {
    models::NotebookDocument doc;
    try {
        doc = models::NotebookDocument::load(QString::fromStdString(o.notebook));
    } catch (const models::NotebookError& e) {
        std::fprintf(stderr, "mlstudio nbrun: %s\n", e.what());
        return std::nullopt;
    }
    if (doc.isJavaScript()) {
        std::fprintf(stderr,
                     "mlstudio nbrun: %s was written for a JavaScript kernel, which the studio "
                     "no longer has (its notebooks run on Jupyter kernels: Python by default); "
                     "its cells cannot run here\n",
                     o.notebook.c_str());
        return std::nullopt;
    }
    return doc;
}

// The kernelspec the notebook names, when it is installed; else the default Python kernel.
QString kernelNameFor(const models::NotebookDocument& doc) {
    const QString name = doc.metadata.value(QStringLiteral("kernelspec"))
                             .toObject()
                             .value(QStringLiteral("name"))
                             .toString();
    return installedKernel(name) ? name : QString();
}

// The kernel's outputs go into the document; stream text also to stdout.
void recordOutputs(JupyterKernel& kernel, models::NotebookDocument& doc) {
    QObject::connect(&kernel, &models::NotebookKernel::started, [&](const QString& id, int count) {
        if (const int i = doc.indexOf(id); i >= 0)
            doc.cells[i].executionCount = count;
    });
    QObject::connect(
        &kernel, &models::NotebookKernel::output,
        [&](const QString& id, const QJsonObject& output, const QString& display) {
            doc.appendOutput(id, output, display);
            if (output.value(QStringLiteral("output_type")).toString() == QStringLiteral("stream"))
                std::fputs(
                    models::joinedText(output.value(QStringLiteral("text"))).toUtf8().constData(),
                    stdout);
            std::fflush(stdout);
        });
    QObject::connect(&kernel, &models::NotebookKernel::displayUpdated,
                     [&](const QString& display, const QJsonObject& output) {
                         doc.updateDisplay(display, output);
                     });
    QObject::connect(&kernel, &models::NotebookKernel::outputCleared,
                     [&](const QString& id, bool wait) { doc.clearOutput(id, wait); });
}

// Waits until the kernel is ready; false (the reason printed) when it died instead.
bool waitReady(JupyterKernel& kernel) {
    QEventLoop loop;
    QString death;
    auto a = QObject::connect(
        &kernel, &models::NotebookKernel::stateChanged, &loop, [&](models::KernelState s) {
            if (s == models::KernelState::Idle || s == models::KernelState::Dead)
                loop.quit();
        });
    auto b = QObject::connect(&kernel, &models::NotebookKernel::died,
                              [&](const QString&, const QString& message) { death = message; });
    if (kernel.state() == models::KernelState::Starting)
        loop.exec();
    QObject::disconnect(a);
    QObject::disconnect(b);
    if (kernel.state() != models::KernelState::Idle) {
        std::fprintf(stderr, "mlstudio nbrun: %s\n", death.toUtf8().constData());
        return false;
    }
    return true;
}

// Runs one cell to its end; Ctrl-C or the cell timeout interrupts it (timedOut set for the
// latter). Whether it succeeded, and in how many seconds.
std::pair<bool, double> runCell(JupyterKernel& kernel, const models::NotebookCell& cell,
                                double cellTimeout, bool& timedOut, bool& aborted) {
    QElapsedTimer clock;
    clock.start();
    bool done = false, ok = false, interrupted = false;
    aborted = false;
    QEventLoop loop;
    auto finished = QObject::connect(&kernel, &models::NotebookKernel::finished, &loop,
                                     [&](const QString& id, bool success) {
                                         if (id != cell.id)
                                             return;
                                         done = true;
                                         ok = success;
                                         loop.quit();
                                     });
    auto cancelled = QObject::connect(&kernel, &models::NotebookKernel::cancelled, &loop,
                                      [&](const QString& id) {
                                          if (id != cell.id)
                                              return;
                                          done = true;
                                          aborted = true;
                                          loop.quit();
                                      });
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&] {
        const bool late = cellTimeout > 0 && clock.elapsed() > cellTimeout * 1000;
        if ((g_interrupted || late) && !interrupted && kernel.busy()) {
            timedOut = timedOut || late;
            interrupted = true;
            kernel.interrupt();
        }
    });
    poll.start(100);
    kernel.execute(cell.id, cell.source);
    while (!done)
        loop.exec();
    QObject::disconnect(finished);
    QObject::disconnect(cancelled);
    return {ok, clock.elapsed() / 1000.0};
}

// "ename: evalue" of the cell's last error output.
QString errorOf(const models::NotebookCell& cell) {
    QString message;
    for (const QJsonValue& v : cell.outputs)
        if (v.toObject().value(QStringLiteral("output_type")).toString() == QStringLiteral("error"))
            message = v.toObject().value(QStringLiteral("ename")).toString() +
                      QStringLiteral(": ") +
                      v.toObject().value(QStringLiteral("evalue")).toString();
    return message;
}

struct CellsRun {
    int failures = 0;
    bool timedOut = false;
};

// Runs the code cells in order, each reported on stderr, until one fails (unless allowErrors)
// or Ctrl-C.
CellsRun runCodeCells(JupyterKernel& kernel, models::NotebookDocument& doc,
                      const present::NotebookRunOptions& o) {
    std::vector<int> code;
    for (int i = 0; i < doc.cells.size(); ++i)
        if (doc.cells[i].type == models::CellType::Code && !doc.cells[i].source.trimmed().isEmpty())
            code.push_back(i);
    CellsRun run;
    for (std::size_t k = 0; k < code.size() && !g_interrupted; ++k) {
        const models::NotebookCell& cell = doc.cells[code[k]];
        std::fprintf(stderr, "[%zu/%zu] cell %d: %s\n", k + 1, code.size(), code[k] + 1,
                     firstLine(cell.source).toUtf8().constData());
        bool aborted = false;
        const auto [ok, seconds] = runCell(kernel, cell, o.cellTimeout, run.timedOut, aborted);
        if (ok) {
            std::fprintf(stderr, "      ok (%s)\n", present::formatDuration(seconds).c_str());
            continue;
        }
        ++run.failures;
        const QString why = aborted ? QStringLiteral("not run (the kernel aborted it)")
                                    : errorOf(doc.cells[code[k]]);
        std::fprintf(stderr, "      failed after %s: %s\n",
                     present::formatDuration(seconds).c_str(), why.toUtf8().constData());
        if (!o.allowErrors || kernel.state() == models::KernelState::Dead)
            break;
    }
    return run;
}

} // namespace

int runNotebook(const present::NotebookRunOptions& o) {
    int argc = 1;
    char name[] = "mlstudio";
    char* argv[] = {name, nullptr};
    QCoreApplication app(argc, argv);

    const QString path = QString::fromStdString(o.notebook);
    std::optional<models::NotebookDocument> loaded = loadNotebook(o);
    if (!loaded)
        return 2;
    models::NotebookDocument& doc = *loaded;
    const QString out = o.out.empty() ? path : QString::fromStdString(o.out);

    KernelLaunch launch;
    launch.kernelName = kernelNameFor(doc);
    launch.workingDir = QFileInfo(path).absolutePath();
    launch.environment = studioKernelEnvironment();
    JupyterKernel kernel(launch);
    kernel.setStopOnError(!o.allowErrors);
    doc.clearOutputs();
    recordOutputs(kernel, doc);

    std::signal(SIGINT, onSigint);
    CellsRun run;
    if (waitReady(kernel)) {
        doc.setKernelMetadata(kernel.kernelspec(), kernel.languageInfo());
        run = runCodeCells(kernel, doc, o);
    } else {
        run.failures = 1;
    }
    // The notebook's jobs still running: wait for them, or stop them.
    NotebookJobs jobs(doc, g_interrupted);
    jobs.finish(o.stopJobs);

    try {
        doc.save(out);
    } catch (const models::NotebookError& e) {
        std::fprintf(stderr, "mlstudio nbrun: %s\n", e.what());
        return 2;
    }
    std::fprintf(stderr, "wrote %s\n", out.toUtf8().constData());
    std::signal(SIGINT, SIG_DFL);
    if (g_interrupted)
        return 130;
    if (run.timedOut)
        std::fprintf(stderr, "a cell ran past --timeout %g s\n", o.cellTimeout);
    return run.failures > 0 ? 1 : 0;
}

} // namespace studio::notebook

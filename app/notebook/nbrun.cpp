#include "app/notebook/nbrun.h"

#include "app/notebook/js_kernel.h"
#include "app/notebook/tuning_card.h"
#include "app/present/progress_bar.h"
#include "engine/control/controller.h"
#include "engine/control/tuner.h"
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
#include <set>
#include <utility>

namespace studio::notebook {

namespace {

std::atomic<bool> g_interrupted{false};

void onSigint(int) {
    g_interrupted = true;
}

bool jobEnded(const QString& status) {
    return !status.isEmpty() && status != QStringLiteral("InProgress") &&
           status != QStringLiteral("Stopping");
}

// The jobs the notebook's outputs show, with their last known status.
std::map<QString, QString> jobsOf(const models::NotebookDocument& doc) {
    std::map<QString, QString> jobs;
    for (const auto& cell : doc.cells)
        for (const QJsonValue& out : cell.outputs) {
            const QJsonObject job = out.toObject()
                                        .value(QStringLiteral("data"))
                                        .toObject()
                                        .value(QLatin1String(models::kJobMimeType))
                                        .toObject();
            if (!job.isEmpty())
                jobs[job.value(QStringLiteral("job")).toString()] =
                    job.value(QStringLiteral("status")).toString();
        }
    return jobs;
}

// The tuning jobs the notebook's outputs show, with their last known status.
std::map<QString, QString> tuningsOf(const models::NotebookDocument& doc) {
    std::map<QString, QString> tunings;
    for (const auto& cell : doc.cells)
        for (const QJsonValue& out : cell.outputs)
            if (const QString name = tuningOfOutput(out.toObject()); !name.isEmpty())
                tunings[name] = out.toObject()
                                    .value(QStringLiteral("data"))
                                    .toObject()
                                    .value(QLatin1String(kTuningMimeType))
                                    .toObject()
                                    .value(QStringLiteral("status"))
                                    .toString();
    return tunings;
}

QString firstLine(const QString& source) {
    QString line = source.section(QLatin1Char('\n'), 0, 0).trimmed();
    if (line.size() > 60)
        line = line.left(57) + QStringLiteral("...");
    return line;
}

// Runs the event loop for ms milliseconds.
void pumpFor(int ms) {
    QEventLoop loop;
    QTimer::singleShot(ms, &loop, &QEventLoop::quit);
    loop.exec();
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
    if (!doc.isJavaScript()) {
        std::fprintf(stderr,
                     "mlstudio nbrun: %s is not a JavaScript notebook "
                     "(metadata.language_info.name must be \"javascript\"); its cells cannot "
                     "run here\n",
                     o.notebook.c_str());
        return std::nullopt;
    }
    return doc;
}

// The kernel's outputs go into the document; stream text also to stdout.
void recordOutputs(JsKernel& kernel, models::NotebookDocument& doc) {
    QObject::connect(&kernel, &models::NotebookKernel::started, [&](const QString& id, int count) {
        if (const int i = doc.indexOf(id); i >= 0)
            doc.cells[i].executionCount = count;
    });
    QObject::connect(
        &kernel, &models::NotebookKernel::output,
        [&](const QString& id, const QJsonObject& output) {
            if (const int i = doc.indexOf(id); i >= 0)
                doc.cells[i].outputs.append(output);
            if (output.value(QStringLiteral("output_type")).toString() == QStringLiteral("stream"))
                std::fputs(output.value(QStringLiteral("text")).toString().toUtf8().constData(),
                           stdout);
            std::fflush(stdout);
        });
    QObject::connect(&kernel, &models::NotebookKernel::outputUpdated,
                     [&](const QString& id, const QString& displayId, const QJsonObject& output) {
                         doc.updateDisplay(id, displayId, output);
                     });
}

// Runs one cell to its end; Ctrl-C or the cell timeout interrupts it (timedOut set for the
// latter). Whether it succeeded, and in how many seconds.
std::pair<bool, double> runCell(JsKernel& kernel, const models::NotebookCell& cell,
                                double cellTimeout, bool& timedOut) {
    QElapsedTimer clock;
    clock.start();
    bool done = false, ok = false;
    QEventLoop loop;
    auto finished = QObject::connect(&kernel, &models::NotebookKernel::finished,
                                     [&](const QString& id, bool success) {
                                         if (id != cell.id)
                                             return;
                                         done = true;
                                         ok = success;
                                         loop.quit();
                                     });
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, [&] {
        const bool late = cellTimeout > 0 && clock.elapsed() > cellTimeout * 1000;
        if ((g_interrupted || late) && kernel.busy()) {
            timedOut = timedOut || late;
            kernel.interrupt();
        }
    });
    poll.start(100);
    kernel.execute(cell.id, cell.source);
    while (!done)
        loop.exec();
    QObject::disconnect(finished);
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
CellsRun runCodeCells(JsKernel& kernel, models::NotebookDocument& doc,
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
        const auto [ok, seconds] = runCell(kernel, cell, o.cellTimeout, run.timedOut);
        if (ok) {
            std::fprintf(stderr, "      ok (%s)\n", present::formatDuration(seconds).c_str());
            continue;
        }
        ++run.failures;
        std::fprintf(stderr, "      failed after %s: %s\n",
                     present::formatDuration(seconds).c_str(),
                     errorOf(doc.cells[code[k]]).toUtf8().constData());
        if (!o.allowErrors)
            break;
    }
    return run;
}

// The jobs and tuning jobs the notebook's outputs show, once its cells have run. A tuning job
// counts as running while it does; its training jobs are its own to stop.
class NotebookJobs {
public:
    NotebookJobs(control::Controller& controller, control::Tuner& tuner,
                 const models::NotebookDocument& doc)
        : m_controller(controller)
        , m_tuner(tuner)
        , m_doc(doc) {}

    // Waits for the ones still running, or stops them (stopJobs, or after Ctrl-C); Ctrl-C
    // while waiting stops them too.
    void finish(bool stopJobs) {
        const auto left = running();
        if (left.empty())
            return;
        const bool stop = stopJobs || g_interrupted;
        std::fprintf(stderr,
                     "%s %zu job(s) the notebook started:", stop ? "stopping" : "waiting for",
                     left.size());
        for (const auto& j : left)
            std::fprintf(stderr, " %s", j.c_str());
        std::fputc('\n', stderr);
        if (stop)
            for (const auto& j : left)
                stopJob(j, "Stopped by mlstudio nbrun");
        bool stopped = stop;
        while (!running().empty()) {
            if (g_interrupted && !stopped) {
                for (const auto& j : running())
                    stopJob(j, "Stopped by mlstudio nbrun (interrupted)");
                stopped = true;
            }
            pumpFor(200);
        }
    }

    // Lets the outputs take the jobs' final status (for up to 10 s).
    void settleOutputs() const {
        QElapsedTimer settle;
        settle.start();
        while (settle.elapsed() < 10000) {
            bool allFinal = true;
            for (const auto& [job, status] : jobsOf(m_doc))
                allFinal = allFinal && jobEnded(status);
            for (const auto& [tuning, status] : tuningsOf(m_doc))
                allFinal = allFinal && jobEnded(status);
            if (allFinal)
                break;
            pumpFor(100);
        }
    }

private:
    std::vector<std::string> running() const {
        std::set<std::string> names;
        for (const auto& r : m_controller.runningJobs())
            names.insert(r);
        for (const auto& r : m_tuner.runningTuningJobs())
            names.insert(r);
        std::vector<std::string> mine;
        for (const auto& [job, status] : jobsOf(m_doc))
            if (names.count(job.toStdString()))
                mine.push_back(job.toStdString());
        for (const auto& [tuning, status] : tuningsOf(m_doc))
            if (names.count(tuning.toStdString()))
                mine.push_back(tuning.toStdString());
        return mine;
    }

    void stopJob(const std::string& name, const std::string& why) {
        if (tuningsOf(m_doc).count(QString::fromStdString(name)))
            m_tuner.stop(name);
        else
            m_controller.stop(name, why);
    }

    control::Controller& m_controller;
    control::Tuner& m_tuner;
    const models::NotebookDocument& m_doc;
};

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

    control::Controller controller;
    control::Tuner tuner(controller); // one per controller, for the notebook's tuning jobs
    KernelOptions ko;
    ko.workingDir = QFileInfo(path).absolutePath();
    JsKernel kernel(controller, tuner, ko);
    doc.clearOutputs();
    recordOutputs(kernel, doc);

    std::signal(SIGINT, onSigint);
    const CellsRun run = runCodeCells(kernel, doc, o);
    // The notebook's jobs still running: wait for them (or stop them), then let their outputs
    // take their final status.
    NotebookJobs jobs(controller, tuner, doc);
    jobs.finish(o.stopJobs);
    jobs.settleOutputs();

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

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
#include <set>

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

} // namespace

int runNotebook(const present::NotebookRunOptions& o) {
    int argc = 1;
    char name[] = "mlstudio";
    char* argv[] = {name, nullptr};
    QCoreApplication app(argc, argv);

    const QString path = QString::fromStdString(o.notebook);
    models::NotebookDocument doc;
    try {
        doc = models::NotebookDocument::load(path);
    } catch (const models::NotebookError& e) {
        std::fprintf(stderr, "mlstudio nbrun: %s\n", e.what());
        return 2;
    }
    if (!doc.isJavaScript()) {
        std::fprintf(stderr,
                     "mlstudio nbrun: %s is not a JavaScript notebook "
                     "(metadata.language_info.name must be \"javascript\"); its cells cannot "
                     "run here\n",
                     o.notebook.c_str());
        return 2;
    }
    const QString out = o.out.empty() ? path : QString::fromStdString(o.out);

    control::Controller controller;
    control::Tuner tuner(controller); // one per controller, for the notebook's tuning jobs
    KernelOptions ko;
    ko.workingDir = QFileInfo(path).absolutePath();
    JsKernel kernel(controller, tuner, ko);
    doc.clearOutputs();

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

    std::signal(SIGINT, onSigint);
    std::vector<int> code;
    for (int i = 0; i < doc.cells.size(); ++i)
        if (doc.cells[i].type == models::CellType::Code && !doc.cells[i].source.trimmed().isEmpty())
            code.push_back(i);

    int failures = 0;
    bool timedOut = false;
    for (std::size_t k = 0; k < code.size() && !g_interrupted; ++k) {
        const models::NotebookCell& cell = doc.cells[code[k]];
        std::fprintf(stderr, "[%zu/%zu] cell %d: %s\n", k + 1, code.size(), code[k] + 1,
                     firstLine(cell.source).toUtf8().constData());
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
            const bool late = o.cellTimeout > 0 && clock.elapsed() > o.cellTimeout * 1000;
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
        const double seconds = clock.elapsed() / 1000.0;
        if (ok) {
            std::fprintf(stderr, "      ok (%s)\n", present::formatDuration(seconds).c_str());
            continue;
        }
        ++failures;
        QString message;
        for (const QJsonValue& v : doc.cells[code[k]].outputs)
            if (v.toObject().value(QStringLiteral("output_type")).toString() ==
                QStringLiteral("error"))
                message = v.toObject().value(QStringLiteral("ename")).toString() +
                          QStringLiteral(": ") +
                          v.toObject().value(QStringLiteral("evalue")).toString();
        std::fprintf(stderr, "      failed after %s: %s\n",
                     present::formatDuration(seconds).c_str(), message.toUtf8().constData());
        if (!o.allowErrors)
            break;
    }

    // The notebook's jobs still running: wait for them (or stop them), then let their outputs
    // take their final status.
    // A tuning job counts as running while it does; its training jobs are its own to stop.
    auto running = [&] {
        std::set<std::string> names;
        for (const auto& r : controller.runningJobs())
            names.insert(r);
        for (const auto& r : tuner.runningTuningJobs())
            names.insert(r);
        std::vector<std::string> mine;
        for (const auto& [job, status] : jobsOf(doc))
            if (names.count(job.toStdString()))
                mine.push_back(job.toStdString());
        for (const auto& [tuning, status] : tuningsOf(doc))
            if (names.count(tuning.toStdString()))
                mine.push_back(tuning.toStdString());
        return mine;
    };
    auto stopJob = [&](const std::string& name, const std::string& why) {
        if (tuningsOf(doc).count(QString::fromStdString(name)))
            tuner.stop(name);
        else
            controller.stop(name, why);
    };
    auto pumpFor = [](int ms) {
        QEventLoop loop;
        QTimer::singleShot(ms, &loop, &QEventLoop::quit);
        loop.exec();
    };
    if (const auto left = running(); !left.empty()) {
        const bool stop = o.stopJobs || g_interrupted;
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
    QElapsedTimer settle;
    settle.start();
    while (settle.elapsed() < 10000) {
        bool allFinal = true;
        for (const auto& [job, status] : jobsOf(doc))
            allFinal = allFinal && jobEnded(status);
        for (const auto& [tuning, status] : tuningsOf(doc))
            allFinal = allFinal && jobEnded(status);
        if (allFinal)
            break;
        pumpFor(100);
    }

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
    if (timedOut)
        std::fprintf(stderr, "a cell ran past --timeout %g s\n", o.cellTimeout);
    return failures > 0 ? 1 : 0;
}

} // namespace studio::notebook

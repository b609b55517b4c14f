#include "app/notebook/notebook_jobs.h"

#include "app/notebook/kernel_environment.h"
#include "engine/control/studio_home.h"
#include "engine/store/records.h"
#include "engine/store/store_reader.h"
#include "models/notebook/output_mime.h"

#include <QJsonArray>
#include <QProcess>
#include <QThread>

#include <cstdio>
#include <exception>

namespace studio::notebook {

namespace {

void addOnce(QStringList& names, const QString& name) {
    if (!name.isEmpty() && !names.contains(name))
        names.append(name);
}

} // namespace

NotebookJobNames notebookJobs(const models::NotebookDocument& doc) {
    NotebookJobNames names;
    for (const auto& cell : doc.cells)
        for (const QJsonValue& v : cell.outputs) {
            const QJsonObject out = v.toObject();
            addOnce(names.jobs, models::jobOfOutput(out));
            addOnce(names.tunings, models::tuningOfOutput(out));
        }
    return names;
}

NotebookJobs::NotebookJobs(const models::NotebookDocument& doc,
                           const std::atomic<bool>& interrupted)
    : m_names(notebookJobs(doc))
    , m_interrupted(interrupted) {
}

QStringList NotebookJobs::running() const {
    QStringList live;
    if (m_names.jobs.isEmpty() && m_names.tunings.isEmpty())
        return live;
    try {
        store::StoreReader reader(control::databasePath(control::studioHome()));
        for (const QString& job : m_names.jobs)
            if (auto row = reader.component(job.toStdString());
                row && store::isLiveStatus(row->status))
                live.append(job);
        for (const QString& tuning : m_names.tunings)
            if (auto row = reader.tuningJob(tuning.toStdString());
                row && store::isLiveStatus(row->status))
                live.append(tuning);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mlstudio nbrun: cannot read the notebook's jobs: %s\n", e.what());
    }
    return live;
}

void NotebookJobs::stopAll(const QStringList& names, const char* why) {
    for (const QString& name : names) {
        std::fprintf(stderr, "stopping %s (%s)\n", name.toUtf8().constData(), why);
        QProcess stop;
        stop.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        stop.start(studioCliPath(), {QStringLiteral("stop"), name});
        if (!stop.waitForFinished(60000))
            stop.kill();
    }
}

void NotebookJobs::finish(bool stop) {
    QStringList left = running();
    if (left.isEmpty())
        return;
    std::fprintf(stderr, "%s %lld job(s) the notebook started: %s\n",
                 stop || m_interrupted ? "stopping" : "waiting for",
                 static_cast<long long>(left.size()),
                 left.join(QLatin1Char(' ')).toUtf8().constData());
    bool stopped = false;
    if (stop || m_interrupted) {
        stopAll(left, stop ? "--stop-jobs" : "interrupted");
        stopped = true;
    }
    while (!(left = running()).isEmpty()) {
        if (m_interrupted && !stopped) {
            stopAll(left, "interrupted");
            stopped = true;
        }
        QThread::msleep(250);
    }
}

} // namespace studio::notebook

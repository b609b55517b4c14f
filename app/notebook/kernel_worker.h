// The kernel's worker: lives on the kernel thread and owns the QJSEngine, the studio API host and
// the custom rules' evaluation. JsKernel drives it with queued calls; it answers with signals.
// Everything but interrupt() runs on the kernel thread.
#pragma once

#include "app/notebook/js_kernel.h"
#include "engine/debugger/external_rule.h"

#include <QJSValue>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QTimer>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

class QJSEngine;

namespace studio::store {
class StoreReader;
}
namespace studio::control {
class Tuner;
}

namespace studio::notebook {

class StudioHost;

class KernelWorker : public QObject {
    Q_OBJECT
public:
    // tuner: the controller's tuner, for tuning jobs; null where this kernel starts none.
    KernelWorker(control::Controller& controller, control::Tuner* tuner, KernelOptions options);
    ~KernelWorker() override;

    control::Controller& controller() const { return m_controller; }
    control::Tuner* tuner() const { return m_tuner; }
    const KernelOptions& options() const { return m_options; }
    void setWorkingDir(const QString& dir) { m_options.workingDir = dir; }
    QJSEngine* engine() const { return m_engine.get(); }
    // The studio database through this thread's own connection.
    store::StoreReader& reader();

    // Any thread: stops the running cell's JavaScript and the wait it may be in.
    void interrupt();
    bool interrupted() const { return m_interrupted.load(); }

    // Output of the running cell. Stream text is gathered and sent before any other output,
    // at the cell's end and while the cell waits.
    void writeStream(const QString& name, const QString& text);
    void sendOutput(const QJsonObject& output);
    // Runs the thread's event loop (jobs' updates, custom rules) for up to seconds; false when
    // the cell was interrupted meanwhile.
    bool pump(double seconds);
    // A job this kernel started: its output (display id "job:<name>") is updated as its status
    // changes, in the cell that started it.
    void watchJob(const QString& job);
    // A tuning job this kernel started: its card (display id "tuning:<name>") is updated as its
    // training jobs end and its best objective changes.
    void watchTuning(const QString& tuning);
    // Evaluates fn for the events a custom rule receives; the rule fails when fn throws.
    void addCustomRule(const QString& job, const QString& rule, const QJSValue& fn,
                       std::shared_ptr<debugger::ExternalRuleLink> link);
    void requestOpen(const QString& what, const QString& job);
    // The MIME bundle of a job's output as display_data (display id "job:<name>").
    QJsonObject jobDisplay(const QString& job);
    // The tuning job's card as display_data (tuning_card.h).
    QJsonObject tuningDisplay(const QString& tuning);

public Q_SLOTS:
    void runCell(const QString& cellId, const QString& source);
    // A fresh context; custom rules of the old one stop with an error.
    void reset();

Q_SIGNALS:
    void started(const QString& cellId, int executionCount);
    void output(const QString& cellId, const QJsonObject& output);
    void outputUpdated(const QString& cellId, const QString& displayId, const QJsonObject& output);
    void finished(const QString& cellId, bool ok);
    void restarted();
    void openRequested(const QString& what, const QString& job);

private:
    struct CustomRuleState {
        QString job;
        QString rule;
        QJSValue fn;
        QJSValue context; // {state, fire()} passed to fn
        std::shared_ptr<debugger::ExternalRuleLink> link;
    };
    struct WatchedJob {
        QString job;
        QString cellId;
        QString lastStatus;
        bool ended = false;
    };
    struct WatchedTuning {
        QString tuning;
        QString cellId;
        QString lastState; // status, counters and best, to update the card on a change
        bool ended = false;
    };

    void createEngine();
    void dropCustomRules(const QString& why);
    void flushStream();
    void drainRule(int id);
    void refreshJobs();
    bool refreshTunings(); // whether one still runs
    QJsonObject errorOutput(const QJSValue& error, const QString& source) const;

    control::Controller& m_controller;
    control::Tuner* m_tuner;
    KernelOptions m_options;
    std::mutex m_engineMutex; // m_engine's pointer, for interrupt() from other threads
    std::unique_ptr<QJSEngine> m_engine;
    StudioHost* m_host = nullptr; // owned by m_engine's object tree
    std::unique_ptr<store::StoreReader> m_reader;
    std::atomic<bool> m_interrupted{false};
    int m_executionCount = 0;
    QString m_cell;
    QString m_streamName;
    QString m_streamText;
    std::map<int, CustomRuleState> m_rules; // by id; a restart clears them
    int m_nextRuleId = 0;
    std::vector<WatchedJob> m_jobs;
    std::vector<WatchedTuning> m_tunings;
    QTimer m_refresh;
};

} // namespace studio::notebook

// The studio window's tuning jobs: opens a tuning job's tab (brought forward when open), relays
// the tuner's progress (through a TuningBridge) to the Tuning explorer and the data service (the
// open tabs reload on its notifications), stops tuning jobs through the tuner, and submits
// tuning documents from the launch dialog (parsed and submitted off the GUI thread). Without a
// tuner (tests, a window over a store) tabs still open from the store and Stop stays disabled.
// GUI thread only.
#pragma once

#include "models/common/background_task.h"

#include <QObject>
#include <QString>

namespace studio::control {
class Tuner;
}

namespace studio::models {
class TuningBridge;
struct TuningUpdate;
} // namespace studio::models

namespace studio::widgets {

class MainWindow;
class TuningView;

class TuningTabs : public QObject {
    Q_OBJECT
public:
    explicit TuningTabs(MainWindow& window);

    // The application's tuner (it outlives the window); null: none.
    void setTuner(control::Tuner* tuner);
    control::Tuner* tuner() const { return m_tuner; }
    // The tuning job's tab; null when name is empty.
    TuningView* open(const QString& name);
    // Asks the tuner to stop the tuning job; false when this studio cannot.
    bool stop(const QString& name);
    // parseTuningSpecText, then Tuner::submit, off the GUI thread; opens the tab on success.
    void submit(const QString& documentJson, const QString& baseDir);

Q_SIGNALS:
    void submitted(const QString& name);
    void submitFailed(const QString& message);
    // Every tuning job's progress as the tuner reports it (new bests, ends).
    void progressed(const studio::models::TuningUpdate& update);

private:
    void applyProgress(const models::TuningUpdate& update);
    bool runsHere(const QString& name) const;

    MainWindow& m_window;
    control::Tuner* m_tuner = nullptr;
    models::TuningBridge* m_bridge = nullptr;
    models::BackgroundTask<QString> m_submit{this};
};

} // namespace studio::widgets

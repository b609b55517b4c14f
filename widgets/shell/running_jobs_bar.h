// The status bar's job area: one compact progress item per job running in this studio (name,
// step of total, a bar), updated from the engine bridge's batches and, on each of the data
// service's refresh ticks, from the controller's progress.
#pragma once

#include "models/live/live_batch.h"

#include <QHash>
#include <QWidget>

class QHBoxLayout;
class QLabel;
class QProgressBar;

namespace studio::control {
class Controller;
}

namespace studio::models {
class DataService;
}

namespace studio::widgets {

class RunningJobsBar : public QWidget {
    Q_OBJECT
public:
    RunningJobsBar(control::Controller& controller, models::DataService* service,
                   QWidget* parent = nullptr);

    void applyBatch(const models::LiveBatch& batch);
    int runningCount() const { return static_cast<int>(m_items.size()); }
    // Total steps of a running job, when the controller knows them (-1 otherwise).
    qint64 totalSteps(const QString& job) const;

Q_SIGNALS:
    void jobClicked(const QString& job);

private:
    struct Item {
        QWidget* box = nullptr;
        QLabel* label = nullptr;
        QProgressBar* bar = nullptr;
        qint64 total = -1;
    };
    void poll();
    void sync(const QStringList& running);
    bool eventFilter(QObject* watched, QEvent* event) override;

    control::Controller& m_controller;
    QHBoxLayout* m_layout;
    QLabel* m_idle;
    QHash<QString, Item> m_items;
};

} // namespace studio::widgets

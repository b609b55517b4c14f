// The top of a tuning job's tab: its name and status, strategy, objective, the training jobs'
// counters (completed, stopped early, failed, in progress of max_jobs), the best job with its
// objective and hyperparameters, and Stop while it runs. GUI thread only.
#pragma once

#include "models/tuning/tuning_data.h"

#include <QHash>
#include <QWidget>

class QLabel;
class QPushButton;

namespace studio::widgets {

class TuningHeader : public QWidget {
    Q_OBJECT
public:
    explicit TuningHeader(const QString& name, QWidget* parent = nullptr);

    void present(const models::TuningJobData& data);
    void setStoppable(bool stoppable);
    QPushButton* stopButton() const { return m_stop; }
    // The texts shown, for tests: "completed", "stoppedEarly", "failed", "inProgress", "best",
    // "bestHyperparameters", "status", "summary".
    QString text(const QString& field) const;

Q_SIGNALS:
    void stopRequested();
    void openJobRequested(const QString& job);

private:
    QLabel* counter(const QString& key, const QString& caption, const QString& status);
    QLabel* m_status;
    QLabel* m_summary;
    QLabel* m_best;
    QLabel* m_bestValues;
    QPushButton* m_stop;
    QHash<QString, QLabel*> m_fields;
    bool m_running = false;
    bool m_stoppable = false;
};

} // namespace studio::widgets

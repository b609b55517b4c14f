// A notebook output for one training job: name, status, progress, a loss sparkline and Logs,
// Insights and Stop buttons. Live from the engine bridge's batches while the job runs (whichever
// cell runs meanwhile); a finished job's card (a reopened notebook) reads the store through the
// data service. GUI thread only.
#pragma once

#include "models/common/background_task.h"
#include "models/data/job_queries.h"
#include "models/live/live_batch.h"

#include <QFrame>
#include <QJsonObject>
#include <QMap>
#include <QPointer>

class QLabel;
class QLayout;
class QProgressBar;
class QPushButton;
class QTimer;

namespace studio::models {
class DataService;
class EngineBridge;
} // namespace studio::models

namespace studio::widgets {

class LossSparkline;

class JobOutputWidget : public QFrame {
    Q_OBJECT
public:
    // Without the service's engine bridge the card reads the store again on the service's
    // refresh until the job ends.
    JobOutputWidget(QString job, models::DataService* service, QWidget* parent = nullptr);

    const QString& job() const { return m_job; }
    QString status() const { return m_status; }
    bool ended() const;
    qint64 step() const { return m_step; }
    qint64 totalSteps() const { return m_total; }
    int lossPoints() const { return static_cast<int>(m_loss.size()); }
    void applyBatch(const models::LiveBatch& batch);
    // What the kernel's job output says (the kJobMimeType payload: {"job", "status",
    // "secondary_status", "step", "total", "failure_reason", ...}): a total the live batches do
    // not carry, and the status shown until the store or the engine says more.
    void setInfo(const QJsonObject& info);
    // Reads status and loss from the store again.
    void reload();

Q_SIGNALS:
    void openLogs(const QString& job);
    void openInsights(const QString& job);
    void stopJob(const QString& job);

private:
    // Whether the window's own controller runs the job (else another process does).
    bool ownJob() const;
    QLayout* buildHead();
    QLayout* buildButtons();
    void present(const models::JobCardSnapshot& s);
    void refresh();
    void scheduleRefresh();

    QString m_job;
    models::DataService* m_service;
    QPointer<models::EngineBridge> m_bridge;
    models::BackgroundTask<models::JobCardSnapshot> m_task{this};
    QString m_status;
    QString m_secondary;
    QString m_message;
    QString m_lossMetric;
    QMap<qint64, double> m_loss;
    qint64 m_step = -1;
    qint64 m_total = -1;
    QTimer* m_repaint; // batches live repaints (~40 ms)

    QLabel* m_name;
    QLabel* m_statusLabel;
    QLabel* m_secondaryLabel;
    QProgressBar* m_progress;
    LossSparkline* m_chart;
    QPushButton* m_stop;
};

} // namespace studio::widgets

// A notebook output for one hyperparameter tuning job (kTuningMimeType): its name and status,
// training jobs done of max_jobs, the best objective so far with its job, a bar per training
// job's objective, and Open and Stop buttons. It shows what the output's payload says until the
// store answers, then follows the store through the data service (its refresh and the tuner's
// progress) until the tuning job ends. GUI thread only.
#pragma once

#include "models/common/background_task.h"
#include "models/notebook/tuning_summary.h"
#include "models/tuning/tuning_data.h"

#include <QFrame>
#include <QJsonObject>

class QLabel;
class QLayout;
class QProgressBar;
class QPushButton;

namespace studio::models {
class DataService;
} // namespace studio::models

namespace studio::widgets {

class TuningOutputBars;

class TuningOutputWidget : public QFrame {
    Q_OBJECT
public:
    TuningOutputWidget(QString tuning, models::DataService* service, QWidget* parent = nullptr);

    const QString& tuning() const { return m_tuning; }
    const models::TuningCardSummary& summary() const { return m_summary; }
    // Whether the store has answered (else the card shows the output's payload).
    bool fromStore() const { return m_fromStore; }
    bool ended() const { return m_summary.ended(); }
    // The output's payload: shown until the store answers, and kept when it never does (a
    // notebook run elsewhere).
    void setInfo(const QJsonObject& payload);
    // Reads the tuning job from the store again.
    void reload();
    // The card's text: name, status, progress and best, for tests and copying.
    QString text() const;

Q_SIGNALS:
    void openTuning(const QString& tuning);
    void stopTuning(const QString& tuning);

private:
    QLayout* buildHead();
    QLayout* buildButtons();
    void present(const models::TuningCardSummary& summary);

    QString m_tuning;
    models::DataService* m_service;
    models::BackgroundTask<models::TuningJobData> m_task{this};
    models::TuningCardSummary m_summary;
    bool m_fromStore = false;

    QLabel* m_name;
    QLabel* m_statusLabel;
    QLabel* m_progressLabel;
    QProgressBar* m_progress;
    QLabel* m_best;
    TuningOutputBars* m_bars;
    QPushButton* m_stop;
};

} // namespace studio::widgets

// The Findings panel: what the Debugger's rules found in recent jobs, newest first, with the
// notifications of Notify actions; double-click opens the job. Loads through the data service.
#pragma once

#include "engine/store/records.h"
#include "models/common/background_task.h"
#include "models/jobs/findings_model.h"
#include "models/live/live_batch.h"

#include <QWidget>

class QComboBox;
class QLabel;
class QTableView;
class QTimer;

namespace studio::models {
class DataService;
}

namespace studio::widgets {

class FindingsPanel : public QWidget {
    Q_OBJECT
public:
    explicit FindingsPanel(models::DataService* service, QWidget* parent = nullptr);

    void refresh();
    void applyBatch(const models::LiveBatch& batch);
    int count() const;
    int notificationsSeen() const { return m_notificationsSeen; }

Q_SIGNALS:
    void openJobRequested(const QString& job);
    // A Notify action fired in a job of this studio.
    void notified(const QString& job, const QString& rule, const QString& message);

private:
    void present(std::vector<models::FindingItem> items);

    models::DataService* m_service;
    QComboBox* m_scope;
    QLabel* m_summary;
    models::FindingsModel* m_model;
    QTableView* m_table;
    QTimer* m_reloadSoon;
    std::vector<models::FindingItem> m_items;
    int m_notificationsSeen = 0;
    models::BackgroundTask<std::vector<models::FindingItem>> m_task{this};
};

} // namespace studio::widgets

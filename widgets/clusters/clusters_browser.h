// The Clusters explorer page: the cluster tree (the built-in "local" first, then the stored
// clusters with their hosts), the selected cluster's or host's details, and Add / Edit / Remove /
// Check. Loads, saves, removes and checks off the GUI thread; during a check each host's result
// shows as soon as that host has answered. Reads through the data service. GUI thread only.
#pragma once

#include "engine/remote/cluster_check.h"
#include "models/clusters/cluster_tree_model.h"
#include "models/common/background_task.h"

#include <QString>
#include <QStringList>
#include <QWidget>

#include <map>
#include <optional>
#include <vector>

class QLabel;
class QModelIndex;
class QToolButton;
class QTreeView;

namespace studio::store {
class StoreWriter;
}

namespace studio::models {
class DataService;
}

namespace studio::widgets {

class ClustersBrowser : public QWidget {
    Q_OBJECT
public:
    // writer: the controller's, the process's only database writer; it outlives the page.
    // home: the studio home (SSH control sockets; the local check's disk). localLauncher: this
    // build's studio-launcher, which the check of "local" runs.
    ClustersBrowser(models::DataService* service, store::StoreWriter& writer, QString home,
                    QString localLauncher, QWidget* parent = nullptr);
    ~ClustersBrowser() override;

    models::ClusterTreeModel* model() const { return m_model; }
    QTreeView* view() const { return m_view; }
    // The outcome of the last action ("Removed cluster gpu-lab", why a removal was refused, ...).
    QString message() const;
    bool checking() const { return !m_checking.isEmpty(); }
    QString currentCluster() const;
    void selectCluster(const QString& name, int host = -1);

public Q_SLOTS:
    void refresh();
    void addCluster();
    void editCluster(const QString& name);
    // Asks first; refused while a job of the cluster runs.
    void removeCluster(const QString& name);
    void checkCluster(const QString& name);

Q_SIGNALS:
    void loaded();
    void checkFinished(const QString& cluster, bool allReady);
    void removed(const QString& cluster);

private:
    struct RemoveOutcome {
        QStringList busyJobs; // running on the cluster: nothing was removed
        bool removed = false;
    };

    QWidget* buildButtons();
    void openDialog(const std::optional<remote::ClusterConfig>& existing);
    void save(const remote::ClusterConfig& c, bool acceptNewHostKeys);
    void startCheck(remote::ClusterConfig c, bool acceptNewHostKeys);
    void hostChecked(const QString& cluster, const remote::HostCheck& host);
    void checkDone(const QString& cluster, const remote::ClusterCheck& check);
    void startQueuedCheck();
    void present(std::vector<models::ClusterEntry> entries);
    void removeDone(const QString& cluster, const RemoveOutcome& outcome);
    void setMessage(const QString& text, bool problem = false);
    void updateActions();
    void showDetails();
    QModelIndex currentIndex() const;

    models::DataService* m_service;
    store::StoreWriter& m_writer;
    QString m_home;
    QString m_localLauncher;
    models::ClusterTreeModel* m_model;
    QTreeView* m_view;
    QLabel* m_details;
    QLabel* m_message;
    QToolButton* m_add;
    QToolButton* m_edit;
    QToolButton* m_remove;
    QToolButton* m_check;

    models::BackgroundTask<std::vector<models::ClusterEntry>> m_load{this};
    models::BackgroundTask<remote::ClusterConfig> m_save{this};
    models::BackgroundTask<QStringList> m_runningJobs{this}; // before a removal
    models::BackgroundTask<RemoveOutcome> m_removal{this};
    models::BackgroundTask<remote::ClusterCheck> m_checkTask{this};
    QString m_checking;                               // the cluster being checked ("" when none)
    std::vector<remote::HostCheck> m_answered;        // its hosts that have answered so far
    std::map<QString, remote::ClusterCheck> m_checks; // checks run here, newest per cluster
    // A check asked for while another ran (a cluster saved during a check), with its
    // acceptNewHostKeys; it starts when that one ends.
    std::optional<std::pair<remote::ClusterConfig, bool>> m_queuedCheck;
    QString m_selectAfterLoad; // a cluster just saved
};

} // namespace studio::widgets

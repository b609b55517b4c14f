// The side explorer: one page per activity. Notebooks lists the workspace's spec, notebook and
// script files (a spec opens in the launch dialog, a notebook in its tab), Experiments shows the
// Experiment → Trial → job tree, Jobs lists every job with its status and a filter, Tuning the
// tuning jobs with their progress and best objective, Clusters the clusters and their hosts.
#pragma once

#include "models/live/live_batch.h"

#include <QWidget>

class QFileSystemModel;
class QLineEdit;
class QSortFilterProxyModel;
class QStackedWidget;
class QTreeView;

namespace studio::models {
class DataService;
class ExperimentTreeModel;
class JobListModel;
class TuningJobListModel;
} // namespace studio::models

namespace studio::widgets {

class ClustersBrowser;

class Explorer : public QWidget {
    Q_OBJECT
public:
    enum Page { NotebooksPage, ExperimentsPage, JobsPage, TuningPage, ClustersPage };

    // clusters: the Clusters page (it needs the controller's writer); the explorer takes it.
    // The lists load through the data service and reload when it says jobs changed.
    Explorer(models::DataService* service, QString workspace, ClustersBrowser* clusters,
             QWidget* parent = nullptr);

    void showPage(Page page);
    Page page() const;
    QString pageTitle(Page page) const;
    void setWorkspace(const QString& folder);
    QString workspace() const { return m_workspace; }
    void applyBatch(const models::LiveBatch& batch);
    void refresh();
    models::JobListModel* jobs() const { return m_jobs; }
    models::ExperimentTreeModel* experimentTree() const { return m_tree; }
    QTreeView* jobsView() const { return m_jobsView; }
    models::TuningJobListModel* tuningJobs() const { return m_tuningJobs; }
    QTreeView* tuningView() const { return m_tuningView; }
    ClustersBrowser* clusters() const { return m_clusters; }

Q_SIGNALS:
    void pageChanged(studio::widgets::Explorer::Page page);
    void openJobRequested(const QString& job);
    void openSpecRequested(const QString& path);
    void openNotebookRequested(const QString& path);
    // The experiment tree's current node (by mouse or keyboard): the leaderboard's scope; for a
    // job, its trial with the job selected (componentId; 0 otherwise).
    void scopeRequested(const QString& experiment, const QString& trial, qint64 componentId = 0);
    void stopJobRequested(const QString& job);
    void cloneJobRequested(const QString& job);
    void experimentBillingRequested(const QString& experiment);
    void insightsRequested(const QString& job);
    void openTuningJobRequested(const QString& name);
    void stopTuningJobRequested(const QString& name);

private:
    QWidget* buildNotebooks();
    QWidget* buildExperiments();
    QWidget* buildJobs();
    QWidget* buildTuning();
    QWidget* buildClusters();

    models::DataService* m_service;
    QString m_workspace;
    QStackedWidget* m_stack;
    QFileSystemModel* m_files = nullptr;
    QTreeView* m_filesView = nullptr;
    models::ExperimentTreeModel* m_tree = nullptr;
    models::JobListModel* m_jobs = nullptr;
    QSortFilterProxyModel* m_jobsFilter = nullptr;
    QTreeView* m_jobsView = nullptr;
    models::TuningJobListModel* m_tuningJobs = nullptr;
    QTreeView* m_tuningView = nullptr;
    ClustersBrowser* m_clusters;
};

} // namespace studio::widgets

// ExperimentsBrowser: the Experiments activity's page. The experiment tree on the left scopes the
// leaderboard on the right (an experiment, a trial, or a job's trial with the job selected);
// double-clicking a job asks to open it. Both read through the data service and reload when it
// says a job ended. GUI thread only.
#pragma once

#include <QList>
#include <QWidget>

class QLineEdit;
class QSortFilterProxyModel;
class QSplitter;
class QTreeView;

namespace studio::store {
class StoreWriter;
}

namespace studio::models {
class DataService;
class ExperimentTreeModel;
} // namespace studio::models

namespace studio::widgets {

class LeaderboardWidget;

class ExperimentsBrowser : public QWidget {
    Q_OBJECT
public:
    // writer may be null: the browser is then read-only. Both panes load at once.
    ExperimentsBrowser(models::DataService* service, store::StoreWriter* writer,
                       QWidget* parent = nullptr);

    models::ExperimentTreeModel* treeModel() const { return m_treeModel; }
    QTreeView* tree() const { return m_tree; }
    LeaderboardWidget* leaderboard() const { return m_leaderboard; }
    // The studio window hides the browser's own tree: its Experiments explorer drives the
    // leaderboard, so the window shows one experiment tree.
    void setTreeShown(bool shown);

public Q_SLOTS:
    void refresh();

Q_SIGNALS:
    void openJobRequested(const QString& jobName);
    void compareRequested(const QList<qint64>& componentIds);
    void cloneRequested(const QString& jobName);
    // "Open Debugger for insights": the job's Insights dashboard.
    void insightsRequested(const QString& jobName);

private:
    QWidget* buildTreePane();
    void connectUi();
    void scopeToCurrent();

    models::ExperimentTreeModel* m_treeModel;
    QSortFilterProxyModel* m_treeProxy;
    QTreeView* m_tree;
    QLineEdit* m_search;
    LeaderboardWidget* m_leaderboard;
    QSplitter* m_split;
    bool m_expandedOnce = false;
};

} // namespace studio::widgets

// The Welcome tab: opens on a first start and from Help → Welcome. Start (new job, open a spec,
// new notebook, the command palette, settings), every example of resources/ with what it shows
// and how long it takes on this kind of machine (one click runs a spec or a tuning spec, or
// opens a notebook as a copy in the workspace and runs it), the recent notebooks, specs and jobs,
// the clusters at a glance, and the documents to read. GUI thread only.
#pragma once

#include "models/shell/example_catalog.h"

#include <QScrollArea>

class QAction;
class QGridLayout;
class QVBoxLayout;

namespace studio::widgets {

class WelcomePage : public QScrollArea {
    Q_OBJECT
public:
    struct RecentJob {
        QString name;
        QString status;
    };
    struct ClusterGlance {
        QString name;
        QString kind;   // "ssh", "slurm"
        QString detail; // hosts, endpoint, or what is wrong with its definition
    };

    // start: the actions of the Start row (their shortcuts are shown); docs: folder of the
    // documents (README.md beside resources/ in a checkout, or the installed doc folder).
    WelcomePage(models::ExampleCatalog catalog, const QList<QAction*>& start,
                QWidget* parent = nullptr);

    void setRecent(const QStringList& notebooks, const QStringList& specs,
                   const QList<RecentJob>& jobs);
    void setClusters(const QList<ClusterGlance>& clusters);
    void setDocuments(const QList<QPair<QString, QString>>& titleAndPath);
    const models::ExampleCatalog& catalog() const { return m_catalog; }

Q_SIGNALS:
    void runExampleRequested(const studio::models::Example& example);
    void openNotebookRequested(const QString& path);
    void openSpecRequested(const QString& path);
    void openJobRequested(const QString& job);

private:
    QWidget* buildStart(const QList<QAction*>& start);
    QWidget* buildExamples();
    QWidget* exampleCard(const models::Example& e);
    void clear(QVBoxLayout* box);

    models::ExampleCatalog m_catalog;
    QVBoxLayout* m_recent = nullptr;
    QVBoxLayout* m_clusters = nullptr;
    QVBoxLayout* m_docs = nullptr;
    QStringList m_knownClusters;
};

} // namespace studio::widgets

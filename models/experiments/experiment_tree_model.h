// ExperimentTreeModel: experiments → trials → trial components (jobs), with status icons and
// counts, read through the data service. A refresh applies only what changed (rows
// inserted, removed, updated), so selection and expansion survive it. GUI thread only.
#pragma once

#include "models/common/background_task.h"

#include <QAbstractItemModel>
#include <QIcon>
#include <QString>

#include <memory>
#include <vector>

namespace studio::store {
class StoreReader;
}

namespace studio::models {

class DataService;

struct ExperimentTreeJob {
    qint64 id = 0;
    QString name;
    QString status;
    QString secondaryStatus;
    double created = 0;
    double started = 0;
    double ended = 0;
};

struct ExperimentTreeTrial {
    QString name;
    double created = 0;
    std::vector<ExperimentTreeJob> jobs; // by creation
};

struct ExperimentTreeExperiment {
    QString name;
    QString description;
    double created = 0;
    std::vector<ExperimentTreeTrial> trials; // by creation
};

// Experiments by creation, "Unassigned" (where the store files jobs without one) last.
struct ExperimentTreeSnapshot {
    std::vector<ExperimentTreeExperiment> experiments;
};

ExperimentTreeSnapshot loadExperimentTree(store::StoreReader& reader);

class ExperimentTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum class NodeKind { Experiment, Trial, Component };
    enum Role {
        KindRole = Qt::UserRole + 1, // int (NodeKind)
        NameRole,                    // QString: the plain name, without counts
        ComponentIdRole,             // qint64; components only
        ExperimentRole,              // QString: the experiment this node is in
        TrialRole,                   // QString: the trial (trials and components)
        StatusRole,                  // QString: the job's status; a trial's summary status
        JobCountRole,                // int
        TrialCountRole,              // int; experiments only
    };
    enum Column { NameColumn, StatusColumn, ColumnCount };

    // data may be null: then only setSnapshot() fills the model.
    explicit ExperimentTreeModel(DataService* data, QObject* parent = nullptr);
    ~ExperimentTreeModel() override;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    // Applies a snapshot with the fewest row changes (a reset only when the order of surviving
    // rows changed).
    void setSnapshot(const ExperimentTreeSnapshot& snapshot);
    // The icon shown beside experiments; the view passes its style's folder icon.
    void setFolderIcon(const QIcon& icon) { m_folderIcon = icon; }

    QModelIndex experimentIndex(const QString& experiment) const;
    QModelIndex trialIndex(const QString& experiment, const QString& trial) const;
    QModelIndex componentIndex(qint64 componentId) const;

    bool loading() const { return m_loading; } // a load runs whose result has not arrived

public Q_SLOTS:
    // Reads the store again in the background; loaded() follows.
    void refresh();

Q_SIGNALS:
    void loaded();
    void loadFailed(const QString& message);

private:
    struct Node;
    static std::unique_ptr<Node> buildTree(const ExperimentTreeSnapshot& snapshot);
    static QVariant displayText(const Node& n, int column, int trials);
    static QString toolTip(const Node& n, int trials);
    Node* nodeOf(const QModelIndex& index) const;
    QModelIndex indexOf(const Node* node, int column = 0) const;
    bool sync(Node* old, Node& fresh, const QModelIndex& parentIndex);

    DataService* m_service;
    QIcon m_folderIcon;
    std::unique_ptr<Node> m_root;
    bool m_loading = false;
    BackgroundTask<ExperimentTreeSnapshot> m_task;
};

} // namespace studio::models

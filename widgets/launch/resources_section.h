// The "Compute" page: where the job runs (this machine, a cluster's hosts, or a Slurm cluster's
// partition), nodes
// (instance_count) × processes per node, the instance type used for pricing, and how the ranks
// cooperate: none, data parallel, a pipeline, or a pipeline × data
// parallel hybrid (smdistributed.modelparallel with ddp).
#pragma once

#include "widgets/launch/cluster_choice.h"
#include "widgets/launch/spec_section.h"

#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QSpinBox;

namespace studio::widgets {

class PartitionPicker;

class ResourcesSection : public SpecSection {
    Q_OBJECT
public:
    explicit ResourcesSection(QWidget* parent = nullptr);

    // "none", "data:<pytorchddp|torch_distributed|smdistributed>", "pipeline" or "hybrid".
    QString strategy() const;
    int worldSize() const;
    // "local" or the chosen cluster's name.
    QString cluster() const;
    // The "Run on" choices besides this machine; the current choice stays (an unknown one is
    // listed as it is, for the validator to name).
    void setClusters(const std::vector<ClusterChoice>& clusters);
    PartitionPicker* partitionPicker() const { return m_partition; }

private:
    void buildResources();
    void buildDistribution();
    void buildPipeline();
    void watchFields();
    void bindResources();
    void bindDistribution();
    void bindPipeline();
    void afterLoad(const models::SpecDocument& doc) override;
    void applyStrategy(models::SpecDocument& doc, const QString& strategy) const;
    void showStrategy(const models::SpecDocument& distribution);
    void updateLayout();
    bool pipelined() const;
    // The chosen cluster's choice; nullopt for this machine or a cluster not offered.
    std::optional<ClusterChoice> chosenCluster() const;
    void bindPartition();

    std::vector<ClusterChoice> m_choices;
    QFormLayout* m_resourcesForm = nullptr;
    QComboBox* m_cluster = nullptr;
    PartitionPicker* m_partition = nullptr;
    QSpinBox* m_instanceCount = nullptr;
    QSpinBox* m_processesPerHost = nullptr;
    QComboBox* m_instanceType = nullptr;
    QLabel* m_worldSize = nullptr;
    QComboBox* m_strategy = nullptr;
    QComboBox* m_backend = nullptr;
    QFormLayout* m_distributionForm = nullptr;
    QFormLayout* m_pipelineForm = nullptr;
    QWidget* m_pipelineBox = nullptr;
    QSpinBox* m_partitions = nullptr;
    QSpinBox* m_microbatches = nullptr;
    QComboBox* m_schedule = nullptr;
    QComboBox* m_optimize = nullptr;
    QComboBox* m_placement = nullptr;
    QCheckBox* m_autoPartition = nullptr;
    QLabel* m_layout = nullptr;
};

} // namespace studio::widgets

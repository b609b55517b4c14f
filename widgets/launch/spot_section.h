// The "Spot" page: managed spot training (use_spot_instances, max_run, max_wait, retries), where
// checkpoints go, and a simulated spot market for local runs (spot_simulation).
#pragma once

#include "widgets/launch/spec_section.h"

class QCheckBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace studio::widgets {

class SpotSection : public SpecSection {
    Q_OBJECT
public:
    explicit SpotSection(QWidget* parent = nullptr);

private:
    void buildSpotGroup();
    void buildCheckpointGroup();
    void buildSimulationGroup();
    void connectFields();
    void bindFields();
    void afterLoad(const models::SpecDocument& doc) override;
    void updateEnabled();
    models::SpecDocument simulationValue() const;
    void showSimulation(const models::SpecDocument& v);

    QCheckBox* m_useSpot = nullptr;
    QSpinBox* m_maxRun = nullptr;
    QLabel* m_maxRunText = nullptr;
    QSpinBox* m_maxWait = nullptr;
    QLabel* m_maxWaitText = nullptr;
    QSpinBox* m_retries = nullptr;
    QLineEdit* m_checkpointPath = nullptr;
    QCheckBox* m_simulation = nullptr;
    QDoubleSpinBox* m_interruptions = nullptr;
    QDoubleSpinBox* m_capacityWait = nullptr;
    QSpinBox* m_seed = nullptr;
};

} // namespace studio::widgets

// The launch dialog's "Tuning" page: the "Tune hyperparameters" switch that turns the job into
// a hyperparameter tuning job, the objective (a metric the entry point reports), strategy,
// max_jobs, max_parallel_jobs, early stopping, and a range for each tuned hyperparameter of
// the job spec. It writes nothing into the job spec: the dialog wraps the spec as
// {"tuning": tuningObject(), "training": spec}. GUI thread only.
#pragma once

#include "widgets/launch/spec_section.h"

class QCheckBox;
class QComboBox;
class QSpinBox;
class QTableView;

namespace studio::models {
class TuningRangeModel;
} // namespace studio::models

namespace studio::widgets {

class TuningSection : public SpecSection {
    Q_OBJECT
public:
    explicit TuningSection(QWidget* parent = nullptr);

    bool tuning() const;
    void setTuning(bool on);
    // The "tuning" object of the tuning document.
    models::SpecDocument tuningObject() const;
    // Loads a tuning document's "tuning" object (and switches tuning on).
    void setTuningObject(const models::SpecDocument& tuning);
    // The job spec the ranges and metrics follow: its hyperparameters become rows; the
    // objective offers what it reports (a built-in model's metrics, else its
    // metric_definitions).
    void setJobSpec(const models::SpecDocument& spec, const QString& builtinModel);
    models::TuningRangeModel* ranges() const { return m_ranges; }
    QComboBox* objective() const { return m_objective; }

    // The job spec is not this page's to write.
    void save(models::SpecDocument&) const override {}

Q_SIGNALS:
    void tuningToggled(bool on);

private:
    QCheckBox* m_switch = nullptr;
    QComboBox* m_objective = nullptr;
    QComboBox* m_objectiveType = nullptr;
    QComboBox* m_strategy = nullptr;
    QSpinBox* m_maxJobs = nullptr;
    QSpinBox* m_maxParallel = nullptr;
    QComboBox* m_earlyStopping = nullptr;
    models::TuningRangeModel* m_ranges = nullptr;
    QTableView* m_table = nullptr;
    models::SpecDocument m_extra =
        models::SpecDocument::object(); // keys of a loaded "tuning" the form lacks
    QStringList m_knownMetrics;         // what the job reported last time
};

} // namespace studio::widgets

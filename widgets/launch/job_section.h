// The "Job" page: the job's base name and where it is filed (experiment, trial, display name).
#pragma once

#include "widgets/launch/spec_section.h"

class QLineEdit;

namespace studio::widgets {

class JobSection : public SpecSection {
    Q_OBJECT
public:
    explicit JobSection(QWidget* parent = nullptr);

    // The name a job gets when none is given (from the entry point), shown as a placeholder.
    void setDefaultName(const QString& name);

private:
    QLineEdit* m_name = nullptr;
    QLineEdit* m_experiment = nullptr;
    QLineEdit* m_trial = nullptr;
    QLineEdit* m_displayName = nullptr;
};

} // namespace studio::widgets

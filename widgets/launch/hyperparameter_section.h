// The "Hyperparameters" page: an editable name/value table with add and remove. For built-in
// models it offers the trainer's parameters with their defaults and prefills a sensible set.
#pragma once

#include "widgets/launch/spec_section.h"

class QMenu;
class QPushButton;
class QTableView;

namespace studio::models {
class HyperparameterModel;
} // namespace studio::models

namespace studio::widgets {

class HyperparameterSection : public SpecSection {
    Q_OBJECT
public:
    explicit HyperparameterSection(QWidget* parent = nullptr);

    models::HyperparameterModel* model() const { return m_model; }
    // Which built-in model the table describes ("" for a script).
    void setBuiltinModel(const QString& model);
    // The user switched models: a table still holding the old model's defaults gets the new
    // model's, and an lr left at the old default follows the new one.
    void switchModel(const QString& model, const QString& previous);
    // The parameters a new job with this built-in model starts with.
    static models::SpecDocument defaultsFor(const QString& model);

    void showProblems(const std::vector<spec::SpecError>& problems) override;

private:
    void fillAddMenu();
    void addCustom();
    void removeSelected();
    void resetDefaults();

    models::HyperparameterModel* m_model = nullptr;
    QTableView* m_view = nullptr;
    QPushButton* m_add = nullptr;
    QMenu* m_addMenu = nullptr;
    QPushButton* m_remove = nullptr;
    QPushButton* m_reset = nullptr;
};

} // namespace studio::widgets

// The "Rules" page: the Debugger rules watching the job, their actions (StopTraining, Notify)
// and their parameters, with SageMaker's defaults beside what the spec sets.
#pragma once

#include "widgets/launch/spec_section.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTableView;

namespace studio::models {
class RuleModel;
class RuleParameterModel;
} // namespace studio::models

namespace studio::widgets {

class RulesSection : public SpecSection {
    Q_OBJECT
public:
    explicit RulesSection(QWidget* parent = nullptr);

    models::RuleModel* rules() const { return m_rules; }
    models::RuleParameterModel* parameters() const { return m_parameters; }
    // Selects a rule's row, showing its parameters.
    void selectRule(int row);
    void showProblems(const std::vector<spec::SpecError>& problems) override;

private:
    void buildToolbar();
    void buildTables();
    void connectFields();
    void afterLoad(const models::SpecDocument& doc) override;
    void addSelectedRule();
    void removeSelectedRule();
    void currentRuleChanged();
    void showParameterProblems();
    QString describeRuleProblem(const spec::SpecError& e) const;
    QString describeParameterProblem(const spec::SpecError& e) const;

    models::RuleModel* m_rules = nullptr;
    models::RuleParameterModel* m_parameters = nullptr;
    QComboBox* m_catalog = nullptr;
    QPushButton* m_add = nullptr;
    QPushButton* m_remove = nullptr;
    QTableView* m_ruleView = nullptr;
    QLabel* m_description = nullptr;
    QTableView* m_parameterView = nullptr;
    std::vector<spec::SpecError> m_problems;
};

} // namespace studio::widgets

// The "Rules" page: the Debugger rules watching the job, their actions (StopTraining, Notify)
// and their parameters, with SageMaker's defaults beside what the spec sets.
#pragma once

#include "widgets/launch/spec_section.h"

class QComboBox;
class QLabel;
class QPushButton;
class QTableView;

namespace studio::widgets {

class RuleModel;
class RuleParameterModel;

class RulesSection : public SpecSection {
    Q_OBJECT
public:
    explicit RulesSection(QWidget* parent = nullptr);

    RuleModel* rules() const { return m_rules; }
    RuleParameterModel* parameters() const { return m_parameters; }
    // Selects a rule's row, showing its parameters.
    void selectRule(int row);
    void showProblems(const std::vector<spec::SpecError>& problems) override;

private:
    void afterLoad(const SpecDocument& doc) override;
    void addSelectedRule();
    void removeSelectedRule();
    void currentRuleChanged();
    void showParameterProblems();
    QString describeRuleProblem(const spec::SpecError& e) const;
    QString describeParameterProblem(const spec::SpecError& e) const;

    RuleModel* m_rules = nullptr;
    RuleParameterModel* m_parameters = nullptr;
    QComboBox* m_catalog = nullptr;
    QPushButton* m_add = nullptr;
    QPushButton* m_remove = nullptr;
    QTableView* m_ruleView = nullptr;
    QLabel* m_description = nullptr;
    QTableView* m_parameterView = nullptr;
    std::vector<spec::SpecError> m_problems;
};

} // namespace studio::widgets

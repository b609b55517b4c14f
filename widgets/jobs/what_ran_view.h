// The job tab's "What ran" page: the code (entry point, source tree, git commit and its
// uncommitted diff), each rank's runtime, the first rank's packages (filterable) and the top
// operators of a script's profiled window with its trace file. Views only: the data comes from
// the job's facts (models/jobs/what_ran_models.h).
#pragma once

#include "engine/store/records.h"

#include <QWidget>

class QFormLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace studio::models {
class OperatorsModel;
class PackagesModel;
} // namespace studio::models

namespace studio::widgets {

class WhatRanView : public QWidget {
    Q_OBJECT
public:
    explicit WhatRanView(QWidget* parent = nullptr);

    // jobDir: the job's folder, where the trace file is.
    void setFacts(const std::vector<store::FactsRow>& facts, const QString& jobDir);

    models::PackagesModel* packages() const { return m_packages; }
    models::OperatorsModel* operators() const { return m_operators; }

private:
    QWidget* buildOperators();

    QLabel* m_none;
    QFormLayout* m_summary;
    QWidget* m_summaryBox;
    QPlainTextEdit* m_diff;
    QLabel* m_diffTitle;
    models::PackagesModel* m_packages;
    QSortFilterProxyModel* m_packageFilter;
    QLineEdit* m_packageSearch;
    QTableView* m_packageTable;
    models::OperatorsModel* m_operators;
    QTableView* m_operatorTable;
    QLabel* m_operatorsTitle;
    QPushButton* m_openTrace;
    QString m_trace;
};

} // namespace studio::widgets

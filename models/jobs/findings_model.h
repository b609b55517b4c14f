// What the Debugger's rules found, one row per finding in the order given: a job's own findings
// (its Rules tab) or those of recent jobs with the job that each came from (the Findings panel).
// GUI thread only.
#pragma once

#include "engine/store/records.h"
#include "models/jobs/record_table_model.h"

#include <QString>

#include <vector>

namespace studio::models {

struct FindingItem {
    QString job;
    QString jobStatus;
    store::FindingRow finding;
    bool notified = false; // the rule has the Notify action and notified for this job
};

class FindingsModel : public RecordTableModel<FindingItem> {
    Q_OBJECT
public:
    // OneJob: Time, Rule, Step, Where, Finding, Advice. RecentJobs: Time, Job, Rule, Step,
    // Finding, Advice, with the rule marked as an issue and the long texts in tooltips.
    enum class Scope { OneJob, RecentJobs };
    enum Field { TimeField, JobField, RuleField, StepField, WhereField, FindingField, AdviceField };
    enum Role { JobRole = Qt::UserRole + 1 }; // QString: the finding's job

    explicit FindingsModel(Scope scope, QObject* parent = nullptr);

    void setFindings(std::vector<FindingItem> items) { setRecords(std::move(items)); }
    // A job's own findings (no job names).
    void setJobFindings(const std::vector<store::FindingRow>& findings);

    // The column that shows a field; -1 where this scope has none.
    int columnOf(Field field) const;
    // "node 1, cuda:0", "node 0", "" for a finding about the whole job.
    static QString whereText(const store::FindingRow& finding);

protected:
    QStringList headers() const override;
    QVariant cell(const FindingItem& item, int column, int role) const override;

private:
    QString text(const FindingItem& item, Field field) const;

    Scope m_scope;
    std::vector<Field> m_fields;
};

} // namespace studio::models

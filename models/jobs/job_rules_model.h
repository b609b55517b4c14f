// A job's Debugger rules as they ran: kind, status, how often they fired, the data points they
// evaluated, their actions and their last note. Fed from a job's stored detail. GUI thread only.
#pragma once

#include "engine/store/records.h"
#include "models/jobs/record_table_model.h"

namespace studio::models {

class JobRulesModel : public RecordTableModel<store::RuleStatusRow> {
    Q_OBJECT
public:
    enum Column {
        RuleColumn,
        KindColumn,
        StatusColumn,
        FiredColumn,
        DataPointsColumn,
        ActionsColumn,
        NoteColumn
    };
    enum Role { StatusRole = Qt::UserRole + 1 }; // QString: IssuesFound, NoIssuesFound, ...

    using RecordTableModel::RecordTableModel;

    void setRules(std::vector<store::RuleStatusRow> rules) { setRecords(std::move(rules)); }
    // Rules whose status is IssuesFound.
    int issueCount() const;

protected:
    QStringList headers() const override;
    QVariant cell(const store::RuleStatusRow& r, int column, int role) const override;
};

} // namespace studio::models

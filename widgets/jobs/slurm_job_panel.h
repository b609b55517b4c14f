// The job tab's Slurm section: the job's Slurm jobs (id, partition, state and pending reason,
// nodes, requeues, exit code, times) and, read-only in a monospace view, the batch script of the
// selected one (the newest until the user picks another) as it was submitted. GUI thread only.
#pragma once

#include "engine/store/records.h"

#include <QWidget>

#include <cstdint>
#include <vector>

class QLabel;
class QPlainTextEdit;
class QTableView;

namespace studio::models {
class SlurmJobsModel;
} // namespace studio::models

namespace studio::widgets {

class SlurmJobPanel : public QWidget {
    Q_OBJECT
public:
    explicit SlurmJobPanel(QWidget* parent = nullptr);

    void setJobs(const std::vector<store::SlurmJobRow>& jobs);
    QTableView* table() const { return m_table; }
    QPlainTextEdit* script() const { return m_script; }
    // The Slurm job whose script is shown; 0 for none.
    std::int64_t shownJob() const { return m_shownJob; }

private:
    void showScript(int row);

    models::SlurmJobsModel* m_model;
    QTableView* m_table;
    QLabel* m_scriptTitle;
    QPlainTextEdit* m_script;
    std::int64_t m_shownJob = 0;
};

} // namespace studio::widgets

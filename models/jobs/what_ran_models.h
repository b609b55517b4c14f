// The job tab's "What ran" page, as data: a summary of the code and of each rank's runtime, the
// packages of the first rank that reported them, and the top operators of the profiled window
// (what a script's framework profile recorded with torch.profiler). Built from the job's facts
// (engine/store FactsRow); GUI thread only.
#pragma once

#include "engine/store/records.h"
#include "models/jobs/record_table_model.h"

#include <QString>

#include <utility>
#include <vector>

namespace studio::models {

struct WhatRanSummary {
    std::vector<std::pair<QString, QString>> lines; // label, value
    QString gitDiff;                                // uncommitted changes, as git prints them
    QString traceFile;                              // the profiled window's trace ("" none)

    static WhatRanSummary fromFacts(const std::vector<store::FactsRow>& facts);
};

struct PackageRow {
    QString name;
    QString version;
};

class PackagesModel : public RecordTableModel<PackageRow> {
    Q_OBJECT
public:
    enum Column { NameColumn, VersionColumn };
    using RecordTableModel::RecordTableModel;
    void setFacts(const std::vector<store::FactsRow>& facts);

protected:
    QStringList headers() const override;
    QVariant cell(const PackageRow& p, int column, int role) const override;
};

struct OperatorRow {
    QString name;
    qint64 calls = 0;
    double selfCpuMs = 0, cpuTotalMs = 0, selfCudaMs = 0, cudaTotalMs = 0;
    qint64 cpuMemoryBytes = 0;
};

class OperatorsModel : public RecordTableModel<OperatorRow> {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        CallsColumn,
        SelfCpuColumn,
        CpuTotalColumn,
        SelfCudaColumn,
        CudaTotalColumn,
        MemoryColumn
    };
    using RecordTableModel::RecordTableModel;
    // The first rank's "operators" document; its window is window().
    void setFacts(const std::vector<store::FactsRow>& facts);
    QString window() const { return m_window; }

protected:
    QStringList headers() const override;
    QVariant cell(const OperatorRow& o, int column, int role) const override;

private:
    QString m_window;
};

} // namespace studio::models

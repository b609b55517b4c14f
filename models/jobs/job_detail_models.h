// The small tables of a job's overview, fed from its stored detail: status transitions (how long
// each lasted), parameters, checkpoints (step, rank, size, digest, path) and artifacts. GUI
// thread only.
#pragma once

#include "engine/store/records.h"
#include "models/jobs/record_table_model.h"

namespace studio::models {

class JobTransitionsModel : public RecordTableModel<store::StatusTransition> {
    Q_OBJECT
public:
    enum Column { StatusColumn, SecondaryColumn, StartColumn, DurationColumn, MessageColumn };
    enum Role { StatusRole = Qt::UserRole + 1 }; // QString: the transition's status

    using RecordTableModel::RecordTableModel;

    // A job that ended has no current transition: an open one lasts "-", not "current".
    void setTransitions(std::vector<store::StatusTransition> transitions, bool jobEnded);

protected:
    QStringList headers() const override;
    QVariant cell(const store::StatusTransition& t, int column, int role) const override;

private:
    bool m_jobEnded = false;
};

class JobParametersModel : public RecordTableModel<store::ParameterRow> {
    Q_OBJECT
public:
    enum Column { NameColumn, ValueColumn };

    using RecordTableModel::RecordTableModel;

    void setParameters(std::vector<store::ParameterRow> parameters) {
        setRecords(std::move(parameters));
    }

protected:
    QStringList headers() const override;
    QVariant cell(const store::ParameterRow& p, int column, int role) const override;
};

class JobCheckpointsModel : public RecordTableModel<store::CheckpointRow> {
    Q_OBJECT
public:
    enum Column { StepColumn, RankColumn, TimeColumn, SizeColumn, DigestColumn, PathColumn };

    using RecordTableModel::RecordTableModel;

    void setCheckpoints(std::vector<store::CheckpointRow> checkpoints) {
        setRecords(std::move(checkpoints));
    }

protected:
    QStringList headers() const override;
    QVariant cell(const store::CheckpointRow& c, int column, int role) const override;
};

class JobArtifactsModel : public RecordTableModel<store::ArtifactRow> {
    Q_OBJECT
public:
    enum Column { NameColumn, KindColumn, ValueColumn };

    using RecordTableModel::RecordTableModel;

    void setArtifacts(std::vector<store::ArtifactRow> artifacts) {
        setRecords(std::move(artifacts));
    }

protected:
    QStringList headers() const override;
    QVariant cell(const store::ArtifactRow& a, int column, int role) const override;
};

} // namespace studio::models

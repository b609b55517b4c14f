// The parameters of one rule of a RuleModel: every parameter the catalog knows for the rule (for
// ProfilerReport, <ProfilerRule>_<parameter> of every profiler rule), its value where the spec
// sets one, and SageMaker's default. Editing a value writes it into the RuleModel's row.
// GUI thread only.
#pragma once

#include "models/launch/spec_document.h"

#include <QAbstractTableModel>
#include <QHash>
#include <QPointer>

#include <vector>

namespace studio::models {

class RuleModel;

class RuleParameterModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { NameColumn, ValueColumn, DefaultColumn, ColumnCount };

    explicit RuleParameterModel(RuleModel* rules, QObject* parent = nullptr);

    // Shows the parameters of the rule in row (-1: none).
    void setRuleRow(int row);
    int ruleRow() const { return m_row; }
    // The row of a parameter, or -1.
    int rowOf(const QString& name) const;
    // Problems by parameter name, shown on the rows.
    void setProblems(const QHash<QString, QString>& problems);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    struct Param {
        QString name;
        QString defaultText; // "" means None
        QString type;        // what values are allowed, in words
    };
    std::vector<Param> paramsOf(int row) const;
    SpecDocument explicitValue(int row) const;

    QPointer<RuleModel> m_rules;
    int m_row = -1;
    std::vector<Param> m_params;
    QHash<QString, QString> m_problems;
};

} // namespace studio::models

// The Debugger rules of a spec as a table: rule, kind, the StopTraining and Notify actions as
// check boxes, and a summary of the parameters set. Each row keeps its whole JSON entry; the
// parameters are edited through RuleParameterModel.
// GUI thread only.
#pragma once

#include "models/launch/row_table_model.h"
#include "models/launch/spec_document.h"

#include <QAbstractTableModel>
#include <QHash>

#include <vector>

namespace studio::models {

class RuleModel : public SpecArrayModel {
    Q_OBJECT
public:
    enum Column { NameColumn, KindColumn, StopColumn, NotifyColumn, ParametersColumn, ColumnCount };

    explicit RuleModel(QObject* parent = nullptr);

    // Appends a rule with no parameters and no actions; returns its row.
    int addRule(const QString& name);
    bool contains(const QString& name) const;

    QString ruleName(int row) const;
    // The rule's explicit parameters (an object; empty when none are set).
    SpecDocument parameters(int row) const;
    // Sets a parameter; null removes it (the rule then uses the catalog's default).
    void setParameter(int row, const QString& key, const SpecDocument& value);

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    bool hasAction(int row, const char* action) const;
    void setAction(int row, const char* action, bool on);
};

} // namespace studio::models

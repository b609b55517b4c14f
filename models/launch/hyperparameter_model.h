// The hyperparameters of a spec as an editable name/value table, in the document's order. For a
// built-in model each row also says what the parameter does and its default.
// GUI thread only.
#pragma once

#include "models/launch/row_table_model.h"
#include "models/launch/spec_document.h"

#include <QAbstractTableModel>
#include <QHash>

#include <vector>

namespace studio::models {

// One hyperparameter as the table shows it: its name and JSON value.
struct HyperparameterRow {
    QString name;
    SpecDocument value;
};

class HyperparameterModel : public RowTableModel<HyperparameterRow, QString> {
    Q_OBJECT
public:
    enum Column { NameColumn, ValueColumn, AboutColumn, ColumnCount };

    explicit HyperparameterModel(QObject* parent = nullptr);

    // Replaces the rows with the object's entries (anything else: no rows).
    void setDocument(const SpecDocument& object);
    SpecDocument toDocument() const;
    // The built-in model the rows describe; "" for a script (no descriptions).
    void setBuiltinModel(const QString& model);
    const QString& builtinModel() const { return m_model; }

    // Appends a row, or sets the value of an existing one; returns the value cell.
    QModelIndex setParameter(const QString& name, const SpecDocument& value);
    bool contains(const QString& name) const;
    QStringList names() const;

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    int rowOf(const QString& name) const;

    QString m_model;
};

} // namespace studio::models

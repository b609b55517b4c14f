// The Debugger hook's tensor collections (debugger_hook_config.collection_configs) as a table:
// name, save interval, reductions, include regex. Each row keeps its whole JSON entry, so
// parameters the table does not show (save_steps, start_step, ...) survive an edit.
// GUI thread only.
#pragma once

#include "models/launch/row_table_model.h"
#include "models/launch/spec_document.h"

#include <QAbstractTableModel>
#include <QHash>

#include <vector>

namespace studio::models {

class CollectionModel : public SpecArrayModel {
    Q_OBJECT
public:
    enum Column {
        NameColumn,
        SaveIntervalColumn,
        ReductionsColumn,
        IncludeRegexColumn,
        ColumnCount
    };

    explicit CollectionModel(QObject* parent = nullptr);

    // Appends a collection; returns its row.
    int addCollection(const QString& name, const SpecDocument& parameters = SpecDocument::object());
    bool contains(const QString& name) const;

    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    static const char* parameterKey(int column);
};

} // namespace studio::models

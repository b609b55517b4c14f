// The launch dialog's tuning ranges: one row per hyperparameter of the job spec, with whether
// it is tuned and its range (type Continuous/Integer/Categorical, min and max or the values,
// scaling). Checking Tune fills a range from the current value (a tenth to ten times a number,
// logarithmic for positive ones; the value itself for text). GUI thread only.
#pragma once

#include "models/launch/spec_document.h"

#include <QAbstractTableModel>
#include <QStringList>

#include <vector>

namespace studio::models {

struct TuningRangeRow {
    QString name;
    SpecDocument value; // the job spec's value
    bool tuned = false;
    QString type = QStringLiteral("Continuous");
    QString min;
    QString max;
    QString values; // Categorical: comma-separated
    QString scaling = QStringLiteral("Auto");
};

class TuningRangeModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        TuneColumn,
        NameColumn,
        TypeColumn,
        MinColumn,
        MaxColumn,
        ValuesColumn,
        ScalingColumn,
        ColumnCount
    };

    explicit TuningRangeModel(QObject* parent = nullptr);

    // The job spec's hyperparameters (an object); rows keep their ranges by name, new names come
    // untuned, vanished ones go.
    void setHyperparameters(const SpecDocument& hyperparameters);
    // The "hyperparameter_ranges" object of the tuned rows, in row order.
    SpecDocument ranges() const;
    // Loads a tuning document's ranges: named rows become tuned (added when missing).
    void setRanges(const SpecDocument& ranges);
    void setTuned(const QString& name, bool tuned);
    const std::vector<TuningRangeRow>& rows() const { return m_rows; }
    int rowOf(const QString& name) const;

    static QStringList types();
    static QStringList scalings();

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;

private:
    static void fillDefaults(TuningRangeRow& row);
    std::vector<TuningRangeRow> m_rows;
};

} // namespace studio::models

#include "models/launch/tuning_range_model.h"

#include <cmath>

namespace studio::models {

namespace {

// A number typed in a cell as JSON (integers stay integers); the text when it is none.
SpecDocument numberOrText(const QString& text) {
    bool ok = false;
    const qlonglong i = text.trimmed().toLongLong(&ok);
    if (ok)
        return SpecDocument(i);
    const double d = text.trimmed().toDouble(&ok);
    return ok ? SpecDocument(d) : SpecDocument(text.trimmed().toStdString());
}

TuningRangeRow untuned(const QString& name, const SpecDocument& value) {
    TuningRangeRow row;
    row.name = name;
    row.value = value;
    return row;
}

QString numberText(double v) {
    return QString::number(v, 'g', 6);
}

} // namespace

TuningRangeModel::TuningRangeModel(QObject* parent)
    : QAbstractTableModel(parent) {
}

QStringList TuningRangeModel::types() {
    return {QStringLiteral("Continuous"), QStringLiteral("Integer"), QStringLiteral("Categorical")};
}

QStringList TuningRangeModel::scalings() {
    return {QStringLiteral("Auto"), QStringLiteral("Linear"), QStringLiteral("Logarithmic"),
            QStringLiteral("ReverseLogarithmic")};
}

void TuningRangeModel::fillDefaults(TuningRangeRow& row) {
    const SpecDocument& v = row.value;
    if (v.is_number_integer() && v.get<long long>() > 0) {
        const long long n = v.get<long long>();
        row.type = QStringLiteral("Integer");
        row.min = QString::number(std::max(1LL, n / 2));
        row.max = QString::number(n * 2);
        row.scaling = QStringLiteral("Auto");
    } else if (v.is_number() && v.get<double>() > 0) {
        const double d = v.get<double>();
        row.type = QStringLiteral("Continuous");
        row.min = numberText(d / 10);
        row.max = numberText(d * 10);
        row.scaling = QStringLiteral("Logarithmic");
    } else {
        row.type = QStringLiteral("Categorical");
        row.values = valueText(v);
    }
}

void TuningRangeModel::setHyperparameters(const SpecDocument& hyperparameters) {
    std::vector<TuningRangeRow> rows;
    if (hyperparameters.is_object())
        for (const auto& [key, value] : hyperparameters.items()) {
            const QString name = QString::fromStdString(key);
            const int at = rowOf(name);
            TuningRangeRow row = at >= 0 ? m_rows[std::size_t(at)] : untuned(name, value);
            row.value = value;
            rows.push_back(std::move(row));
        }
    for (const TuningRangeRow& old : m_rows) // tuned rows the spec no longer names stay
        if (old.tuned && !hyperparameters.contains(old.name.toStdString()))
            rows.push_back(old);
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

SpecDocument TuningRangeModel::ranges() const {
    SpecDocument out = SpecDocument::object();
    for (const TuningRangeRow& r : m_rows) {
        if (!r.tuned)
            continue;
        SpecDocument range = SpecDocument::object();
        range["type"] = r.type.toStdString();
        if (r.type == QLatin1String("Categorical")) {
            SpecDocument values = SpecDocument::array();
            for (const QString& v : r.values.split(QLatin1Char(','), Qt::SkipEmptyParts))
                values.push_back(numberOrText(v)); // categorical values keep their JSON type
            range["values"] = values;
        } else {
            range["min_value"] = numberOrText(r.min);
            range["max_value"] = numberOrText(r.max);
            if (r.scaling != QLatin1String("Auto"))
                range["scaling_type"] = r.scaling.toStdString();
        }
        out[r.name.toStdString()] = range;
    }
    return out;
}

void TuningRangeModel::setRanges(const SpecDocument& ranges) {
    beginResetModel();
    for (TuningRangeRow& r : m_rows)
        r.tuned = false;
    if (ranges.is_object())
        for (const auto& [key, range] : ranges.items()) {
            const QString name = QString::fromStdString(key);
            int at = rowOf(name);
            if (at < 0) {
                m_rows.push_back(untuned(name, SpecDocument()));
                at = int(m_rows.size()) - 1;
            }
            TuningRangeRow& row = m_rows[std::size_t(at)];
            row.tuned = true;
            row.type = valueText(valueAt(range, "/type"));
            row.min = valueText(valueAt(range, "/min_value"));
            row.max = valueText(valueAt(range, "/max_value"));
            QStringList values;
            if (const SpecDocument* v = findAt(range, "/values"); v && v->is_array())
                for (const auto& item : *v)
                    values << valueText(item);
            row.values = values.join(QStringLiteral(", "));
            const QString scaling = valueText(valueAt(range, "/scaling_type"));
            row.scaling = scaling.isEmpty() ? QStringLiteral("Auto") : scaling;
        }
    endResetModel();
}

void TuningRangeModel::setTuned(const QString& name, bool tuned) {
    const int r = rowOf(name);
    if (r >= 0)
        setData(index(r, TuneColumn), tuned ? Qt::Checked : Qt::Unchecked, Qt::CheckStateRole);
}

int TuningRangeModel::rowOf(const QString& name) const {
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].name == name)
            return int(i);
    return -1;
}

int TuningRangeModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_rows.size());
}

int TuningRangeModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TuningRangeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const TuningRangeRow& r = m_rows[std::size_t(index.row())];
    if (index.column() == TuneColumn)
        return role == Qt::CheckStateRole ? QVariant(r.tuned ? Qt::Checked : Qt::Unchecked)
                                          : QVariant();
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    const bool categorical = r.type == QLatin1String("Categorical");
    switch (index.column()) {
    case NameColumn:
        return r.name;
    case TypeColumn:
        return r.tuned ? r.type : QString();
    case MinColumn:
        return r.tuned && !categorical ? r.min : QString();
    case MaxColumn:
        return r.tuned && !categorical ? r.max : QString();
    case ValuesColumn:
        return r.tuned && categorical ? r.values : r.tuned ? QString() : valueText(r.value);
    case ScalingColumn:
        return r.tuned && !categorical ? r.scaling : QString();
    default:
        return {};
    }
}

bool TuningRangeModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (!index.isValid() || index.row() >= rowCount())
        return false;
    TuningRangeRow& r = m_rows[std::size_t(index.row())];
    if (index.column() == TuneColumn && role == Qt::CheckStateRole) {
        const bool tuned = value.toInt() == Qt::Checked;
        if (tuned && !r.tuned && r.min.isEmpty() && r.values.isEmpty())
            fillDefaults(r);
        r.tuned = tuned;
        Q_EMIT dataChanged(this->index(index.row(), 0), this->index(index.row(), ColumnCount - 1));
        return true;
    }
    if (role != Qt::EditRole || !r.tuned)
        return false;
    const QString text = value.toString().trimmed();
    switch (index.column()) {
    case TypeColumn:
        if (!types().contains(text))
            return false;
        r.type = text;
        break;
    case MinColumn:
        r.min = text;
        break;
    case MaxColumn:
        r.max = text;
        break;
    case ValuesColumn:
        r.values = text;
        break;
    case ScalingColumn:
        if (!scalings().contains(text))
            return false;
        r.scaling = text;
        break;
    default:
        return false;
    }
    Q_EMIT dataChanged(this->index(index.row(), 0), this->index(index.row(), ColumnCount - 1));
    return true;
}

Qt::ItemFlags TuningRangeModel::flags(const QModelIndex& index) const {
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    const TuningRangeRow& r = m_rows[std::size_t(index.row())];
    const bool categorical = r.type == QLatin1String("Categorical");
    if (index.column() == TuneColumn)
        return f | Qt::ItemIsUserCheckable;
    const bool editable =
        r.tuned && (index.column() == TypeColumn ||
                    (categorical ? index.column() == ValuesColumn
                                 : index.column() != ValuesColumn && index.column() != NameColumn));
    return editable ? f | Qt::ItemIsEditable : f;
}

QVariant TuningRangeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    const QString titles[] = {tr("Tune"), tr("Hyperparameter"), tr("Type"),   tr("Min"),
                              tr("Max"),  tr("Values"),         tr("Scaling")};
    return section >= 0 && section < ColumnCount ? titles[section] : QVariant();
}

} // namespace studio::models

#include "models/launch/hyperparameter_model.h"

#include "engine/train/builtin_models.h"
#include "models/common/status_style.h"

#include <QColor>
#include <QFont>

namespace studio::models {

HyperparameterModel::HyperparameterModel(QObject* parent)
    : RowTableModel(parent) {
}

void HyperparameterModel::setDocument(const SpecDocument& object) {
    beginResetModel();
    m_rows.clear();
    if (object.is_object())
        for (auto it = object.begin(); it != object.end(); ++it)
            m_rows.push_back(HyperparameterRow{QString::fromStdString(it.key()), it.value()});
    m_problems.clear();
    endResetModel();
}

SpecDocument HyperparameterModel::toDocument() const {
    SpecDocument out = SpecDocument::object();
    for (const auto& r : m_rows)
        out[r.name.toStdString()] = r.value.is_null() ? SpecDocument("") : r.value;
    return out;
}

void HyperparameterModel::setBuiltinModel(const QString& model) {
    if (model == m_model)
        return;
    m_model = model;
    if (!m_rows.empty())
        Q_EMIT dataChanged(index(0, AboutColumn), index(rowCount() - 1, AboutColumn),
                           {Qt::DisplayRole, Qt::ToolTipRole});
}

QModelIndex HyperparameterModel::setParameter(const QString& name, const SpecDocument& value) {
    int row = rowOf(name);
    if (row < 0) {
        row = rowCount();
        beginInsertRows({}, row, row);
        m_rows.push_back(HyperparameterRow{name, value});
        endInsertRows();
    } else {
        m_rows[std::size_t(row)].value = value;
        Q_EMIT dataChanged(index(row, ValueColumn), index(row, ValueColumn));
    }
    return index(row, ValueColumn);
}

bool HyperparameterModel::contains(const QString& name) const {
    return rowOf(name) >= 0;
}

QStringList HyperparameterModel::names() const {
    QStringList out;
    for (const auto& r : m_rows)
        out << r.name;
    return out;
}

int HyperparameterModel::rowOf(const QString& name) const {
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        if (m_rows[i].name == name)
            return int(i);
    return -1;
}

int HyperparameterModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HyperparameterModel::data(const QModelIndex& index, int role) const {
    if ((!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid)))
        return {};
    const HyperparameterRow& r = m_rows[std::size_t(index.row())];
    const auto* info =
        m_model.isEmpty() ? nullptr : train::findBuiltinHyperparameter(r.name.toStdString());
    const auto problem = m_problems.constFind(r.name);
    const bool hasProblem = problem != m_problems.constEnd();
    switch (role) {
    case Qt::DisplayRole:
    case Qt::EditRole:
        if (index.column() == NameColumn)
            return r.name;
        if (index.column() == ValueColumn)
            return valueText(r.value);
        if (role == Qt::DisplayRole && info)
            return QString(
                QString::fromStdString(info->description) + QStringLiteral("  (default ") +
                QString::fromStdString(train::builtinDefault(*info, m_model.toStdString())) +
                QLatin1Char(')'));
        return {};
    case Qt::ToolTipRole:
        if (hasProblem)
            return *problem;
        return info ? QString::fromStdString(info->description) : QVariant();
    case Qt::DecorationRole:
        if (index.column() == NameColumn && hasProblem)
            return statusIcon(QStringLiteral("Failed"));
        return {};
    case Qt::ForegroundRole:
        if (index.column() == ValueColumn && hasProblem)
            return statusColor(QStringLiteral("Failed"));
        if (index.column() == AboutColumn)
            return mutedColor();
        return {};
    case Qt::FontRole:
        if (index.column() == NameColumn || index.column() == ValueColumn)
            return monospaceFont();
        return {};
    default:
        return {};
    }
}

bool HyperparameterModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole ||
        (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid)))
        return false;
    HyperparameterRow& r = m_rows[std::size_t(index.row())];
    const QString text = value.toString();
    if (index.column() == NameColumn) {
        const QString name = text.trimmed();
        if (name == r.name)
            return true;
        if (rowOf(name) >= 0)
            return false; // names are the keys of a JSON object: one row each
        r.name = name;
    } else if (index.column() == ValueColumn) {
        if (text == valueText(r.value))
            return true;
        r.value = valueFromText(text, r.value, TextTyping::Inferred);
    } else {
        return false;
    }
    Q_EMIT dataChanged(this->index(index.row(), 0), this->index(index.row(), ColumnCount - 1));
    return true;
}

Qt::ItemFlags HyperparameterModel::flags(const QModelIndex& index) const {
    if ((!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid)))
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (index.column() != AboutColumn)
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant HyperparameterModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Name");
    case ValueColumn:
        return tr("Value");
    case AboutColumn:
        return tr("Description");
    default:
        return {};
    }
}

} // namespace studio::models

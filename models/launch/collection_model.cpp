#include "models/launch/collection_model.h"

#include "models/common/status_style.h"

#include <QColor>
#include <QFont>

namespace studio::models {
namespace {

// Lists ("a,b" strings or arrays) read as "a, b".
QString listText(const SpecDocument& v) {
    if (!v.is_array())
        return valueText(v);
    QStringList parts;
    for (const auto& x : v)
        parts << valueText(x);
    return parts.join(QStringLiteral(", "));
}

} // namespace

CollectionModel::CollectionModel(QObject* parent)
    : SpecArrayModel(parent) {
}

int CollectionModel::addCollection(const QString& name, const SpecDocument& parameters) {
    const int row = rowCount();
    beginInsertRows({}, row, row);
    SpecDocument entry = SpecDocument::object();
    entry["name"] = name.toStdString();
    if (parameters.is_object() && !parameters.empty())
        entry["parameters"] = parameters;
    m_rows.push_back(std::move(entry));
    endInsertRows();
    return row;
}

bool CollectionModel::contains(const QString& name) const {
    for (const auto& r : m_rows)
        if (r.is_object() && valueText(valueAt(r, "/name")) == name)
            return true;
    return false;
}

const char* CollectionModel::parameterKey(int column) {
    switch (column) {
    case SaveIntervalColumn:
        return "save_interval";
    case ReductionsColumn:
        return "reductions";
    case IncludeRegexColumn:
        return "include_regex";
    default:
        return nullptr;
    }
}

int CollectionModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant CollectionModel::data(const QModelIndex& index, int role) const {
    if ((!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid)))
        return {};
    const SpecDocument& entry = m_rows[std::size_t(index.row())];
    const char* key = parameterKey(index.column());
    const SpecDocument value =
        key ? valueAt(entry, std::string("/parameters/") + key) : valueAt(entry, "/name");
    const auto problem = m_problems.constFind(index.row());
    switch (role) {
    case Qt::EditRole:
        return listText(value);
    case Qt::DisplayRole:
        if (value.is_null() && index.column() == SaveIntervalColumn)
            return tr("default");
        if (value.is_null() && index.column() == ReductionsColumn)
            return tr("default");
        return listText(value);
    case Qt::ForegroundRole:
        if (value.is_null())
            return mutedColor();
        return {};
    case Qt::DecorationRole:
        if (index.column() == NameColumn && problem != m_problems.constEnd())
            return statusIcon(QStringLiteral("Failed"));
        return {};
    case Qt::ToolTipRole:
        if (problem != m_problems.constEnd())
            return *problem;
        if (index.column() == SaveIntervalColumn)
            return tr("Save every N steps (default: 500, or what a rule needs)");
        if (index.column() == ReductionsColumn)
            return tr("min, max, mean, std, variance, sum, prod, l1_norm, l2_norm and abs_ "
                      "forms (default: min, max, mean, std, l2_norm)");
        if (index.column() == IncludeRegexColumn)
            return tr("Tensors to include; required for a custom collection");
        return {};
    case Qt::FontRole:
        if (index.column() == IncludeRegexColumn)
            return monospaceFont();
        return {};
    default:
        return {};
    }
}

bool CollectionModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole ||
        (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid)))
        return false;
    SpecDocument& entry = m_rows[std::size_t(index.row())];
    if (!entry.is_object())
        entry = SpecDocument::object();
    const QString text = value.toString().trimmed();
    const char* key = parameterKey(index.column());
    const std::string pointer = key ? std::string("/parameters/") + key : std::string("/name");
    const SpecDocument previous = valueAt(entry, pointer);
    if (text == listText(previous))
        return true;
    SpecDocument next;
    if (previous.is_array() && !text.isEmpty()) {
        next = SpecDocument::array();
        for (const auto& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
            next.push_back(part.trimmed().toStdString());
    } else if (index.column() == ReductionsColumn) {
        next = text.isEmpty() ? SpecDocument() : SpecDocument(text.toStdString());
    } else {
        next = valueFromText(text, previous, TextTyping::SageMaker);
    }
    if (next.is_null() && key)
        eraseAt(entry, pointer);
    else
        putAt(entry, pointer, next.is_null() ? SpecDocument("") : next);
    Q_EMIT dataChanged(index.siblingAtColumn(0), index.siblingAtColumn(ColumnCount - 1));
    return true;
}

Qt::ItemFlags CollectionModel::flags(const QModelIndex& index) const {
    if ((!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid)))
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsEditable | Qt::ItemNeverHasChildren;
}

QVariant CollectionModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Collection");
    case SaveIntervalColumn:
        return tr("Save interval");
    case ReductionsColumn:
        return tr("Reductions");
    case IncludeRegexColumn:
        return tr("Include regex");
    default:
        return {};
    }
}

} // namespace studio::models

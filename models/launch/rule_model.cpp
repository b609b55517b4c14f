#include "models/launch/rule_model.h"

#include "engine/debugger/rule_catalog.h"
#include "models/common/status_style.h"

#include <QColor>

namespace studio::models {

RuleModel::RuleModel(QObject* parent)
    : SpecArrayModel(parent) {
}

int RuleModel::addRule(const QString& name) {
    const int row = rowCount();
    beginInsertRows({}, row, row);
    SpecDocument entry = SpecDocument::object();
    entry["name"] = name.toStdString();
    m_rows.push_back(std::move(entry));
    endInsertRows();
    return row;
}

bool RuleModel::contains(const QString& name) const {
    for (int r = 0; r < rowCount(); ++r)
        if (ruleName(r) == name)
            return true;
    return false;
}

QString RuleModel::ruleName(int row) const {
    if (row < 0 || row >= rowCount())
        return {};
    return valueText(valueAt(m_rows[std::size_t(row)], "/name"));
}

SpecDocument RuleModel::parameters(int row) const {
    if (row < 0 || row >= rowCount())
        return SpecDocument::object();
    const SpecDocument p = valueAt(m_rows[std::size_t(row)], "/parameters");
    return p.is_object() ? p : SpecDocument::object();
}

void RuleModel::setParameter(int row, const QString& key, const SpecDocument& value) {
    if (row < 0 || row >= rowCount())
        return;
    SpecDocument& entry = m_rows[std::size_t(row)];
    if (!entry.is_object())
        return;
    const std::string pointer = "/parameters/" + key.toStdString();
    if (value.is_null()) {
        if (!findAt(entry, pointer))
            return;
        eraseAt(entry, pointer);
    } else {
        if (valueAt(entry, pointer) == value)
            return;
        if (findAt(entry, "/parameters") && !valueAt(entry, "/parameters").is_object())
            entry.erase("parameters");
        if (!entry.contains("parameters")) {
            // Keep the usual order: name, parameters, actions.
            SpecDocument ordered = SpecDocument::object();
            for (auto it = entry.begin(); it != entry.end(); ++it) {
                if (it.key() == "actions")
                    ordered["parameters"] = SpecDocument::object();
                ordered[it.key()] = it.value();
            }
            entry = std::move(ordered);
        }
        putAt(entry, pointer, value);
    }
    Q_EMIT dataChanged(index(row, 0), index(row, ColumnCount - 1));
}

bool RuleModel::hasAction(int row, const char* action) const {
    const SpecDocument a = valueAt(m_rows[std::size_t(row)], "/actions");
    if (!a.is_array())
        return false;
    for (const auto& x : a)
        if (x.is_string() && x.get<std::string>() == action)
            return true;
    return false;
}

void RuleModel::setAction(int row, const char* action, bool on) {
    SpecDocument& entry = m_rows[std::size_t(row)];
    const SpecDocument old = valueAt(entry, "/actions");
    SpecDocument actions = SpecDocument::array();
    for (const char* known : {"StopTraining", "Notify"})
        if (known == std::string_view(action) ? on : hasAction(row, known))
            actions.push_back(known);
    if (old.is_array()) // entries the validator will name stay for it to name
        for (const auto& x : old)
            if (!x.is_string() ||
                (x.get<std::string>() != "StopTraining" && x.get<std::string>() != "Notify"))
                actions.push_back(x);
    if (actions.empty())
        entry.erase("actions");
    else
        entry["actions"] = actions;
}

int RuleModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RuleModel::data(const QModelIndex& index, int role) const {
    if ((!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid)))
        return {};
    const int row = index.row();
    const QString name = ruleName(row);
    const debugger::RuleInfo* info = debugger::findRule(name.toStdString());
    const auto problem = m_problems.constFind(row);
    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return name;
        case KindColumn:
            if (name == QLatin1String("ProfilerReport"))
                return tr("Report");
            if (!info)
                return QString();
            return info->kind == debugger::RuleKind::Model ? tr("Model") : tr("Profiler");
        case ParametersColumn: {
            QStringList parts;
            const SpecDocument p = parameters(row);
            for (auto it = p.begin(); it != p.end(); ++it)
                parts << QString::fromStdString(it.key()) + QLatin1Char('=') +
                             valueText(it.value());
            return parts.isEmpty() ? tr("defaults") : parts.join(QStringLiteral(", "));
        }
        default:
            return {};
        }
    case Qt::TextAlignmentRole:
        if (index.column() == StopColumn || index.column() == NotifyColumn)
            return Qt::AlignCenter;
        return {};
    case Qt::CheckStateRole:
        if (index.column() == StopColumn)
            return hasAction(row, "StopTraining") ? Qt::Checked : Qt::Unchecked;
        if (index.column() == NotifyColumn)
            return hasAction(row, "Notify") ? Qt::Checked : Qt::Unchecked;
        return {};
    case Qt::DecorationRole:
        if (index.column() == NameColumn && problem != m_problems.constEnd())
            return statusIcon(QStringLiteral("Failed"));
        return {};
    case Qt::ForegroundRole:
        if (index.column() == KindColumn ||
            (index.column() == ParametersColumn && parameters(row).empty()))
            return mutedColor();
        return {};
    case Qt::ToolTipRole:
        if (problem != m_problems.constEnd())
            return *problem;
        if (index.column() == StopColumn)
            return tr("Stop the job gracefully when the rule fires (status Stopped)");
        if (index.column() == NotifyColumn)
            return tr("Record a notification when the rule fires");
        return info ? QString::fromStdString(info->description) : QVariant();
    default:
        return {};
    }
}

bool RuleModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::CheckStateRole ||
        (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid)))
        return false;
    const bool on = value.value<Qt::CheckState>() == Qt::Checked;
    if (index.column() == StopColumn)
        setAction(index.row(), "StopTraining", on);
    else if (index.column() == NotifyColumn)
        setAction(index.row(), "Notify", on);
    else
        return false;
    Q_EMIT dataChanged(index, index, {Qt::CheckStateRole});
    return true;
}

Qt::ItemFlags RuleModel::flags(const QModelIndex& index) const {
    if ((!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid)))
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (index.column() == StopColumn || index.column() == NotifyColumn)
        f |= Qt::ItemIsUserCheckable;
    return f;
}

QVariant RuleModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Rule");
    case KindColumn:
        return tr("Kind");
    case StopColumn:
        return tr("Stop training");
    case NotifyColumn:
        return tr("Notify");
    case ParametersColumn:
        return tr("Parameters");
    default:
        return {};
    }
}

} // namespace studio::models

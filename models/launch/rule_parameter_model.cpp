#include "models/launch/rule_parameter_model.h"

#include "engine/debugger/rule_catalog.h"
#include "models/common/status_style.h"
#include "models/launch/rule_model.h"

#include <QColor>
#include <QFont>

namespace studio::models {

RuleParameterModel::RuleParameterModel(RuleModel* rules, QObject* parent)
    : QAbstractTableModel(parent)
    , m_rules(rules) {
    connect(rules, &QAbstractItemModel::modelReset, this, [this] { setRuleRow(-1); });
    connect(rules, &QAbstractItemModel::rowsRemoved, this, [this] { setRuleRow(-1); });
    connect(rules, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex& tl, const QModelIndex& br, const QList<int>& roles) {
                if (m_row < tl.row() || m_row > br.row() || m_params.empty())
                    return;
                if (!roles.isEmpty() && !roles.contains(Qt::DisplayRole))
                    return;
                // A parameter set from here (or elsewhere) may add or drop an unknown row.
                if (paramsOf(m_row).size() != m_params.size()) {
                    setRuleRow(m_row);
                    return;
                }
                Q_EMIT dataChanged(index(0, ValueColumn), index(rowCount() - 1, ValueColumn));
            });
}

std::vector<RuleParameterModel::Param> RuleParameterModel::paramsOf(int row) const {
    std::vector<Param> out;
    if (!m_rules || row < 0 || row >= m_rules->rowCount())
        return out;
    const QString name = m_rules->ruleName(row);
    auto add = [&out](const QString& prefix, const debugger::RuleInfo& rule) {
        for (const auto& p : rule.params)
            out.push_back(Param{prefix + QString::fromStdString(p.name),
                                QString::fromStdString(p.defaultValue),
                                QString::fromLatin1(debugger::paramTypeDescription(p.type))});
    };
    if (name == QLatin1String("ProfilerReport")) {
        for (const auto& rule : debugger::ruleCatalog())
            if (rule.kind == debugger::RuleKind::Profiler)
                add(QString::fromStdString(rule.name) + QLatin1Char('_'), rule);
    } else if (const debugger::RuleInfo* info = debugger::findRule(name.toStdString())) {
        add(QString(), *info);
    }
    // Parameters the spec sets that the catalog does not know: shown, so their problem shows.
    const SpecDocument set = m_rules->parameters(row);
    for (auto it = set.begin(); it != set.end(); ++it) {
        const QString key = QString::fromStdString(it.key());
        bool known = false;
        for (const auto& p : out)
            known = known || p.name == key;
        if (!known)
            out.push_back(Param{key, QString(), tr("unknown parameter")});
    }
    return out;
}

void RuleParameterModel::setRuleRow(int row) {
    beginResetModel();
    m_row = row;
    m_params = paramsOf(row);
    m_problems.clear();
    endResetModel();
}

int RuleParameterModel::rowOf(const QString& name) const {
    for (std::size_t i = 0; i < m_params.size(); ++i)
        if (m_params[i].name == name)
            return int(i);
    return -1;
}

void RuleParameterModel::setProblems(const QHash<QString, QString>& problems) {
    if (problems == m_problems)
        return;
    m_problems = problems;
    if (!m_params.empty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1),
                           {Qt::DecorationRole, Qt::ToolTipRole, Qt::ForegroundRole});
}

SpecDocument RuleParameterModel::explicitValue(int row) const {
    const SpecDocument set = m_rules ? m_rules->parameters(m_row) : SpecDocument::object();
    return valueAt(set, "/" + m_params[std::size_t(row)].name.toStdString());
}

int RuleParameterModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(m_params.size());
}

int RuleParameterModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RuleParameterModel::data(const QModelIndex& index, int role) const {
    if ((!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid)))
        return {};
    const Param& p = m_params[std::size_t(index.row())];
    const SpecDocument value = explicitValue(index.row());
    const auto problem = m_problems.constFind(p.name);
    const bool hasProblem = problem != m_problems.constEnd();
    const QString defaultText = p.defaultText.isEmpty() ? tr("None") : p.defaultText;
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == NameColumn)
            return p.name;
        if (index.column() == ValueColumn)
            return value.is_null() ? defaultText : valueText(value);
        return defaultText;
    case Qt::EditRole:
        if (index.column() == NameColumn)
            return p.name;
        if (index.column() == ValueColumn)
            return value.is_null() ? p.defaultText : valueText(value);
        return p.defaultText;
    case Qt::ForegroundRole:
        if (index.column() == ValueColumn && hasProblem)
            return statusColor(QStringLiteral("Failed"));
        if (index.column() == DefaultColumn || (index.column() == ValueColumn && value.is_null()))
            return mutedColor();
        return {};
    case Qt::FontRole: {
        QFont f = monospaceFont();
        f.setItalic(index.column() == ValueColumn && value.is_null());
        f.setBold(index.column() == ValueColumn && !value.is_null());
        return f;
    }
    case Qt::DecorationRole:
        if (index.column() == NameColumn && hasProblem)
            return statusIcon(QStringLiteral("Failed"));
        return {};
    case Qt::ToolTipRole:
        if (hasProblem)
            return *problem;
        return p.type;
    default:
        return {};
    }
}

bool RuleParameterModel::setData(const QModelIndex& index, const QVariant& value, int role) {
    if (role != Qt::EditRole || index.column() != ValueColumn || !m_rules ||
        (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid)))
        return false;
    const Param& p = m_params[std::size_t(index.row())];
    const QString text = value.toString().trimmed();
    const SpecDocument previous = explicitValue(index.row());
    if (previous.is_null() && text == p.defaultText)
        return true; // the default stays implicit
    if (!previous.is_null() && text == valueText(previous))
        return true;
    const QString name = p.name; // setParameter may reset this model
    m_rules->setParameter(m_row, name, valueFromText(text, previous, TextTyping::SageMaker));
    return true;
}

Qt::ItemFlags RuleParameterModel::flags(const QModelIndex& index) const {
    if ((!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid)))
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (index.column() == ValueColumn)
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant RuleParameterModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Parameter");
    case ValueColumn:
        return tr("Value");
    case DefaultColumn:
        return tr("Default");
    default:
        return {};
    }
}

} // namespace studio::models

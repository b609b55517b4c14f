#include "widgets/launch/rules_section.h"

#include "engine/debugger/rule_catalog.h"
#include "models/launch/rule_model.h"
#include "models/launch/rule_parameter_model.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPushButton>
#include <QStandardItemModel>
#include <QTableView>
#include <QVBoxLayout>

namespace studio::widgets {
namespace {

// Index of "[N]" in "rules[N]...", or -1.
int ruleIndex(const std::string& path) {
    if (path.rfind("rules[", 0) != 0)
        return -1;
    return std::atoi(path.c_str() + 6);
}

// The rule catalogue under a bold, unselectable heading per kind, then ProfilerReport; each
// rule's name is its item's Qt::UserRole data.
QStandardItemModel* catalogItems(QObject* parent) {
    auto* items = new QStandardItemModel(parent);
    auto header = [items](const QString& text) {
        auto* item = new QStandardItem(text);
        item->setFlags(Qt::NoItemFlags);
        QFont f = item->font();
        f.setBold(true);
        item->setFont(f);
        items->appendRow(item);
    };
    for (auto kind : {debugger::RuleKind::Model, debugger::RuleKind::Profiler}) {
        header(kind == debugger::RuleKind::Model ? RulesSection::tr("Model rules")
                                                 : RulesSection::tr("Profiler rules"));
        for (const auto& r : debugger::ruleCatalog()) {
            if (r.kind != kind)
                continue;
            auto* item = new QStandardItem(QStringLiteral("  ") + QString::fromStdString(r.name));
            item->setData(QString::fromStdString(r.name), Qt::UserRole);
            item->setToolTip(QString::fromStdString(r.description));
            items->appendRow(item);
        }
    }
    auto* report = new QStandardItem(QStringLiteral("  ProfilerReport"));
    report->setData(QStringLiteral("ProfilerReport"), Qt::UserRole);
    report->setToolTip(RulesSection::tr("Every profiler rule, with <Rule>_<parameter> overrides"));
    items->appendRow(report);
    return items;
}

} // namespace

RulesSection::RulesSection(QWidget* parent)
    : SpecSection(tr("Rules"),
                  tr("SageMaker Debugger rules watch the job while it trains and record findings "
                     "with advice. A rule can stop the job or notify you when it fires. Profiler "
                     "rules run under ProfilerReport unless the profiler is off."),
                  parent)
    , m_rules(new models::RuleModel(this))
    , m_parameters(new models::RuleParameterModel(m_rules, this)) {
    buildToolbar();
    buildTables();
    connectFields();

    bind(models::SpecField(
        "/rules", [this] { return m_rules->toDocument(); },
        [this](const models::SpecDocument& v) { m_rules->setDocument(v); },
        models::SpecDocument::array()));
    currentRuleChanged();
}

// The catalogue to pick a rule from, Add and Remove.
void RulesSection::buildToolbar() {
    auto* toolbar = new QHBoxLayout;
    toolbar->setSpacing(6);
    m_catalog = new QComboBox;
    m_catalog->setObjectName(QStringLiteral("ruleCatalogCombo"));
    m_catalog->setMinimumWidth(220);
    m_catalog->setModel(catalogItems(m_catalog));
    m_catalog->setCurrentIndex(1);
    m_add = new QPushButton(tr("Add rule"));
    m_add->setObjectName(QStringLiteral("addRule"));
    m_remove = new QPushButton(tr("Remove"));
    m_remove->setObjectName(QStringLiteral("removeRule"));
    for (QPushButton* b : {m_add, m_remove})
        b->setAutoDefault(false);
    toolbar->addWidget(m_catalog);
    toolbar->addWidget(m_add);
    toolbar->addStretch(1);
    toolbar->addWidget(m_remove);
    body()->addLayout(toolbar);
}

// The rules, the chosen rule's description and its parameters.
void RulesSection::buildTables() {
    m_ruleView = tableView(QStringLiteral("ruleTable"), m_rules,
                           tr("No rules. Pick one from the list and press \"Add rule\"; "
                              "profiler rules run under ProfilerReport anyway."));
    m_ruleView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_ruleView->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_ruleView->setColumnWidth(models::RuleModel::NameColumn, 190);
    m_ruleView->setColumnWidth(models::RuleModel::KindColumn, 70);
    m_ruleView->setColumnWidth(models::RuleModel::StopColumn, 105);
    m_ruleView->setColumnWidth(models::RuleModel::NotifyColumn, 70);
    m_ruleView->setMinimumHeight(170);
    body()->addWidget(fieldCell(m_ruleView, addTarget(m_ruleView, QStringLiteral("rules"),
                                                      [this](const spec::SpecError& e) {
                                                          return describeRuleProblem(e);
                                                      })),
                      2);

    m_description = new QLabel;
    m_description->setObjectName(QStringLiteral("ruleDescription"));
    m_description->setWordWrap(true);
    m_description->setTextFormat(Qt::RichText);
    body()->addWidget(m_description);

    m_parameterView = tableView(QStringLiteral("ruleParameterTable"), m_parameters, QString());
    m_parameterView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_parameterView->setColumnWidth(models::RuleParameterModel::NameColumn, 230);
    m_parameterView->setColumnWidth(models::RuleParameterModel::ValueColumn, 170);
    m_parameterView->setMinimumHeight(150);
    body()->addWidget(
        fieldCell(m_parameterView, addTarget(m_parameterView, QStringLiteral("rules[].parameters"),
                                             [this](const spec::SpecError& e) {
                                                 return describeParameterProblem(e);
                                             })),
        3);
}

void RulesSection::connectFields() {
    connect(m_add, &QPushButton::clicked, this, &RulesSection::addSelectedRule);
    connect(m_remove, &QPushButton::clicked, this, &RulesSection::removeSelectedRule);
    connect(m_ruleView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &RulesSection::currentRuleChanged);
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(m_rules, signal, this, &RulesSection::notifyChanged);
    connect(m_rules, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex&, const QModelIndex&, const QList<int>& roles) {
                if (roles.isEmpty() || roles.contains(Qt::CheckStateRole))
                    notifyChanged();
            });
    connect(m_rules, &QAbstractItemModel::rowsRemoved, this, [this] {
        selectRule(std::min(m_ruleView->currentIndex().row(), m_rules->rowCount() - 1));
    });
}

void RulesSection::afterLoad(const models::SpecDocument&) {
    selectRule(m_rules->rowCount() > 0 ? 0 : -1);
}

void RulesSection::selectRule(int row) {
    if (row < 0 || row >= m_rules->rowCount()) {
        m_ruleView->selectionModel()->clear();
        currentRuleChanged();
        return;
    }
    m_ruleView->selectionModel()->setCurrentIndex(
        m_rules->index(row, 0), QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    currentRuleChanged();
}

void RulesSection::addSelectedRule() {
    const QString name = m_catalog->currentData(Qt::UserRole).toString();
    if (name.isEmpty())
        return;
    selectRule(m_rules->addRule(name));
}

void RulesSection::removeSelectedRule() {
    const int row = m_ruleView->currentIndex().row();
    if (row >= 0)
        m_rules->removeRows(row, 1);
}

void RulesSection::currentRuleChanged() {
    const int row =
        m_ruleView->selectionModel()->hasSelection() ? m_ruleView->currentIndex().row() : -1;
    if (m_parameters->ruleRow() != row || row < 0)
        m_parameters->setRuleRow(row);
    m_remove->setEnabled(row >= 0);
    const QString name = m_rules->ruleName(row);
    const debugger::RuleInfo* info = debugger::findRule(name.toStdString());
    if (row < 0)
        m_description->setText(tr("Add a rule, then select it to set its parameters."));
    else if (name == QLatin1String("ProfilerReport"))
        m_description->setText(tr("<b>ProfilerReport</b> — runs every profiler rule; override "
                                  "a rule's parameter as &lt;Rule&gt;_&lt;parameter&gt;."));
    else
        m_description->setText(
            QStringLiteral("<b>%1</b> — %2")
                .arg(name.toHtmlEscaped(),
                     info ? QString::fromStdString(info->description).toHtmlEscaped()
                          : tr("unknown rule")));
    m_parameterView->setEnabled(row >= 0);
    showParameterProblems();
}

QString RulesSection::describeRuleProblem(const spec::SpecError& e) const {
    const int row = ruleIndex(e.path);
    if (row < 0)
        return QString::fromStdString(e.text());
    QString where = m_rules->ruleName(row);
    if (where.isEmpty())
        where = QStringLiteral("rules[%1]").arg(row);
    const auto close = e.path.find(']');
    QString rest = QString::fromStdString(e.path.substr(close + 1));
    if (rest.startsWith(QLatin1Char('.')))
        rest.remove(0, 1);
    if (!rest.isEmpty())
        where += QStringLiteral(" › ") + rest;
    return where + QStringLiteral(": ") + QString::fromStdString(e.message);
}

QString RulesSection::describeParameterProblem(const spec::SpecError& e) const {
    const int row = ruleIndex(e.path);
    const std::string marker = ".parameters.";
    const auto at = e.path.find(marker);
    const QString param = at == std::string::npos
                              ? QString()
                              : QString::fromStdString(e.path.substr(at + marker.size()));
    QString where = m_rules->ruleName(row);
    if (where.isEmpty())
        where = QStringLiteral("rules[%1]").arg(row);
    if (!param.isEmpty())
        where += QStringLiteral(" › ") + param;
    return where + QStringLiteral(": ") + QString::fromStdString(e.message);
}

void RulesSection::showProblems(const std::vector<spec::SpecError>& problems) {
    m_problems = problems;
    QHash<int, QString> byRow;
    for (const auto& e : problems) {
        const int row = ruleIndex(e.path);
        if (row < 0)
            continue;
        QString& text = byRow[row];
        text += (text.isEmpty() ? QString() : QStringLiteral("\n")) +
                QString::fromStdString(e.path + ": " + e.message);
    }
    m_rules->setProblems(byRow);
    showParameterProblems();
}

void RulesSection::showParameterProblems() {
    QHash<QString, QString> byName;
    const int row = m_parameters->ruleRow();
    const std::string prefix = "rules[" + std::to_string(row) + "].parameters.";
    for (const auto& e : m_problems)
        if (row >= 0 && e.path.rfind(prefix, 0) == 0)
            byName[QString::fromStdString(e.path.substr(prefix.size()))] =
                QString::fromStdString(e.message);
    m_parameters->setProblems(byName);
}

} // namespace studio::widgets

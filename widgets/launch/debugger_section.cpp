#include "widgets/launch/debugger_section.h"

#include "models/launch/collection_model.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QVBoxLayout>

#include <climits>

namespace studio::widgets {
namespace {

const char* const kFramework = "/profiler_config/framework_profile_params";

const QList<std::pair<QString, QString>>& builtinCollections() {
    static const QList<std::pair<QString, QString>> all = {
        {QStringLiteral("losses"), QObject::tr("the loss, train and eval mode")},
        {QStringLiteral("metrics"), QObject::tr("eval accuracy")},
        {QStringLiteral("weights"), QObject::tr("every layer's weights")},
        {QStringLiteral("gradients"), QObject::tr("every parameter's gradient")},
        {QStringLiteral("biases"), QObject::tr("every layer's biases")},
        {QStringLiteral("outputs"), QObject::tr("each block's output")}};
    return all;
}

} // namespace

DebuggerSection::DebuggerSection(QWidget* parent)
    : SpecSection(tr("Debugger & profiler"),
                  tr("The Debugger hook saves reductions of tensors while the job trains; rules "
                     "read them. The profiler samples CPU, GPU, memory and I/O of every node and "
                     "times the steps."),
                  parent)
    , m_collections(new models::CollectionModel(this)) {
    buildHookGroup();
    buildProfilerGroup();
    buildFrameworkGroup();
    body()->addStretch(1);

    connectFields();
    bindHook();
    bindProfiler();
    updateEnabled();
}

// The hook and the table of its collections.
void DebuggerSection::buildHookGroup() {
    QFormLayout* hookForm =
        addGroup(tr("Debugger hook"),
                 tr("Without collections, losses and metrics are saved every 500 steps; rules "
                    "add the collections they read. Built-in models only: scripts have no hook."));
    m_hook = new QCheckBox(tr("Save tensors with the Debugger hook"));
    m_hook->setObjectName(QStringLiteral("debuggerHook"));
    hookForm->addRow(m_hook);
    auto* toolbar = new QHBoxLayout;
    toolbar->setSpacing(6);
    m_add = new QPushButton(tr("Add collection"));
    m_add->setObjectName(QStringLiteral("addCollection"));
    m_add->setAutoDefault(false);
    m_addMenu = new QMenu(m_add);
    m_add->setMenu(m_addMenu);
    connect(m_addMenu, &QMenu::aboutToShow, this, &DebuggerSection::fillAddMenu);
    m_remove = new QPushButton(tr("Remove"));
    m_remove->setObjectName(QStringLiteral("removeCollection"));
    m_remove->setAutoDefault(false);
    toolbar->addWidget(m_add);
    toolbar->addWidget(m_remove);
    toolbar->addStretch(1);
    hookForm->addRow(toolbar);
    m_view = tableView(QStringLiteral("collectionTable"), m_collections,
                       tr("No collections configured: losses and metrics every 500 steps, plus "
                          "what the rules read."));
    m_view->setColumnWidth(models::CollectionModel::NameColumn, 130);
    m_view->setColumnWidth(models::CollectionModel::SaveIntervalColumn, 100);
    m_view->setColumnWidth(models::CollectionModel::ReductionsColumn, 170);
    m_view->setMinimumHeight(130);
    m_view->setMaximumHeight(170);
    FieldMessage* hookMessage =
        addTarget(m_view, QStringLiteral("debugger_hook_config.collection_configs"),
                  [this](const spec::SpecError& e) { return describeCollectionProblem(e); });
    hookForm->addRow(fieldCell(m_view, hookMessage));
    alsoShow(hookMessage, QStringLiteral("debugger_hook_config"));
}

void DebuggerSection::buildProfilerGroup() {
    QFormLayout* prof = addGroup(tr("Profiler"));
    m_profiler = new QCheckBox(tr("Profile the system and the framework"));
    m_profiler->setObjectName(QStringLiteral("profilerEnabled"));
    addField(prof, QString(), m_profiler, QStringLiteral("disable_profiler"),
             tr("Off: no system sampling and no profiler rules."));
    m_interval = new QComboBox;
    m_interval->setObjectName(QStringLiteral("systemMonitorInterval"));
    for (int ms : {100, 200, 500, 1000, 5000, 60000})
        m_interval->addItem(ms < 1000 ? tr("%1 ms").arg(ms)
                                      : (ms < 60000 ? tr("%1 s").arg(ms / 1000) : tr("1 min")),
                            ms);
    m_interval->setMaximumWidth(140);
    FieldMessage* intervalMessage =
        addField(prof, tr("System monitor interval"), m_interval,
                 QStringLiteral("profiler_config.system_monitor_interval_millis"));
    alsoShow(intervalMessage, QStringLiteral("profiler_config"));
}

void DebuggerSection::buildFrameworkGroup() {
    QFormLayout* fwForm = addGroup(tr("Framework profiling"),
                                   tr("Times every phase of num_steps steps from start_step on "
                                      "every rank: data loading, forward and backward per block, "
                                      "gradient sync, optimizer."),
                                   nullptr, &m_framework);
    m_framework->setObjectName(QStringLiteral("frameworkProfiling"));
    m_startStep = new QSpinBox;
    m_startStep->setObjectName(QStringLiteral("profileStartStep"));
    m_startStep->setRange(0, INT_MAX);
    m_numSteps = new QSpinBox;
    m_numSteps->setObjectName(QStringLiteral("profileNumSteps"));
    m_numSteps->setRange(1, INT_MAX);
    for (QSpinBox* s : {m_startStep, m_numSteps})
        s->setMaximumWidth(140);
    const QString fp = QStringLiteral("profiler_config.framework_profile_params");
    FieldMessage* startMessage =
        addField(fwForm, tr("Start step"), m_startStep, fp + QStringLiteral(".start_step"));
    addField(fwForm, tr("Steps"), m_numSteps, fp + QStringLiteral(".num_steps"));
    alsoShow(startMessage, fp);
}

// Edits in the table and the fields mark the page changed; the selection enables Remove.
void DebuggerSection::connectFields() {
    connect(m_remove, &QPushButton::clicked, this, [this] {
        QList<int> rows;
        for (const auto& r : m_view->selectionModel()->selectedRows())
            rows << r.row();
        std::sort(rows.begin(), rows.end(), std::greater<int>());
        for (int r : rows)
            m_collections->removeRows(r, 1);
    });
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &DebuggerSection::updateEnabled);
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(m_collections, signal, this, &DebuggerSection::notifyChanged);
    connect(m_collections, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex&, const QModelIndex&, const QList<int>& roles) {
                if (roles.isEmpty() || roles.contains(Qt::EditRole))
                    notifyChanged();
            });
    watch(m_hook);
    watch(m_profiler);
    watch(m_interval);
    watch(m_framework);
    watch(m_startStep);
    watch(m_numSteps);
    connect(this, &SpecSection::changed, this, &DebuggerSection::updateEnabled);
}

// debugger_hook_config, and whether the profiler runs.
void DebuggerSection::bindHook() {
    bind(models::SpecField(
             "/debugger_hook_config", [this] { return hookValue(); },
             [this](const models::SpecDocument& v) { showHook(v); }, models::SpecDocument::array())
             .apply(&DebuggerSection::applyHook));
    // disable_profiler, or profiler_config.disable_profiler where the spec said it there.
    bind(models::SpecField(
             "/disable_profiler", [this] { return models::SpecDocument(!m_profiler->isChecked()); },
             [this](const models::SpecDocument& v) {
                 m_profiler->setChecked(!(v.is_boolean() && v.get<bool>()));
             },
             false)
             .extract([](const models::SpecDocument& doc) {
                 const models::SpecDocument top = models::valueAt(doc, "/disable_profiler");
                 const models::SpecDocument inner =
                     models::valueAt(doc, "/profiler_config/disable_profiler");
                 if ((top.is_boolean() && top.get<bool>()) ||
                     (inner.is_boolean() && inner.get<bool>()))
                     return models::SpecDocument(true);
                 return top;
             })
             .apply([](models::SpecDocument& doc, const models::SpecDocument& v) {
                 if (v.get<bool>() || models::findAt(doc, "/disable_profiler"))
                     models::putAt(doc, "/disable_profiler", v);
                 if (!v.get<bool>())
                     models::eraseAt(doc, "/profiler_config/disable_profiler");
             }));
}

void DebuggerSection::bindProfiler() {
    bind(models::SpecField(
        "/profiler_config/system_monitor_interval_millis",
        [this] { return models::SpecDocument(m_interval->currentData().toInt()); },
        [this](const models::SpecDocument& v) {
            const int i = m_interval->findData(v.is_number_integer() ? v.get<int>() : 500);
            m_interval->setCurrentIndex(i >= 0 ? i : m_interval->findData(500));
        },
        500));
    bind(models::SpecField(
             kFramework,
             [this] {
                 if (!m_framework->isChecked())
                     return models::SpecDocument();
                 models::SpecDocument o = models::SpecDocument::object();
                 o["start_step"] = m_startStep->value();
                 o["num_steps"] = m_numSteps->value();
                 return o;
             },
             [this](const models::SpecDocument& v) {
                 m_framework->setChecked(v.is_object());
                 const models::SpecDocument s =
                     v.is_object() ? models::valueAt(v, "/start_step") : models::SpecDocument();
                 const models::SpecDocument n =
                     v.is_object() ? models::valueAt(v, "/num_steps") : models::SpecDocument();
                 m_startStep->setValue(s.is_number_integer() ? s.get<int>() : 5);
                 m_numSteps->setValue(n.is_number_integer() ? n.get<int>() : 10);
             })
             .apply([](models::SpecDocument& doc, const models::SpecDocument& v) {
                 if (v.is_null()) {
                     models::eraseAt(doc, kFramework);
                     return;
                 }
                 const std::string f = kFramework;
                 for (const char* k : {"/start_unix_time", "/duration"})
                     models::eraseAt(doc, f + k);
                 models::putAt(doc, f + "/start_step", v["start_step"]);
                 models::putAt(doc, f + "/num_steps", v["num_steps"]);
             }));
}

models::SpecDocument DebuggerSection::hookValue() const {
    return m_hook->isChecked() ? m_collections->toDocument() : models::SpecDocument(false);
}

void DebuggerSection::showHook(const models::SpecDocument& v) {
    m_hook->setChecked(!v.is_boolean() || v.get<bool>());
    m_collections->setDocument(v.is_object() ? models::valueAt(v, "/collection_configs")
                                             : models::SpecDocument());
}

void DebuggerSection::applyHook(models::SpecDocument& doc, const models::SpecDocument& v) {
    if (v.is_boolean()) {
        models::putAt(doc, "/debugger_hook_config", v);
        return;
    }
    const models::SpecDocument* current = models::findAt(doc, "/debugger_hook_config");
    if (current && !current->is_object())
        models::eraseAt(doc, "/debugger_hook_config");
    if (v.empty())
        models::eraseAt(doc, "/debugger_hook_config/collection_configs");
    else
        models::putAt(doc, "/debugger_hook_config/collection_configs", v);
}

void DebuggerSection::afterLoad(const models::SpecDocument&) {
    updateEnabled();
}

void DebuggerSection::updateEnabled() {
    const bool hook = m_hook->isChecked();
    m_view->setEnabled(hook);
    m_add->setEnabled(hook);
    m_remove->setEnabled(hook && m_view->selectionModel()->hasSelection());
    const bool prof = m_profiler->isChecked();
    m_interval->setEnabled(prof);
    m_framework->setEnabled(prof);
}

void DebuggerSection::fillAddMenu() {
    m_addMenu->clear();
    for (const auto& [name, about] : builtinCollections()) {
        QAction* a = m_addMenu->addAction(name + QStringLiteral("  —  ") + about, this,
                                          [this, name = name] { addCollection(name); });
        a->setEnabled(!m_collections->contains(name));
    }
    m_addMenu->addSeparator();
    m_addMenu->addAction(tr("Custom collection (include regex)"), this,
                         [this] { addCollection(QString()); });
}

void DebuggerSection::addCollection(const QString& name) {
    int row = 0;
    if (name.isEmpty()) {
        models::SpecDocument params = models::SpecDocument::object();
        params["include_regex"] = ".*relu_output";
        row = m_collections->addCollection(QStringLiteral("custom"), params);
    } else {
        row = m_collections->addCollection(name);
    }
    const QModelIndex idx =
        m_collections->index(row, name.isEmpty() ? models::CollectionModel::NameColumn
                                                 : models::CollectionModel::SaveIntervalColumn);
    m_view->setCurrentIndex(idx);
    m_view->edit(idx);
}

namespace {
const std::string kCollectionPrefix = "debugger_hook_config.collection_configs[";
}

QString DebuggerSection::describeCollectionProblem(const spec::SpecError& e) const {
    if (e.path.rfind(kCollectionPrefix, 0) != 0)
        return QString::fromStdString(e.text());
    const int row = std::atoi(e.path.c_str() + kCollectionPrefix.size());
    QString where =
        m_collections->index(row, models::CollectionModel::NameColumn).data().toString();
    if (where.isEmpty())
        where = QStringLiteral("collection %1").arg(row + 1);
    QString rest = QString::fromStdString(e.path.substr(e.path.find(']') + 1));
    if (rest.startsWith(QLatin1Char('.')))
        rest.remove(0, 1);
    if (!rest.isEmpty())
        where += QStringLiteral(" › ") + rest;
    return where + QStringLiteral(": ") + QString::fromStdString(e.message);
}

void DebuggerSection::showProblems(const std::vector<spec::SpecError>& problems) {
    QHash<int, QString> byRow;
    for (const auto& e : problems) {
        if (e.path.rfind(kCollectionPrefix, 0) != 0)
            continue;
        const int row = std::atoi(e.path.c_str() + kCollectionPrefix.size());
        QString& text = byRow[row];
        text += (text.isEmpty() ? QString() : QStringLiteral("\n")) + describeCollectionProblem(e);
    }
    m_collections->setProblems(byRow);
}

} // namespace studio::widgets

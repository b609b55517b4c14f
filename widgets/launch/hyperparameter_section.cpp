#include "widgets/launch/hyperparameter_section.h"

#include "engine/train/builtin_models.h"
#include "models/launch/hyperparameter_model.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QMenu>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace studio::widgets {
namespace {

models::SpecDocument typedDefault(const train::HyperparameterInfo& info, const QString& model) {
    const std::string text = train::builtinDefault(info, model.toStdString());
    return models::valueFromText(QString::fromStdString(text), models::SpecDocument(),
                                 models::TextTyping::Inferred);
}

} // namespace

HyperparameterSection::HyperparameterSection(QWidget* parent)
    : SpecSection(tr("Hyperparameters"),
                  tr("Passed to scripts as --name value (sorted by name) and in SM_HPS; the "
                     "built-in trainer validates its own. Double-click a cell to edit it."),
                  parent)
    , m_model(new models::HyperparameterModel(this)) {
    auto* toolbar = new QHBoxLayout;
    toolbar->setSpacing(6);
    m_add = new QPushButton(tr("Add parameter"));
    m_add->setObjectName(QStringLiteral("addHyperparameter"));
    m_add->setAutoDefault(false);
    m_addMenu = new QMenu(m_add);
    m_add->setMenu(m_addMenu);
    connect(m_addMenu, &QMenu::aboutToShow, this, &HyperparameterSection::fillAddMenu);
    m_remove = new QPushButton(tr("Remove"));
    m_remove->setObjectName(QStringLiteral("removeHyperparameter"));
    m_reset = new QPushButton(tr("Reset to model defaults"));
    m_reset->setObjectName(QStringLiteral("resetHyperparameters"));
    for (QPushButton* b : {m_remove, m_reset})
        b->setAutoDefault(false);
    toolbar->addWidget(m_add);
    toolbar->addWidget(m_remove);
    toolbar->addStretch(1);
    toolbar->addWidget(m_reset);
    body()->addLayout(toolbar);

    m_view = tableView(QStringLiteral("hyperparameterTable"), m_model,
                       tr("No hyperparameters: the built-in trainer uses its defaults. Add one "
                          "with \"Add parameter\"."));
    m_view->setColumnWidth(models::HyperparameterModel::NameColumn, 170);
    m_view->setColumnWidth(models::HyperparameterModel::ValueColumn, 150);
    m_view->setMinimumHeight(300);
    body()->addWidget(fieldCell(m_view, addTarget(m_view, QStringLiteral("hyperparameters"))), 1);

    connect(m_remove, &QPushButton::clicked, this, &HyperparameterSection::removeSelected);
    connect(m_reset, &QPushButton::clicked, this, &HyperparameterSection::resetDefaults);
    for (auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(m_model, signal, this, &HyperparameterSection::notifyChanged);
    connect(m_model, &QAbstractItemModel::dataChanged, this,
            [this](const QModelIndex&, const QModelIndex&, const QList<int>& roles) {
                if (roles.isEmpty() || roles.contains(Qt::EditRole))
                    notifyChanged();
            });
    connect(m_view->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            [this] { m_remove->setEnabled(m_view->selectionModel()->hasSelection()); });
    m_remove->setEnabled(false);

    bind(models::SpecField(
        "/hyperparameters", [this] { return m_model->toDocument(); },
        [this](const models::SpecDocument& v) { m_model->setDocument(v); },
        models::SpecDocument::object()));
    setBuiltinModel(QString());
}

void HyperparameterSection::setBuiltinModel(const QString& model) {
    m_model->setBuiltinModel(model);
    m_reset->setVisible(!model.isEmpty());
    m_view->setColumnHidden(models::HyperparameterModel::AboutColumn, model.isEmpty());
}

models::SpecDocument HyperparameterSection::defaultsFor(const QString& model) {
    models::SpecDocument out = models::SpecDocument::object();
    QStringList names = {QStringLiteral("epochs"), QStringLiteral("batch-size"),
                         QStringLiteral("lr")};
    if (model == QLatin1String("mlp"))
        names << QStringLiteral("hidden") << QStringLiteral("depth");
    if (model == QLatin1String("transformer-lm"))
        names << QStringLiteral("seq-len") << QStringLiteral("d-model") << QStringLiteral("layers")
              << QStringLiteral("heads");
    for (const auto& n : names)
        if (const auto* info = train::findBuiltinHyperparameter(n.toStdString()))
            out[n.toStdString()] = typedDefault(*info, model);
    return out;
}

void HyperparameterSection::switchModel(const QString& model, const QString& previous) {
    setBuiltinModel(model);
    if (model.isEmpty())
        return;
    const models::SpecDocument current = m_model->toDocument();
    if (current.empty() || current == defaultsFor(previous)) {
        m_model->setDocument(defaultsFor(model));
        notifyChanged();
        return;
    }
    const auto* lr = train::findBuiltinHyperparameter("lr");
    if (!previous.isEmpty() && lr && current.contains("lr") &&
        current["lr"] == typedDefault(*lr, previous))
        m_model->setParameter(QStringLiteral("lr"), typedDefault(*lr, model));
}

void HyperparameterSection::fillAddMenu() {
    m_addMenu->clear();
    const QString model = m_model->builtinModel();
    if (!model.isEmpty()) {
        for (const auto& name : train::builtinHyperparameterNames(model.toStdString())) {
            const QString n = QString::fromStdString(name);
            if (m_model->contains(n))
                continue;
            const auto* info = train::findBuiltinHyperparameter(name);
            QAction* a = m_addMenu->addAction(n, this, [this, n, info, model] {
                const QModelIndex idx = m_model->setParameter(n, typedDefault(*info, model));
                m_view->setCurrentIndex(idx);
                m_view->edit(idx);
            });
            a->setToolTip(QString::fromStdString(info->description));
        }
        m_addMenu->addSeparator();
    }
    m_addMenu->addAction(tr("Custom parameter"), this, &HyperparameterSection::addCustom);
}

void HyperparameterSection::addCustom() {
    QString name = QStringLiteral("name");
    for (int i = 2; m_model->contains(name); ++i)
        name = QStringLiteral("name-%1").arg(i);
    const QModelIndex idx = m_model->setParameter(name, models::SpecDocument(""));
    const QModelIndex nameIndex = idx.siblingAtColumn(models::HyperparameterModel::NameColumn);
    m_view->setCurrentIndex(nameIndex);
    m_view->edit(nameIndex);
}

void HyperparameterSection::removeSelected() {
    const QModelIndexList rows = m_view->selectionModel()->selectedRows();
    QList<int> numbers;
    for (const auto& r : rows)
        numbers << r.row();
    std::sort(numbers.begin(), numbers.end(), std::greater<int>());
    for (int r : numbers)
        m_model->removeRows(r, 1);
}

void HyperparameterSection::resetDefaults() {
    m_model->setDocument(defaultsFor(m_model->builtinModel()));
    notifyChanged();
}

void HyperparameterSection::showProblems(const std::vector<spec::SpecError>& problems) {
    QHash<QString, QString> byName;
    const std::string prefix = "hyperparameters.";
    for (const auto& e : problems) {
        if (e.path.rfind(prefix, 0) != 0)
            continue;
        QString& text = byName[QString::fromStdString(e.path.substr(prefix.size()))];
        text +=
            (text.isEmpty() ? QString() : QStringLiteral("\n")) + QString::fromStdString(e.message);
    }
    m_model->setProblems(byName);
}

} // namespace studio::widgets

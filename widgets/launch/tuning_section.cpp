#include "widgets/launch/tuning_section.h"

#include "models/launch/tuning_range_model.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QSpinBox>
#include <QStyledItemDelegate>
#include <QTableView>

#include <iterator>

namespace studio::widgets {

namespace {

// Type and Scaling cells edit with a list of the allowed words.
class ChoiceDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;

    QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option,
                          const QModelIndex& index) const override {
        const QStringList choices = index.column() == models::TuningRangeModel::TypeColumn
                                        ? models::TuningRangeModel::types()
                                    : index.column() == models::TuningRangeModel::ScalingColumn
                                        ? models::TuningRangeModel::scalings()
                                        : QStringList();
        if (choices.isEmpty())
            return QStyledItemDelegate::createEditor(parent, option, index);
        auto* combo = new QComboBox(parent);
        combo->addItems(choices);
        return combo;
    }
    void setEditorData(QWidget* editor, const QModelIndex& index) const override {
        if (auto* combo = qobject_cast<QComboBox*>(editor))
            combo->setCurrentText(index.data(Qt::EditRole).toString());
        else
            QStyledItemDelegate::setEditorData(editor, index);
    }
    void setModelData(QWidget* editor, QAbstractItemModel* model,
                      const QModelIndex& index) const override {
        if (auto* combo = qobject_cast<QComboBox*>(editor))
            model->setData(index, combo->currentText());
        else
            QStyledItemDelegate::setModelData(editor, model, index);
    }
};

QComboBox* choices(const QString& name, const QStringList& items) {
    auto* c = new QComboBox;
    c->setObjectName(name);
    c->addItems(items);
    return c;
}

QSpinBox* spin(const QString& name, int max, int value) {
    auto* s = new QSpinBox;
    s->setObjectName(name);
    s->setRange(1, max);
    s->setValue(value);
    return s;
}

} // namespace

TuningSection::TuningSection(QWidget* parent)
    : SpecSection(tr("Tuning"),
                  tr("Run the job as a hyperparameter tuning job: the search launches up to "
                     "max_jobs training jobs, each with hyperparameters from the ranges below, "
                     "and keeps the one with the best objective."),
                  parent) {
    QFormLayout* form = addGroup(tr("Tune hyperparameters"), {}, nullptr, &m_switch);
    m_switch->setObjectName(QStringLiteral("tuneSwitch"));
    connect(m_switch, &QCheckBox::toggled, this, [this](bool on) {
        Q_EMIT tuningToggled(on);
        notifyChanged();
    });
    m_objective = choices(QStringLiteral("objectiveMetric"), {});
    m_objective->setEditable(true);
    addField(form, tr("Objective metric"), m_objective,
             QStringLiteral("tuning.objective_metric_name"),
             tr("A metric the training job reports; its last value is the job's objective."));
    m_objectiveType = choices(QStringLiteral("objectiveType"),
                              {QStringLiteral("Maximize"), QStringLiteral("Minimize")});
    addField(form, tr("Objective type"), m_objectiveType, QStringLiteral("tuning.objective_type"));
    m_strategy =
        choices(QStringLiteral("strategy"), {QStringLiteral("Bayesian"), QStringLiteral("Random"),
                                             QStringLiteral("Grid"), QStringLiteral("Hyperband")});
    addField(form, tr("Strategy"), m_strategy, QStringLiteral("tuning.strategy"));
    m_maxJobs = spin(QStringLiteral("maxJobs"), 500, 10);
    addField(form, tr("Max jobs"), m_maxJobs, QStringLiteral("tuning.max_jobs"));
    m_maxParallel = spin(QStringLiteral("maxParallelJobs"), 100, 2);
    addField(form, tr("Max parallel jobs"), m_maxParallel,
             QStringLiteral("tuning.max_parallel_jobs"));
    m_earlyStopping =
        choices(QStringLiteral("earlyStopping"), {QStringLiteral("Off"), QStringLiteral("Auto")});
    addField(form, tr("Early stopping"), m_earlyStopping,
             QStringLiteral("tuning.early_stopping_type"),
             tr("Auto stops a job whose objective falls below the median of earlier jobs at the "
                "same epoch."));
    m_ranges = new models::TuningRangeModel(this);
    m_table = tableView(QStringLiteral("tuningRanges"), m_ranges,
                        tr("The job spec has no hyperparameters to tune"));
    m_table->setItemDelegate(new ChoiceDelegate(m_table));
    m_table->setMinimumHeight(200);
    m_table->horizontalHeader()->setStretchLastSection(true);
    const int widths[] = {44, 120, 96, 64, 64, 110};
    for (int c = 0; c < int(std::size(widths)); ++c)
        m_table->horizontalHeader()->resizeSection(c, widths[c]);
    FieldMessage* rangesMessage =
        addField(form, tr("Ranges"), m_table, QStringLiteral("tuning.hyperparameter_ranges"),
                 tr("Tick a hyperparameter to tune it; double-click a cell to edit its range."));
    alsoShow(rangesMessage, QStringLiteral("tuning"));
    connect(m_ranges, &QAbstractItemModel::dataChanged, this, [this] { notifyChanged(); });
    for (QComboBox* c : {m_objective, m_objectiveType, m_strategy, m_earlyStopping})
        watch(c);
    for (QSpinBox* s : {m_maxJobs, m_maxParallel})
        watch(s);
    body()->addStretch(1);
}

bool TuningSection::tuning() const {
    return m_switch->isChecked();
}

void TuningSection::setTuning(bool on) {
    m_switch->setChecked(on);
}

models::SpecDocument TuningSection::tuningObject() const {
    models::SpecDocument t = m_extra;
    t["objective_metric_name"] = m_objective->currentText().trimmed().toStdString();
    t["objective_type"] = m_objectiveType->currentText().toStdString();
    t["strategy"] = m_strategy->currentText().toStdString();
    t["max_jobs"] = m_maxJobs->value();
    t["max_parallel_jobs"] = m_maxParallel->value();
    t["early_stopping_type"] = m_earlyStopping->currentText().toStdString();
    t["hyperparameter_ranges"] = m_ranges->ranges();
    return t;
}

void TuningSection::setTuningObject(const models::SpecDocument& tuning) {
    m_extra = tuning.is_object() ? tuning : models::SpecDocument::object();
    auto text = [&](const char* key) {
        const QString v = models::valueText(models::valueAt(m_extra, std::string("/") + key));
        m_extra.erase(key);
        return v;
    };
    m_objective->setCurrentText(text("objective_metric_name"));
    if (const QString v = text("objective_type"); !v.isEmpty())
        m_objectiveType->setCurrentText(v);
    if (const QString v = text("strategy"); !v.isEmpty())
        m_strategy->setCurrentText(v);
    if (const QString v = text("early_stopping_type"); !v.isEmpty())
        m_earlyStopping->setCurrentText(v);
    if (const QString v = text("max_jobs"); !v.isEmpty())
        m_maxJobs->setValue(v.toInt());
    if (const QString v = text("max_parallel_jobs"); !v.isEmpty())
        m_maxParallel->setValue(v.toInt());
    m_ranges->setRanges(models::valueAt(m_extra, "/hyperparameter_ranges"));
    m_extra.erase("hyperparameter_ranges");
    setTuning(true);
}

void TuningSection::setJobSpec(const models::SpecDocument& spec, const QString& builtinModel) {
    m_ranges->setHyperparameters(models::valueAt(spec, "/hyperparameters"));
    QStringList metrics;
    if (!builtinModel.isEmpty())
        metrics << QStringLiteral("eval:accuracy") << QStringLiteral("eval:loss")
                << QStringLiteral("train:loss");
    if (const models::SpecDocument* defs = models::findAt(spec, "/metric_definitions");
        defs && defs->is_array())
        for (const auto& d : *defs)
            if (const QString name = models::valueText(models::valueAt(d, "/Name"));
                !name.isEmpty())
                metrics << name;
    const QString current = m_objective->currentText();
    const QSignalBlocker block(m_objective);
    m_objective->clear();
    m_objective->addItems(metrics);
    // A metric the job no longer reports gives way to one it does (a typo stays, to be shown).
    const bool known = metrics.contains(current) || m_knownMetrics.contains(current);
    m_objective->setCurrentText(
        current.isEmpty() || (known && !metrics.contains(current)) ? metrics.value(0) : current);
    m_knownMetrics = metrics;
}

} // namespace studio::widgets

#include "widgets/launch/job_section.h"

#include "widgets/common/field_message.h"

#include <QFormLayout>
#include <QLineEdit>

namespace studio::widgets {
namespace {

models::SpecDocument textValue(const QLineEdit* e) {
    const QString t = e->text().trimmed();
    return t.isEmpty() ? models::SpecDocument() : models::SpecDocument(t.toStdString());
}

void showText(QLineEdit* e, const models::SpecDocument& v) {
    e->setText(v.is_string() ? models::valueText(v) : QString());
}

} // namespace

JobSection::JobSection(QWidget* parent)
    : SpecSection(tr("Job"),
                  tr("Name the job and file it under an experiment and trial, so runs that "
                     "belong together can be compared."),
                  parent) {
    QFormLayout* form = addGroup(tr("Job settings"));
    m_name = formLineEdit(QStringLiteral("jobName"), QString());
    m_name->setMaxLength(38);
    FieldMessage* nameMessage =
        addField(form, tr("Base name"), m_name, QStringLiteral("name"),
                 tr("Up to 38 letters, digits and hyphens. The job is named "
                    "<base name>-<UTC timestamp>."));
    alsoShow(nameMessage, QStringLiteral("base_job_name"));
    watch(m_name);

    QFormLayout* exp =
        addGroup(tr("Experiment"), tr("Without an experiment the job goes to \"Unassigned\", in a "
                                      "trial named after the job."));
    m_experiment = formLineEdit(QStringLiteral("experimentName"), tr("Unassigned"));
    m_trial = formLineEdit(QStringLiteral("trialName"), tr("named after the job"));
    m_displayName = formLineEdit(QStringLiteral("trialDisplayName"), tr("optional"));
    FieldMessage* expMessage = addField(exp, tr("Experiment"), m_experiment,
                                        QStringLiteral("experiment_config.ExperimentName"));
    addField(exp, tr("Trial"), m_trial, QStringLiteral("experiment_config.TrialName"));
    FieldMessage* displayMessage =
        addField(exp, tr("Display name"), m_displayName,
                 QStringLiteral("experiment_config.TrialComponentDisplayName"),
                 tr("How this run is labelled in trial comparisons."));
    alsoShow(displayMessage, QStringLiteral("experiment_config.RunName"));
    alsoShow(expMessage, QStringLiteral("experiment_config"));
    for (QLineEdit* e : {m_experiment, m_trial, m_displayName})
        watch(e);
    body()->addStretch(1);

    // "name" or its SDK alias "base_job_name", written back where it came from.
    bind(models::SpecField(
             "/name", [this] { return textValue(m_name); },
             [this](const models::SpecDocument& v) { showText(m_name, v); }, models::SpecDocument())
             .extract([](const models::SpecDocument& doc) {
                 models::SpecDocument v = models::valueAt(doc, "/name");
                 return v.is_null() ? models::valueAt(doc, "/base_job_name") : v;
             })
             .apply([](models::SpecDocument& doc, const models::SpecDocument& v) {
                 const bool alias =
                     !models::findAt(doc, "/name") && models::findAt(doc, "/base_job_name");
                 const char* pointer = alias ? "/base_job_name" : "/name";
                 if (v.is_null())
                     models::eraseAt(doc, pointer);
                 else
                     models::putAt(doc, pointer, v);
             }));
    auto text = [this](const char* pointer, QLineEdit* e) {
        bind(models::SpecField(
            pointer, [e] { return textValue(e); },
            [e](const models::SpecDocument& v) { showText(e, v); }));
    };
    text("/experiment_config/ExperimentName", m_experiment);
    text("/experiment_config/TrialName", m_trial);
    // TrialComponentDisplayName, or RunName where the spec used that.
    bind(models::SpecField(
             "/experiment_config/TrialComponentDisplayName",
             [this] { return textValue(m_displayName); },
             [this](const models::SpecDocument& v) { showText(m_displayName, v); })
             .extract([](const models::SpecDocument& doc) {
                 models::SpecDocument v =
                     models::valueAt(doc, "/experiment_config/TrialComponentDisplayName");
                 return v.is_null() ? models::valueAt(doc, "/experiment_config/RunName") : v;
             })
             .apply([](models::SpecDocument& doc, const models::SpecDocument& v) {
                 const bool alias =
                     !models::findAt(doc, "/experiment_config/TrialComponentDisplayName") &&
                     models::findAt(doc, "/experiment_config/RunName");
                 const char* pointer = alias ? "/experiment_config/RunName"
                                             : "/experiment_config/TrialComponentDisplayName";
                 if (v.is_null())
                     models::eraseAt(doc, pointer);
                 else
                     models::putAt(doc, pointer, v);
             }));
}

void JobSection::setDefaultName(const QString& name) {
    m_name->setPlaceholderText(name);
}

} // namespace studio::widgets

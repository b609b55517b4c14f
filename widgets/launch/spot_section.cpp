#include "widgets/launch/spot_section.h"

#include "widgets/common/theme.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <climits>

namespace studio::widgets {
namespace {

constexpr int kMaxSeconds = 28 * 24 * 3600;

QSpinBox* secondsSpin(const QString& objectName, int min) {
    auto* s = new QSpinBox;
    s->setObjectName(objectName);
    s->setRange(min, kMaxSeconds);
    s->setSuffix(QStringLiteral(" s"));
    s->setSingleStep(600);
    s->setAccelerated(true);
    s->setMinimumWidth(130);
    return s;
}

} // namespace

SpotSection::SpotSection(QWidget* parent)
    : SpecSection(tr("Spot training"),
                  tr("Spot capacity costs less but can be taken away. The job checkpoints, "
                     "waits for capacity and resumes from its newest checkpoint, within "
                     "max_wait."),
                  parent) {
    buildSpotGroup();
    buildCheckpointGroup();
    buildSimulationGroup();
    body()->addStretch(1);

    connectFields();
    bindFields();
    updateEnabled();
}

// Spot on or off, the time limits and the retries.
void SpotSection::buildSpotGroup() {
    QFormLayout* form = addGroup(tr("Managed spot training"));
    m_useSpot = new QCheckBox(tr("Use spot instances"));
    m_useSpot->setObjectName(QStringLiteral("useSpot"));
    addField(form, QString(), m_useSpot, QStringLiteral("use_spot_instances"));

    m_maxRun = secondsSpin(QStringLiteral("maxRun"), 1);
    m_maxRunText = hintLabel(QString());
    addField(form, tr("Max run time"), withNote(m_maxRun, m_maxRunText), QStringLiteral("max_run"),
             tr("Training time after which the job stops (MaxRuntimeExceeded)."), m_maxRun);
    m_maxWait = secondsSpin(QStringLiteral("maxWait"), 0);
    m_maxWait->setSpecialValueText(tr("not set"));
    m_maxWaitText = hintLabel(QString());
    addField(form, tr("Max wait time"), withNote(m_maxWait, m_maxWaitText),
             QStringLiteral("max_wait"),
             tr("All time, waiting for capacity included; at least the max run time."), m_maxWait);
    m_retries = new QSpinBox;
    m_retries->setObjectName(QStringLiteral("maxRetryAttempts"));
    m_retries->setRange(1, 30);
    m_retries->setMaximumWidth(130);
    addField(form, tr("Retry attempts"), m_retries, QStringLiteral("max_retry_attempts"));
}

void SpotSection::buildCheckpointGroup() {
    QFormLayout* ck = addGroup(tr("Checkpoints"),
                               tr("Ranks see the folder as SM_CHECKPOINT_DIR. Built-in models "
                                  "checkpoint every checkpoint-interval steps (Hyperparameters) "
                                  "and resume from the newest valid checkpoint."));
    m_checkpointPath = new QLineEdit;
    m_checkpointPath->setObjectName(QStringLiteral("checkpointLocalPath"));
    m_checkpointPath->setPlaceholderText(tr("jobs/<job>/checkpoints in the studio's home"));
    m_checkpointPath->setClearButtonEnabled(true);
    auto* browse = new QPushButton(tr("Browse…"));
    browse->setObjectName(QStringLiteral("checkpointBrowse"));
    browse->setAutoDefault(false);
    addField(ck, tr("Local path"), withButton(m_checkpointPath, browse),
             QStringLiteral("checkpoint_local_path"), QString(), m_checkpointPath);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(
            this, tr("Choose the checkpoint folder"), m_checkpointPath->text());
        if (!dir.isEmpty())
            m_checkpointPath->setText(dir);
    });
}

void SpotSection::buildSimulationGroup() {
    QFormLayout* simForm = addGroup(tr("Simulated interruptions"),
                                    tr("This machine never loses capacity; the studio can "
                                       "interrupt the job as a spot market would."),
                                    nullptr, &m_simulation);
    m_simulation->setObjectName(QStringLiteral("spotSimulation"));
    m_interruptions = new QDoubleSpinBox;
    m_interruptions->setObjectName(QStringLiteral("interruptionsPerHour"));
    m_interruptions->setRange(0, 3600);
    m_interruptions->setDecimals(1);
    m_interruptions->setSuffix(tr(" per hour"));
    m_capacityWait = new QDoubleSpinBox;
    m_capacityWait->setObjectName(QStringLiteral("meanCapacityWait"));
    m_capacityWait->setRange(0, 86400);
    m_capacityWait->setDecimals(1);
    m_capacityWait->setSuffix(QStringLiteral(" s"));
    m_seed = new QSpinBox;
    m_seed->setObjectName(QStringLiteral("simulationSeed"));
    m_seed->setRange(0, INT_MAX);
    for (QWidget* w : std::initializer_list<QWidget*>{m_interruptions, m_capacityWait, m_seed})
        w->setMaximumWidth(160);
    const QString sp = QStringLiteral("spot_simulation.");
    FieldMessage* simMessage = addField(simForm, tr("Interruptions"), m_interruptions,
                                        sp + QStringLiteral("interruptions_per_hour"));
    addField(simForm, tr("Mean capacity wait"), m_capacityWait,
             sp + QStringLiteral("mean_capacity_wait_s"));
    addField(simForm, tr("Seed"), m_seed, sp + QStringLiteral("seed"));
    alsoShow(simMessage, QStringLiteral("spot_simulation"));
}

void SpotSection::connectFields() {
    watch(m_useSpot);
    watch(m_maxRun);
    watch(m_maxWait);
    watch(m_retries);
    watch(m_checkpointPath);
    watch(m_simulation);
    watch(m_interruptions);
    watch(m_capacityWait);
    watch(m_seed);
    connect(m_useSpot, &QCheckBox::toggled, this, [this](bool on) {
        // Spot needs max_wait; offer twice the run time rather than an error.
        if (on && !loading() && m_maxWait->value() == 0)
            m_maxWait->setValue(std::min(kMaxSeconds, m_maxRun->value() * 2));
        updateEnabled();
    });
    connect(m_maxRun, &QSpinBox::valueChanged, this, &SpotSection::updateEnabled);
    connect(m_maxWait, &QSpinBox::valueChanged, this, &SpotSection::updateEnabled);
}

void SpotSection::bindFields() {
    bind(models::SpecField(
        "/use_spot_instances", [this] { return models::SpecDocument(m_useSpot->isChecked()); },
        [this](const models::SpecDocument& v) {
            m_useSpot->setChecked(v.is_boolean() && v.get<bool>());
        },
        false));
    bind(models::SpecField(
        "/max_run", [this] { return models::SpecDocument(m_maxRun->value()); },
        [this](const models::SpecDocument& v) {
            m_maxRun->setValue(v.is_number_integer() ? v.get<int>() : 86400);
        },
        86400));
    bind(models::SpecField(
        "/max_wait",
        [this] {
            return m_maxWait->value() > 0 ? models::SpecDocument(m_maxWait->value())
                                          : models::SpecDocument();
        },
        [this](const models::SpecDocument& v) {
            m_maxWait->setValue(v.is_number_integer() ? v.get<int>() : 0);
        }));
    bind(models::SpecField(
        "/max_retry_attempts", [this] { return models::SpecDocument(m_retries->value()); },
        [this](const models::SpecDocument& v) {
            m_retries->setValue(v.is_number_integer() ? v.get<int>() : 1);
        },
        1));
    bind(models::SpecField(
        "/checkpoint_local_path",
        [this] {
            const QString t = m_checkpointPath->text().trimmed();
            return t.isEmpty() ? models::SpecDocument() : models::SpecDocument(t.toStdString());
        },
        [this](const models::SpecDocument& v) {
            m_checkpointPath->setText(v.is_string() ? models::valueText(v) : QString());
        }));
    bind(models::SpecField(
        "/spot_simulation", [this] { return simulationValue(); },
        [this](const models::SpecDocument& v) { showSimulation(v); }));
}

models::SpecDocument SpotSection::simulationValue() const {
    if (!m_simulation->isChecked())
        return {};
    models::SpecDocument s = models::SpecDocument::object();
    s["interruptions_per_hour"] = models::numberValue(m_interruptions->value());
    s["mean_capacity_wait_s"] = models::numberValue(m_capacityWait->value());
    s["seed"] = m_seed->value();
    return s;
}

void SpotSection::showSimulation(const models::SpecDocument& v) {
    m_simulation->setChecked(v.is_object());
    auto number = [&](const char* key, double fallback) {
        const models::SpecDocument x =
            v.is_object() ? models::valueAt(v, std::string("/") + key) : models::SpecDocument();
        return x.is_number() ? x.get<double>() : fallback;
    };
    m_interruptions->setValue(number("interruptions_per_hour", 6));
    m_capacityWait->setValue(number("mean_capacity_wait_s", 10));
    m_seed->setValue(int(number("seed", 1)));
}

void SpotSection::afterLoad(const models::SpecDocument&) {
    updateEnabled();
}

void SpotSection::updateEnabled() {
    const bool spot = m_useSpot->isChecked();
    m_maxWait->setEnabled(spot || m_maxWait->value() > 0);
    m_retries->setEnabled(spot);
    m_simulation->setEnabled(spot || m_simulation->isChecked());
    m_maxRunText->setText(models::formatDuration(m_maxRun->value()));
    m_maxWaitText->setText(m_maxWait->value() > 0 ? models::formatDuration(m_maxWait->value())
                                                  : QString());
}

} // namespace studio::widgets

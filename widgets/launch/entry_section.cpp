#include "widgets/launch/entry_section.h"

#include "engine/train/builtin_models.h"
#include "widgets/common/field_message.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QProcess>
#include <QPushButton>
#include <QRadioButton>
#include <QVBoxLayout>

namespace studio::widgets {
namespace {

const QString kBuiltinPrefix = QStringLiteral("builtin:");

QString quoted(const QString& arg) {
    if (!arg.isEmpty() && !arg.contains(QLatin1Char(' ')) && !arg.contains(QLatin1Char('\t')) &&
        !arg.contains(QLatin1Char('"')))
        return arg;
    QString escaped = arg;
    escaped.replace(QStringLiteral("\""), QStringLiteral("\"\"\""));
    return QLatin1Char('"') + escaped + QLatin1Char('"');
}

QLineEdit* pathEdit(const QString& objectName, const QString& placeholder) {
    auto* e = new QLineEdit;
    e->setObjectName(objectName);
    e->setPlaceholderText(placeholder);
    e->setClearButtonEnabled(true);
    return e;
}

models::SpecDocument textValue(const QLineEdit* e) {
    const QString t = e->text().trimmed();
    return t.isEmpty() ? models::SpecDocument() : models::SpecDocument(t.toStdString());
}

} // namespace

EntrySection::EntrySection(QWidget* parent)
    : SpecSection(tr("Entry point"),
                  tr("What every rank runs: the studio's built-in LibTorch trainer with one of "
                     "its models, or your own script or command."),
                  parent) {
    buildKindRow();
    buildBuiltinGroup();
    buildScriptGroup();
    buildInputGroup();
    body()->addStretch(1);

    connectFields();
    bindFields();
    m_builtin->setChecked(true);
}

// Built-in model or script: which of the two groups below applies.
void EntrySection::buildKindRow() {
    auto* kindRow = new QWidget;
    auto* kindLayout = new QHBoxLayout(kindRow);
    kindLayout->setContentsMargins(0, 0, 0, 0);
    kindLayout->setSpacing(18);
    m_builtin = new QRadioButton(tr("Built-in model"));
    m_builtin->setObjectName(QStringLiteral("builtinEntry"));
    m_script = new QRadioButton(tr("Your script or command"));
    m_script->setObjectName(QStringLiteral("scriptEntry"));
    auto* group = new QButtonGroup(this);
    group->addButton(m_builtin);
    group->addButton(m_script);
    kindLayout->addWidget(m_builtin);
    kindLayout->addWidget(m_script);
    kindLayout->addStretch(1);
    body()->addWidget(kindRow);
}

void EntrySection::buildBuiltinGroup() {
    QWidget* builtinBox = nullptr;
    QFormLayout* builtinForm =
        addGroup(tr("Built-in model"),
                 tr("studio-train runs the model with data parallelism, pipelines, checkpoints "
                    "and the Debugger hook built in."),
                 &builtinBox);
    m_builtinGroup = builtinBox;
    m_model = new QComboBox;
    m_model->setObjectName(QStringLiteral("builtinModel"));
    for (const auto& m : train::builtinModels()) {
        const QString name = QString::fromStdString(m.name);
        m_model->addItem(name, name);
        m_model->setItemData(m_model->count() - 1, QString::fromStdString(m.description),
                             Qt::ToolTipRole);
    }
    m_modelDescription = hintLabel(QString());
    m_modelDescription->setObjectName(QStringLiteral("modelDescription"));
    FieldMessage* modelMessage =
        addField(builtinForm, tr("Model"), m_model, QStringLiteral("entry_point"));
    modelMessage->parentWidget()->layout()->addWidget(m_modelDescription);
}

void EntrySection::buildScriptGroup() {
    QWidget* scriptBox = nullptr;
    QFormLayout* scriptForm =
        addGroup(tr("Script"),
                 tr("A .py script runs with $MLSTUDIO_PYTHON or /usr/bin/python3; any other file "
                    "runs directly. Hyperparameters are appended as --name value."),
                 &scriptBox);
    m_scriptGroup = scriptBox;
    m_command =
        pathEdit(QStringLiteral("scriptCommand"), tr("train.py  or  /usr/bin/python3 train.py"));
    auto* browseScript = new QPushButton(tr("Browse…"));
    browseScript->setAutoDefault(false);
    browseScript->setObjectName(QStringLiteral("scriptBrowse"));
    addField(scriptForm, tr("Command"), withButton(m_command, browseScript),
             QStringLiteral("entry_point"),
             tr("A path, or a command line (quote arguments with spaces)."), m_command);
    m_sourceDir = pathEdit(QStringLiteral("sourceDir"), tr("the spec's folder"));
    auto* browseDir = new QPushButton(tr("Browse…"));
    browseDir->setAutoDefault(false);
    browseDir->setObjectName(QStringLiteral("sourceDirBrowse"));
    addField(scriptForm, tr("Working directory"), withButton(m_sourceDir, browseDir),
             QStringLiteral("source_dir"),
             tr("source_dir: where the ranks start, and what relative "
                "script paths are relative to."),
             m_sourceDir);
    connect(browseScript, &QPushButton::clicked, this, &EntrySection::browseScript);
    connect(browseDir, &QPushButton::clicked, this,
            [this] { browseDirectory(m_sourceDir, tr("Choose the working directory")); });
}

void EntrySection::buildInputGroup() {
    QFormLayout* inputForm =
        addGroup(tr("Input data"),
                 tr("Ranks see the channel as SM_CHANNEL_TRAIN. Built-in models read Fashion-MNIST "
                    "IDX files from a folder, or a text file (transformer-lm)."));
    m_trainInput = pathEdit(QStringLiteral("trainInput"), tr("none: the built-in default data"));
    auto* browseInput = new QPushButton(tr("Browse…"));
    browseInput->setObjectName(QStringLiteral("trainInputBrowse"));
    browseInput->setAutoDefault(false);
    auto* inputMenu = new QMenu(browseInput);
    inputMenu->addAction(tr("Choose a folder…"), this, [this] {
        browseDirectory(m_trainInput, tr("Choose the training data folder"));
    });
    inputMenu->addAction(tr("Choose a file…"), this, &EntrySection::browseInputFile);
    browseInput->setMenu(inputMenu);
    FieldMessage* inputMessage =
        addField(inputForm, tr("Channel \"train\""), withButton(m_trainInput, browseInput),
                 QStringLiteral("inputs.train"), QString(), m_trainInput);
    alsoShow(inputMessage, QStringLiteral("inputs"));
}

void EntrySection::connectFields() {
    for (QRadioButton* b : {m_builtin, m_script})
        connect(b, &QRadioButton::toggled, this, [this](bool on) {
            if (on)
                updateKind();
        });
    connect(m_model, &QComboBox::currentIndexChanged, this, [this] { updateKind(); });
    for (QLineEdit* e : {m_command, m_sourceDir, m_trainInput})
        watch(e);
}

void EntrySection::bindFields() {
    bind(models::SpecField(
        "/entry_point", [this] { return entryValue(); },
        [this](const models::SpecDocument& v) { showEntry(v); }));
    bind(models::SpecField(
        "/source_dir", [this] { return textValue(m_sourceDir); },
        [this](const models::SpecDocument& v) {
            m_sourceDir->setText(v.is_string() ? models::valueText(v) : QString());
        }));
    bind(models::SpecField(
        "/inputs/train", [this] { return textValue(m_trainInput); },
        [this](const models::SpecDocument& v) {
            m_trainInput->setText(v.is_string() ? models::valueText(v) : QString());
        }));
}

QString EntrySection::builtinModel() const {
    return m_builtin->isChecked() ? m_model->currentData().toString() : QString();
}

QString EntrySection::defaultJobName() const {
    if (m_builtin->isChecked())
        return m_model->currentData().toString();
    const QStringList args = QProcess::splitCommand(m_command->text());
    return args.isEmpty() ? QStringLiteral("job") : QFileInfo(args.last()).completeBaseName();
}

models::SpecDocument EntrySection::entryValue() const {
    if (m_builtin->isChecked())
        return QString(kBuiltinPrefix + m_model->currentData().toString()).toStdString();
    const QStringList args = QProcess::splitCommand(m_command->text());
    if (args.isEmpty())
        return {};
    if (args.size() == 1)
        return args.front().toStdString();
    models::SpecDocument argv = models::SpecDocument::array();
    for (const auto& a : args)
        argv.push_back(a.toStdString());
    return argv;
}

void EntrySection::showEntry(const models::SpecDocument& v) {
    const QString text = v.is_string() ? models::valueText(v) : QString();
    if (text.startsWith(kBuiltinPrefix)) {
        const QString model = text.mid(kBuiltinPrefix.size());
        if (m_model->findData(model) < 0)
            m_model->addItem(model, model); // unknown: kept, so the validator can name it
        m_model->setCurrentIndex(m_model->findData(model));
        m_command->clear();
        m_builtin->setChecked(true);
    } else {
        QStringList parts;
        if (v.is_array()) {
            for (const auto& a : v)
                parts << quoted(models::valueText(a));
        } else if (v.is_string()) {
            parts << quoted(text);
        }
        m_command->setText(parts.join(QLatin1Char(' ')));
        m_script->setChecked(true);
    }
    updateKind();
}

void EntrySection::updateKind() {
    const bool builtin = m_builtin->isChecked();
    m_builtinGroup->setVisible(builtin);
    m_scriptGroup->setVisible(!builtin);
    const auto* info = train::findBuiltinModel(m_model->currentData().toString().toStdString());
    m_modelDescription->setText(info ? QString::fromStdString(info->description) : QString());
    const QString model = builtinModel();
    if (model != m_lastModel && !loading())
        Q_EMIT builtinModelEdited(model, m_lastModel);
    m_lastModel = model;
    notifyChanged();
}

void EntrySection::browseScript() {
    const QString start = QFileInfo(m_command->text()).absolutePath();
    const QString path = QFileDialog::getOpenFileName(this, tr("Choose a training script"), start,
                                                      tr("Scripts (*.py *.sh);;All files (*)"));
    if (path.isEmpty())
        return;
    m_command->setText(quoted(path));
    if (m_sourceDir->text().isEmpty())
        m_sourceDir->setText(QFileInfo(path).absolutePath());
}

void EntrySection::browseDirectory(QLineEdit* into, const QString& title) {
    const QString path = QFileDialog::getExistingDirectory(this, title, into->text());
    if (!path.isEmpty())
        into->setText(path);
}

void EntrySection::browseInputFile() {
    const QString path = QFileDialog::getOpenFileName(this, tr("Choose the training data file"),
                                                      m_trainInput->text());
    if (!path.isEmpty())
        m_trainInput->setText(path);
}

} // namespace studio::widgets
